"""cafe.exercises.s09: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from collections import Counter
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings

from cafe import course
from cafe.exercises.feedback import library_answer
from cafe.exercises.reference_s09 import cost_split, endings_counted, odd_priced_shifts
from cafe.exercises.s09 import check_cost_by_ending, check_summarize
from cafe.report.records import ENDINGS, STOP_ORDER, Price, RunRecord
from cafe.report.summary import cost_by_ending, count_endings, run_cost, summarize


def _stub(*args):
    raise NotImplementedError("your turn")


# --- summarize: counts that add up, checked both ways -----------------------------------------------


def test_check_summarize_reference_passes_compare():
    assert check_summarize(endings_counted) == []
    assert course.compare(endings_counted, check=check_summarize).status == "passed"


def test_check_summarize_refuses_the_course_s_own_count_endings():
    def calls_the_course(runs):
        return count_endings(runs)

    for handed_in in (count_endings, calls_the_course):
        assert check_summarize(handed_in) == [library_answer("count_endings")]


def test_check_summarize_stub_is_not_attempted():
    assert course.compare(_stub, check=check_summarize).status == "not_attempted"


def _counter(runs):
    return dict(Counter(run.ending for run in runs))


def _other_bucket(runs):
    counts = {ending: 0 for ending in (*ENDINGS, "other")}
    for run in runs:
        counts[run.ending if run.ending in ENDINGS else "other"] += 1
    return counts


def _skips_unknown(runs):
    counts = {ending: 0 for ending in ENDINGS}
    for run in runs:
        if run.ending in counts:
            counts[run.ending] += 1
    return counts


def _stop_reasons_only(runs):  # the loop's three stop reasons, and nothing else
    counts = {reason: 0 for reason in STOP_ORDER}
    for run in runs:
        if run.ending not in counts:
            raise ValueError(f"unknown stop reason {run.ending!r}")
        counts[run.ending] += 1
    return counts


def _old_four(runs):  # the loop's three plus the retired needs_consent, counting sent_back there
    counts = {reason: 0 for reason in (*STOP_ORDER, "needs_consent")}
    for run in runs:
        if run.ending == "sent_back":
            counts["needs_consent"] += 1
        elif run.ending in counts:
            counts[run.ending] += 1
        else:
            raise ValueError(f"unknown ending {run.ending!r}")
    return counts


def _passed_or_failed(runs):
    counts = {ending: 0 for ending in ENDINGS}
    for run in runs:
        counts["passed" if run.ending == "passed" else "retries_exhausted"] += 1
    return counts


def test_check_summarize_refuses_a_count_that_drops_an_order_sent_back_to_the_customer():
    def drops_sent_back(runs):
        return endings_counted([run for run in runs if run.ending != "sent_back"])

    assert any(
        "a mixed shift: returned" in problem and "each run counted once" in problem
        for problem in check_summarize(drops_sent_back)
    )


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_counter, "an empty shift: returned {}"),
        (_other_bucket, "'other': 0}, expected"),
        (_skips_unknown, "a run ending on 'timeout', last: returned"),
        (_passed_or_failed, "'policy_violation': 0, 'sent_back': 0}, expected"),
        (_stop_reasons_only, "raised ValueError: unknown stop reason 'sent_back'"),
        (_old_four, "'needs_consent': 1}, expected"),
        (lambda runs: None, "returned None; return a dict"),
        (lambda runs: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_summarize_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_summarize(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_summarize).status == "failed"


# --- cost by ending --------------------------------------------------------------------------------


def test_check_cost_by_ending_reference_passes_compare():
    assert check_cost_by_ending(cost_split) == []
    assert course.compare(cost_split, check=check_cost_by_ending).status == "passed"


def test_check_cost_by_ending_refuses_the_course_s_own_function():
    assert check_cost_by_ending(cost_by_ending) == [library_answer("cost_by_ending")]


def test_check_summarize_shows_a_shrunk_generated_input_a_case_never_varies():
    def strips_and_folds(runs):  # reads ' Passed' as passed: a spelling the report must refuse
        counts = dict.fromkeys(ENDINGS, 0)
        for run in runs:
            ending = str(getattr(run, "ending", "")).strip().lower()
            if ending not in counts:
                raise ValueError(ending)
            counts[ending] += 1
        return counts

    problems = check_summarize(strips_and_folds)
    assert len(problems) == 1 and problems[0].startswith("on [namespace(ending=")
    assert "expected raises ValueError" in problems[0]


def test_check_cost_by_ending_stub_is_not_attempted():
    assert course.compare(_stub, check=check_cost_by_ending).status == "not_attempted"


def _tokens_not_money(runs, prices):
    totals = {ending: 0.0 for ending in ENDINGS}
    for run in runs:
        totals[run.ending] += run.tokens or 0
    return totals


def _no_zeros(runs, prices):
    totals = {}
    for run in runs:
        cost = run_cost(run, prices)
        if cost:
            totals[run.ending] = totals.get(run.ending, 0.0) + cost
    return totals


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_tokens_not_money, "price per million"),
        (_no_zeros, "exactly the endings as keys"),
        (lambda runs, prices: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_cost_by_ending_wrong_answers_fail(wrong, complaint):
    problems = check_cost_by_ending(wrong)
    assert any(complaint in problem for problem in problems), problems


# A run no ending names, in the cost split (held-out readerL): the lesson's report has no "other"
# bucket, and step 6 lists every ending "as in step 4", which refuses such a run.


def _split(runs, prices, odd):
    """A right split except for what `odd(run, totals)` does with a run no ending names."""
    totals = dict.fromkeys(ENDINGS, 0.0)
    for run in runs:
        if run.ending not in totals:
            odd(run, totals)
            continue
        price = prices.get(run.model)
        if price is not None and None not in (run.input_tokens, run.output_tokens):
            spent = run.input_tokens * price.input_per_million
            totals[run.ending] += (spent + run.output_tokens * price.output_per_million) / 1e6
    return totals


def _left_out(run, totals):
    pass


def _refused_by(error):
    def odd(run, totals):
        raise error(f"no such ending: {run.ending!r}")

    return odd


def _reads_the_row(run, totals):
    totals[run.ending] += 0.0  # KeyError: the row is not there


def test_check_cost_by_ending_refuses_a_split_that_leaves_out_a_run_no_ending_names():
    (problem,) = check_cost_by_ending(lambda runs, prices: _split(runs, prices, _left_out))
    assert problem.startswith("on ([namespace(ending='timeout', model='house', input_tokens=1")
    assert "expected raises ValueError" in problem and "as in step 4" in problem


@pytest.mark.parametrize("odd", [_refused_by(ValueError), _refused_by(LookupError), _reads_the_row])
def test_check_cost_by_ending_takes_any_refusal_of_a_run_no_ending_names(odd):
    """Step 6 does not say how to refuse: a ValueError, or the KeyError of the missing row."""
    assert check_cost_by_ending(lambda runs, prices: _split(runs, prices, odd)) == []


@settings(max_examples=100, derandomize=True, database=None)
@given(odd_priced_shifts(RunRecord, Price))
def test_odd_priced_shifts_are_refused_by_the_reference_and_the_library(shift):
    for split in (cost_split, cost_by_ending):
        with pytest.raises((ValueError, KeyError)):
            split(*shift)


@pytest.mark.parametrize("kind", [Decimal, Fraction])
def test_check_cost_by_ending_says_an_exact_number_type_is_what_differs(kind):
    """readerL: Decimal costs were refused as 'returned Decimal('0.0009'), expected 0.0009'."""

    def exact(runs, prices):
        totals = dict.fromkeys(ENDINGS, kind(0))
        for run in runs:
            cost = run_cost(run, prices)
            if cost is not None:
                totals[run.ending] += kind(str(cost))
        return totals

    problem = check_cost_by_ending(exact)[0]
    assert f", a {kind.__name__}; return each cost as a float" in problem, problem


# --- the notebook's your-turn cells --------------------------------------------------------------


def test_notebook_stubs_are_not_attempted_and_the_shift_adds_up(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))  # the notebook banks a checkpoint
    namespace = run_notebook_source("s09-shift-report")
    assert course.compare(namespace["summarize"], check=check_summarize).status == "not_attempted"
    assert (
        course.compare(namespace["cost_by_ending"], check=check_cost_by_ending).status
        == "not_attempted"
    )
    assert namespace["counts"] == {
        "passed": 8,
        "retries_exhausted": 6,
        "policy_violation": 3,
        "sent_back": 3,
    }
    assert namespace["no_ticket"] == 12
    # The three orders sent back have no trace (the loop never ran), so 17 of 20 read back.
    assert len(namespace["read_back"]) == 17 and len(namespace["problems"]) == 2
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
    counts = summary.endings
    said = {
        "passed": "{} passed",
        "retries_exhausted": "{} ran out of attempts (retries_exhausted)",
        "sent_back": "{} were sent back to the customer (sent_back)",
        "policy_violation": "{} were refused (policy_violation)",
    }
    why = load_answer("s09.why_no_ticket")
    assert (
        f"{_WORDS[summary.runs - summary.accepted]} of the twenty orders ended without a ticket"
        in why
    )
    assert all(said[ending].format(_WORDS[counts[ending]]) in why for ending in ENDINGS)
    per_ticket = load_answer("s09.why_per_ticket")
    ratio = summary.cost_per_accepted / (summary.cost_by_ending["passed"] / summary.accepted)
    assert "about two and a half times" in per_ticket and 2.25 <= ratio < 2.75
    assert (
        summary.cost_by_ending["retries_exhausted"] > summary.cost_by_ending["passed"]
    )  # "spent more ... than"
