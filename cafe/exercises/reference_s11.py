"""Session 11's costs, worked out exactly and apart from `cafe.routing.routes`, and the inputs to
try them on.

`check_expected_cost` and `check_route_cost` (`cafe.exercises.s11`) hold the learner's functions
to seeded simulation on the hand-picked cases, then to these exact answers on generated ones:
pass rates of 0, 1 and either side of them (down to 1e-10), free models (price 0) and attempts
that cost a fraction of a cent, caps of 1 and more.
`tests/test_exercise_references.py` holds them to the library and to the simulation.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["EDGE_RATES", "EDGE_PRICES", "per_ticket", "route", "costs", "routes"]


def per_ticket(p: float, price: float, cap: int) -> float:
    """Money per accepted ticket: every attempt paid for, divided by the orders that passed."""
    spent, still_failing = 0.0, 1.0
    for _ in range(cap):
        spent += still_failing * price
        still_failing *= 1.0 - p
    # the share that passed, as the lesson writes it, 1 - (1 - p)^cap: at p = 1e-10 it keeps
    # seven digits, far inside the 4% a checker allows
    passed = 1.0 - (1.0 - p) ** cap
    return math.inf if passed == 0 else spent / passed


def route(steps: Sequence[tuple[float, float, int]]) -> tuple[float, float]:
    """(pass rate, money per accepted ticket) of models tried in turn, each for its attempts."""
    spent, still_failing = 0.0, 1.0
    for p, price, attempts in steps:
        for _ in range(attempts):
            spent += still_failing * price
            still_failing *= 1.0 - p
    passed = 1.0 - still_failing
    return passed, (math.inf if passed == 0 else spent / passed)


# Pass rates at and beside the lesson's edges: 0 (no ticket ever: math.inf) and the tiny rates
# just above it, which still buy a ticket at a finite price (a cut-off that reads 1e-10 as 0 is
# wrong), and 1 and just below it.
EDGE_RATES = (0.0, 1e-10, 1e-6, 1e-4, 0.001, 0.5, 0.999, 1.0)
# Prices at and beside 0: free, and the fractions of a cent a real attempt costs (the notebook
# prints them to six places), where rounding the money to cents or to four places gives 0.
EDGE_PRICES = (0.0, 1e-6, 3e-5, 0.0004, 0.004)


def _rates() -> Any:
    from hypothesis import strategies as st

    edges = st.sampled_from(EDGE_RATES)
    return st.one_of(edges, st.floats(0.0, 1.0, allow_nan=False).map(lambda p: round(p, 3)))


def _prices() -> Any:
    from hypothesis import strategies as st

    edges = st.sampled_from(EDGE_PRICES)
    return st.one_of(edges, st.floats(0.01, 50.0).map(lambda x: round(x, 2)))


def costs() -> Any:
    """(p, price, cap): pass rates at and beside 0 and 1, free, fraction-of-a-cent and dear
    models, caps 1 to 8."""
    from hypothesis import strategies as st

    return st.tuples(_rates(), _prices(), st.integers(1, 8))


def routes() -> Any:
    """Routes of 1 to 4 steps, each (p, price, attempts) with 1 to 4 attempts."""
    from hypothesis import strategies as st

    step = st.tuples(_rates(), _prices(), st.integers(1, 4))
    return st.lists(step, min_size=1, max_size=4).map(tuple)
