"""cafe.exercises.s09: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from collections import Counter

import pytest

from cafe import course
from cafe.exercises.s09 import check_cost_by_reason, check_summarize
from cafe.report.summary import (
    STOP_ORDER,
    cost_by_stop_reason,
    count_stop_reasons,
    run_cost,
    summarize,
)


def _stub(*args):
    raise NotImplementedError("your turn")


# --- summarize: counts that add up, checked both ways -----------------------------------------------


def test_check_summarize_reference_passes_compare():
    assert check_summarize(count_stop_reasons) == []
    assert course.compare(count_stop_reasons, check=check_summarize).status == "passed"


def test_check_summarize_stub_is_not_attempted():
    assert course.compare(_stub, check=check_summarize).status == "not_attempted"


def _counter(runs):
    return dict(Counter(run.stop_reason for run in runs))


def _other_bucket(runs):
    counts = {reason: 0 for reason in (*STOP_ORDER, "other")}
    for run in runs:
        counts[run.stop_reason if run.stop_reason in STOP_ORDER else "other"] += 1
    return counts


def _skips_unknown(runs):
    counts = {reason: 0 for reason in STOP_ORDER}
    for run in runs:
        if run.stop_reason in counts:
            counts[run.stop_reason] += 1
    return counts


def _three_endings(runs):  # the repair loop's endings before needs_consent, and nothing else
    counts = {"passed": 0, "retries_exhausted": 0, "policy_violation": 0}
    for run in runs:
        if run.stop_reason not in counts:
            raise ValueError(f"unknown stop reason {run.stop_reason!r}")
        counts[run.stop_reason] += 1
    return counts


def _passed_or_failed(runs):
    counts = {reason: 0 for reason in STOP_ORDER}
    for run in runs:
        counts["passed" if run.stop_reason == "passed" else "retries_exhausted"] += 1
    return counts


def test_check_summarize_refuses_a_count_that_drops_a_run_sent_back_to_the_customer():
    def drops_needs_consent(runs):
        return count_stop_reasons([run for run in runs if run.stop_reason != "needs_consent"])

    assert any(
        "the counts add up to" in problem for problem in check_summarize(drops_needs_consent)
    )


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_counter, "missing; list every named reason, with 0"),
        (_other_bucket, "a report has no 'other' bucket"),
        (_skips_unknown, "a run ending on 'timeout' was counted"),
        (_passed_or_failed, "policy_violation is 0"),
        (_three_endings, "needs_consent missing"),
        (lambda runs: None, "returned NoneType"),
        (lambda runs: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_summarize_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_summarize(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_summarize).status == "failed"


# --- cost by stop reason --------------------------------------------------------------------------


def test_check_cost_by_reason_reference_passes_compare():
    assert check_cost_by_reason(cost_by_stop_reason) == []
    assert course.compare(cost_by_stop_reason, check=check_cost_by_reason).status == "passed"


def test_check_cost_by_reason_stub_is_not_attempted():
    assert course.compare(_stub, check=check_cost_by_reason).status == "not_attempted"


def _tokens_not_money(runs, prices):
    totals = {reason: 0.0 for reason in STOP_ORDER}
    for run in runs:
        totals[run.stop_reason] += run.tokens or 0
    return totals


def _no_zeros(runs, prices):
    totals = {}
    for run in runs:
        cost = run_cost(run, prices)
        if cost:
            totals[run.stop_reason] = totals.get(run.stop_reason, 0.0) + cost
    return totals


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_tokens_not_money, "tokens times the price per million"),
        (_no_zeros, "exactly the stop reasons as keys"),
        (lambda runs, prices: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_cost_by_reason_wrong_answers_fail(wrong, complaint):
    problems = check_cost_by_reason(wrong)
    assert any(complaint in problem for problem in problems), problems


# --- the notebook's your-turn cells --------------------------------------------------------------


def test_notebook_stubs_are_not_attempted_and_the_shift_adds_up(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))  # the notebook banks a checkpoint
    namespace = run_notebook_source("s09-shift-report")
    assert course.compare(namespace["summarize"], check=check_summarize).status == "not_attempted"
    assert (
        course.compare(namespace["cost_by_reason"], check=check_cost_by_reason).status
        == "not_attempted"
    )
    assert namespace["counts"] == {
        "passed": 8,
        "retries_exhausted": 6,
        "policy_violation": 3,
        "needs_consent": 3,
    }
    assert namespace["no_ticket"] == 12
    assert len(namespace["read_back"]) == 20 and len(namespace["problems"]) == 2
    assert namespace["page"].is_file()


# --- the story the reveals tell is the story the shift produces ------------------------------------

_WORDS = {2: "two", 3: "three", 6: "six", 8: "eight", 12: "Twelve"}


def test_reveals_state_the_counts_and_the_cost_ratio_the_shift_produces():
    from cafe.course.reveals import load_answer
    from cafe.report.shift import (
        PRACTICE_PRICES,
        SHIFT_ORDERS,
        run_shift,
        scripted_drafter,
        ticking,
    )

    summary = summarize(
        run_shift(SHIFT_ORDERS, scripted_drafter(), model="cafe-scripted", clock=ticking()),
        PRACTICE_PRICES,
    )
    counts = summary.stop_reasons
    said = {
        "passed": "{} passed",
        "retries_exhausted": "{} ran out of attempts (retries_exhausted)",
        "needs_consent": "{} were sent back to the customer (needs_consent)",
        "policy_violation": "{} were refused (policy_violation)",
    }
    why = load_answer("s09.why_no_ticket")
    assert (
        f"{_WORDS[summary.runs - summary.accepted]} of the twenty runs ended without a ticket"
        in why
    )
    assert all(said[reason].format(_WORDS[counts[reason]]) in why for reason in STOP_ORDER)
    per_ticket = load_answer("s09.why_per_ticket")
    ratio = summary.cost_per_accepted / (summary.cost_by_reason["passed"] / summary.accepted)
    assert "about two and a half times" in per_ticket and 2.25 <= ratio < 2.75
    assert (
        summary.cost_by_reason["retries_exhausted"] > summary.cost_by_reason["passed"]
    )  # "spent more ... than"
