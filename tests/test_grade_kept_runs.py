"""Every run's kept copy has its own path: `runs/<learner>/<the notebook's path in the submission>`
(reader CC's finding 11: `work/s01.ipynb` and `old/s01.ipynb` were both kept as `runs/<learner>/s01.ipynb`,
one overwriting the other). No kernel here: the runs are stood in for, each executed copy marked."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.course.grading import command
from cafe.course.grading.runner import NotebookRun


def _fake_runs(monkeypatch, tmp_path: Path) -> None:
    def run_all(jobs, workers, seconds, work):
        results = {}
        for index, (_, notebook, _) in enumerate(jobs):
            executed = tmp_path / "executed" / f"{index}.ipynb"
            executed.parent.mkdir(parents=True, exist_ok=True)
            executed.write_text(notebook.read_text())  # the copy's text: says which notebook
            results[index] = NotebookRun("ran", executed=executed)
        return results

    monkeypatch.setattr(command, "_run_all", run_all)


def _notebook(marker: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "source": marker, "metadata": {}}]})


FOLDERS = st.lists(st.sampled_from(["", "work", "old", "work/deep", "a b"]), min_size=1, max_size=4)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(folders=FOLDERS, name=st.sampled_from(["s01-agent-loop", "x"]))
def test_each_run_is_kept_at_its_own_path(tmp_path_factory, monkeypatch, folders, name):
    tmp_path = tmp_path_factory.mktemp("k")
    source, out = tmp_path / "class", tmp_path / "out"
    wanted = {}
    for folder in dict.fromkeys(folders):
        relative = f"{folder}/{name}.ipynb" if folder else f"{name}.ipynb"
        (source / "ann" / relative).parent.mkdir(parents=True, exist_ok=True)
        (source / "ann" / relative).write_text(_notebook(f"marker {relative}"))
        wanted[relative] = f"marker {relative}"
    _fake_runs(monkeypatch, tmp_path)
    lines = command.grade(source, out, 1, 30)
    kept = out / "runs" / "000-ann"
    # the oracle: one kept copy per notebook, at its path, holding that notebook's own text
    found = {p.relative_to(kept).as_posix(): p for p in kept.rglob("*.ipynb")}
    assert sorted(found) == sorted(wanted)
    for relative, marker in wanted.items():
        assert marker in found[relative].read_text()
    rows = [line.key for line in lines if line.kind == "notebook"]
    assert len(rows) == len(set(rows)) == len(wanted)


def test_the_readers_case_two_s01_notebooks_are_both_kept(tmp_path, monkeypatch):
    source = tmp_path / "class"
    for folder in ("work", "old"):
        (source / "i-dup" / folder).mkdir(parents=True)
        (source / "i-dup" / folder / "s01-agent-loop.ipynb").write_text(_notebook(folder))
    (source / "solo").mkdir()
    (source / "solo" / "s00-setup.ipynb").write_text(_notebook("solo"))
    _fake_runs(monkeypatch, tmp_path)
    lines = command.grade(source, tmp_path / "out", 1, 30)
    runs = tmp_path / "out" / "runs"
    assert "work" in (runs / "000-i-dup" / "work" / "s01-agent-loop.ipynb").read_text()
    assert "old" in (runs / "000-i-dup" / "old" / "s01-agent-loop.ipynb").read_text()
    assert (runs / "001-solo" / "s00-setup.ipynb").is_file()
    keys = sorted(line.key for line in lines if line.kind == "notebook")
    assert keys == ["old/s01-agent-loop.ipynb", "s00-setup.ipynb", "work/s01-agent-loop.ipynb"]
