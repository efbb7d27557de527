"""Usage that is only partly reported is unknown, never a smaller number (held-out red team, A31, A32).

Session 09 promises "Unknown is not zero": a run whose endpoint did not report its usage is
counted under its ending, left out of the token and cost totals, named in
`ShiftSummary.unreported`, and the totals are said to be a floor. The red team found two ways
around it: a run whose calls reported usage on some calls only was summed over those calls (a
silent under-count), and a call with an input count but no output count was read as 0 output
tokens. The principle, checked on generated shifts written to a file and read back: the report's
token totals are the sums over the runs whose every model call reported both counts, and every
other run is named as not counted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cafe
from cafe.repair.reask import make_model_generator
from cafe.report.records import record_from_result
from cafe.report.shift import PRACTICE_PRICES, SHIFT_ORDERS
from cafe.report.summary import summarize
from cafe.report.traces import read_shift, record_from_trace
from cafe.schema.ticket import Draft
from cafe.stories.feedback_model import FeedbackModel
from cafe.trace.file import write_traces
from cafe.trace.record import record_repair
from cafe.trace.replay import recorded_reply
from cafe.trace.spans import (
    AGENT_NAME,
    ERROR_TYPE,
    INPUT_TOKENS,
    OPERATION,
    OUTPUT_MESSAGES,
    OUTPUT_TOKENS,
    REQUEST_MODEL,
    STOP_REASON,
    Span,
    Trace,
)

# One model call's counts as its span holds them: a whole number, or None when not reported.
Counts = tuple[int | None, int | None]

_COUNT = st.none() | st.integers(0, 10**6)
# Each run: one to four model calls, each with any mix of the two counts present or missing.
_RUN = st.lists(st.tuples(_COUNT, _COUNT), min_size=1, max_size=4)


def _repair_run(run_id: str, calls: list[Counts]) -> Trace:
    """A recorded repair run with one attempt per call, each call's counts as given (a missing
    count is left out of the span, as a recorder leaves out what the endpoint did not report)."""
    root = {STOP_REASON: "retries_exhausted", AGENT_NAME: "cafe.repair"}
    spans = [Span("run", None, "run", "invoke_agent cafe.repair", 0.0, 9.0, root)]
    for i, (tokens_in, tokens_out) in enumerate(calls):
        call = {OPERATION: "chat", REQUEST_MODEL: "cafe-scripted"}
        call.update({INPUT_TOKENS: tokens_in} if tokens_in is not None else {})
        call.update({OUTPUT_TOKENS: tokens_out} if tokens_out is not None else {})
        spans.append(Span(f"a{i}", "run", "attempt", "attempt", i, i + 1.0, {}))
        spans.append(Span(f"c{i}", f"a{i}", "model_call", "chat", i, i + 0.5, call))
    return Trace(run_id, "2026-12-07T11:00:00+00:00", tuple(spans))


def _fully_reported(calls: list[Counts]) -> bool:
    return all(None not in counts for counts in calls)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(shift=st.lists(_RUN, min_size=1, max_size=6))
def test_report_totals_are_the_fully_reported_runs_and_every_other_run_is_named(shift):
    traces = [_repair_run(f"run-{n}", calls) for n, calls in enumerate(shift)]
    with tempfile.TemporaryDirectory() as folder:
        path = write_traces(traces, Path(folder) / "shift.jsonl")
        runs, problems = read_shift([path])
    assert problems == () and len(runs) == len(shift)
    summary = summarize(runs, PRACTICE_PRICES)
    counted = [calls for calls in shift if _fully_reported(calls)]
    assert summary.input_tokens == sum(n for calls in counted for n, _ in calls)
    assert summary.output_tokens == sum(n for calls in counted for _, n in calls)
    named = [f"run-{n}" for n, calls in enumerate(shift) if not _fully_reported(calls)]
    assert summary.unreported == tuple(named)
    assert set(summary.unpriced) >= set(named)  # an unknown usage has an unknown cost
    for run in runs:  # a record holds both counts or neither: never a made-up 0
        assert (run.input_tokens is None) == (run.output_tokens is None)
    if named:
        assert any("floor" in note and named[0] in note for note in summary.notes)


def test_a_call_with_an_input_count_and_no_output_count_is_not_read_as_zero():
    """A32: the output count is missing, not 0; the run is named instead of summed."""
    record = record_from_trace(_repair_run("a32", [(120, None), (130, None)]))
    assert (record.input_tokens, record.output_tokens, record.tokens) == (None, None, None)
    assert summarize([record]).unreported == ("a32",)


def test_a_call_that_failed_with_no_usage_leaves_the_total_known():
    """The one exception: a call that failed (`error.type`, neither count) got no reply to bill.
    A call that failed but reported one count is still unknown."""
    run = _repair_run("r", [(100, 10), (None, None)])
    failed = Span("c1", "a1", "model_call", "chat", 1.0, 1.5, {ERROR_TYPE: "timeout"})
    known = Trace("r", run.started_at, (*run.spans[:-1], failed))
    assert known.usage == (100, 10)
    half = Span("c1", "a1", "model_call", "chat", 1.0, 1.5, {ERROR_TYPE: "x", INPUT_TOKENS: 5})
    assert Trace("r", run.started_at, (*run.spans[:-1], half)).usage is None


def _reporting_only(generate, reported: set[int]):
    """`generate`, with the usage of every attempt not in `reported` (1-based) left out."""
    attempts = 0

    def drafts(messages):
        nonlocal attempts
        attempts += 1
        draft = generate(messages)
        return Draft(draft.text, draft.usage if attempts in reported else None)

    return drafts


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(order=st.sampled_from(SHIFT_ORDERS[:12]), reported=st.sets(st.integers(1, 3)))
def test_the_result_and_the_trace_of_a_part_reported_run_give_the_same_record(order, reported):
    """The report's two roads to a record (the loop's result, its trace) agree on a run whose
    attempts reported usage on some attempts only: both say unknown, and the run span's total is
    left out rather than written as the smaller sum."""
    generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
    result, trace = record_repair(order, _reporting_only(generate, reported))
    from_result = record_from_result(result, run_id="r", model="m")
    from_trace = record_from_trace(trace)
    assert (from_trace.input_tokens, from_trace.output_tokens) == (
        from_result.input_tokens,
        from_result.output_tokens,
    )
    everything = set(range(1, len(result.attempts) + 1)) <= reported  # no attempt: a known 0
    assert (from_trace.input_tokens is not None) == everything
    if result.attempts:
        assert (trace.root.get(INPUT_TOKENS) is not None) == everything


@pytest.mark.parametrize("recorded", [{INPUT_TOKENS: 7}, {OUTPUT_TOKENS: 7}])
def test_a_replayed_reply_carries_no_made_up_token_count(recorded):
    """A replay answers with the recorded usage, or none: never a missing count filled with 0."""
    reply = [{"role": "assistant", "parts": [{"type": "text", "content": "hi"}]}]
    span = Span("c", None, "model_call", "chat", 0.0, 1.0, {OUTPUT_MESSAGES: reply, **recorded})
    assert recorded_reply(span)["usage"] is None
