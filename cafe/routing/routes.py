"""What retries cost, and routing between models: the price of an accepted ticket.

Session 11 (`sessions/s11-cost-routing/lesson.md`, notebook `notebooks/s11-cost-routing.ipynb`).
Session 07 capped the re-ask and counted attempts, and `cafe.repair.lottery` worked out what share of
orders a cap rescues. This module puts money on both:

- `expected_attempts` and `expected_cost`: the closed form. An order that passes each attempt with
  probability p spends price x expected attempts, and only a share `pass_within_cap(p, cap)` of
  orders end with a ticket, so one accepted ticket costs price x expected attempts / that share;
- `Tier`, `Step`, `Route`: a model as a route sees it (pass rate, price per attempt), and a route
  as models tried in order, such as a cascade (the cheap model first, the strong one on failure);
- `route_cost`: a route worked out exactly, with correlated failures (`stickiness`) included;
  `simulate_route`: the same figures by drawing attempts the way `cafe.repair.lottery.simulate_sticky`
  draws them, counting attempts and spend as well, so the closed form can be checked;
- `routing_table`: the lesson's routes, each by formula and by simulation.

Prices per token and measured runs are `cafe.routing.prices`. What it leaves out: choosing a model per
order from the order itself (a learned router; the lesson's state of the art), latency, and the
price of an order that never gets a ticket, which only your café can put a figure on. Session 12
asks when a model may grade another model's work.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from cafe.repair.lottery import pass_within_cap
from cafe.repair.reask import CAP_DEFAULT

__all__ = [
    "CHEAP",
    "STRONG",
    "HIGHER_CAP",
    "STICKINESS_EXAMPLE",
    "TRIALS_ROUTES",
    "Tier",
    "Step",
    "Route",
    "RouteCost",
    "RouteRow",
    "expected_attempts",
    "expected_cost",
    "single",
    "cascade",
    "example_routes",
    "route_cost",
    "simulate_route",
    "simulate_cost",
    "routing_table",
]

# The lesson's worked example: a cheap model that passes 6 attempts in 10 at 1 unit of money per
# attempt, and a strong one that passes 19 in 20 at 5 units. Both figures are made up for the
# question the lesson asks; your own come from a run priced with `cafe.routing.prices`.
CHEAP_P, CHEAP_PRICE = 0.6, 1.0
STRONG_P, STRONG_PRICE = 0.95, 5.0
# The cap the cheap model gets when it is given more room than the repair loop's default 3.
HIGHER_CAP = 5
# Correlated failures for the lesson's second table: a retry of the same model repeats the last
# failure outright half the time, the value session 07's lottery table uses.
STICKINESS_EXAMPLE = 0.5
# Simulated orders per route: the simulated pass rate then sits within about 0.005 of the formula,
# and the cost per accepted ticket within about 1%; five routes take about a second.
TRIALS_ROUTES = 40_000


def _check_p(p: float) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"p is {p!r}; a per-attempt pass rate is a probability from 0 to 1.")


def _check_price(price: float) -> None:
    if (
        isinstance(price, bool)
        or not isinstance(price, (int, float))
        or not price >= 0
        or math.isinf(price)
    ):
        raise ValueError(f"price is {price!r}; give the money one attempt costs, 0 or more.")


def _check_cap(cap: int) -> None:
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise ValueError(f"cap is {cap!r}; give a whole number of attempts, 1 or more.")


def _check_stickiness(stickiness: float) -> None:
    if not 0.0 <= stickiness <= 1.0:
        raise ValueError(
            f"stickiness is {stickiness!r}; it is a probability from 0 (independent) to 1."
        )


def expected_attempts(p: float, cap: int) -> float:
    """Mean attempts one order spends: 1 + (1 - p) + ... + (1 - p)^(cap - 1) = (1 - (1 - p)^cap) / p.

    Attempt k happens only when the k - 1 before it all failed, which has chance (1 - p)^(k - 1).
    """
    _check_p(p)
    _check_cap(cap)
    if p == 0:
        return float(cap)  # every attempt fails, so every order spends the whole cap
    # -expm1(cap * log1p(-p)) is 1 - (1 - p)^cap without the cancellation that loses every digit
    # when p is tiny (1 - 1e-12 rounds, and the quotient comes out as 0.99997 for a cap of 1).
    return -math.expm1(cap * math.log1p(-p)) / p if p < 1 else 1.0


def expected_cost(p: float, price: float, cap: int) -> float:
    """Cost per accepted ticket: price x `expected_attempts(p, cap)` / `pass_within_cap(p, cap)`.

    With independent attempts the two (1 - (1 - p)^cap) factors cancel, leaving price / p: the cap
    changes how many orders get a ticket, not what each ticket costs. Infinite when p is 0.
    """
    _check_price(price)
    passed = pass_within_cap(p, cap)
    if passed == 0:
        return math.inf
    return price * expected_attempts(p, cap) / passed


@dataclass(frozen=True)
class Tier:
    """A model as a route sees it: its per-attempt pass rate and what one attempt costs."""

    name: str
    p: float
    price: float

    def __post_init__(self) -> None:
        _check_p(self.p)
        _check_price(self.price)


@dataclass(frozen=True)
class Step:
    """Up to `attempts` attempts on one model, before the route moves on."""

    tier: Tier
    attempts: int

    def __post_init__(self) -> None:
        _check_cap(self.attempts)


@dataclass(frozen=True)
class Route:
    """Models tried in order. Every attempt is scored; the first draft that passes ends the order."""

    name: str
    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if (
            not isinstance(self.steps, tuple)
            or not self.steps
            or not all(isinstance(s, Step) for s in self.steps)
        ):
            raise TypeError(
                f"Route {self.name!r} needs a non-empty tuple of Step(tier, attempts), e.g. "
                "(Step(cheap, 1), Step(strong, 2))."
            )

    @property
    def cap(self) -> int:
        """The most attempts an order can spend on this route."""
        return sum(step.attempts for step in self.steps)


@dataclass(frozen=True)
class RouteCost:
    """What a route does to the average order: the share that pass, attempts spent, money spent."""

    pass_rate: float
    attempts: float
    spend: float

    @property
    def cost_per_accepted(self) -> float:
        """Money spent per ticket that reached the kitchen: spend per order / pass rate."""
        return self.spend / self.pass_rate if self.pass_rate > 0 else math.inf


@dataclass(frozen=True)
class RouteRow:
    """One row of the routing table: a route worked out by formula and by simulation."""

    route: Route
    formula: RouteCost
    simulated: RouteCost


def single(tier: Tier, cap: int = CAP_DEFAULT, name: str | None = None) -> Route:
    """One model, up to `cap` attempts."""
    return Route(name or f"{tier.name}, cap {cap}", (Step(tier, cap),))


def cascade(first: Tier, then: Tier, first_attempts: int = 1, cap: int = CAP_DEFAULT) -> Route:
    """`first` for `first_attempts` attempts, then `then` for the rest of `cap`."""
    _check_cap(first_attempts)
    if cap <= first_attempts:
        raise ValueError(
            f"cap {cap} leaves no attempt for {then.name} after {first_attempts} on {first.name}; "
            "give a cap larger than first_attempts."
        )
    return Route(
        f"{first.name} {first_attempts} then {then.name} {cap - first_attempts}",
        (Step(first, first_attempts), Step(then, cap - first_attempts)),
    )


CHEAP = Tier("cheap", CHEAP_P, CHEAP_PRICE)
STRONG = Tier("strong", STRONG_P, STRONG_PRICE)


def example_routes(
    cheap: Tier = CHEAP, strong: Tier = STRONG, cap: int = CAP_DEFAULT, higher_cap: int = HIGHER_CAP
) -> tuple[Route, ...]:
    """The lesson's five routes: each model alone, the cheap one with more room, two cascades."""
    return (
        single(cheap, cap),
        single(strong, cap),
        cascade(cheap, strong, 1, cap),
        cascade(cheap, strong, cap - 1, cap),
        single(cheap, higher_cap),
    )


def _retry_pass(tier: Tier, attempt_in_step: int, stickiness: float) -> float:
    """Chance this attempt passes: p for a model's first attempt; after a failure of the same model,
    the failure repeats outright with chance `stickiness`, so a retry passes with (1 - stickiness) p.
    A new model starts fresh: its first attempt is an ordinary draw."""
    return tier.p if attempt_in_step == 0 else (1.0 - stickiness) * tier.p


def route_cost(route: Route, stickiness: float = 0.0) -> RouteCost:
    """The route's pass rate, mean attempts and mean spend per order, worked out exactly.

    `reach` is the chance an order is still without a ticket when an attempt starts: that attempt
    is paid for with that chance, and passes with `_retry_pass`.
    """
    _check_stickiness(stickiness)
    reach, attempts, spend = 1.0, 0.0, 0.0
    for step in route.steps:
        for k in range(step.attempts):
            attempts += reach
            spend += reach * step.tier.price
            reach *= 1.0 - _retry_pass(step.tier, k, stickiness)
    return RouteCost(1.0 - reach, attempts, spend)


def _one_order(route: Route, stickiness: float, rng: random.Random) -> tuple[bool, int, float]:
    """One simulated order: (passed, attempts, spend). Draws as `cafe.repair.lottery.simulate_sticky` does."""
    attempts, spend = 0, 0.0
    for step in route.steps:
        for k in range(step.attempts):
            attempts += 1
            spend += step.tier.price
            if k > 0 and rng.random() < stickiness:
                continue  # the same defect again: this retry fails without a fresh draw
            if rng.random() < step.tier.p:
                return True, attempts, spend
    return False, attempts, spend


def simulate_route(route: Route, stickiness: float, trials: int, rng: random.Random) -> RouteCost:
    """The route's figures from `trials` simulated orders, drawn with a seeded `random.Random`."""
    _check_stickiness(stickiness)
    if not isinstance(rng, random.Random):
        raise TypeError("Pass rng=random.Random(seed), so the simulation repeats exactly.")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials is {trials!r}; simulate at least one order.")
    passed, attempts, spend = 0, 0, 0.0
    for _ in range(trials):
        ok, used, paid = _one_order(route, stickiness, rng)
        passed, attempts, spend = passed + ok, attempts + used, spend + paid
    return RouteCost(passed / trials, attempts / trials, spend / trials)


def simulate_cost(
    p: float,
    price: float,
    cap: int,
    stickiness: float = 0.0,
    trials: int = TRIALS_ROUTES,
    seed: int = 11,
) -> RouteCost:
    """One model at one cap, simulated: the figures `expected_cost` is checked against."""
    return simulate_route(
        single(Tier("model", p, price), cap), stickiness, trials, random.Random(seed)
    )


def routing_table(
    routes: Sequence[Route] | None = None,
    stickiness: float = 0.0,
    seed: int = 11,
    trials: int = TRIALS_ROUTES,
) -> list[RouteRow]:
    """Each route by `route_cost` and by `simulate_route` (one seeded generator for the table)."""
    rng = random.Random(seed)
    chosen = example_routes() if routes is None else tuple(routes)
    return [
        RouteRow(
            route, route_cost(route, stickiness), simulate_route(route, stickiness, trials, rng)
        )
        for route in chosen
    ]
