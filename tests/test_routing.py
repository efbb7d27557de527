"""cafe.routing: the closed form for the cost per accepted ticket, checked against seeded simulation,
with correlated failures where it stops holding, and the routing table of the lesson."""

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.repair.lottery import pass_within_cap, pass_within_cap_sticky, simulate_sticky
from cafe.routing.routes import (
    CHEAP,
    HIGHER_CAP,
    STICKINESS_EXAMPLE,
    STRONG,
    Route,
    RouteCost,
    Step,
    Tier,
    cascade,
    example_routes,
    expected_attempts,
    expected_cost,
    route_cost,
    routing_table,
    simulate_cost,
    simulate_route,
    single,
)

# --- the closed form -------------------------------------------------------------------------


def test_expected_attempts_counts_the_attempts_a_failure_pays_for():
    # p = 0.6, cap 3: attempt 1 always, attempt 2 with 0.4, attempt 3 with 0.16.
    assert expected_attempts(0.6, 3) == pytest.approx(1 + 0.4 + 0.16)
    assert expected_attempts(0.0, 4) == 4.0
    assert expected_attempts(1.0, 4) == 1.0


def test_expected_cost_the_lessons_worked_example():
    # The lesson's cheap model: $1 an attempt, p = 0.6, cap 3 -> 1.56 attempts, 0.936 pass, $1.667 per ticket.
    assert expected_cost(0.6, 1.0, 3) == pytest.approx(1.56 / 0.936)
    assert expected_cost(0.95, 5.0, 3) == pytest.approx(5.0 / 0.95)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.01, 1), st.floats(0, 100), st.integers(1, 30))
def test_expected_cost_is_price_over_p_whatever_the_cap(p, price, cap):
    assert expected_cost(p, price, cap) == pytest.approx(price / p, rel=1e-9, abs=1e-12)


def test_expected_cost_of_a_model_that_never_passes_is_infinite():
    assert expected_cost(0.0, 1.0, 3) == math.inf


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.floats(0.2, 1), st.floats(0.1, 10), st.integers(1, 6), st.integers(0, 2**16))
def test_expected_cost_matches_the_simulation_within_tolerance(p, price, cap, seed):
    simulated = simulate_cost(p, price, cap, trials=20_000, seed=seed)
    # 20,000 orders at p >= 0.2: at least 4,000 pass, so the spend per ticket has a relative
    # standard error under 1.5%; 6% is four of them. (derandomize: the same examples every run.)
    assert simulated.cost_per_accepted == pytest.approx(expected_cost(p, price, cap), rel=0.06)
    assert simulated.pass_rate == pytest.approx(pass_within_cap(p, cap), abs=0.02)


@pytest.mark.parametrize(
    ("p", "price", "cap"),
    [
        (-0.1, 1, 3),
        (1.2, 1, 3),
        (0.5, -1, 3),
        (0.5, 1, 0),
        (0.5, 1, 2.0),
        (0.5, True, 3),
        (0.5, math.inf, 3),
    ],
)
def test_expected_cost_bad_arguments_are_value_errors(p, price, cap):
    with pytest.raises(ValueError):
        expected_cost(p, price, cap)


# --- correlated failures ---------------------------------------------------------------------


def test_simulate_route_draws_exactly_as_the_lottery_does():
    # The same seed and the same draw rule: the pass rate is cafe.repair.lottery's, to the last order.
    for p, cap, stickiness in [(0.3, 3, 0.5), (0.6, 5, 0.0), (0.05, 10, 0.8)]:
        ours = simulate_route(single(Tier("m", p, 1.0), cap), stickiness, 3_000, random.Random(5))
        assert ours.pass_rate == simulate_sticky(p, cap, stickiness, 3_000, random.Random(5))


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.integers(1, 12), st.floats(0, 1))
def test_route_cost_one_model_agrees_with_the_lottery_formulas(p, cap, stickiness):
    found = route_cost(single(Tier("m", p, 2.0), cap), stickiness)
    assert found.pass_rate == pytest.approx(pass_within_cap_sticky(p, cap, stickiness), abs=1e-12)
    if stickiness == 0:
        assert found.attempts == pytest.approx(expected_attempts(p, cap))


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 1), st.integers(2, 12), st.floats(0.01, 1))
def test_stickiness_makes_an_accepted_ticket_dearer_than_the_closed_form(p, cap, stickiness):
    sticky = route_cost(single(Tier("m", p, 1.0), cap), stickiness).cost_per_accepted
    assert sticky >= expected_cost(p, 1.0, cap) - 1e-9


def test_sticky_cheap_model_at_cap_3_costs_a_quarter_more_than_the_closed_form():
    # The lesson's figure: stickiness 0.5 -> 1.68 attempts, 0.804 pass, $2.09 against $1.667.
    sticky = route_cost(single(CHEAP, 3), STICKINESS_EXAMPLE)
    assert sticky.attempts == pytest.approx(1.68)
    assert sticky.pass_rate == pytest.approx(0.804)
    assert sticky.cost_per_accepted / expected_cost(CHEAP.p, CHEAP.price, 3) == pytest.approx(
        1.2537, abs=1e-4
    )


@pytest.mark.parametrize(
    ("p", "cap", "stickiness", "row"),
    [
        (0.3, 3, 0.0, (0.657, 2.19, 3.33, 0)),
        (0.3, 3, 0.8, (0.381, 2.36, 6.18, 85)),
        (0.3, 6, 0.5, (0.689, 3.60, 5.22, 56)),
        (0.3, 6, 0.8, (0.486, 4.10, 8.44, 153)),
        (0.9, 6, 0.5, (0.995, 1.21, 1.22, 10)),
    ],
)
def test_route_cost_reproduces_the_lessons_sticky_table(p, cap, stickiness, row):
    found = route_cost(single(Tier("m", p, 1.0), cap), stickiness)
    above = round(100 * (found.cost_per_accepted / expected_cost(p, 1.0, cap) - 1))
    assert (
        round(found.pass_rate, 3),
        round(found.attempts, 2),
        round(found.cost_per_accepted, 2),
        above,
    ) == row


@pytest.mark.parametrize("stickiness", [0.0, STICKINESS_EXAMPLE])
def test_routing_table_formula_and_simulation_agree(stickiness):
    for row in routing_table(stickiness=stickiness, seed=3):
        assert row.simulated.pass_rate == pytest.approx(row.formula.pass_rate, abs=0.01), (
            row.route.name
        )
        assert row.simulated.cost_per_accepted == pytest.approx(
            row.formula.cost_per_accepted, rel=0.03
        )


# --- routes ----------------------------------------------------------------------------------


def test_cascade_pays_the_strong_model_only_after_the_cheap_one_fails():
    # $1 always, then $5 with chance 0.4, then $5 with chance 0.4 x 0.05.
    found = route_cost(cascade(CHEAP, STRONG, 1, 3))
    assert found.spend == pytest.approx(1 + 0.4 * 5 + 0.4 * 0.05 * 5)
    assert found.pass_rate == pytest.approx(1 - 0.4 * 0.05**2)


def test_example_routes_independent_cheap_alone_is_cheapest_per_ticket():
    costs = {route.name: route_cost(route).cost_per_accepted for route in example_routes()}
    assert min(costs, key=costs.get) in ("cheap, cap 3", f"cheap, cap {HIGHER_CAP}")
    assert costs["cheap, cap 3"] == pytest.approx(costs[f"cheap, cap {HIGHER_CAP}"])


def test_example_routes_sticky_the_cascade_passes_more_than_the_strong_model_alone():
    # A new model draws fresh, so escalating breaks the repeat a same-model retry suffers.
    rates = {
        route.name: route_cost(route, STICKINESS_EXAMPLE).pass_rate for route in example_routes()
    }
    assert max(rates, key=rates.get) == "cheap 1 then strong 2"


def test_route_cap_is_the_sum_of_its_steps():
    assert cascade(CHEAP, STRONG, 2, 5).cap == 5
    assert cascade(CHEAP, STRONG, 2, 5).name == "cheap 2 then strong 3"


def test_cascade_with_no_room_for_the_second_model_is_refused():
    with pytest.raises(ValueError, match="larger than first_attempts"):
        cascade(CHEAP, STRONG, 3, 3)


def test_route_needs_a_tuple_of_steps():
    with pytest.raises(TypeError, match="tuple of Step"):
        Route("empty", ())
    with pytest.raises(TypeError, match="tuple of Step"):
        Route("list", [Step(CHEAP, 1)])


def test_route_cost_of_a_route_that_never_passes_is_infinite_per_ticket():
    assert RouteCost(0.0, 3.0, 3.0).cost_per_accepted == math.inf


def test_simulate_route_needs_a_seeded_rng_and_a_trial():
    with pytest.raises(TypeError, match="random.Random"):
        simulate_route(single(CHEAP), 0.0, 10, None)
    with pytest.raises(ValueError, match="at least one order"):
        simulate_route(single(CHEAP), 0.0, 0, random.Random(1))


def test_routing_table_same_seed_same_numbers():
    assert routing_table(seed=2, trials=500) == routing_table(seed=2, trials=500)
