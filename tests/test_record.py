"""`cafe progress`: your record from the progress file, on a fresh file, a full one and a damaged one."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cafe import course
from cafe.cli import main
from cafe.course.record import read_record

pytestmark = pytest.mark.usefixtures("home")


def _full_file() -> None:
    """A learner's file as notebooks write it: predictions, outcomes, exercises, checkpoints."""
    first = course.predict("s07.first", "Which attempt passes?", ["1", "2", "3"], answer="2")
    course.show_outcome(first, "2")
    second = course.predict("s07.second", "How many drafts?", ["1", "2"], answer="1")
    course.show_outcome(second, "2")
    course.predict("s07.third", "Which reason?", ["passed", "cut"], answer="cut")  # no outcome yet

    def double(x):
        return 2 * x

    course.compare(double, lambda fn: [] if fn(2) == 4 else ["2 should give 4"], key="s07.view")
    course.compare(double, lambda fn: ["always wrong"], key="s07.loop")
    course.checkpoint("s07", "rescued", 3, model="cafe-scripted", source="yours")
    course.checkpoint("s07", "attempts", {"1": 4}, model="cafe-scripted", source="scripted")


def test_a_fresh_file_shows_every_session_empty_and_exits_0(capsys):
    assert main(["progress"]) == 0
    out = capsys.readouterr().out
    assert "No progress file yet" in out and "s15-run-monitors" in out
    assert "Total: 0 of 0 predictions matched; 0 of 0 exercises passed; 0 checkpoints" in out


def test_a_full_file_counts_matches_exercises_and_whose_figures(capsys):
    _full_file()
    capsys.readouterr()
    record = read_record()
    s07 = next(s for s in record.sessions if s.session == "s07")
    assert (s07.made, s07.matched, s07.missed, s07.waiting) == (3, 1, 1, 1)
    assert s07.passed == 1 and len(s07.exercises) == 2
    assert {c.name: c.source for c in s07.checkpoints} == {
        "attempts": "scripted",
        "rescued": "yours",
    }
    assert main(["progress"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("s07-repair-loop"))
    assert "1 of 3 matched, 1 waiting" in line and "1 of 2 passed" in line
    assert "rescued [yours, cafe-scripted]" in line
    assert main(["progress", "--session", "7"]) == 0
    detail = capsys.readouterr().out
    assert "exercise s07.loop: failed  first problem: always wrong" in detail
    assert 'predicted s07.second: "1"  actual: "2"  (no match)' in detail


def test_json_is_for_tools(capsys):
    _full_file()
    capsys.readouterr()
    assert main(["progress", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    s07 = next(s for s in data["sessions"] if s["session"] == "s07")
    assert data["readable"] and s07["predictions"]["matched"] == 1
    assert s07["exercises"]["passed"] == 1 and len(s07["checkpoints"]) == 2


def test_damaged_entries_are_named_and_the_file_is_left_as_it_was(home, capsys):
    home.mkdir(parents=True, exist_ok=True)
    path = home / "progress.json"
    text = (
        '{"version": 1, "predictions": {"s07.a": {"value": "2"}, "nonsense": {"value": 1}},'
        ' "outcomes": {"s07.a": {"actual": NaN}}, "exercises": {"s99.x": {"status": "passed"}},'
        ' "checkpoints": {"s07": {"n": {"model": "m"}}}}'
    )
    path.write_text(text)
    assert main(["progress"]) == 0
    out = capsys.readouterr().out
    assert "Not shown: outcomes" in out and "NaN" in out
    assert "'nonsense' is not a course key" in out
    assert "s99: this course has no such session" in out
    assert "checkpoints: s07.n holds no value" in out
    assert path.read_text() == text and sorted(p.name for p in home.iterdir()) == ["progress.json"]


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"predictions": [1]}'])
def test_an_unreadable_file_exits_1_and_is_not_touched(home, capsys, text):
    home.mkdir(parents=True, exist_ok=True)
    path = home / "progress.json"
    path.write_text(text)
    assert main(["progress"]) == 1
    out = capsys.readouterr().out
    assert "It cannot be read" in out and "Nothing was changed" in out
    assert path.read_text() == text and sorted(p.name for p in home.iterdir()) == ["progress.json"]


def test_a_session_that_does_not_exist_is_a_usage_error(capsys):
    assert main(["progress", "--session", "42"]) == 2
    assert "give 00 to 16" in capsys.readouterr().err


def test_the_command_runs_as_a_learner_types_it(home):
    done = subprocess.run(
        [sys.executable, "-m", "cafe", "progress", "--session", "s00"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "s00-setup" in done.stdout and done.stderr == ""
