"""Record session 07's re-ask: `record_repair`, each attempt a span holding its model call and check.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). Session
07's re-ask ends on a stop reason and forgets everything else. `record_repair(spec, generate)`
keeps the rest without touching the loop's body: it runs `cafe.repair.repair_ticket` with the
generator wrapped, so each call opens an `attempt` span, left open while the draft is scored, and
the scores that come back in the `RepairResult` become `check` spans under their attempts. A
generator with no recording client behind it still gets a `model_call` per attempt, made from
what it was sent and wrote. The spans are built by a `cafe.trace.recorder.Recorder`;
`cafe.trace.loop.record_loop` records session 01's loop the same way.

Reading a trace (what sessions 09 and 10 use), all importable from here:

    trace = read_trace("run.jsonl")        # or read_traces(path) for a file of many runs
    trace.stop_reason                      # "passed", "retries_exhausted", "done", ...
    trace.model, trace.usage               # the model asked for; (input, output) tokens or None
    trace.of_kind("attempt")               # spans of one kind; trace.children(span); trace.walk()
    span.get("cafe.check.failures")        # e.g. ["missing_field"] on a failed `check` span
    content_hash(trace)                    # "sha256:..." over what happened, not ids or times

What it leaves out: the file format (`cafe.trace.file`), replay (`cafe.trace.replay`),
OpenTelemetry export (`cafe.trace.otel`), and reading a shift of runs (session 09).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.client.readable import usage_counts
from cafe.repair.reask import CAP_DEFAULT, Generator, RepairResult, RetryMode, repair_ticket
from cafe.schema.ticket import Failure
from cafe.trace.attributes import (
    AGENT_NAME,
    ATTEMPT_NUMBER,
    CHECK_FAILURES,
    CHECK_LINES,
    ERROR_TYPE,
    EVALUATION_LABEL,
    EVALUATION_NAME,
    OPERATION,
    STOP_REASON,
    DeferredAttributes,
    Scrubber,
)
from cafe.trace.calls import generator_attributes
from cafe.trace.file import TraceFileError, read_trace, read_traces, write_trace, write_traces
from cafe.trace.recorder import OpenSpan, Recorder, RecordingClient
from cafe.trace.spans import Span, Trace, content_hash
from cafe.world.menu import Menu

__all__ = [
    "record_repair",
    # the recorder and the reading side, importable from here as the lessons write them
    "Recorder",
    "OpenSpan",
    "RecordingClient",
    "Span",
    "Trace",
    "content_hash",
    "read_trace",
    "read_traces",
    "write_trace",
    "write_traces",
    "TraceFileError",
]


class _AttemptRecorder:
    """Wraps a generator: each call opens an attempt span, left open while the draft is scored."""

    def __init__(self, generate: Generator, recorder: Recorder):
        self.generate, self.recorder = generate, recorder
        self.attempts: list[tuple[OpenSpan, float]] = []  # each attempt, when its draft came back

    def __call__(self, messages: list[dict[str, str]]) -> Any:
        self.end_attempt()
        recorder, number = self.recorder, len(self.attempts) + 1
        span = recorder.open("attempt", f"attempt {number}", {ATTEMPT_NUMBER: number})
        answer = self.generate(messages)
        answered = recorder.now()  # the draft is back: its model call ends, its check starts
        if not span.children:  # no recording client behind the generator recorded its model call
            recorder.add(
                span,
                "model_call",
                f"chat {getattr(self.generate, 'model', 'scripted')}",
                span.start,
                answered,
                DeferredAttributes(
                    generator_attributes, self.generate, list(messages), answer, recorder.scrub
                ),
            )
        self.attempts.append((span, answered))
        return answer

    def end_attempt(self) -> None:
        if self.attempts and self.recorder.current is self.attempts[-1][0]:
            self.recorder.close(self.attempts[-1][0])


def _check_attributes(name: str, failures: Sequence[Failure], clean: Scrubber) -> dict[str, Any]:
    """A check as an evaluation: its name, pass or fail, the failed checks' names, a line each."""
    return {
        EVALUATION_NAME: name,
        EVALUATION_LABEL: "fail" if failures else "pass",
        CHECK_FAILURES: [f.check for f in failures],
        CHECK_LINES: [clean.text(f.line()) for f in failures],
    }


def _run_attributes(result: RepairResult) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        STOP_REASON: result.stop_reason,
        "cafe.run.attempts": len(result.attempts),
    }
    total = usage_counts(result.usage)  # a sum past what a trace holds is no count either
    if total is not None and all(a.usage is not None for a in result.attempts):
        # the run's total only when every attempt reported: a partial sum is not the total
        attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"] = total
    return attributes


def _run_span(recorder: Recorder, spec: OrderSpec, cap: int, mode: RetryMode) -> OpenSpan:
    """Open the run span of a recorded re-ask, with what it was asked to do."""
    return recorder.open(
        "run",
        "invoke_agent cafe.repair",
        {
            OPERATION: "invoke_agent",
            AGENT_NAME: "cafe.repair",
            "cafe.repair.cap": cap,
            "cafe.repair.mode": mode,
            "cafe.order.table": spec.table,
            "cafe.order.items": list(spec.items),
        },
    )


def _add_checks(
    recorder: Recorder, run: OpenSpan, attempts: _AttemptRecorder, result: RepairResult
) -> None:
    """A `check` span under each attempt (from when its draft came back until it ended), and one
    for the policy check under the run when it blocked the order before any draft."""
    for (span, scored_from), attempt in zip(attempts.attempts, result.attempts):
        recorder.add(
            span,
            "check",
            "check ticket",
            scored_from,
            span.end or scored_from,
            DeferredAttributes(_check_attributes, "ticket", attempt.failures, recorder.scrub),
        )
    if result.blocked_by:
        now = recorder.now()
        recorder.add(
            run,
            "check",
            "check policy",
            now,
            now,
            _check_attributes("policy", result.blocked_by, recorder.scrub),
        )


def record_repair(
    spec: OrderSpec,
    generate: Generator,
    *,
    cap: int = CAP_DEFAULT,
    mode: RetryMode = "curated",
    menu: Menu | None = None,
    recorder: Recorder | None = None,
) -> tuple[RepairResult, Trace]:
    """`repair_ticket(spec, generate, ...)`, recorded: the result and its trace.

    Pass the `recorder` whose `client()` the generator was built on to nest the real model calls
    under their attempts; without one, each attempt gets a model call made from the generator.
    When the generator raises (a dead endpoint, a diverged replay), every open span is closed with
    `error.type` and the error goes on to the caller; `recorder.trace()` still has the spans.
    """
    if not isinstance(spec, OrderSpec):
        raise TypeError(
            f"record_repair() takes a cafe.consent.OrderSpec, not {type(spec).__name__}."
        )
    recorder = recorder or Recorder()
    run = _run_span(recorder, spec, cap, mode)
    attempts = _AttemptRecorder(generate, recorder)
    try:
        result = repair_ticket(spec, attempts, cap=cap, mode=mode, menu=menu)
    except Exception as exc:  # an endpoint that failed: the trace says so, the caller still sees it
        recorder.close_all({ERROR_TYPE: type(exc).__name__}, exc)
        raise
    attempts.end_attempt()
    _add_checks(recorder, run, attempts, result)
    recorder.close(run, _run_attributes(result))
    return result, recorder.trace()
