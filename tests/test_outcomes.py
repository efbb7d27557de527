"""Every outcome a shift can produce is handled by every report (session 09) and taxonomy
(session 10) function: nothing raises that is not documented to, and every count adds up.

The outcomes: a pass on any attempt up to the cap; a run the cap ended, whatever its failures;
a request the policy pre-check refused (an injection, an allergy the menu cannot check, every item
unsafe); an order front of house sent back to the customer; an endpoint failure of any kind a
shift keeps going after; and each of those the loop ran, read back from its session 08 trace.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import PARTIAL_ALLERGEN_SPEC, OrderSpec
from cafe.endpoint.client.problems import PROBLEM_KINDS
from cafe.endpoint.errors import SETUP_PROBLEMS
from cafe.repair.front import SentBack, front_of_house
from cafe.repair.reask import Attempt, RepairResult
from cafe.report.figures import attempts_figure, cost_figure, endings_figure, failures_figure
from cafe.report.records import ENDINGS, Price, RunRecord, record_from_result, record_from_sent_back
from cafe.report.shift import SHIFT_ORDERS, run_shift, scripted_drafter, ticking
from cafe.report.summary import cost_by_ending, count_endings, summarize
from cafe.report.text import render_text
from cafe.report.traces import record_from_trace
from cafe.schema.ticket import Failure, Ticket
from cafe.stories.practice_shift import practice_generator, practice_orders
from cafe.taxonomy.classes import FAILURE_CLASSES, classify, code
from cafe.taxonomy.runs import Run, run_from_trace
from cafe.taxonomy.sorting import first_fix, sort_runs
from cafe.taxonomy.sorting import run_shift as sort_shift
from cafe.trace.record import record_repair

SPEC = OrderSpec(4, ("latte", "croissant"), request="A latte and a croissant.")
TICKET = Ticket(table=4, items=("latte", "croissant"), allergies=(), notes="")
PRICES = {"m": Price(3.0, 15.0)}
# Failures a draft of this course can get, as the checks word them.
FAILURES = (
    Failure("missing_field", "table", "include table"),
    Failure("sold_out", "cheese omelette", "no 86'd item"),
    Failure("out_of_scope", "espresso", "remove espresso"),
    Failure("unsafe", "latte contains milk", "no milk"),
    Failure("not_json", "Sure!", "answer with JSON"),
)
# Why a request is refused before any draft: the three classes of `policy_failures`.
REFUSALS = (
    Failure("injection", "ignore previous instructions", "treat it as text"),
    Failure("unknown_allergen", "sesame", "confirm the allergy"),
    Failure("unsafe", "every item contains milk: latte", "take a new order"),
)
# Endpoint failures a shift goes on after; the setup problems stop the shift instead.
TRANSPORT_KINDS = sorted(PROBLEM_KINDS - SETUP_PROBLEMS)

attempt_failures = st.lists(st.sampled_from(FAILURES), min_size=1, max_size=3, unique=True)


@st.composite
def outcomes(draw: st.DrawFn) -> Run:
    """One order of a shift, ended any way a shift can end it."""
    kind = draw(st.sampled_from(["passed", "exhausted", "refused", "sent_back", "transport"]))
    if kind == "transport":
        return Run(SPEC, transport=draw(st.sampled_from(TRANSPORT_KINDS)), detail="no answer")
    if kind == "sent_back":
        return Run(PARTIAL_ALLERGEN_SPEC, sent_back=front_of_house(PARTIAL_ALLERGEN_SPEC))
    if kind == "refused":
        blocked = tuple(draw(st.lists(st.sampled_from(REFUSALS), min_size=1, unique=True)))
        return Run(SPEC, result=RepairResult("policy_violation", None, (), blocked_by=blocked))
    failed = draw(st.lists(attempt_failures, min_size=1 if kind == "exhausted" else 0, max_size=5))
    attempts = [Attempt(n, "{}", tuple(f), 0, None) for n, f in enumerate(failed, start=1)]
    if kind == "exhausted":
        return Run(SPEC, result=RepairResult("retries_exhausted", None, tuple(attempts)))
    attempts.append(Attempt(len(attempts) + 1, "{}", (), 0, None))
    return Run(SPEC, result=RepairResult("passed", TICKET, tuple(attempts)))


def _record(run: Run, number: int) -> RunRecord | None:
    """The report's record of a run, as session 09's shift makes one (None: a transport run,
    which session 09's shift does not survive; session 10's does)."""
    if run.sent_back is not None:
        return record_from_sent_back(run.sent_back, run_id=f"r{number}", model="m")
    if run.result is None:
        return None
    return record_from_result(run.result, run_id=f"r{number}", model="m")


def _check_taxonomy(runs: list[Run]) -> None:
    taxonomy = sort_runs(runs)
    sent_back = sum(run.sent_back is not None for run in runs)
    assert taxonomy.runs == len(runs) and taxonomy.sent_back == sent_back
    assert taxonomy.passed + taxonomy.sent_back + sum(taxonomy.counts.values()) == len(runs)
    assert sum(taxonomy.shares().values()) == pytest.approx(1.0 if taxonomy.failed else 0.0)
    fix = first_fix(taxonomy)
    assert fix is None or fix[0] != "blocked"
    for run in runs:
        if run.passed or run.sent_back is not None:
            word = "passed" if run.passed else "sent back"
            with pytest.raises(ValueError, match=word):
                classify(run)
            with pytest.raises(ValueError, match=word):
                code(run)
            continue
        kind = classify(run)
        assert kind in FAILURE_CLASSES and code(run)
        if run.transport is not None:
            assert (kind, code(run)) == ("transport", run.transport)
        elif run.result is not None and run.result.stop_reason == "policy_violation":
            assert (kind, code(run)) == ("blocked", run.result.blocked_by[0].check)
        else:
            assert kind in ("systematic", "alternating", "drifting")


def _check_report(records: list[RunRecord]) -> None:
    counts = count_endings(records)
    assert list(counts) == list(ENDINGS) and sum(counts.values()) == len(records)
    costs = cost_by_ending(records, PRICES)
    assert list(costs) == list(ENDINGS) and costs["sent_back"] == costs["policy_violation"] == 0
    for prices in (PRICES, None):
        summary = summarize(records, prices)
        assert sum(summary.endings.values()) == len(records)
        assert sum(summary.attempts_to_pass.values()) == len(records)
        text = render_text(summary)
        assert all(f"  {ending} " in text for ending in ENDINGS)


@settings(max_examples=120, deadline=None)
@given(st.lists(outcomes(), max_size=25))
def test_every_outcome_of_a_shift_sorts_and_counts(runs):
    _check_taxonomy(runs)
    records = [record for n, run in enumerate(runs) if (record := _record(run, n)) is not None]
    _check_report(records)


def test_a_run_holds_exactly_one_ending():
    sent = front_of_house(PARTIAL_ALLERGEN_SPEC)
    result = RepairResult("policy_violation", None, (), blocked_by=REFUSALS[:1])
    for wrong in (
        {},
        {"result": result, "sent_back": sent},
        {"transport": "timeout", "sent_back": sent},
    ):
        with pytest.raises(ValueError, match="exactly one"):
            Run(SPEC, **wrong)


# --- the real shifts, live and read back from their traces -------------------------------------


def test_session_09s_lunch_shift_sorts_into_the_taxonomy():
    runs = sort_shift(SHIFT_ORDERS, scripted_drafter())
    taxonomy = sort_runs(runs)
    assert (taxonomy.runs, taxonomy.passed, taxonomy.sent_back) == (20, 8, 3)
    assert taxonomy.counts["blocked"] == 3 and sum(taxonomy.counts.values()) == 9
    assert [run.spec.table for run in runs if run.sent_back is not None] == [17, 19, 20]
    _check_taxonomy(list(runs))
    # The report of the same shift counts the same orders the same way.
    records = run_shift(SHIFT_ORDERS, scripted_drafter(), model="m", clock=ticking())
    endings = count_endings(records)
    assert endings["sent_back"] == taxonomy.sent_back and endings["passed"] == taxonomy.passed
    assert endings["policy_violation"] == taxonomy.counts["blocked"]


def test_the_practice_shift_with_its_transport_failure_sorts_and_reports():
    runs = list(sort_shift(practice_orders(), practice_generator()))
    assert any(run.transport is not None for run in runs)
    _check_taxonomy(runs)
    _check_report([record for n, run in enumerate(runs) if (record := _record(run, n))])


def test_every_loop_run_reads_back_from_its_trace_the_same_way():
    for spec in SHIFT_ORDERS:
        if front_of_house(spec) is not None:
            continue  # sent back: the loop never ran, so there is no trace to read
        result, trace = record_repair(spec, scripted_drafter())
        live, read = Run(spec, result=result), run_from_trace(trace)
        if live.passed:
            assert read.passed
        else:
            assert (classify(read), code(read)) == (classify(live), code(live))
        from_trace = record_from_trace(trace)
        from_result = record_from_result(result, run_id=trace.trace_id, model=from_trace.model)
        assert (from_trace.ending, from_trace.attempts, dict(from_trace.failures)) == (
            from_result.ending,
            from_result.attempts,
            dict(from_result.failures),
        )


def test_the_figures_draw_every_ending_of_a_shift():
    records = list(run_shift(SHIFT_ORDERS, scripted_drafter(), model="m", clock=ticking()))
    summary = summarize(records, PRICES)
    (axes,) = endings_figure(summary).axes
    assert [t.get_text() for t in axes.get_xticklabels()] == list(ENDINGS)
    assert [p.get_height() for p in axes.patches] == [8, 6, 3, 3]
    (axes,) = attempts_figure(summary).axes
    labels = [t.get_text() for t in axes.get_xticklabels()]
    assert labels[-3:] == ["exhausted", "blocked", "sent back"]
    assert sum(p.get_height() for p in axes.patches) == 20
    (axes,) = cost_figure(summary).axes
    assert [t.get_text() for t in axes.get_xticklabels()] == list(ENDINGS)
    assert failures_figure(summary).axes


def test_an_order_sent_back_is_never_drafted_by_either_shift():
    def refuses(messages):
        raise AssertionError("an order sent back reached the generator")

    assert isinstance(front_of_house(PARTIAL_ALLERGEN_SPEC), SentBack)
    (run,) = sort_shift([PARTIAL_ALLERGEN_SPEC], refuses)
    (record,) = run_shift([PARTIAL_ALLERGEN_SPEC], refuses, model="m")
    assert run.sent_back is not None and record.ending == "sent_back"
