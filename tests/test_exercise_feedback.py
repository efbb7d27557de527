"""The checkers' shared feedback: calling the learner's function, and wording a rejection."""

from __future__ import annotations

from collections import namedtuple

import pytest

from cafe import course
from cafe.exercises.feedback import (
    SHOWN_CHARS,
    Described,
    Raised,
    call,
    mismatch,
    shown,
    wrong_type,
)

pytestmark = pytest.mark.usefixtures("home")


def _double(n: int, *, times: int = 2) -> int:
    return n * times


def _broken(n: int) -> int:
    return {1: 1}[n]


def _stub(n: int) -> int:
    raise NotImplementedError("your turn")


def _check_double(fn) -> list[str]:
    """A checker written with the helpers, as the sessions' checkers are."""
    problems = []
    for label, n, expected in (("two", 2, 4), ("zero", 0, 0)):
        got = call(fn, n)
        if isinstance(got, Raised):
            problems.append(got.problem(label))
        elif got != expected:
            problems.append(mismatch(label, got, expected, "doubling keeps zero at zero"))
    return problems


def test_call_returns_what_the_function_returned() -> None:
    assert call(_double, 3) == 6
    assert call(_double, 3, times=3) == 9


def test_call_records_an_exception_as_raised_with_who_what_and_why() -> None:
    got = call(_broken, 2)
    assert got == Raised("_broken", "KeyError", "2")
    assert got.problem("the case n=2") == "the case n=2: _broken raised KeyError: 2"


def test_call_lets_the_stubs_not_implemented_error_through() -> None:
    with pytest.raises(NotImplementedError):
        call(_stub, 1)


def test_call_lets_a_keyboard_interrupt_through() -> None:
    def interrupted(n: int) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call(interrupted, 1)


def test_raised_message_is_one_short_line() -> None:
    def loud(n: int) -> int:
        raise ValueError("line one\nline two " + "x" * 500)

    got = call(loud, 1)
    assert isinstance(got, Raised)
    assert "\n" not in got.message and len(got.message) == SHOWN_CHARS
    assert got.message.startswith("line one line two") and got.message.endswith("…")


def test_raised_without_a_message_says_only_the_type() -> None:
    def bare(n: int) -> int:
        raise RuntimeError

    assert call(bare, 1).problem("one") == "one: bare raised RuntimeError"


def test_compare_through_the_helpers_says_not_attempted_failed_or_passed() -> None:
    assert course.compare(_stub, check=_check_double).status == "not_attempted"
    assert course.compare(_double, check=_check_double).status == "passed"
    raised = course.compare(_broken, check=_check_double)
    assert raised.status == "failed"
    assert raised.problems == (
        "two: _broken raised KeyError: 2",
        "zero: _broken raised KeyError: 0",
    )


def test_compare_shows_a_mismatch_with_case_returned_expected_and_idea() -> None:
    def plus_two(n: int) -> int:
        return n + 2

    result = course.compare(plus_two, check=_check_double)
    assert result.problems == ("zero: returned 2, expected 0\n  (doubling keeps zero at zero)",)


def test_mismatch_is_two_lines_with_the_idea_on_the_second() -> None:
    text = mismatch("a vacuous check", [], ["always_ok: vacuous"], "a check that cannot fail")
    first, second = text.splitlines()
    assert first == "a vacuous check: returned [], expected ['always_ok: vacuous']"
    assert second == "  (a check that cannot fail)"


def test_mismatch_shows_a_described_answer_as_written() -> None:
    text = mismatch("fragile", ["x"], Described("a problem naming 'fragile'"), "a crash counts")
    assert text.splitlines()[0] == "fragile: returned ['x'], expected a problem naming 'fragile'"


def test_mismatch_folds_an_idea_written_over_several_lines() -> None:
    assert mismatch("c", 1, 2, "one\n   idea").splitlines()[1] == "  (one idea)"


@pytest.mark.parametrize("case, idea", [("", "an idea"), ("a case", ""), ("a case", "  ")])
def test_mismatch_refuses_a_missing_case_or_idea(case: str, idea: str) -> None:
    with pytest.raises(ValueError, match="mismatch needs"):
        mismatch(case, 1, 2, idea)


def test_shown_rounds_floats_everywhere_and_keeps_other_values() -> None:
    assert shown(0.0030600000000000002) == "0.00306"
    assert shown({"passed": 0.06086000000000001, "other": [1 / 3]}) == (
        "{'passed': 0.06086, 'other': [0.333333]}"
    )
    assert shown(float("inf")) == "inf"
    assert shown(("latte", 1)) == "('latte', 1)"
    assert shown(None) == "None"


def test_shown_keeps_a_named_tuple_as_itself() -> None:
    Point = namedtuple("Point", "x y")
    assert shown(Point(0.1 + 0.2, 1)) == "Point(x=0.30000000000000004, y=1)"


def test_shown_puts_a_long_or_multiline_value_on_one_cut_line() -> None:
    text = shown("a line\nanother " + "y" * 300)
    assert "\n" not in text and len(text) == SHOWN_CHARS and text.endswith("…")


def test_shown_survives_a_repr_that_raises() -> None:
    class Odd:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert shown(Odd()) == "<Odd whose repr raised RuntimeError>"


def test_wrong_type_names_the_type_the_value_and_what_to_return() -> None:
    assert wrong_type("a sound check", None, "a list of problem strings") == (
        "a sound check: returned None; return a list of problem strings"
    )
    assert wrong_type("a sound check", {"a"}, "a list") == (
        "a sound check: returned set ({'a'}); return a list"
    )


def test_wrong_type_refuses_an_empty_instruction() -> None:
    with pytest.raises(ValueError, match="what to return"):
        wrong_type("c", 1, " ")
