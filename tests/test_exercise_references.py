"""The checkers' references agree with the library they were written apart from (issue 35).

A checker compares the learner's function with a reference in `cafe/exercises/reference_sNN.py`,
never with the library function the exercise asks for. Each test here runs a reference and the
library on the same generated inputs the checker draws from, so a bug on either side fails here
instead of becoming a learner's wrong grade. Derandomized: the same inputs every run.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings

from cafe.exercises.generated import Raises, outcome
from cafe.exercises.reference_s09 import cost_split, endings_counted, priced_shifts, shifts
from cafe.report.records import Price, RunRecord
from cafe.report.summary import cost_by_ending, count_endings

SEEDED = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _agree(reference, library, *args):
    want, got = outcome(library, *args), outcome(reference, *args)
    if isinstance(want, Raises) or isinstance(got, Raises):
        assert repr(got) == repr(want), (args, got, want)
    else:
        return got, want
    return None


# --- session 09 -----------------------------------------------------------------------------


@SEEDED
@given(shifts(RunRecord))
def test_reference_s09_endings_counted_agrees_with_count_endings(runs):
    both = _agree(endings_counted, count_endings, runs)
    if both:
        assert both[0] == both[1]


@SEEDED
@given(priced_shifts(RunRecord, Price))
def test_reference_s09_cost_split_agrees_with_cost_by_ending(shift):
    runs, prices = shift
    got, want = _agree(cost_split, cost_by_ending, runs, prices) or ({}, {})
    assert set(got) == set(want)
    assert all(math.isclose(got[k], want[k], rel_tol=1e-9, abs_tol=1e-12) for k in want)
