"""cafe.course.grading: a class's submissions, copied and run offline without secrets, become a gradebook
that names every problem, and no submission is changed."""

from __future__ import annotations

import csv
import hashlib
import json
import zipfile
from pathlib import Path

import learners
import pytest

from cafe.course.grading import command, gradebook, handin, runner, submissions, writers
from cafe.course.grading.gradebook import Line

SECRET = "sk-instructor-SECRET-0123456789abcdef"
TOKEN = "instructor-cloud-token-9876543210"


def tree_digest(root: Path) -> str:
    """One hash of every file's path and bytes under `root`."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _replace_cell(nb: dict, holding: str, source: str) -> dict:
    number = learners.code_cell_number(nb, holding)
    [cell for cell in nb["cells"] if cell["cell_type"] == "code"][number]["source"] = source
    return nb


OLD_PROGRESS = {
    "version": 0,
    "answers": {"s01.why_budget": "because"},
    "exercises": {"s01.repeat_guard": {"status": "pass"}},
    "outcomes": {"s01.first_turn": {"predicted": "two", "actual": "three", "match": False}},
    "checkpoints": {"s01": {"turns": {"value": 3}}},
}


# --- finding submissions (no kernel) -------------------------------------------------------------


def test_collect_reads_folders_nbgrader_zips_and_hand_ins_and_names_what_it_cannot(tmp_path):
    source = tmp_path / "class"
    learners.save({"cells": []}, source / "ann" / "work" / "s00-setup.ipynb")
    (source / "ann" / ".ipynb_checkpoints").mkdir()
    (source / "ann" / ".ipynb_checkpoints" / "x.ipynb").write_text("{")
    (source / "ben" / "progress.json").parent.mkdir(parents=True)
    (source / "ben" / "progress.json").write_text("{}")
    (source / "cy.zip").write_bytes(b"not a zip at all")
    with zipfile.ZipFile(source / "dee.zip", "w") as zipped:
        zipped.writestr("manifest.json", json.dumps({"learner": "Dee Dee"}))
        zipped.writestr("work/s00-setup.ipynb", json.dumps({"cells": []}))
        zipped.writestr("../escape.ipynb", "{}")
    found = {s.learner: s for s in submissions.collect(source, tmp_path / "work")}
    assert set(found) == {"ann", "ben", "cy", "Dee Dee"}
    assert [p.name for p in found["ann"].notebooks] == ["s00-setup.ipynb"]
    assert found["ann"].problems == ()
    assert found["ben"].progress is not None and found["ben"].notebooks == ()
    assert "cannot be opened as a zip" in found["cy"].problems[0]
    assert any("points outside the zip" in p for p in found["Dee Dee"].problems)
    assert not (tmp_path / "escape.ipynb").exists()
    assert str(found["ann"].notebooks[0]).startswith(str(tmp_path / "work"))


def test_collect_reads_nbgraders_submitted_layout_from_a_zip(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for who in ("ann", "ben"):
            zipped.writestr(f"submitted/{who}/s00/s00-setup.ipynb", json.dumps({"cells": []}))
    found = submissions.collect(archive, tmp_path / "work")
    assert [(s.learner, len(s.notebooks)) for s in found] == [("ann", 1), ("ben", 1)]


def test_collect_names_a_notebook_that_is_not_json_and_an_empty_folder(tmp_path):
    source = tmp_path / "class"
    (source / "cy").mkdir(parents=True)
    (source / "cy" / "s00-setup.ipynb").write_text('{"cells": [')
    (source / "dot").mkdir()
    found = {s.learner: s for s in submissions.collect(source, tmp_path / "work")}
    assert "s00-setup.ipynb cannot be graded: it is not a notebook" in found["cy"].problems[0]
    assert found["dot"].problems == ("no notebook and no progress file in it",)


def test_hand_in_packs_work_and_progress_with_a_manifest_the_grader_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_API_KEY", SECRET)
    work = tmp_path / "work"
    learners.save(
        {"cells": [{"cell_type": "code", "source": f"key = {SECRET!r}"}]}, work / "a.ipynb"
    )
    (tmp_path / "progress.json").write_text(json.dumps(OLD_PROGRESS))
    manifest = handin.hand_in(work, tmp_path / "progress.json", tmp_path / "out" / "h.zip", "Ann")
    assert manifest["learner"] == "Ann" and manifest["secrets_masked"] == 1
    assert [n["path"] for n in manifest["notebooks"]] == ["work/a.ipynb"]
    with zipfile.ZipFile(tmp_path / "out" / "h.zip") as zipped:
        assert SECRET not in zipped.read("work/a.ipynb").decode()
        assert set(zipped.namelist()) == {"work/a.ipynb", "progress.json", "manifest.json"}
    [found] = submissions.collect(tmp_path / "out", tmp_path / "copies")
    assert found.learner == "Ann" and found.progress is not None and len(found.notebooks) == 1


def test_hand_in_with_nothing_to_hand_in_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path / "home"))
    assert handin.main(["--work", str(tmp_path / "none"), "--learner", "x"]) == 2
    assert "nothing to hand in" in capsys.readouterr().err


# --- reading what a run banked (no kernel) ---------------------------------------------------------


def test_child_environment_passes_on_only_the_allow_list():
    env = runner.child_environment(
        Path("/tmp/h"), {"PATH": "/bin", "CAFE_API_KEY": SECRET, "X": "1"}
    )
    assert env["PATH"] == "/bin" and "CAFE_API_KEY" not in env and "X" not in env
    assert env["COURSE_MODE"] == "offline" and env["CAFE_ENV_FILE"] == ""
    assert env["CAFE_HOME"] == env["HOME"] == "/tmp/h" and env["CAFE_STRICT"] == "0"


def test_notebook_lines_name_an_exercise_the_run_never_reached():
    banked = {
        "exercises": {"s00.tool_arguments": {"status": "failed", "problems": ["one call: x"]}}
    }
    run = runner.NotebookRun("errored", "", ((12, "NameError: y"),), banked)
    expected = (["s00.tool_arguments", "s00.responder"], ["s00.first_reply"])
    own = {"predictions": {"s00.first_reply": {"value": "an empty string"}}}
    lines = gradebook.notebook_lines("ann", "s00-setup.ipynb", run, expected, own)
    got = {(line.kind, line.key): (line.result, line.origin) for line in lines}
    assert got[("notebook", "s00-setup.ipynb")] == ("errored", "run")
    assert got[("exercise", "s00.tool_arguments")] == ("failed", "run")
    assert got[("exercise", "s00.responder")] == ("not_run", "run")
    assert got[("prediction", "s00.first_reply")] == ("not_shown", "progress file")
    assert "cell 12: NameError: y" in lines[0].detail


def test_an_old_progress_file_is_read_as_far_as_it_goes_and_named(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(OLD_PROGRESS))
    lines, _ = gradebook.record_lines("ann", path, covered=set())
    notes = [line.detail for line in lines if line.kind == "submission"]
    assert any("version 0" in note for note in notes) and any("answers" in note for note in notes)
    got = {(line.kind, line.key): line for line in lines}
    assert got[("exercise", "s01.repeat_guard")].result == "unknown"
    assert got[("prediction", "s01.first_turn")].result == "missed"
    assert got[("checkpoint", "s01.turns")].detail.startswith("unlabelled")


def test_a_progress_file_that_is_not_json_is_listed_unreadable(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text('{"version": 1, "exercises": {')
    lines, _ = gradebook.record_lines("ann", path, covered=set())
    assert [(line.kind, line.result) for line in lines] == [("submission", "unreadable")]


def test_the_page_escapes_a_learners_text_and_the_csv_defuses_formulas(tmp_path):
    lines = [
        Line("<script>x</script>", "s00", "exercise", "s00.a", "failed", "=HYPERLINK(1)"),
        Line("ann", "s00", "exercise", "s00.a", "passed"),
    ]
    writers.write_gradebook(lines, tmp_path, "now", {})
    page = (tmp_path / "gradebook.html").read_text()
    assert "<script>x" not in page and "&lt;script&gt;" in page and "1 of 2 (50%)" in page
    rows = list(csv.DictReader((tmp_path / "gradebook.csv").open()))
    assert rows[0]["detail"] == "'=HYPERLINK(1)"


def test_grade_refuses_a_missing_folder_and_an_out_folder_inside_it(tmp_path, capsys):
    assert command.main([str(tmp_path / "none")]) == 2
    (tmp_path / "class").mkdir()
    assert command.main([str(tmp_path / "class"), "--out", str(tmp_path / "class" / "g")]) == 2
    assert "inside the submissions" in capsys.readouterr().err


# --- a class, end to end ---------------------------------------------------------------------------


def _class(root: Path) -> None:
    nb = learners.load("s00-setup.ipynb")
    done = learners.answered(learners.solved_s00(nb))
    learners.save(done, root / "alice" / "work" / "s00-setup.ipynb")
    # bob: a wrong exercise and an unanswered prediction, in one notebook (one kernel run less)
    wrong = learners.wrong(learners.solved_s00(nb, ("responder",)), "tool_arguments", "return {}")
    learners.save(
        learners.answered(wrong, skip=("s00.two_tools",)), root / "bob" / "s00-setup.ipynb"
    )
    broken = _replace_cell(learners.answered(learners.solved_s00(nb)), "as responder", "1 / 0")
    learners.save(broken, root / "dan" / "s00-setup.ipynb")
    # a cell that never ends: it waits on an event that never comes rather than spinning, so its
    # 20 s take no core from the tests running beside it (the grader's time limit stops either)
    forever = "import threading\nthreading.Event().wait()"
    stuck = _replace_cell(json.loads(json.dumps(done)), "assert sys.version_info", forever)
    learners.save(stuck, root / "eve" / "s00-setup.ipynb")
    nosy = "import os\nprint(dict(os.environ))\nraise RuntimeError(repr(dict(os.environ)))"
    learners.save(
        _replace_cell(json.loads(json.dumps(done)), "assert sys.version_info", nosy),
        root / "fay" / "s00-setup.ipynb",
    )
    (root / "gus").mkdir()
    (root / "gus" / "s00-setup.ipynb").write_bytes(b"\x89PNG not a notebook")
    (root / "hal.zip").write_bytes(b"PK\x03\x04 cut off")
    (root / "ivy").mkdir()
    (root / "ivy" / "progress.json").write_text(json.dumps(OLD_PROGRESS))


@pytest.mark.slow
def test_a_class_gives_the_expected_gradebook_and_no_submission_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_API_KEY", SECRET)
    monkeypatch.setenv("INSTRUCTOR_TOKEN", TOKEN)
    source, out = tmp_path / "class", tmp_path / "gradebook"
    _class(source)
    before = tree_digest(source)
    # 20 s a notebook: s00 runs in about 5 s on a busy two-core machine; eve's cell waits all 20
    assert command.main([str(source), "--out", str(out), "--jobs", "2", "--time-limit", "20"]) == 0
    assert tree_digest(source) == before
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    got = {(r["learner"], r["kind"], r["key"]): r for r in rows}

    def result(who: str, kind: str, key: str) -> str:
        return got[(who, kind, key)]["result"]

    for who in ("alice", "bob"):
        assert result(who, "notebook", "s00-setup.ipynb") == "ran"
    assert {r["result"] for r in rows if r["learner"] == "alice"} <= {
        "ran",
        "passed",
        "matched",
        "banked",
    }
    assert result("bob", "exercise", "s00.tool_arguments") == "failed"
    assert "one call" in got[("bob", "exercise", "s00.tool_arguments")]["detail"]
    assert result("bob", "prediction", "s00.two_tools") == "unanswered"
    assert result("dan", "notebook", "s00-setup.ipynb") == "errored"
    assert "ZeroDivisionError" in got[("dan", "notebook", "s00-setup.ipynb")]["detail"]
    assert result("dan", "exercise", "s00.responder") == "not_run"  # its compare cell raised
    assert result("eve", "notebook", "s00-setup.ipynb") == "timed_out"
    assert result("eve", "exercise", "s00.tool_arguments") == "not_run"
    assert result("fay", "notebook", "s00-setup.ipynb") == "errored"
    assert "cannot be graded" in got[("gus", "submission", "gus")]["detail"]
    assert "cannot be opened as a zip" in got[("hal", "submission", "hal.zip")]["detail"]
    assert any("version 0" in r["detail"] for r in rows if r["learner"] == "ivy")
    assert result("ivy", "exercise", "s01.repeat_guard") == "unknown"
    everything = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert "gradebook.html" in {p.name for p in out.iterdir()} and (out / "runs").is_dir()
    assert SECRET not in everything and TOKEN not in everything
    assert "COURSE_MODE" in everything  # fay's notebook did print the environment it was given
    summary = json.loads((out / "gradebook.json").read_text())["summary"]
    assert summary["learners"] == 8
    assert {e["key"] for e in summary["exercises_failed"]} >= {"s00.tool_arguments"}


def test_collect_groups_an_lms_flat_export_by_learner(tmp_path):
    source = tmp_path / "export"
    source.mkdir()
    for name in (
        "annsmith_101_9001_s00-setup.ipynb",
        "annsmith_LATE_101_9002_s01-agent-loop.ipynb",
    ):
        (source / name).write_text('{"cells": []}')
    (source / "bobjones_102_9003_progress.json").write_text("{}")
    found = {s.learner: s for s in submissions.collect(source, tmp_path / "work")}
    assert set(found) == {"annsmith", "bobjones"}
    assert [p.name for p in found["annsmith"].notebooks] == [
        "s00-setup.ipynb",
        "s01-agent-loop.ipynb",
    ]
    assert found["bobjones"].progress is not None


def test_a_learner_name_from_a_manifest_cannot_leave_the_runs_folder():
    assert command._folder_name(3, "../../etc/passwd") == "003-_etc_passwd"
    assert "/" not in command._folder_name(0, "a/b\\c")


def test_the_commands_plug_into_a_parent_parser_as_cafe_cli_adds_them(tmp_path, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="cafe")
    sub = parser.add_subparsers(dest="command", required=True)
    command.add_grade_command(sub)
    handin.add_hand_in_command(sub)
    args = parser.parse_args(["grade", str(tmp_path / "none"), "--jobs", "1"])
    assert args.run(args) == 2 and "does not exist" in capsys.readouterr().err
    args = parser.parse_args(["hand-in", "--work", str(tmp_path / "w"), "--progress", "x.json"])
    assert args.run(args) == 2 and "nothing to hand in" in capsys.readouterr().err


def test_the_capstones_banked_check_is_a_gradebook_line_and_a_column(tmp_path):
    data = {
        "version": 1,
        "checkpoints": {
            "s16": {
                "capstone": {
                    "value": {"passed": False, "failed": ["approval"], "seed": 7, "scenarios": 9},
                    "model": "scripted-restock",
                    "source": "yours",
                }
            }
        },
    }
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(data))
    lines, _ = gradebook.record_lines("ann", path, covered=set())
    [capstone] = [line for line in lines if line.kind == "capstone"]
    assert (capstone.key, capstone.result) == ("s16.capstone", "failed")
    assert "seed 7, 9 scenarios" in capstone.detail and "failed: approval" in capstone.detail
    writers.write_gradebook(lines, tmp_path / "out", "now", {})
    assert writers.learner_summary(lines)["ann"]["capstone"] == "failed"
    page = (tmp_path / "out" / "gradebook.html").read_text()
    assert "<th>capstone</th>" in page


def test_a_capstone_that_failed_only_by_vacuity_says_which_properties(tmp_path):
    # `cafe capstone check` fails a harness whose world properties held only because nothing
    # happened; nothing is in `failed`, so the line must name the vacuous ones, not stay silent.
    value = {"passed": False, "failed": [], "vacuous": ["contract", "stall"], "seed": 3}
    data = {"version": 1, "checkpoints": {"s16": {"capstone": {"value": value, "source": "yours"}}}}
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(data))
    lines, _ = gradebook.record_lines("bo", path, covered=set())
    [capstone] = [line for line in lines if line.kind == "capstone"]
    assert capstone.result == "failed"
    assert "vacuous: contract, stall" in capstone.detail and "failed:" not in capstone.detail


def test_a_worker_runs_notebook_after_notebook_in_one_process(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {
        "cells": [{**cell, "source": "import os\nprint(os.environ['CAFE_HOME'])"}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    learners.save(notebook, tmp_path / "in" / "a.ipynb")
    worker = runner.Worker(tmp_path / "worker")
    try:
        runs = [worker.run(tmp_path / "in" / "a.ipynb", tmp_path / f"run{i}", 60) for i in (1, 2)]
    finally:
        worker.close()
    assert [r.status for r in runs] == ["ran", "ran"], runs
    assert worker.starts == 1 and worker.process is None
    printed = [json.loads(r.executed.read_text())["cells"][0]["outputs"][0]["text"] for r in runs]
    assert ["".join(p).strip() for p in printed] == [
        str(tmp_path / f"run{i}" / "home") for i in (1, 2)
    ]
