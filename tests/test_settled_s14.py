"""Session 14's unsettled mutmut survivor, settled: `right_fraction` reading the turn's last run
instead of its best is a right answer, not a hole (docs/notes/checker-mutation.md, 7 Dec 2026
morning).

The survivor is `best = score if (best is None) or True else max(best, score)`: the share passing
of the turn's last run. The exercise (the notebook's step 6) asks for a number that rises as the
till gets greener, `None` when nothing was verified, "any scale"; which of a turn's runs speaks
when they disagree is not part of it. The lesson's "the best verify-state it has" describes the
till's own host (`passing_tests`), and a held-out reader who wrote from the lesson read the last
run (`bank_s14.right_last_run`, banked right). So the mutant is a same answer ("open"), not an
equivalent: the tests show the checker's rule passes it, that it answers as the reference on
every turn whose runs do not fall back, and that where a later run passes fewer, it reads that
run, as `right_last_run` does.

Reader I's best run of the turn (7 Dec 2026 afternoon, left open; decided right that evening) is
the other side of the same shape: on a turn that ends redder than its best run it reads the best,
as the lesson's host does. Both readings are right, so the checker never compares such turns;
it asks only that they read a number (`reference_s14.falling_turns`), which both do.
"""

from __future__ import annotations

import re
from typing import Any

from banks.bank_s14 import (
    _checks,
    none_when_it_fell,
    right_best_run_of_the_turn,
    right_fraction,
    right_last_run,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.exercises import reference_s14 as ref
from cafe.exercises.s14 import _turn_view, check_reading
from cafe.governor.pacing import passing_tests

SEEDED = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def last_fraction(view: Any) -> float | None:
    """The mutant: `right_fraction` with `best` set to every run's score, so the last one's."""
    best = None
    for result in _checks(view):
        passed = int(m.group(1)) if (m := re.search(r"(\d+) passed", result.output)) else 0
        failed = sum(int(n) for n in re.findall(r"(\d+) (?:failed|errors?)", result.output))
        score = passed / (passed + failed) if passed + failed else 0.0
        best = score if (best is None) or True else max(best, score)
    return best


def test_the_checker_passes_a_reading_of_the_last_run():
    assert check_reading(last_fraction) == []
    assert check_reading(right_last_run) == []


@SEEDED
@given(ref.greener_pairs())
def test_the_last_run_s_share_reads_as_the_best_on_turns_that_do_not_fall_back(pair):
    for turn in pair:
        view = _turn_view(turn)
        assert last_fraction(view) == right_fraction(view), turn


@st.composite
def falling_turns(draw: Any) -> ref.Turn:
    """A turn whose suite ran two or three times, an earlier run passing more than the last."""
    total = draw(st.integers(1, 12))
    last = draw(st.integers(0, total - 1))
    earlier = draw(st.lists(st.integers(last + 1, total), min_size=1, max_size=2))
    return ref.Turn((), total, last, draw(st.booleans()), 0, tuple(earlier))


@SEEDED
@given(falling_turns())
def test_where_a_later_run_passes_fewer_the_mutant_reads_the_last_run_as_right_last_run_does(turn):
    view = _turn_view(turn)
    assert last_fraction(view) == turn.passed / turn.total < right_fraction(view)
    assert right_last_run(view) == turn.passed


# --- a turn that ends redder than its best run: the best and the last both read a number -------


@SEEDED
@given(ref.falling_turns())
def test_falling_turns_end_redder_than_an_earlier_run_and_the_two_readings_part(turn):
    view = _turn_view(turn)
    assert max(turn.earlier) > turn.passed, turn
    assert right_best_run_of_the_turn(view) == max(turn.earlier) > right_last_run(view)
    assert passing_tests(view) == max(turn.earlier)  # the lesson's host: "the best verify-state"


def test_the_checker_passes_the_best_run_of_the_turn():
    assert check_reading(right_best_run_of_the_turn) == []


def test_the_checker_asks_a_turn_that_ended_redder_for_a_number():
    (problem,) = check_reading(none_when_it_fell)
    assert problem.startswith("on a turn: nothing, then tests with 1 of 1 passing, then tests")
    assert "returned None, expected a number" in problem
