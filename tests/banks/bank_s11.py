"""Session 11's banks: `check_expected_cost` and `check_route_cost` (cafe/exercises/s11.py).

The exercise ideas: the figure is money per *accepted* ticket, so every attempt is paid for,
failed ones too, and the sum is divided by the tickets, not the orders; an attempt is paid for
only when it happens (when every attempt before it failed); an order that never gets a ticket
costs money and buys nothing, so a model that never passes makes a ticket infinitely dear
(`math.inf`). A route walks its models in order, each for its own attempts, and a later model is
paid for only when the earlier ones failed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from banks.harness import Bank, Entry
from cafe.exercises.reference_s11 import per_ticket
from cafe.exercises.s11 import check_expected_cost, check_route_cost
from cafe.repair.lottery import pass_within_cap
from cafe.routing.routes import Route, Step, Tier, expected_attempts, expected_cost, route_cost

Steps = Sequence[tuple[float, float, int]]

# --- expected_cost: wrong ---------------------------------------------------------------------


def per_order(p: float, price: float, cap: int) -> float:
    """What an order costs, forgetting that only some orders end with a ticket."""
    return price * expected_attempts(p, cap)


def whole_cap(p: float, price: float, cap: int) -> float:
    """Every order pays for every attempt, even those a pass made unnecessary."""
    passed = pass_within_cap(p, cap)
    return price * cap / passed if passed else math.inf


def one_attempt_each(p: float, price: float, cap: int) -> float:
    """One attempt per order, divided by the pass rate within the cap."""
    return price / pass_within_cap(p, cap) if p else math.inf


def no_zero_guard(p: float, price: float, cap: int) -> float:
    """The simplified form, with nothing for a model that never passes."""
    return price / p


def one_term_too_many(p: float, price: float, cap: int) -> float:
    """Off by one: sums the chances of cap + 1 attempts."""
    attempts = sum((1 - p) ** k for k in range(cap + 1))
    passed = pass_within_cap(p, cap)
    return price * attempts / passed if passed else math.inf


def one_term_too_few(p: float, price: float, cap: int) -> float:
    """Off by one: sums the chances of cap - 1 attempts (at least one)."""
    attempts = sum((1 - p) ** k for k in range(cap - 1)) or 1.0
    passed = pass_within_cap(p, cap)
    return price * attempts / passed if passed else math.inf


def zero_for_never(p: float, price: float, cap: int) -> float:
    """ "No ticket, no cost": a model that never passes is free."""
    return price / p if p else 0.0


def cap_times_price_over_p(p: float, price: float, cap: int) -> float:
    """Every attempt of the cap, each buying p of a ticket."""
    return price * cap / p if p else math.inf


def ignores_price(p: float, price: float, cap: int) -> float:
    """Expected attempts per ticket, with the price left out."""
    return 1 / p if p else math.inf


def cheap_model_hard_coded(p: float, price: float, cap: int) -> float:
    """The lesson's cheap model (p = 0.6) hard-coded for every case."""
    return price / 0.6 if p else math.inf


# --- expected_cost: right ---------------------------------------------------------------------


def right_simplified(p: float, price: float, cap: int) -> float:
    """The factor cancelled: price / p, and infinity when p is 0."""
    return price / p if p > 0 else math.inf


def right_sum(p: float, price: float, cap: int) -> float:
    """Spend summed attempt by attempt, over the tickets the cap buys."""
    if p == 0:
        return math.inf
    spent = sum(price * (1 - p) ** (k - 1) for k in range(1, cap + 1))
    return spent / (1 - (1 - p) ** cap)


# --- route_cost: the reference, learner-shaped for the mutation benchmark ----------------------


def my_route_cost(steps: Steps) -> tuple[float, float]:
    """The course's `route_cost` without stickiness, on (p, price, attempts) steps, as the hint
    says: walk the attempts, keeping the chance an order is still without a ticket."""
    reach, spend = 1.0, 0.0
    for p, price, attempts in steps:
        for _ in range(attempts):
            spend += reach * price
            reach *= 1.0 - p
    rate = 1.0 - reach
    return rate, (spend / rate if rate > 0 else math.inf)


# --- route_cost: wrong ------------------------------------------------------------------------


def pays_every_model(steps: Steps) -> tuple[float, float]:
    """Charges each model one attempt, whether or not an earlier one passed."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        spend += price
        reach *= (1 - p) ** n
    return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf


def first_model_only(steps: Steps) -> tuple[float, float]:
    """The first model for the whole cap; the later models never run."""
    p, price, _ = steps[0]
    cap = sum(step[2] for step in steps)
    return pass_within_cap(p, cap), expected_cost(p, price, cap)


def pays_whole_step(steps: Steps) -> tuple[float, float]:
    """A model that is reached is paid for all its attempts."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        spend += reach * price * n
        reach *= (1 - p) ** n
    return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf


def spend_not_per_ticket(steps: Steps) -> tuple[float, float]:
    """Money per order, not per accepted ticket."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        for _ in range(n):
            spend += reach * price
            reach *= 1 - p
    return 1 - reach, spend


def no_zero_guard_route(steps: Steps) -> tuple[float, float]:
    """Divides by the pass rate with nothing for a route that never passes."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        for _ in range(n):
            spend += reach * price
            reach *= 1 - p
    return 1 - reach, spend / (1 - reach)


def one_attempt_per_model(steps: Steps) -> tuple[float, float]:
    """Each model gets one attempt, whatever its step says."""
    return my_route_cost([(p, price, 1) for p, price, _ in steps])


def cascade_hard_coded(steps: Steps) -> tuple[float, float]:
    """The lesson's cascade (cheap once, then strong twice) answered for every route."""
    return 0.999, 3.1 / 0.999


def zero_for_never_route(steps: Steps) -> tuple[float, float]:
    """A route that never passes costs nothing per ticket."""
    rate, cost = my_route_cost(steps)
    return rate, cost if math.isfinite(cost) else 0.0


def free_step_skipped(steps: Steps) -> tuple[float, float]:
    """Leaves a free model (price 0) out of the route, as if it cost nothing and did nothing."""
    return my_route_cost([step for step in steps if step[1] > 0] or list(steps))


def wraps_route_cost(steps: Steps) -> object:
    """Hands the course's route_cost back instead of working the route out."""
    return route_cost(
        Route("r", tuple(Step(Tier(str(i), p, price), n) for i, (p, price, n) in enumerate(steps)))
    )


def free_never_is_free(p: float, price: float, cap: int) -> float:
    """0 / 0 read as 0: a free model that never passes is given a price of nothing per ticket."""
    if p == 0:
        return 0.0 if price == 0 else math.inf
    return price / p


def calls_the_course(p: float, price: float, cap: int) -> float:
    """Hands the course's expected_cost back instead of working it out."""
    return expected_cost(p, price, cap)


def right_by_cases(p: float, price: float, cap: int) -> float:
    """No ticket ever: infinite; else the spend per order over the orders that pass."""
    if p == 0:
        return math.inf
    passed = 1 - (1 - p) ** cap
    return price * passed / p / passed


# --- route_cost: right ------------------------------------------------------------------------


def right_recursive(steps: Steps) -> tuple[float, float]:
    """One attempt at a time, recursively: what is left after it, and what it and the rest cost."""

    def walk(rest: tuple[tuple[float, float, int], ...], reach: float) -> tuple[float, float]:
        if not rest:
            return reach, 0.0
        (p, price, n), tail = rest[0], rest[1:]
        left, spent = walk(((p, price, n - 1), *tail) if n > 1 else tail, reach * (1 - p))
        return left, reach * price + spent

    left, spend = walk(tuple((p, price, n) for p, price, n in steps if n > 0), 1.0)
    rate = 1 - left
    return rate, (spend / rate if rate > 0 else math.inf)


def right_record(steps: Steps) -> object:
    """The course's `route_cost` called on a `Route`, handing back its `RouteCost` record."""
    return route_cost(
        Route("r", tuple(Step(Tier(str(i), p, price), n) for i, (p, price, n) in enumerate(steps)))
    )


def right_closed_form(steps: Steps) -> tuple[float, float]:
    """Per model, a geometric series: the attempts it is paid for are (1 - (1 - p)^n) / p times the
    chance it is reached; the chance of no ticket multiplies down by (1 - p)^n."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        paid = n if p == 0 else (1 - (1 - p) ** n) / p
        spend += reach * price * paid
        reach *= (1 - p) ** n
    return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf


# --- held-out reader D, 7 Dec 2026: written from the lesson alone ---------------------------------


def one_step_route_cost(p: float, price: float, cap: int) -> float:
    """The course's route_cost on a one-step route: the course's cost under another name."""
    return route_cost(Route("r", (Step(Tier("m", p, price), cap),))).cost_per_accepted


def tiny_rate_is_zero(p: float, price: float, cap: int) -> float:
    """A cut-off read as "no ticket ever": p under 1e-9 is taken for 0."""
    return math.inf if abs(p) < 1e-9 else price / p


def rounded_to_four_places(p: float, price: float, cap: int) -> float:
    """The money rounded to four places "for display"."""
    return round(price / p, 4) if p else math.inf


def rounded_to_cents(p: float, price: float, cap: int) -> float:
    """The money rounded to cents: an attempt costs a fraction of a cent."""
    return round(price / p, 2) if p else math.inf


def right_by_distribution(p: float, price: float, cap: int) -> float:
    """Where an order stops, attempt by attempt: attempts and tickets summed with no subtraction."""
    if p == 0:
        return math.inf
    attempts, tickets, still = 0.0, 0.0, 1.0
    for _ in range(cap):
        attempts, tickets, still = attempts + still, tickets + still * p, still * (1 - p)
    return price * attempts / tickets


def right_as_printed(p: float, price: float, cap: int) -> float:
    """The lesson's formula with both brackets kept: price x [(1 - (1-p)^n) / p] / [1 - (1-p)^n]."""
    if p == 0:
        return math.inf
    return price * ((1 - (1 - p) ** cap) / p) / (1 - (1 - p) ** cap)


def pops_the_steps(steps: Steps) -> tuple[float, float]:
    """Consumes the caller's list with pop(0): a second call with the same list finds it empty."""
    reach, spend = 1.0, 0.0
    while steps:
        p, price, n = steps.pop(0)  # type: ignore[attr-defined]
        for _ in range(n):
            spend, reach = spend + reach * price, reach * (1 - p)
    return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf


def right_per_step_expm1(steps: Steps) -> tuple[float, float]:
    """A closed form per step with expm1/log1p, and the input checked as it comes."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        if not 0 <= p <= 1 or price < 0 or n < 0:
            raise ValueError(f"bad step {(p, price, n)!r}")
        fail_all = (1 - p) ** n
        paid = n if p == 0 else (-math.expm1(n * math.log1p(-p)) / p if p < 1 else 1.0)
        spend, reach = spend + reach * price * paid, reach * fail_all
    return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf


# --- held-out readerI, 7 Dec 2026 (afternoon): written from the lesson alone ----------------------


def right_first_step_read(steps: Steps) -> tuple[float, float]:
    """The hint's walk, refusing an empty route before it starts (the reader's crashed on it):
    filed arguable by the reader, decided right. "A route is a list of steps", and the course's
    own `Route` refuses an empty one ("needs a non-empty tuple of Step"): [] is outside the domain."""
    if not steps:
        raise ValueError("a route needs at least one step")
    return my_route_cost(steps)


# --- reader CB, 8 Dec 2026: within the simulation's slack, but not the exact answer -------------


def scaled_1_03(p: float, price: float, cap: int) -> float:
    """3% over price / p: inside the simulation's 4%, never the exact cost."""
    return math.inf if p == 0 else 1.03 * price / p


def scaled_1_01(p: float, price: float, cap: int) -> float:
    """1% over price / p."""
    return math.inf if p == 0 else 1.01 * price / p


def scaled_0_99(p: float, price: float, cap: int) -> float:
    """1% under price / p (one more of the kind: low, not high)."""
    return math.inf if p == 0 else 0.99 * price / p


def p1_special(p: float, price: float, cap: int) -> float:
    """Near p = 1, 1% over the price, where a ticket costs price / p exactly."""
    if p == 0:
        return math.inf
    return price * 1.01 if p >= 0.999 else price / p


def route_scaled_1_03(steps: Steps) -> tuple[float, float]:
    """The right walk, with the cost per ticket 3% high."""
    rate, cost = my_route_cost(steps)
    return rate, 1.03 * cost


def route_rate_0_995(steps: Steps) -> tuple[float, float]:
    """The right walk, with the pass rate half a point low (inside the simulation's 0.01)."""
    rate, cost = my_route_cost(steps)
    return rate * 0.995, cost


# --- the banks --------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s11",
        check_expected_cost,
        per_ticket,
        wrong=(
            Entry(
                "free_never_is_free",
                free_never_is_free,
                "no ticket ever comes, so a ticket is infinitely dear, free model or not",
                "p=0, $0: 0 instead of inf",
            ),
            Entry("calls_the_course", calls_the_course, "write your own", "expected_cost"),
            Entry("expected_cost", expected_cost, "the course's own function", "itself"),
            Entry(
                "per_order",
                per_order,
                "the spend per order is divided by the share of orders that get a ticket",
                "p=0.3, $2, cap 3: $4.38 instead of $6.67",
            ),
            Entry(
                "whole_cap",
                whole_cap,
                "an attempt is paid for only when every attempt before it failed",
                "p=0.6, $1, cap 3: $3.21 instead of $1.67",
            ),
            Entry(
                "one_attempt_each",
                one_attempt_each,
                "failed attempts are paid for too",
                "p=0.3, $2, cap 3: $3.04 instead of $6.67",
            ),
            Entry(
                "no_zero_guard",
                no_zero_guard,
                "a model that never passes makes a ticket infinitely dear",
                "p=0: ZeroDivisionError",
            ),
            Entry(
                "one_term_too_many",
                one_term_too_many,
                "the cap allows cap attempts, not cap + 1",
                "p=0.3, $2, cap 3: $8.18 instead of $6.67",
            ),
            Entry(
                "one_term_too_few",
                one_term_too_few,
                "the cap allows cap attempts, not cap - 1",
                "p=0.3, $2, cap 3: $5.18 instead of $6.67",
            ),
            Entry(
                "zero_for_never",
                zero_for_never,
                "orders without a ticket cost money and buy nothing",
                "p=0: 0 instead of inf",
            ),
            Entry(
                "cap_times_price_over_p",
                cap_times_price_over_p,
                "each attempt buys p of a ticket, not the whole cap",
                "p=0.6, $1, cap 3: $5 instead of $1.67",
            ),
            Entry(
                "ignores_price",
                ignores_price,
                "the figure is money, so the price is in it",
                "p=0.95, $5, cap 3: 1.05 instead of $5.26",
            ),
            # held-out reader D, 7 Dec 2026
            Entry(
                "one_step_route_cost",
                one_step_route_cost,
                "write your own: every course function that works the cost out is refused",
                "route_cost",
            ),
            Entry(
                "tiny_rate_is_zero",
                tiny_rate_is_zero,
                "only p == 0 buys no ticket; a tiny p buys one at a finite price",
                "p=1e-10, $1: inf instead of $1e10",
            ),
            Entry(
                "rounded_to_four_places",
                rounded_to_four_places,
                "an attempt costs a fraction of a cent; rounding the money loses it",
                "p=0.5, $0.000001: 0 instead of $0.000002",
            ),
            Entry(
                "rounded_to_cents",
                rounded_to_cents,
                "an attempt costs a fraction of a cent; rounding the money loses it",
                "p=0.001, $0.000001: 0 instead of $0.001",
            ),
            Entry(
                "cheap_model_hard_coded",
                cheap_model_hard_coded,
                "the pass rate is an input, not the lesson's 0.6",
                "p=0.95, $5, cap 3: $8.33 instead of $5.26",
            ),
            # reader CB, 8 Dec 2026: generated inputs are held to the exact answer within rounding
            Entry(
                "scaled_1_03",
                scaled_1_03,
                "compared with an exact answer, only rounding is slack",
                "p=0.5, $1: 2.06 instead of 2",
            ),
            Entry("scaled_1_01", scaled_1_01, "only rounding is slack", "p=0.5, $1: 2.02"),
            Entry("scaled_0_99", scaled_0_99, "only rounding is slack", "p=0.5, $1: 1.98"),
            Entry("p1_special", p1_special, "at p = 1 a ticket costs the price", "p=1, $1: 1.01"),
        ),
        right=(
            Entry("right_simplified", right_simplified, "price / p: the shared factor cancelled"),
            Entry(
                "right_sum", right_sum, "the spend summed attempt by attempt, over the pass rate"
            ),
            Entry("right_by_cases", right_by_cases, "p = 0 first, then the spend over the passes"),
            # held-out reader D, 7 Dec 2026
            Entry(
                "right_by_distribution",
                right_by_distribution,
                "attempts and tickets summed where orders stop, no subtraction",
            ),
            Entry(
                "right_as_printed",
                right_as_printed,
                "the lesson's formula with both brackets kept, exact enough down to p = 1e-10",
            ),
        ),
        reference_module="cafe.exercises.reference_s11",
        targets=("per_ticket",),
    ),
    Bank(
        "s11",
        check_route_cost,
        my_route_cost,
        wrong=(
            Entry(
                "free_step_skipped",
                free_step_skipped,
                "a free model is still tried: its attempts can pass",
                "(p=0.5, $0) then (p=0.5, $1): pass rate 0.5 instead of 0.75",
            ),
            Entry("wraps_route_cost", wraps_route_cost, "write your own", "route_cost"),
            Entry("right_record", right_record, "the course's route_cost, handed back", "itself"),
            Entry(
                "pays_every_model",
                pays_every_model,
                "a later model is paid for only when the earlier attempts failed",
                "cheap x1 then strong x2: $6.01 instead of $3.10",
            ),
            Entry(
                "first_model_only",
                first_model_only,
                "every step of the route runs, each with its own model",
                "cheap x1 then strong x2: passes 0.936 instead of 0.999",
            ),
            Entry(
                "pays_whole_step",
                pays_whole_step,
                "each attempt is paid for only when it happens",
                "cheap x2 then strong x1: $6.77 instead of $2.79",
            ),
            Entry(
                "spend_not_per_ticket",
                spend_not_per_ticket,
                "the spend per order is divided by the pass rate",
                "cheap x3: $1.56 instead of $1.67",
            ),
            Entry(
                "no_zero_guard_route",
                no_zero_guard_route,
                "a route that never passes makes a ticket infinitely dear",
                "(p=0) x2: ZeroDivisionError",
            ),
            Entry(
                "one_attempt_per_model",
                one_attempt_per_model,
                "a step gives its model all of its attempts",
                "cheap x3: passes 0.6 instead of 0.936",
            ),
            Entry(
                "cascade_hard_coded",
                cascade_hard_coded,
                "the route is an input, not the lesson's cascade",
                "cheap x3: $3.10 instead of $1.67",
            ),
            Entry(
                "zero_for_never_route",
                zero_for_never_route,
                "orders without a ticket cost money and buy nothing",
                "(p=0) x2: 0 instead of inf",
            ),
            # held-out reader D, 7 Dec 2026
            Entry(
                "pops_the_steps",
                pops_the_steps,
                "the caller's steps are the caller's: a second call with the list answers the same",
                "[(0.6, $1, 3)] twice: (0.936, $1.67), then (0, inf)",
            ),
            # reader CB, 8 Dec 2026: generated routes are held to the exact answer within rounding
            Entry(
                "route_scaled_1_03",
                route_scaled_1_03,
                "compared with an exact answer, only rounding is slack",
                "(p=0.6, $1) x1: $1.72 instead of $1.67",
            ),
            Entry(
                "route_rate_0_995",
                route_rate_0_995,
                "compared with an exact answer, only rounding is slack",
                "(p=0.6, $1) x1: pass rate 0.597 instead of 0.6",
            ),
        ),
        right=(
            Entry("right_recursive", right_recursive, "recursive, one attempt at a time"),
            Entry("right_closed_form", right_closed_form, "a geometric series per model"),
            # held-out reader D, 7 Dec 2026
            Entry("right_per_step_expm1", right_per_step_expm1, "expm1 per step, input checked"),
            # held-out readerI, 7 Dec 2026 (afternoon) (filed arguable; decided right, see above)
            Entry("right_first_step_read", right_first_step_read, "raises on an empty route"),
        ),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
# The key is what `benchmarks/checker_mutants.py` prints; the reason's first word is one of
# equivalent, text, validation, outside, open (docs/AUTHORING.md, "Its exercises").
EQUIVALENT: dict[str, dict[str, str]] = {}
