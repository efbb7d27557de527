"""cafe.course.progress_reset: `cafe progress --reset` keeps a backup, `--reset --session` takes out
one session, and `cafe progress --export` writes the hand-in `cafe grade` reads."""

from __future__ import annotations

import json
import zipfile

import pytest

from cafe.cli import main
from cafe.course.progress_reset import reset_progress, without_session

pytestmark = pytest.mark.usefixtures("home")  # each test: its own CAFE_HOME, headless

DATA = {
    "version": 1,
    "predictions": {"s07.a": {"value": "x"}, "s08.b": {"value": "y"}},
    "outcomes": {"s07.a": {"predicted": "x", "actual": "x", "match": True}},
    "exercises": {"s07.view": {"status": "passed", "problems": []}},
    "checkpoints": {"s07": {"n": {"value": 1}}, "s08": {"m": {"value": 2}}},
    "live_failures": {},
}


def _write(home, data=DATA):
    home.mkdir(parents=True, exist_ok=True)
    (home / "progress.json").write_text(json.dumps(data))
    return home / "progress.json"


def test_reset_moves_the_file_to_a_numbered_backup_each_time(home, capsys):
    path = _write(home)
    assert main(["progress", "--reset"]) == 0
    assert not path.exists() and json.loads((home / "progress.json.backup-1").read_text()) == DATA
    _write(home, {"version": 1})
    assert main(["progress", "--reset"]) == 0
    assert (home / "progress.json.backup-2").exists()
    assert "backup-2" in capsys.readouterr().out


def test_reset_with_no_file_says_there_is_nothing_to_reset(home):
    assert "nothing to reset" in reset_progress(home / "progress.json")


def test_reset_one_session_keeps_the_others_and_a_copy(home):
    path = _write(home)
    assert main(["progress", "--reset", "--session", "07"]) == 0
    kept = json.loads(path.read_text())
    assert kept["predictions"] == {"s08.b": {"value": "y"}} and kept["exercises"] == {}
    assert kept["checkpoints"] == {"s08": {"m": {"value": 2}}}
    assert json.loads((home / "progress.json.backup-1").read_text()) == DATA


def test_without_session_never_changes_its_input():
    before = json.dumps(DATA, sort_keys=True)
    without_session(DATA, "s07")
    assert json.dumps(DATA, sort_keys=True) == before


def test_reset_one_session_of_an_unreadable_file_leaves_it_as_it_is(home, capsys):
    home.mkdir(parents=True)
    (home / "progress.json").write_text('{"version": 1, "exercises": {')
    assert main(["progress", "--reset", "--session", "07"]) == 1
    assert (home / "progress.json").read_text() == '{"version": 1, "exercises": {'
    assert "reset it whole" in capsys.readouterr().err


def test_export_writes_a_hand_in_with_the_progress_file_and_work(home, tmp_path):
    _write(home)
    work = tmp_path / "work"
    work.mkdir()
    (work / "s07-repair-loop.ipynb").write_text('{"cells": []}')
    out = tmp_path / "mine.zip"
    argv = ["progress", "--export", str(out), "--learner", "ann", "--work", str(work)]
    assert main(argv) == 0
    with zipfile.ZipFile(out) as zipped:
        manifest = json.loads(zipped.read("manifest.json"))
        assert json.loads(zipped.read("progress.json")) == DATA
    assert manifest["learner"] == "ann"
    assert [n["path"] for n in manifest["notebooks"]] == ["work/s07-repair-loop.ipynb"]
