"""cafe.exercises.s11: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint, all against seeded simulation."""

import math

import pytest

from cafe import course
from cafe.exercises.s11 import check_expected_cost, check_route_cost
from cafe.repair.lottery import pass_within_cap
from cafe.routing.routes import Route, Step, Tier, expected_attempts, expected_cost, route_cost


def _stub(*args):
    raise NotImplementedError("your turn")


# --- expected_cost -------------------------------------------------------------------------------


def test_check_expected_cost_reference_passes_compare():
    assert check_expected_cost(expected_cost) == []
    assert course.compare(expected_cost, check=check_expected_cost).status == "passed"


def test_check_expected_cost_the_simplified_form_passes_too():
    # price / p is the same figure, for every p but 0: a derivation that simplifies is right.
    assert check_expected_cost(lambda p, price, cap: price / p if p else math.inf) == []


def test_check_expected_cost_stub_is_not_attempted():
    assert course.compare(_stub, check=check_expected_cost).status == "not_attempted"


def _per_order(p, price, cap):
    """What an order costs, forgetting that only some orders end with a ticket."""
    return price * expected_attempts(p, cap)


def _whole_cap(p, price, cap):
    """Every order pays for every attempt, even the ones a pass made unnecessary."""
    passed = pass_within_cap(p, cap)
    return price * cap / passed if passed else math.inf


def _one_attempt_each(p, price, cap):
    return price / pass_within_cap(p, cap) if p else math.inf


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_per_order, "p=0.3, price=$2, cap 3: yours says $4.380 per accepted ticket"),
        (_whole_cap, "p=0.6, price=$1, cap 3: yours says $3.205"),
        (_one_attempt_each, "p=0.3, price=$2, cap 3: yours says $3.044"),
        (lambda p, price, cap: price / p, "p=0.0, price=$1, cap 3: raised ZeroDivisionError"),
        (lambda p, price, cap: None, "returned None"),
        (lambda p, price, cap: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_expected_cost_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_expected_cost(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_expected_cost).status == "failed"


# --- my_route_cost ---------------------------------------------------------------------------------


def _reference(steps):
    found = route_cost(
        Route("r", tuple(Step(Tier(str(i), p, price), n) for i, (p, price, n) in enumerate(steps)))
    )
    return found.pass_rate, found.cost_per_accepted


def test_check_route_cost_reference_passes_compare():
    assert check_route_cost(_reference) == []
    assert course.compare(_reference, check=check_route_cost).status == "passed"


def test_check_route_cost_a_route_cost_record_is_accepted_as_the_answer():
    assert (
        check_route_cost(
            lambda steps: route_cost(
                Route(
                    "r",
                    tuple(Step(Tier(str(i), p, price), n) for i, (p, price, n) in enumerate(steps)),
                )
            )
        )
        == []
    )


def test_check_route_cost_stub_is_not_attempted():
    assert course.compare(_stub, check=check_route_cost).status == "not_attempted"


def _pays_every_model(steps):
    """Charges every model's first attempt, as if the strong one ran whether or not it was needed."""
    reach, spend = 1.0, 0.0
    for p, price, n in steps:
        spend += price
        reach *= (1 - p) ** n
    return 1 - reach, spend / (1 - reach)


def _first_model_only(steps):
    p, price, n = steps[0]
    cap = sum(step[2] for step in steps)
    return pass_within_cap(p, cap), expected_cost(p, price, cap)


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (
            _pays_every_model,
            "route (p=0.6, $1) x1 then (p=0.95, $5) x2: yours says $6.006 per accepted ticket",
        ),
        (
            _first_model_only,
            "route (p=0.6, $1) x1 then (p=0.95, $5) x2: yours passes 0.936 of orders",
        ),
        (lambda steps: 3.1, "return (pass rate, cost per accepted ticket)"),
        (lambda steps: steps[5], "raised IndexError"),
    ],
)
def test_check_route_cost_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_route_cost(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_route_cost).status == "failed"


# --- the notebook's your-turn cells --------------------------------------------------------------


def test_notebook_stubs_are_not_attempted_and_its_scripted_runs_bank_their_numbers(
    tmp_path, monkeypatch
):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))  # the notebook banks a checkpoint
    namespace = run_notebook_source("s11-cost-routing")
    assert (
        course.compare(namespace["expected_cost"], check=check_expected_cost).status
        == "not_attempted"
    )
    assert (
        course.compare(namespace["my_route_cost"], check=check_route_cost).status == "not_attempted"
    )
    measured = namespace["measured"]
    assert (
        measured["naive"].first_passed,
        measured["naive"].accepted,
        measured["naive"].attempts,
    ) == (4, 4, 22)
    assert (
        measured["curated"].first_passed,
        measured["curated"].accepted,
        measured["curated"].attempts,
    ) == (4, 8, 19)
    banked = course.load_progress()["checkpoints"]["s11"]["cost_per_accepted"]
    assert banked["model"] == "cafe-scripted"
    assert set(banked["value"]["routes"]) == {
        "cheap, cap 3",
        "strong, cap 3",
        "cheap 1 then strong 2",
        "cheap, cap 5",
    }
