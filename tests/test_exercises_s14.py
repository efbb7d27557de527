"""Session 14's notebook: the learner's reading is banked as theirs only once it passed, and a
live run against a dead endpoint says so in one line, goes on, and keeps what was banked."""

import contextlib
import io
from pathlib import Path

import pytest

from cafe import course

NOTEBOOK = Path(__file__).resolve().parents[1] / "sessions" / "s14-host-facts" / "notebook.py"
_READING_STUB = """    raise NotImplementedError(
        "your turn: read this turn's verify results; None when there are none"
    )"""
_SOLVED_READING = """    found = [r for r in view.dispatch if r.kind == "verify"]
    if not found:
        return None
    import re
    return max(float(m.group(1)) if (m := re.search(r"(\\d+) passed", r.output)) else 0.0
               for r in found)"""


def _run(solved: bool) -> str:
    source = NOTEBOOK.read_text(encoding="utf-8")
    if solved:
        assert _READING_STUB in source, "the notebook's my_reading stub changed"
        source = source.replace(_READING_STUB, _SOLVED_READING)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, str(NOTEBOOK), "exec"), {"__name__": "__notebook__"})
    return printed.getvalue()


def test_the_stub_banks_nothing_as_yours(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    printed = _run(solved=False)
    banked = course.load_progress()["checkpoints"]["s14"]
    assert "your_reading" not in banked and "nothing banked yet" in printed
    assert banked["timeout_vs_governor"]["source"] == "scripted"


def test_a_passed_reading_is_banked_as_yours_beside_passing_tests(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    _run(solved=True)
    yours = course.load_progress()["checkpoints"]["s14"]["your_reading"]
    assert yours["source"] == "yours"
    assert set(yours["value"]) == {"passing_tests", "my_reading"}
    assert yours["value"]["my_reading"]["stop_reason"] == "done"  # the same count, the same run


class _Down:
    def __init__(self, kind):
        self.kind = kind
        self.chat = self
        self.completions = self
        self.models = self

    def create(self, *args, **kwargs):
        from cafe.endpoint.errors import EndpointError

        raise EndpointError("The endpoint did not answer within 60 s.", kind=self.kind)

    def list(self, *args, **kwargs):
        return []


@pytest.mark.parametrize("kind", ["timeout", "connection"])
def test_live_against_a_dead_endpoint_goes_on_and_keeps_what_was_banked(
    tmp_path, monkeypatch, kind
):
    import cafe

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    monkeypatch.setenv("COURSE_MODE", "live")
    monkeypatch.setenv("CAFE_MODEL", "my-model")
    monkeypatch.setenv("CAFE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CAFE_API_KEY", "sk-test-not-a-real-key")
    course.checkpoint("s14", "timeout_vs_governor", {"turn": 7}, model="my-model")
    monkeypatch.setattr(cafe, "make_client", lambda *a, **k: _Down(kind))
    printed = _run(solved=True)
    assert "live: s14.your_model stopped" in printed
    assert "skipped: your model's run under the governor" in printed
    assert "skipped: the passing_tests run" in printed
    banked = course.load_progress()["checkpoints"]["s14"]
    assert banked["timeout_vs_governor"]["value"] == {"turn": 7}
    assert "your_reading" not in banked


def test_check_reading_refuses_the_course_passing_tests():
    from cafe.exercises.s14 import check_reading
    from cafe.governor.pacing import passing_tests

    (problem,) = check_reading(passing_tests)
    assert "course's `passing_tests`" in problem and "write your own" in problem


def test_check_reading_generated_turns_find_a_suite_past_nine_tests():
    import re

    from cafe.exercises.s14 import check_reading

    def one_digit(view):  # '(\d) passed' reads 12 passing as 2
        runs = [r for r in view.dispatch if r.kind == "verify"]
        found = re.search(r"(\d) passed", runs[-1].output) if runs else None
        return None if not runs else float(found.group(1)) if found else 0.0

    (problem,) = check_reading(one_digit)
    assert problem.startswith("on a turn: nothing, then tests with 10 of 10 passing")


def test_check_reading_a_file_that_says_tests_passed_is_no_run():
    """Held-out reader M: a reading taken from any call's output ('14 passed' in a read of notes)
    invents one on a turn that verified nothing; so does one that takes any summary-like output.
    The smallest generated turn shows the read and what it said."""
    from banks.bank_s14 import any_output_says_passed, last_output_like_a_summary

    from cafe.exercises.s14 import check_reading

    for reading in (any_output_says_passed, last_output_like_a_summary):
        (problem,) = check_reading(reading)
        assert problem.startswith("on a turn that did read notes.md"), reading.__name__
        assert "14 passed" in problem and "expected None" in problem
        assert "no run" in problem


def test_check_reading_a_read_after_the_tests_does_not_hide_them():
    from banks.bank_s14 import last_call_only

    from cafe.exercises.s14 import check_reading

    (problem,) = check_reading(last_call_only)
    assert "passing, then read" in problem and "expected a number" in problem


def test_generated_turns_quote_runs_in_reads_before_and_after_the_tests():
    """Every quiet call, the two that quote a run included, turns up before the runs and after
    them among the seeded greener pairs, and on its own among the quiet turns."""
    from hypothesis import given, settings

    from cafe.exercises.reference_s14 import QUIET_CALLS, greener_pairs, quiet_turns

    seen: dict[str, set[str]] = {"before": set(), "after": set(), "quiet": set()}

    @settings(max_examples=300, derandomize=True, database=None)
    @given(greener_pairs(), quiet_turns())
    def draw(pair, quiet):
        seen["before"].update(pair[0].before)
        seen["after"].update(pair[0].after)
        seen["quiet"].update(quiet.before)

    draw()
    assert all(found == set(QUIET_CALLS) for found in seen.values()), seen
