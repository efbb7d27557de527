"""Session 11's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s11-cost-routing.ipynb`) asks for two functions, and checks each one
against seeded simulation rather than against the course's formula, so any correct derivation
passes, however it is written:

1. `expected_cost(p, price, cap)`: the money one accepted ticket costs when each attempt passes
   with probability p and costs `price`, with at most `cap` attempts. `check_expected_cost`
   compares it with `cafe.routing.simulate_cost` on several (p, price, cap), then with the exact
   `cafe.exercises.reference_s11.per_ticket` on generated ones (p at and beside 0 and 1, down to
   1e-10, free models and attempts costing a fraction of a cent, caps 1 to 8). The course's
   `expected_cost` is refused, and so is every course function that works the cost out
   (`route_cost`, `simulate_route`): write your own.
2. `my_route_cost(steps)`: a route given as (p, price, attempts) per model, tried in order,
   returning (pass rate, cost per accepted ticket). `check_route_cost` compares it with
   `cafe.routing.simulate_route`, then with the exact `reference_s11.route` on generated routes,
   and on generated routes it must leave the caller's list as it was and answer a second call
   with that list the same. The course's `route_cost` (and `simulate_route`) is refused.

Each case carries the idea it tests, and a rejection names the case, what the learner's function
returned, what the simulation found, and that idea (`cafe.exercises.feedback`).
"""

from __future__ import annotations

import functools
import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    shown,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_broken, first_difference, outcome
from cafe.exercises.library import is_library
from cafe.exercises.reference_s11 import costs, per_ticket, route, routes
from cafe.routing import routes as _course
from cafe.routing.routes import Route, RouteCost, Step, Tier, simulate_cost, simulate_route

__all__ = [
    "COST_CASES",
    "ROUTE_CASES",
    "TRIALS_CHECK",
    "COST_TOLERANCE",
    "RATE_TOLERANCE",
    "RATE_IDEA",
    "check_expected_cost",
    "check_route_cost",
]

RouteSteps = tuple[tuple[float, float, int], ...]

# (p, price, cap, the idea the case tests) for expected_cost: the lesson's two models, a rarer
# pass, a cap of one, a long cap, a model that always passes, and one that never does.
COST_CASES: tuple[tuple[float, float, int, str], ...] = (
    (0.6, 1.0, 3, "every attempt is paid for, failed ones too, and divided by the tickets"),
    (0.95, 5.0, 3, "the figure is money: the price per attempt is in it"),
    (0.3, 2.0, 3, "an attempt is paid for only when every attempt before it failed"),
    (0.5, 1.0, 1, "one attempt: an order costs one price and passes with p"),
    (0.25, 0.5, 6, "the cap allows exactly cap attempts"),
    (1.0, 3.0, 3, "a model that always passes pays for one attempt per ticket"),
    (0.0, 1.0, 3, "no order ever gets a ticket: a ticket is infinitely dear (math.inf)"),
)
# Routes for my_route_cost, each (steps, the idea the case tests), steps as (p, price, attempts):
# the lesson's two cascades, one model alone, three models in a row, two attempts each, a route
# that never passes, a first model that never passes, and one whose first model always does.
ROUTE_CASES: tuple[tuple[RouteSteps, str], ...] = (
    (((0.6, 1.0, 1), (0.95, 5.0, 2)), "a later model is paid for only when the earlier failed"),
    (((0.6, 1.0, 2), (0.95, 5.0, 1)), "each attempt is paid for only when it happens"),
    (((0.6, 1.0, 3),), "a step gives its model all of its attempts"),
    (((0.3, 1.0, 1), (0.5, 2.0, 1), (0.9, 8.0, 1)), "every step runs, each with its own model"),
    (((0.2, 0.5, 2), (0.7, 3.0, 2)), "the spend per order is divided by the pass rate"),
    (((0.0, 1.0, 2),), "no order ever gets a ticket: a ticket is infinitely dear (math.inf)"),
    (((0.0, 0.5, 1), (0.9, 4.0, 1)), "a model that never passes is still paid for"),
    (((1.0, 2.0, 1), (0.5, 9.0, 3)), "no model after a pass is paid for"),
)
# The idea a wrong pass rate bears on, whichever route shows it.
RATE_IDEA = "an order goes without a ticket only when every attempt of every step fails"
# Simulated orders per case: at p >= 0.25 the spend per ticket is then within about 1% of the truth.
TRIALS_CHECK = 40_000
# How far an answer may sit from the simulation: four times that 1%, and 0.01 on a pass rate.
COST_TOLERANCE = 0.04
RATE_TOLERANCE = 0.01
# Against an exact answer (the generated inputs) the only slack is floating-point rounding: a
# relative 1e-9, widened where the pass rate is tiny by what its cancellation costs a correct
# function (`_rounding`), never the simulation's 4%: a cost 1% high is wrong, not noise.
ROUNDING = 1e-9


@functools.cache
def _simulated_cost(p: float, price: float, cap: int) -> RouteCost:
    return simulate_cost(p, price, cap, trials=TRIALS_CHECK, seed=11)


@functools.cache
def _simulated_route(steps: RouteSteps) -> RouteCost:
    route = Route(
        "yours",
        tuple(Step(Tier(f"model {i + 1}", p, price), n) for i, (p, price, n) in enumerate(steps)),
    )
    return simulate_route(route, 0.0, TRIALS_CHECK, random.Random(11))


def _number(value: Any) -> float | None:
    """A learner's number as a float; None for anything else (a bool, a string, NaN, None)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(value)


def _close(yours: float, simulated: float) -> bool:
    if math.isinf(simulated):
        return yours == math.inf
    return math.isfinite(yours) and abs(yours - simulated) <= COST_TOLERANCE * simulated


def _money(simulated: RouteCost) -> Described:
    """What the simulation found, in words: the spend per order, the pass rate, their ratio."""
    per_ticket = simulated.cost_per_accepted
    return Described(
        f"about {per_ticket:.4g} ({TRIALS_CHECK:,} simulated orders spent {simulated.spend:.4g} "
        f"each and {simulated.pass_rate:.1%} got a ticket)"
        if math.isfinite(per_ticket)
        else "math.inf (no simulated order got a ticket)"
    )


def _course_function(
    fn: Callable[..., Any], library: tuple[Callable[..., Any], ...], trial: tuple[Any, ...]
) -> str | None:
    """The name of the course's function that `fn` is or runs, or None. Every course function that
    works the answer out is refused, not only the one the exercise is named after: a one-step
    route handed to `route_cost` is the course's cost under another name."""
    return next(
        (own.__name__ for own in library if is_library(fn, own, trial=trial)),
        None,
    )


def check_expected_cost(fn: Callable[[float, float, int], Any]) -> list[str]:
    """Problems with an `expected_cost(p, price, cap)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    course_function = _course_function(
        fn, (_course.expected_cost, _course.route_cost, _course.simulate_route), COST_CASES[0][:3]
    )
    if course_function:
        return [library_answer(course_function)]
    problems: list[str] = []
    for p, price, cap, idea in COST_CASES:
        label = f"expected_cost({p}, {price:g}, {cap})"
        answer = call(fn, p, price, cap)
        if isinstance(answer, Raised):
            problems.append(answer.problem(label))
            continue
        yours = _number(answer)
        if yours is None:
            problems.append(wrong_type(label, answer, "the cost per accepted ticket as a number"))
            continue
        simulated = _simulated_cost(p, price, cap)
        if not _close(yours, simulated.cost_per_accepted):
            problems.append(mismatch(label, answer, _money(simulated), idea))
    found = None if problems else _generated(fn, _exact_cost, built_once(costs), _same_cost)
    return [*problems, found] if found else problems


_GENERATED_IDEA = (
    "every attempt paid for while the order is still without a ticket, over the orders that "
    "got one: a pass rate of 0 makes a ticket infinitely dear, a free model costs 0"
)


class _Exact(float):
    """An exact answer, with how far (relatively) floating-point rounding alone can move a
    correct function's answer from it."""

    slack: float

    def __new__(cls, value: float, slack: float) -> _Exact:
        exact = super().__new__(cls, value)
        exact.slack = slack
        return exact


def _rounding(tries: Sequence[tuple[float, int]]) -> float:
    """The relative slack rounding allows: ROUNDING, plus, where the pass rate is tiny, the
    cancellation in `1 - (1 - p)^n` written as it reads (each of its n roundings, of size eps, over
    the rate, or over the smallest p, as in a model's `(1 - (1 - p)^n) / p`: at p = 1e-10 either
    keeps seven digits, and a correct answer may keep them all)."""
    logs = [n * math.log1p(-p) if p < 1 else -math.inf for p, n in tries]
    rate = -math.expm1(math.fsum(logs)) if logs else 0.0
    # the same cancellation in any one model's (1 - (1 - p)^n) / p, a correct way to sum its spend
    tiny = min([rate, *(p for p, _ in tries if p > 0)])
    attempts = sum(n for _, n in tries)
    return ROUNDING + (8 * (attempts + 1) * sys.float_info.epsilon / tiny if tiny > 0 else 0.0)


def _exact_cost(p: float, price: float, cap: int) -> _Exact:
    return _Exact(per_ticket(p, price, cap), _rounding(((p, cap),)))


def _exact_route(steps: RouteSteps) -> tuple[float, _Exact]:
    rate, cost = route(steps)
    return rate, _Exact(cost, _rounding([(p, n) for p, _, n in steps]))


def _same_cost(yours: Any, exact: float) -> bool:
    """A comparison against an exact answer allows floating-point rounding only (`ROUNDING`,
    or the exact answer's own `slack`), never the simulation's statistical slack."""
    number = _number(yours)
    if number is None:
        return False
    if exact in (0.0, math.inf):
        return number == exact
    return math.isclose(number, exact, rel_tol=getattr(exact, "slack", ROUNDING))


def _same_route(yours: Any, exact: tuple[float, float]) -> bool:
    pair = _pair(yours)
    return pair is not None and (
        math.isclose(pair[0], exact[0], rel_tol=0.0, abs_tol=ROUNDING)
        and _same_cost(pair[1], exact[1])
    )


def _generated(fn: Callable[..., Any], exact: Any, inputs: Any, same: Any) -> str | None:
    """The first generated input where `fn` and the exact answer differ, shrunk, or None."""
    unpack = exact is _exact_cost
    found = first_difference(
        fn if unpack else (lambda steps: fn([tuple(s) for s in steps])),
        exact,
        inputs,
        idea=_GENERATED_IDEA,
        same=same,
        unpack=unpack,
        frozen=True,
    )
    return (
        counterexample(found.given, found.returned, found.expected, found.idea) if found else None
    )


def _pair(answer: Any) -> tuple[float, float] | None:
    """(pass rate, cost per accepted ticket) from a learner's answer: a pair or a RouteCost."""
    if isinstance(answer, RouteCost):
        return answer.pass_rate, answer.cost_per_accepted
    if isinstance(answer, Sequence) and not isinstance(answer, str) and len(answer) == 2:
        rate, cost = _number(answer[0]), _number(answer[1])
        if rate is not None and cost is not None:
            return rate, cost
    return None


def _route_problem(label: str, answer: Any, steps: RouteSteps, idea: str) -> str | None:
    """The problem with one route's answer, or None when it matches the simulation."""
    pair = _pair(answer)
    if pair is None:
        return wrong_type(label, answer, "(pass rate, cost per accepted ticket)")
    simulated = _simulated_route(steps)
    if abs(pair[0] - simulated.pass_rate) > RATE_TOLERANCE:
        want = Described(f"a pass rate of about {simulated.pass_rate:.3f} (the simulation's)")
        return mismatch(label, answer, want, RATE_IDEA)
    if not _close(pair[1], simulated.cost_per_accepted):
        return mismatch(label, answer, _money(simulated), idea)
    return None


def check_route_cost(fn: Callable[[list[tuple[float, float, int]]], Any]) -> list[str]:
    """Problems with a `my_route_cost(steps)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    trial = ([tuple(s) for s in ROUTE_CASES[0][0]],)
    course_function = _course_function(fn, (_course.route_cost, _course.simulate_route), trial)
    if course_function:
        return [library_answer(course_function)]
    problems: list[str] = []
    for steps, idea in ROUTE_CASES:
        label = "route " + " then ".join(f"(p={p}, ${price:g}) x{n}" for p, price, n in steps)
        answer = call(fn, [tuple(step) for step in steps])
        if isinstance(answer, Raised):
            problems.append(answer.problem(label))
            continue
        problem = _route_problem(label, answer, steps, idea)
        if problem:
            problems.append(problem)
    found = None if problems else _generated(fn, _exact_route, built_once(routes), _same_route)
    found = found or (None if problems else _changes_the_callers_list(fn))
    return [*problems, found] if found else problems


# Session 01's rule, which a route's caller relies on: it prices the same list again, and lists
# it afterwards (the notebook's routing table does both).
CALLERS_LIST_IDEA = (
    "the caller's steps are the caller's (session 01): read them, never change them, so a second "
    "call with the same list answers the same"
)


def _changes_the_callers_list(fn: Callable[[list[tuple[float, float, int]]], Any]) -> str | None:
    """On generated routes: the list handed in comes back unchanged, and a second call with that
    very list gives the first call's answer. None when both hold on every route tried."""

    def twice(steps: RouteSteps) -> tuple[list[Any], Any, Any]:
        given = [tuple(step) for step in steps]
        first = outcome(fn, given, copied=False)  # the caller's own list, as a caller hands it
        after = list(given)
        return after, first, outcome(fn, given, copied=False)

    def broken(steps: RouteSteps, got: Any) -> bool:
        after, first, second = got
        return after != [tuple(step) for step in steps] or _pair(first) != _pair(second)

    found = first_broken(twice, built_once(routes), broken)
    if found is None:
        return None
    steps, (after, first, second) = found
    given = [tuple(step) for step in steps]
    if after != given:
        return f"on {shown(given, 60)}: your function left the caller's list as {shown(after, 60)}\n  ({CALLERS_LIST_IDEA})"
    return (
        f"on {shown(given, 60)}: your function answered {shown(first, 40)}, then "
        f"{shown(second, 40)} for the same list\n  ({CALLERS_LIST_IDEA})"
    )
