"""Session 11's checkers compare generated inputs with an exact answer: the only slack there is
floating-point rounding (reader CB, 8 Dec 2026: answers 1% to 3% high passed, inside the
simulation's 4%). Oracles here are written in the test: price / p, and the route summed in a
different order from the checker's reference."""

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.exercises.s11 import check_expected_cost, check_route_cost

# a relative error far above rounding, at most the simulation's 4%: high or low
_OFF = st.one_of(st.floats(0.001, 0.039), st.floats(-0.039, -0.001))


def _cost(p, price, cap):
    return math.inf if p == 0 else price / p


def _route(steps):
    # the spend model by model, a pass rate from log1p: another order than the checker's loop
    log_fail, spend, reach = 0.0, 0.0, 1.0
    for p, price, n in steps:
        for _ in range(n):
            spend += reach * price
            reach *= 1 - p
        log_fail += n * math.log1p(-p) if p < 1 else -math.inf
    rate = -math.expm1(log_fail)
    return rate, (spend / rate if rate > 0 else math.inf)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.nested_given])
@given(_OFF)
def test_an_expected_cost_off_by_more_than_rounding_is_refused(off):
    assert check_expected_cost(lambda p, price, cap: _cost(p, price, cap) * (1 + off))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.nested_given])
@given(_OFF)
def test_a_route_cost_off_by_more_than_rounding_is_refused(off):
    assert check_route_cost(lambda steps: (_route(steps)[0], _route(steps)[1] * (1 + off)))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.nested_given])
@given(st.floats(0.001, 0.03))
def test_a_pass_rate_off_by_more_than_rounding_is_refused(off):
    assert check_route_cost(lambda steps: (_route(steps)[0] * (1 - off), _route(steps)[1]))


def test_right_answers_in_another_order_pass():
    assert check_expected_cost(_cost) == []
    assert check_route_cost(_route) == []
    # rounding-sized noise is not a wrong answer
    assert check_expected_cost(lambda p, price, cap: _cost(p, price, cap) * (1 + 1e-12)) == []


def test_reader_cb_cases_are_refused():
    assert check_expected_cost(lambda p, price, cap: math.inf if p == 0 else 1.03 * price / p)
    assert check_expected_cost(lambda p, price, cap: math.inf if p == 0 else 1.01 * price / p)
    # one more of the kind: 1% at p near 1 only
    assert check_expected_cost(
        lambda p, price, cap: math.inf if p == 0 else (1.01 * price if p >= 0.999 else price / p)
    )
    assert check_route_cost(lambda steps: (_route(steps)[0], 1.03 * _route(steps)[1]))
