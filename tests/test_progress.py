"""cafe.course.progress: where the progress file lives, atomic writes, and a damaged file never lost."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cafe import course
from cafe.course import progress

EMPTY = {"version": 1, **{section: {} for section in progress.SECTIONS}}


pytestmark = pytest.mark.usefixtures(
    "home"
)  # each test: its own CAFE_HOME, headless (tests/conftest.py)


def saved(home: Path) -> dict:
    return json.loads((home / "progress.json").read_text())


def test_course_re_exports_the_progress_functions():
    assert course.progress_path is progress.progress_path
    assert course.load_progress is progress.load_progress
    assert course.save_progress is progress.save_progress


# --- where it lives ---------------------------------------------------------------------------


def test_progress_path_follows_cafe_home(tmp_path):
    assert progress.progress_path({"CAFE_HOME": str(tmp_path)}) == tmp_path / "progress.json"


def test_progress_path_defaults_to_dot_cafe_in_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert progress.progress_path({}) == tmp_path / ".cafe" / "progress.json"
    assert progress.progress_path({"CAFE_HOME": "  "}) == tmp_path / ".cafe" / "progress.json"


def test_progress_path_reads_the_environment_when_called(monkeypatch, tmp_path):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path / "later"))
    assert progress.progress_path() == tmp_path / "later" / "progress.json"


# --- reading and writing ----------------------------------------------------------------------


def test_missing_progress_file_is_a_fresh_start_and_the_folder_is_created(home):
    assert not home.exists()
    assert progress.load_progress() == EMPTY
    course.checkpoint("s00", "setup", True)
    assert (home / "progress.json").is_file()


def test_progress_round_trips(tmp_path):
    data = {
        "version": 1,
        "predictions": {"s07.x": {"value": "é"}},
        "outcomes": {},
        "exercises": {},
        "checkpoints": {"s07": {"n": {"value": [1, 2.5, None]}}},
        "live_failures": {"s08.session": {"kind": "timeout"}},
    }
    path = progress.save_progress(data, tmp_path / "p" / "progress.json")
    assert progress.load_progress(path) == data


def test_record_keeps_every_other_entry(home):
    assert progress.record("predictions", "s07.a", {"value": "x"})
    assert progress.record("checkpoints", "n", {"value": 1}, session="s07")
    assert progress.record("checkpoints", "m", {"value": 2}, session="s07")
    assert progress.record("predictions", "s07.b", {"value": "y"})
    data = saved(home)
    assert data["predictions"] == {"s07.a": {"value": "x"}, "s07.b": {"value": "y"}}
    assert data["checkpoints"] == {"s07": {"n": {"value": 1}, "m": {"value": 2}}}


def test_record_keeps_sections_it_does_not_know(home):
    home.mkdir()
    (home / "progress.json").write_text(json.dumps({**EMPTY, "notes": {"mine": "keep me"}}))
    progress.record("outcomes", "s07.a", {"match": True})
    assert saved(home)["notes"] == {"mine": "keep me"}


def test_record_rejects_an_unknown_section():
    with pytest.raises(ValueError, match="not a progress section"):
        progress.record("guesses", "s07.a", {})


# --- a damaged file is set aside, never lost --------------------------------------------------


def test_corrupt_progress_file_is_kept_aside_with_a_message(home, capsys):
    home.mkdir()
    (home / "progress.json").write_text('{"checkpoints": {"s07": ')
    assert progress.load_progress()["checkpoints"] == {}
    err = capsys.readouterr().err
    assert "is not valid JSON" in err and "progress.json.corrupt-1" in err
    assert (home / "progress.json.corrupt-1").read_text() == '{"checkpoints": {"s07": '
    assert not (home / "progress.json").exists()


def test_corrupt_files_never_overwrite_each_other(home, capsys):
    home.mkdir()
    for text in ("first bad", "[1, 2]"):  # not JSON; JSON but not an object
        (home / "progress.json").write_text(text)
        course.checkpoint("s00", "setup", True)
    assert (home / "progress.json.corrupt-1").read_text() == "first bad"
    assert (home / "progress.json.corrupt-2").read_text() == "[1, 2]"
    assert "holds a JSON list" in capsys.readouterr().err
    assert saved(home)["checkpoints"]["s00"]["setup"]["value"] is True


@pytest.mark.parametrize(
    ("data", "complaint"),
    [
        ({"predictions": []}, "'predictions' entry is not an object"),
        ({"checkpoints": {"s07": "three"}}, "checkpoints for 's07' are not an object"),
    ],
)
def test_a_file_of_the_wrong_shape_is_set_aside_not_crashed_on(home, capsys, data, complaint):
    home.mkdir()
    (home / "progress.json").write_text(json.dumps(data))
    course.checkpoint("s07", "attempts", 3)  # would fail on "three"[...] = ... without the check
    assert complaint in capsys.readouterr().err
    assert json.loads((home / "progress.json.corrupt-1").read_text()) == data
    assert saved(home)["checkpoints"]["s07"]["attempts"]["value"] == 3


def test_unreadable_bytes_are_set_aside(home, capsys):
    home.mkdir()
    (home / "progress.json").write_bytes(b"\xff\xfe not utf-8")
    assert progress.load_progress() == EMPTY
    assert "could not be read" in capsys.readouterr().err
    assert (home / "progress.json.corrupt-1").read_bytes() == b"\xff\xfe not utf-8"


def test_unmovable_corrupt_file_is_left_alone_and_not_overwritten(home, capsys, monkeypatch):
    home.mkdir()
    (home / "progress.json").write_text("garbage")
    monkeypatch.setattr(progress, "_set_aside", lambda path: None)
    course.checkpoint("s00", "setup", True)  # must not crash, must not overwrite
    assert (home / "progress.json").read_text() == "garbage"
    captured = capsys.readouterr()
    assert "could not be moved aside" in captured.err
    assert "NOT saved" in captured.out  # the checkpoint line does not claim otherwise


# --- atomic writes ----------------------------------------------------------------------------


def test_save_is_atomic_when_the_replace_fails(home, monkeypatch):
    course.checkpoint("s00", "setup", True)
    before = (home / "progress.json").read_text()

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(progress.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        progress.save_progress({"version": 1, "checkpoints": {}}, home / "progress.json")
    assert (home / "progress.json").read_text() == before
    assert sorted(p.name for p in home.iterdir()) == ["progress.json"]  # no temp file left behind


def test_a_failed_save_during_a_notebook_call_is_reported_not_raised(home, monkeypatch, capsys):
    monkeypatch.setattr(
        progress.os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError("read-only"))
    )
    course.checkpoint("s00", "setup", True)
    captured = capsys.readouterr()
    assert "could not save to your progress file" in captured.err and "CAFE_HOME" in captured.err
    assert "NOT saved" in captured.out


def test_save_writes_through_a_temp_file_in_the_same_folder(home, monkeypatch):
    seen = []
    real_replace = os.replace
    monkeypatch.setattr(
        progress.os,
        "replace",
        lambda src, dst: (seen.append((Path(src), Path(dst))), real_replace(src, dst)),
    )
    course.checkpoint("s00", "setup", True)
    ((src, dst),) = seen
    assert dst == home / "progress.json" and src.parent == home and src != dst


def test_record_of_a_value_json_cannot_hold_is_not_saved_and_not_raised(home, capsys):
    assert progress.record("predictions", "s07.a", {"value": "x"})
    assert progress.record("outcomes", "s07.a", {"actual": float("nan")}) is False
    assert "did not save outcomes/s07.a" in capsys.readouterr().err
    assert saved(home)["predictions"] == {"s07.a": {"value": "x"}}  # the earlier entry is intact


# --- what cannot be read is set aside, one entry at a time, and nothing is lost ---------------


def _old_file(home: Path, text: str) -> None:
    home.mkdir(exist_ok=True)
    (home / "progress.json").write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ('{"actual": NaN}', "holds NaN"),
        ('{"actual": Infinity}', "holds Infinity"),
        ('{"actual": ' + "9" * 5000 + "}", "holds a number of 5000 digits"),
        ('{"deep": ' + "[" * 5000 + "]" * 5000 + "}", "nests more than 32 deep"),
        ('{"deep": ' + "[" * 40 + "]" * 40 + "}", "nests more than 32 deep"),
        ('"just text"', "is a JSON str, not an object"),
    ],
)
def test_unreadable_entries_are_set_aside_and_later_saves_work(home, capsys, bad, why):
    text = (
        '{"version": 1, "predictions": {"s05.keep": {"value": "x"}}, '
        f'"outcomes": {{"s05.old": {bad}, "s05.fine": {{"actual": 3}}}}, '
        '"exercises": {}, "checkpoints": {"s05": {"n": {"value": 2}}}}'
    )
    _old_file(home, text)
    assert progress.record("outcomes", "s05.new", {"actual": 4})
    err = capsys.readouterr().err
    assert "outcomes/s05.old" in err and why in err and "set-aside-1" in err
    assert (home / "progress.json.set-aside-1").read_text(encoding="utf-8") == text  # nothing lost
    data = saved(home)
    assert "s05.old" not in data["outcomes"]
    assert data["outcomes"]["s05.fine"] == {"actual": 3} and data["outcomes"]["s05.new"]
    assert data["predictions"]["s05.keep"] == {"value": "x"}
    assert data["checkpoints"]["s05"]["n"] == {"value": 2}
    assert progress.record("outcomes", "s05.later", {"actual": 5})  # no longer blocked
    assert capsys.readouterr().err == ""


def test_save_error_blames_the_new_entry_not_an_old_one(home, capsys):
    _old_file(home, '{"version": 1, "outcomes": {"s05.old": {"actual": 1}}}')
    assert progress.record("outcomes", "s05.new", {"actual": float("inf")}) is False
    err = capsys.readouterr().err
    assert "did not save outcomes/s05.new" in err and "the new entry" in err
    assert saved(home)["outcomes"] == {"s05.old": {"actual": 1}}


def test_a_deeply_nested_whole_file_is_set_aside_whole_not_a_traceback(home, capsys):
    _old_file(home, "[" * 100_000 + "]" * 100_000)
    assert progress.load_progress() == EMPTY
    assert "nests deeper than any progress file" in capsys.readouterr().err
    assert (home / "progress.json.corrupt-1").exists()


def test_cafe_home_that_is_a_file_is_one_line_with_the_fix(tmp_path, monkeypatch, capsys):
    afile = tmp_path / "home.txt"
    afile.write_text("not a folder")
    monkeypatch.setenv("CAFE_HOME", str(afile))
    with pytest.raises(progress.ConfigError, match=r"CAFE_HOME is .*that is a file, not a folder"):
        progress.progress_path()
    assert progress.record("outcomes", "s05.x", {"actual": 1}) is False
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "export CAFE_HOME=~/.cafe" in err
    assert afile.read_text() == "not a folder"


def test_record_scrubs_secrets_before_saving(home, monkeypatch):
    key = "q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5E"
    monkeypatch.setenv("CAFE_API_KEY", key)
    assert progress.record("outcomes", "s05.x", {"actual": f"the key is {key}!", key: 1})
    text = (home / "progress.json").read_text(encoding="utf-8")
    assert key not in text and key[:8] not in text
