"""cafe.exercises.s10: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

import pytest
from hypothesis import given, settings

from cafe import course
from cafe.exercises.feedback import library_answer
from cafe.exercises.reference_s10 import classify_runs, failure_class
from cafe.exercises.s10 import CLASSIFY_CASES, check_classify, check_first_fix
from cafe.repair.reask import Attempt, RepairResult, repair_ticket
from cafe.schema.ticket import Failure, Ticket
from cafe.taxonomy import FAILURE_CLASSES, classify
from cafe.taxonomy.runs import Run
from cafe.world.menu import load_menu

MENU = load_menu()


def _stub(*args):
    raise NotImplementedError("your turn")


# --- classify --------------------------------------------------------------------------------------


def test_check_classify_reference_passes_compare():
    assert check_classify(failure_class) == []
    assert course.compare(failure_class, check=check_classify).status == "passed"


def test_check_classify_refuses_the_course_s_classify():
    assert check_classify(classify) == [library_answer("classify")]


def test_check_classify_shows_a_shrunk_run_where_a_failure_listed_twice_misleads():
    def counts(run):  # systematic when a failure was seen as often as there were attempts
        if run.transport is not None or run.result.stop_reason in ("policy_violation", "passed"):
            return failure_class(run)
        attempts = run.result.attempts
        seen = [(f.check, f.span) for a in attempts for f in a.failures]
        if any(seen.count(key) == len(attempts) for key in seen):
            return "systematic"
        return failure_class(run)

    problems = check_classify(counts)
    assert len(problems) == 1 and problems[0].startswith("on attempts: "), problems
    assert "returned 'systematic'" in problems[0]


def test_check_classify_stub_is_not_attempted():
    assert course.compare(_stub, check=check_classify).status == "not_attempted"


def _no_attempts_blocked(run):
    """Reads "no attempts" as the blocked test: an exhausted run with no attempt log, blocked."""
    if run.result is not None and not run.result.attempts:
        return "blocked"
    return failure_class(run)


def test_check_classify_rejects_a_class_for_an_exhausted_run_with_no_attempts():
    """Blocked's test is the stop reason (the lesson's table), and an exhausted run with no
    attempts matches no test: any class is a guess, shown on the shrunk run itself."""
    (problem,) = check_classify(_no_attempts_blocked)
    assert problem.startswith("on a run that stopped on retries_exhausted with no attempts")
    assert "returned 'blocked'" in problem and "no attempts" in problem


@pytest.mark.parametrize("index", [0, -1])
def test_check_classify_takes_any_refusal_of_an_exhausted_run_with_no_attempts(index):
    """The notebook never says how to refuse: reading an attempt that is not there refuses."""

    def reads_an_attempt(run):
        if run.result is not None and run.result.stop_reason == "retries_exhausted":
            run.result.attempts[index]  # IndexError on no attempts
        return failure_class(run)

    assert check_classify(reads_an_attempt) == []


# A passed run (held-out readerL): "A passed run has no failure class: classify refuses one with a
# ValueError" (the lesson).


def _ticket():
    return Ticket(table=4, items=("americano",), allergies=(), notes="")


def _passed_gets(answer):
    """`failure_class`, except that a passed run gets `answer(run)`."""

    def classify_it(run):
        return answer(run) if run.passed else failure_class(run)

    return classify_it


class _NotAFailure(ValueError):
    pass


def _raise(error):
    def refuse(run):
        raise error("this run passed")

    return refuse


@pytest.mark.parametrize("answer", [lambda run: "drifting", lambda run: None, _raise(TypeError)])
def test_check_classify_rejects_anything_but_a_valueerror_for_a_passed_run(answer):
    (problem,) = check_classify(_passed_gets(answer))
    assert problem.startswith("on a run that passed on attempt "), problem
    assert (
        "expected raises ValueError" in problem and "a passed run has no failure class" in problem
    )


def test_check_classify_takes_a_valueerror_of_its_own_for_a_passed_run():
    assert check_classify(_passed_gets(_raise(_NotAFailure))) == []


@settings(max_examples=200, derandomize=True, database=None)
@given(classify_runs(Run, RepairResult, Attempt, Failure, None, _ticket))
def test_reference_and_classify_both_refuse_a_generated_passed_run(run):
    if run.passed:
        for classify_it in (failure_class, classify):
            with pytest.raises(ValueError):
                classify_it(run)


def test_check_classify_cases_cover_every_class():
    assert {expected for _, _, expected, _ in CLASSIFY_CASES} == set(FAILURE_CLASSES)


def _by_check_name(run):
    """Compares checks by name only, so three different out_of_scope failures look the same."""
    if run.transport:
        return "transport"
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    names = [{f.check for f in a.failures} for a in run.result.attempts]
    if set.intersection(*names):
        return "systematic"
    return failure_class(run)


def _drifting_first(run):
    """Checks the classes in the wrong order: any change at all reads as drifting."""
    if run.transport:
        return "transport"
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    keys = [{(f.check, f.span) for f in a.failures} for a in run.result.attempts]
    if any(a != b for a, b in zip(keys, keys[1:])):
        return "drifting"
    return "systematic"


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (
            _by_check_name,
            "three out_of_scope failures, each about a different item: returned 'systematic', "
            "expected 'drifting'\n  (a failure is its check and its span",
        ),
        (
            _drifting_first,
            "the omelette 86'd, dropped, then 86'd again: returned 'drifting', expected 'alternating'",
        ),
        (
            lambda run: "systematic",
            "prose, then an extra espresso, then no table: returned 'systematic'",
        ),
    ],
)
def test_check_classify_wrong_answers_get_a_specific_complaint(wrong, complaint):
    problems = check_classify(wrong)
    assert any(problem.startswith(complaint) for problem in problems), problems
    assert course.compare(wrong, check=check_classify).status == "failed"


# --- the first fix ---------------------------------------------------------------------------------


def _stop_86d_first(spec, generate):
    sold = [item for item in spec.items if MENU.is_sold_out(item)]
    if sold:
        return RepairResult(
            "policy_violation",
            None,
            (),
            blocked_by=tuple(
                Failure("sold_out", item, "tell the customer it is 86'd; take a new order")
                for item in sold
            ),
        )
    return repair_ticket(spec, generate)


def test_check_first_fix_reference_passes_compare():
    assert check_first_fix(_stop_86d_first) == []
    assert course.compare(_stop_86d_first, check=check_first_fix).status == "passed"


def test_check_first_fix_stub_is_not_attempted():
    assert course.compare(_stub, check=check_first_fix).status == "not_attempted"


def _relabel(spec, generate):
    """Runs the loop, then calls every failure a refusal: the pile vanishes, the drafts were spent."""
    result = repair_ticket(spec, generate)
    if result.stop_reason == "retries_exhausted":
        return RepairResult("policy_violation", None, (), blocked_by=result.attempts[-1].failures)
    return result


def _waive_86d(spec, generate):
    """Passes an 86'd order with the omelette left off: the pile vanishes, the scope check is loosened."""
    result = repair_ticket(spec, generate)
    if any(MENU.is_sold_out(item) for item in spec.items):
        kept = tuple(item for item in spec.items if not MENU.is_sold_out(item)) or ("americano",)
        return RepairResult(
            "passed",
            Ticket(table=spec.table, items=kept, allergies=spec.allergies, notes=""),
            result.attempts,
        )
    return result


def _block_allergies(spec, generate):
    """Fixes the wrong pile, and bluntly: every order with an allergy is refused."""
    if spec.allergies:
        return RepairResult(
            "policy_violation", None, (), blocked_by=(Failure("unsafe", "allergy", "ask"),)
        )
    return repair_ticket(spec, generate)


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (
            lambda spec, generate: repair_ticket(spec, generate, cap=5),
            "the biggest pile, 5 alternating runs on sold_out: 5 of its orders",
        ),
        (
            lambda spec, generate: repair_ticket(spec, generate, cap=2),
            "the biggest pile, 5 alternating runs on sold_out",
        ),
        (_relabel, "table 4: refused after 3 draft(s)"),
        (_waive_86d, "table 4: passed with a ticket that fails out_of_scope"),
        (_block_allergies, "table 5: passed before the fix and not after"),
        (lambda spec, generate: "passed", "the shift stopped: your runner raised TypeError"),
    ],
)
def test_check_first_fix_wrong_answers_get_a_specific_complaint(wrong, complaint):
    problems = check_first_fix(wrong)
    assert any(problem.startswith(complaint) for problem in problems), problems
