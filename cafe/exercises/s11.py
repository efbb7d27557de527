"""Session 11's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s11-cost-routing.ipynb`) asks for two functions, and checks each one
against seeded simulation rather than against the course's formula, so any correct derivation
passes, however it is written:

1. `expected_cost(p, price, cap)`: the money one accepted ticket costs when each attempt passes
   with probability p and costs `price`, with at most `cap` attempts. `check_expected_cost`
   compares it with `cafe.routing.simulate_cost` on several (p, price, cap); the course's answer
   is `cafe.routing.expected_cost`.
2. `my_route_cost(steps)`: a route given as (p, price, attempts) per model, tried in order,
   returning (pass rate, cost per accepted ticket). `check_route_cost` compares it with
   `cafe.routing.simulate_route`; the course's answer is `cafe.routing.route_cost`.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from cafe.routing.routes import Route, RouteCost, Step, Tier, simulate_cost, simulate_route

__all__ = [
    "COST_CASES",
    "ROUTE_CASES",
    "TRIALS_CHECK",
    "COST_TOLERANCE",
    "RATE_TOLERANCE",
    "check_expected_cost",
    "check_route_cost",
]

# (p, price, cap) for expected_cost: the lesson's two models, a rarer pass, a cap of one, a long
# cap, a model that always passes, and one that never does (which no number of attempts rescues).
COST_CASES: tuple[tuple[float, float, int], ...] = (
    (0.6, 1.0, 3),
    (0.95, 5.0, 3),
    (0.3, 2.0, 3),
    (0.5, 1.0, 1),
    (0.25, 0.5, 6),
    (1.0, 3.0, 3),
    (0.0, 1.0, 3),
)
# Routes for my_route_cost, each a list of (p, price, attempts): the lesson's two cascades, one
# model alone, three models in a row, and a cascade that gives each model two attempts.
ROUTE_CASES: tuple[tuple[tuple[float, float, int], ...], ...] = (
    ((0.6, 1.0, 1), (0.95, 5.0, 2)),
    ((0.6, 1.0, 2), (0.95, 5.0, 1)),
    ((0.6, 1.0, 3),),
    ((0.3, 1.0, 1), (0.5, 2.0, 1), (0.9, 8.0, 1)),
    ((0.2, 0.5, 2), (0.7, 3.0, 2)),
)
# Simulated orders per case: at p >= 0.25 the spend per ticket is then within about 1% of the truth.
TRIALS_CHECK = 40_000
# How far an answer may sit from the simulation: four times that 1%, and 0.01 on a pass rate.
COST_TOLERANCE = 0.04
RATE_TOLERANCE = 0.01


@functools.cache
def _simulated_cost(p: float, price: float, cap: int) -> RouteCost:
    return simulate_cost(p, price, cap, trials=TRIALS_CHECK, seed=11)


@functools.cache
def _simulated_route(steps: tuple[tuple[float, float, int], ...]) -> RouteCost:
    route = Route(
        "yours",
        tuple(Step(Tier(f"model {i + 1}", p, price), n) for i, (p, price, n) in enumerate(steps)),
    )
    return simulate_route(route, 0.0, TRIALS_CHECK, random.Random(11))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(value)


def _close(yours: float, simulated: float) -> bool:
    if math.isinf(simulated):
        return math.isinf(yours)
    return math.isfinite(yours) and abs(yours - simulated) <= COST_TOLERANCE * simulated


def _call(fn: Callable[..., Any], label: str, *args: Any) -> tuple[Any, list[str]]:
    try:
        return fn(*args), []
    except NotImplementedError:
        raise
    except Exception as exc:  # a learner's bug is a problem to show, not a crash
        return None, [f"{label}: raised {type(exc).__name__}: {exc}"]


def check_expected_cost(fn: Callable[[float, float, int], float]) -> list[str]:
    """Problems with an `expected_cost(p, price, cap)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    problems: list[str] = []
    for p, price, cap in COST_CASES:
        label = f"p={p}, price=${price:g}, cap {cap}"
        answer, found = _call(fn, label, p, price, cap)
        if found:
            problems += found
            continue
        yours = _number(answer)
        if yours is None:
            problems.append(
                f"{label}: returned {answer!r}; return the cost per accepted ticket as a number"
            )
            continue
        simulated = _simulated_cost(p, price, cap)
        if not _close(yours, simulated.cost_per_accepted):
            problems.append(
                f"{label}: yours says ${yours:.3f} per accepted ticket; {TRIALS_CHECK:,} simulated "
                f"orders spent ${simulated.spend:.3f} each and {simulated.pass_rate:.1%} got a ticket, "
                f"so ${simulated.cost_per_accepted:.3f} per ticket"
            )
    return problems


def _pair(answer: Any) -> tuple[float, float] | None:
    if isinstance(answer, RouteCost):
        return answer.pass_rate, answer.cost_per_accepted
    if isinstance(answer, Sequence) and not isinstance(answer, str) and len(answer) == 2:
        rate, cost = _number(answer[0]), _number(answer[1])
        if rate is not None and cost is not None:
            return rate, cost
    return None


def check_route_cost(
    fn: Callable[[Sequence[tuple[float, float, int]]], tuple[float, float]],
) -> list[str]:
    """Problems with a `my_route_cost(steps)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    problems: list[str] = []
    for steps in ROUTE_CASES:
        label = "route " + " then ".join(f"(p={p}, ${price:g}) x{n}" for p, price, n in steps)
        answer, found = _call(fn, label, [tuple(step) for step in steps])
        if found:
            problems += found
            continue
        pair = _pair(answer)
        if pair is None:
            problems.append(
                f"{label}: returned {answer!r}; return (pass rate, cost per accepted ticket)"
            )
            continue
        simulated = _simulated_route(steps)
        if abs(pair[0] - simulated.pass_rate) > RATE_TOLERANCE:
            problems.append(
                f"{label}: yours passes {pair[0]:.3f} of orders; the simulation passed "
                f"{simulated.pass_rate:.3f}"
            )
        if not _close(pair[1], simulated.cost_per_accepted):
            problems.append(
                f"{label}: yours says ${pair[1]:.3f} per accepted ticket; the simulation spent "
                f"${simulated.spend:.3f} an order, so ${simulated.cost_per_accepted:.3f} per ticket"
            )
    return problems
