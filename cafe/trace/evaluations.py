"""A check's verdict as the GenAI conventions carry it: a `gen_ai.evaluation.result` event.

Session 08 (`sessions/s08-tracing/lesson.md`). In the course's own trace a check is a `check`
span holding `gen_ai.evaluation.name` and `gen_ai.evaluation.score.label` ("pass" or "fail"): it
has a start and an end, and replay and the shift report read it there. The conventions define
an evaluation's result as an event instead, "parented to the GenAI operation span being
evaluated", with `gen_ai.response.id` to find the completion when no span id is at hand. So an
export (`cafe.trace.otel`) sends each verdict as that event:

- `judged_calls(trace)`: check span id -> the span its verdict is about: the latest model call
  before it under the same parent (an attempt's draft, then its check), else its parent (the
  policy check that blocked an order before any draft judges the run);
- `evaluation_attributes(check, judged)`: the event's attributes;
- `emit_evaluations(...)`: the events, log-based through a `LoggerProvider` when one is given
  (`log_provider`), else span events of the same name and attributes, which a traces-only
  backend such as Jaeger shows on the span.

What it leaves out: `gen_ai.evaluation.score.value` and `.explanation` (a deterministic check
has a label and no score; its failures' lines quote the draft, which stays home by default).
"""

from __future__ import annotations

from typing import Any

from cafe.trace.attributes import EVALUATION_LABEL, EVALUATION_NAME, RESPONSE_ID
from cafe.trace.spans import Span, Trace

__all__ = [
    "EVALUATION_EVENT",
    "judged_calls",
    "evaluation_attributes",
    "emit_evaluations",
    "log_provider",
]

# The event name the conventions define for an evaluation's result (gen-ai-events.md).
EVALUATION_EVENT = "gen_ai.evaluation.result"


def judged_calls(trace: Trace) -> dict[str, Span]:
    """check span id -> the span its verdict is about (see the module docstring), for every check
    span that names an evaluation."""
    by_id = {span.span_id: span for span in trace.spans}
    last_call: dict[str | None, Span] = {}  # parent id -> its latest model call so far
    judged: dict[str, Span] = {}
    for span in trace.spans:  # trace order: a model call comes before the check that scores it
        if span.kind == "model_call":
            last_call[span.parent_id] = span
        elif span.kind == "check" and span.get(EVALUATION_NAME) is not None:
            parent = by_id.get(span.parent_id or "")
            judged[span.span_id] = last_call.get(span.parent_id) or parent or span
    return judged


def evaluation_attributes(check: Span, judged: Span) -> dict[str, Any]:
    """The event's attributes: the evaluation's name and label, and the judged completion's id."""
    attributes = {
        EVALUATION_NAME: check.get(EVALUATION_NAME),
        EVALUATION_LABEL: check.get(EVALUATION_LABEL),
        RESPONSE_ID: judged.get(RESPONSE_ID),
    }
    return {name: value for name, value in attributes.items() if value is not None}


def emit_evaluations(trace: Trace, made: dict[str, Any], started_ns: int, logs: Any) -> int:
    """Emit one `EVALUATION_EVENT` per judged check of `trace`, at the check's end, on the SDK
    span of the call it judged (`made`: span id -> SDK span, still open). Returns how many."""
    from opentelemetry import trace as otel

    checks = {span.span_id: span for span in trace.spans if span.kind == "check"}
    judged = judged_calls(trace)
    for check_id, call in judged.items():
        check = checks[check_id]
        attributes = evaluation_attributes(check, call)
        at = started_ns + int(check.end_s * 1e9)
        if logs is None:
            made[call.span_id].add_event(EVALUATION_EVENT, attributes, timestamp=at)
        else:
            logs.get_logger("cafe.trace.otel").emit(
                event_name=EVALUATION_EVENT,
                attributes=attributes,
                timestamp=at,
                context=otel.set_span_in_context(made[call.span_id]),
            )
    return len(judged)


def log_provider(resource: Any, log_exporter: Any) -> Any:
    """A `LoggerProvider` batching to `log_exporter`, or None without one."""
    if log_exporter is None:
        return None
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

    provider = LoggerProvider(resource=resource)
    provider.add_log_record_processor(BatchLogRecordProcessor(log_exporter))
    return provider
