"""cafe.exercises.s11: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint, all against seeded simulation."""

import math

import pytest

from cafe import course
from cafe.exercises.feedback import library_answer
from cafe.exercises.reference_s11 import per_ticket, route
from cafe.exercises.s11 import check_expected_cost, check_route_cost
from cafe.repair.lottery import pass_within_cap
from cafe.routing.routes import (
    Route,
    RouteCost,
    Step,
    Tier,
    expected_attempts,
    expected_cost,
    route_cost,
)


def _stub(*args):
    raise NotImplementedError("your turn")


# --- expected_cost -------------------------------------------------------------------------------


def test_check_expected_cost_reference_passes_compare():
    assert check_expected_cost(per_ticket) == []
    assert course.compare(per_ticket, check=check_expected_cost).status == "passed"
    assert check_expected_cost(expected_cost) == [library_answer("expected_cost")]


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
        (_per_order, "expected_cost(0.3, 2, 3): returned 4.38, expected about 6.688"),
        (_whole_cap, "expected_cost(0.6, 1, 3): returned 3.20513, expected about 1.658"),
        (_one_attempt_each, "expected_cost(0.3, 2, 3): returned 3.04414"),
        (
            lambda p, price, cap: price / p,
            "expected_cost(0.0, 1, 3): <lambda> raised ZeroDivisionError",
        ),
        (lambda p, price, cap: 0.0 if p == 0 else price / p, "expected math.inf"),
        (lambda p, price, cap: None, "returned None; return the cost per accepted ticket"),
        (lambda p, price, cap: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_expected_cost_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_expected_cost(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_expected_cost).status == "failed"


# --- my_route_cost ---------------------------------------------------------------------------------


def _reference(steps):
    return route(steps)


def test_check_route_cost_refuses_the_course_s_route_cost():
    def wraps(steps):
        tiers = tuple(Step(Tier(str(i), p, price), n) for i, (p, price, n) in enumerate(steps))
        return route_cost(Route("r", tiers))

    assert check_route_cost(wraps) == [library_answer("route_cost")]


def test_check_expected_cost_shows_a_free_model_that_never_passes_costing_nothing():
    def free_never_free(p, price, cap):  # 0/0 read as 0: no ticket ever comes, so inf
        return price / p if p else (0.0 if price == 0 else math.inf)

    (problem,) = check_expected_cost(free_never_free)
    assert problem.startswith("on (0.0, 0.0, 1): returned 0.0, expected inf"), problem


def test_check_route_cost_reference_passes_compare():
    assert check_route_cost(_reference) == []
    assert course.compare(_reference, check=check_route_cost).status == "passed"


def test_check_route_cost_a_route_cost_record_is_accepted_as_the_answer():
    def record(steps):
        reach, attempts, spend = 1.0, 0.0, 0.0
        for p, price, n in steps:
            for _ in range(n):
                attempts, spend, reach = attempts + reach, spend + reach * price, reach * (1 - p)
        return RouteCost(1.0 - reach, attempts, spend)

    assert check_route_cost(record) == []


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
            "route (p=0.6, $1) x1 then (p=0.95, $5) x2: returned (0.999, 6.00601), expected about 3.084",
        ),
        (
            _first_model_only,
            "route (p=0.6, $1) x1 then (p=0.95, $5) x2: returned (0.936, 1.66667), expected a pass rate",
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
    checkpoints = course.load_progress()["checkpoints"]["s11"]
    banked = checkpoints["cost_per_accepted"]
    assert banked["model"] == "cafe-scripted" and banked["source"] == "scripted"
    assert set(banked["value"]["routes"]) == {
        "cheap, cap 3",
        "strong, cap 3",
        "cheap 1 then strong 2",
        "cheap, cap 5",
    }
    assert "your_costs" not in checkpoints, "a stub's figures are never banked as the learner's"


# The stubs' bodies, and right answers to put in their place (shaped unlike the course's).
_SOLVED = {
    'raise NotImplementedError("your turn: write the cost per accepted ticket")': (
        "return price / p if p else math.inf"
    ),
    'raise NotImplementedError("your turn: price a route")': (
        "reach, spend = 1.0, 0.0\n"
        "    for p, price, n in steps:\n"
        "        paid = n if p == 0 else (1 - (1 - p) ** n) / p\n"
        "        spend, reach = spend + reach * price * paid, reach * (1 - p) ** n\n"
        "    return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf"
    ),
}


def test_notebook_with_the_exercises_solved_banks_the_learners_own_figures(tmp_path, monkeypatch):
    import contextlib
    import io
    from pathlib import Path

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    path = Path(__file__).resolve().parents[1] / "sessions" / "s11-cost-routing" / "notebook.py"
    source = path.read_text(encoding="utf-8")
    for stub, body in _SOLVED.items():
        assert stub in source, f"the notebook's stub changed: {stub}"
        source = source.replace(stub, body)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(path), "exec"), {"__name__": "__notebook__"})
    checkpoints = course.load_progress()["checkpoints"]["s11"]
    yours = checkpoints["your_costs"]
    assert yours["source"] == "yours" and yours["model"] is None
    assert yours["value"]["expected_cost_cap_3"] == {"cheap": 1.6667, "strong": 5.2632}
    assert yours["value"]["routes"] == checkpoints["cost_per_accepted"]["value"]["routes"]


class _Down:
    """A client whose every request times out."""

    def __init__(self):
        self.chat = self
        self.completions = self

    def create(self, *args, **kwargs):
        from cafe.endpoint.errors import EndpointError

        raise EndpointError("The endpoint did not answer within 60 s.", kind="timeout")


def test_notebook_live_with_a_dead_endpoint_says_so_and_goes_on(tmp_path, monkeypatch):
    import contextlib
    import io
    from pathlib import Path

    import cafe

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    monkeypatch.setenv("COURSE_MODE", "live")
    monkeypatch.setenv("CAFE_MODEL", "my-model")
    monkeypatch.setenv("CAFE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CAFE_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setattr(cafe, "make_client", lambda *a, **k: _Down())
    path = Path(__file__).resolve().parents[1] / "sessions" / "s11-cost-routing" / "notebook.py"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), {"__name__": "nb"})
    text = printed.getvalue()
    assert "live: s11.live_naive stopped" in text and "10 of 10 items hit an endpoint" in text
    assert "skipped: your model's figures" in text
    assert "skipped: the closed form for your model" in text
    banked = course.load_progress()["checkpoints"]["s11"]["cost_per_accepted"]
    assert banked["value"]["failed"] == "timeout"  # the failure, never the scripted figures


# --- held-out reader D (7 Dec 2026): each hole closed by the rule it broke ------------------------


def test_check_expected_cost_refuses_every_course_function_that_works_the_cost_out():
    """A one-step route priced by the course's route_cost is the course's cost under another name."""

    def one_step_route(p, price, cap):
        return route_cost(Route("r", (Step(Tier("m", p, price), cap),))).cost_per_accepted

    assert check_expected_cost(one_step_route) == [library_answer("route_cost")]


@pytest.mark.parametrize(
    "wrong",
    [
        lambda p, price, cap: math.inf if p < 1e-9 else price / p,  # a cut-off read as p == 0
        lambda p, price, cap: round(price / p, 4) if p else math.inf,  # money rounded for show
        lambda p, price, cap: round(price / p, 2) if p else math.inf,  # money rounded to cents
    ],
)
def test_check_expected_cost_tries_the_edges_beside_zero(wrong):
    """Only p == 0 buys no ticket, and an attempt costs a fraction of a cent: the generated inputs
    hold pass rates down to 1e-10 and prices down to $0.000001, where these answers go wrong."""
    (problem,) = check_expected_cost(wrong)
    assert problem.startswith("on ("), problem


def test_check_expected_cost_the_lesson_s_formula_as_printed_passes_at_the_edges():
    def as_printed(p, price, cap):
        if p == 0:
            return math.inf
        return price * ((1 - (1 - p) ** cap) / p) / (1 - (1 - p) ** cap)

    assert check_expected_cost(as_printed) == []


def test_check_route_cost_refuses_a_function_that_changes_the_caller_s_list():
    def pops(steps):
        reach, spend = 1.0, 0.0
        while steps:
            p, price, n = steps.pop(0)
            for _ in range(n):
                spend, reach = spend + reach * price, reach * (1 - p)
        return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf

    (problem,) = check_route_cost(pops)
    assert "your function left the caller's list as []" in problem, problem


def test_check_route_cost_refuses_a_second_answer_for_the_same_list():
    seen = []

    def remembers(steps):  # prices a list once, then calls it free: state kept between calls
        if any(steps is earlier for earlier in seen):
            return 1.0, 0.0
        seen.append(steps)
        return route(steps)

    (problem,) = check_route_cost(remembers)
    assert "for the same list" in problem, problem


def test_check_route_cost_a_function_that_copies_then_changes_passes():
    def copies(steps):
        steps = list(steps)  # session 01: copy, then change
        reach, spend = 1.0, 0.0
        while steps:
            p, price, n = steps.pop(0)
            for _ in range(n):
                spend, reach = spend + reach * price, reach * (1 - p)
        return 1 - reach, spend / (1 - reach) if reach < 1 else math.inf

    assert check_route_cost(copies) == []
