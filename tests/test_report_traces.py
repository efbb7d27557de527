"""cafe.report.traces: a recorded repair run reads back as the same record the result gives, and a
broken file, a run of another harness or a run without usage is reported in words."""

from __future__ import annotations

import pytest

import cafe
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    OMELETTE_SPEC,
    make_model_generator,
    make_scripted_generator,
)
from cafe.report.records import record_from_result
from cafe.report.shift import PRACTICE_PRICES, SHIFT_ORDERS, run_shift, ticking
from cafe.report.summary import summarize
from cafe.report.text import render_text
from cafe.report.traces import NO_MODEL, read_shift, record_from_trace
from cafe.stories.feedback_model import FeedbackModel
from cafe.trace.record import record_repair, write_trace
from cafe.trace.spans import STOP_REASON, Span, Trace


def _same(record, other):
    return (
        record.ending,
        record.attempts,
        record.input_tokens,
        record.output_tokens,
        dict(record.failures),
    ) == (
        other.ending,
        other.attempts,
        other.input_tokens,
        other.output_tokens,
        dict(other.failures),
    )


def test_record_from_trace_agrees_with_the_result_it_recorded():
    for order in SHIFT_ORDERS[:3] + SHIFT_ORDERS[10:11] + SHIFT_ORDERS[-1:]:
        generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
        result, trace = record_repair(order, generate)
        from_trace, from_result = (
            record_from_trace(trace),
            record_from_result(result, run_id="r", model="m"),
        )
        assert _same(from_trace, from_result), order


def test_run_shift_with_a_trace_dir_links_every_run_to_a_file_that_reads_back(tmp_path):
    generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
    runs = run_shift(
        SHIFT_ORDERS, generate, model="cafe-scripted", clock=ticking(), trace_dir=tmp_path
    )
    looped = [run for run in runs if run.ending != "sent_back"]
    assert all(run.trace == str(tmp_path / f"{run.run_id}.jsonl") for run in looped)
    # An order sent back before any draft has no run of the loop to record, so no trace file.
    sent_back = [run for run in runs if run.ending == "sent_back"]
    assert len(sent_back) == 3 and all(run.trace is None for run in sent_back)
    read, problems = read_shift(sorted(tmp_path.glob("*.jsonl")))
    assert problems == () and len(read) == 17
    assert all(_same(a, b) for a, b in zip(looped, read))
    assert dict(summarize(read, PRACTICE_PRICES).endings) == {
        **summarize(runs, PRACTICE_PRICES).endings,
        "sent_back": 0,
    }


def test_refused_run_is_filed_under_no_model_and_costs_nothing():
    _, trace = record_repair(SHIFT_ORDERS[-1], make_scripted_generator(ALTERNATING_CANDIDATES))
    record = record_from_trace(trace)
    assert (
        record.model == NO_MODEL
        and record.tokens == 0
        and dict(record.failures) == {"unknown_allergen": 1}
    )
    assert summarize([record], PRACTICE_PRICES).unpriced == ()


def test_trace_without_usage_is_counted_and_reported_in_words(tmp_path):
    _, trace = record_repair(OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    path = write_trace(trace, tmp_path / "quiet.jsonl")
    runs, problems = read_shift([path])
    summary = summarize(runs, PRACTICE_PRICES, notes=problems)
    assert summary.endings["retries_exhausted"] == 1 and runs[0].input_tokens is None
    assert "reported no token usage" in render_text(summary)


def test_read_shift_reports_a_cut_off_file_and_a_missing_one_without_raising(tmp_path):
    _, trace = record_repair(OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    good = write_trace(trace, tmp_path / "good.jsonl")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(good.read_text()[:-40], encoding="utf-8")
    runs, problems = read_shift([good, cut, tmp_path / "gone.jsonl"])
    assert len(runs) == 1 and len(problems) == 2
    assert "cut.jsonl" in problems[0] and "line" in problems[0] and "gone.jsonl" in problems[1]


def test_read_shift_leaves_out_a_run_of_another_harness_and_names_it(tmp_path):
    loop_run = Trace(
        "t1",
        "2026-11-30T12:00:00+00:00",
        (Span("s1", None, "run", "invoke_agent cafe.loop", 0.0, 1.0, {STOP_REASON: "done"}),),
    )
    path = write_trace(loop_run, tmp_path / "loop.jsonl")
    runs, (problem,) = read_shift([path])
    assert runs == () and "'done'" in problem and "cafe.repair only" in problem


def test_record_from_trace_refuses_something_that_is_not_a_trace():
    with pytest.raises(TypeError, match="cafe.trace.read_traces"):
        record_from_trace({"stop_reason": "passed"})


def test_read_shift_names_a_trace_that_ends_on_the_retired_needs_consent(tmp_path):
    # Written by an earlier version of the course, whose loop sent such orders back itself.
    old = Trace(
        "old-17",
        "2026-11-30T12:00:00+00:00",
        (
            Span(
                "s1",
                None,
                "run",
                "invoke_agent cafe.repair",
                0.0,
                0.1,
                {STOP_REASON: "needs_consent"},
            ),
        ),
    )
    runs, (problem,) = read_shift([write_trace(old, tmp_path / "old.jsonl")])
    assert runs == () and "'needs_consent'" in problem and "sent back" in problem


def test_read_shift_counts_two_different_runs_under_one_id_and_names_both_files(tmp_path):
    """A10: a run recorded again under a fixed id, into another file. Both are counted (they are
    different runs), and a sentence names both files, so one id shown twice is explained."""
    _, trace = record_repair(OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
    other = record_repair(SHIFT_ORDERS[0], generate)[1]
    first = write_trace(trace, tmp_path / "monday.jsonl")
    second = write_trace(
        Trace(trace.trace_id, trace.started_at, other.spans), tmp_path / "tue.jsonl"
    )
    copy = tmp_path / "copy.jsonl"
    copy.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    runs, (shared, copied) = read_shift([first, second, copy])
    assert [run.run_id for run in runs] == [trace.trace_id] * 2
    assert f"Two runs share the id {trace.trace_id}" in shared
    assert "tue.jsonl" in shared and "monday.jsonl" in shared and "both are counted" in shared
    assert copied.startswith("Not counted twice, from") and "copy.jsonl" in copied
