"""Send recorded traces to OpenTelemetry, so any OTel backend (Jaeger, Tempo, Phoenix...) shows them.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`; how to
start Jaeger and look at a shift: `docs/traces.md`). The course keeps traces in its own file
(`cafe.trace.file`); this module hands the same spans to the OpenTelemetry SDK (the optional
extra: `pip install -e ".[otel]"`, which brings the OTLP/HTTP exporter too).

- `export_trace(trace, exporter)` and `export_traces(traces, exporter)`: each span becomes an SDK
  span with the same ids, parent, start and end (the trace's `started_at` plus the span's
  offsets) and attributes. A model call is a `CLIENT` span, the rest `INTERNAL`; a span with
  `error.type` gets the status `ERROR`. Spans are batched (`BatchSpanProcessor`): one request to
  the backend for a whole shift, not one per span.
- Keys never leave: every span passes `cafe.trace.spans.scrubbed` first, as on its way to the
  file, so a trace built by hand is exported as clean as a recorded one.
- What was said stays home by default. The GenAI conventions make message content Opt-In, so
  the attributes in `CONTENT_ATTRIBUTES` are left out of an export unless `capture_content=True`
  or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` asks for them (the variable
  OpenTelemetry's own GenAI instrumentations read). The JSONL file keeps them: it is the
  learner's replay record, and a replay compares what the model was sent.
- A check's verdict travels as the conventions define it: a `gen_ai.evaluation.result` event
  (`cafe.trace.evaluations`) on the model call it judged, not as attributes of the check span.
- An export the backend did not accept raises `TraceExportError` instead of passing in silence.

The SDK is imported inside the functions, so `import cafe` does not need it. What it leaves out:
metrics, and live export while a run goes on (the course exports what it recorded).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from cafe.endpoint.errors import CafeError
from cafe.endpoint.secrets.redaction import display_url, redact
from cafe.trace.attributes import (
    CONTENT_ATTRIBUTES,
    ERROR_TYPE,
    EVALUATION_LABEL,
    EVALUATION_NAME,
    Scrubber,
)
from cafe.trace.evaluations import emit_evaluations, log_provider
from cafe.trace.spans import Span, Trace, scrubbed

__all__ = [
    "CAPTURE_VARIABLE",
    "TraceExportError",
    "otel_value",
    "otel_attributes",
    "capture_content_from_env",
    "export_traces",
    "export_trace",
]

# The variable OpenTelemetry's Python GenAI instrumentations read for the same choice; its values
# that put content on spans (the others, and unset, mean no content: NO_CONTENT is the default).
CAPTURE_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_CAPTURE_ON = frozenset({"true", "1", "span_only", "span_and_event"})
# The scalar types an OpenTelemetry attribute may hold (and flat lists of one of them).
_SCALARS = (str, bool, int, float)
# Where to read how to start a backend, named by the error when nothing accepted the spans.
_HOW_TO = "docs/traces.md shows how to start Jaeger with one command"


class TraceExportError(CafeError):
    """The exporter did not accept the spans (no backend listening, or it refused them)."""


def otel_value(value: Any) -> Any:
    """`value` as an OpenTelemetry attribute value: scalars and flat lists kept, the rest as JSON text."""
    if isinstance(value, _SCALARS):
        return value
    if (
        isinstance(value, (list, tuple))
        and value
        and all(type(v) is type(value[0]) for v in value)
        and isinstance(value[0], _SCALARS)
    ):
        return list(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def otel_attributes(span: Span, *, capture_content: bool = False) -> dict[str, Any]:
    """The span's attributes for export, each through `otel_value`: None left out, what was said
    (`CONTENT_ATTRIBUTES`) left out unless `capture_content`, and a check's evaluation attributes
    left out (they travel as an event on the call it judged)."""
    dropped = set() if capture_content else set(CONTENT_ATTRIBUTES)
    if span.kind == "check":
        dropped |= {EVALUATION_NAME, EVALUATION_LABEL}
    return {
        name: otel_value(value)
        for name, value in span.attributes.items()
        if value is not None and name not in dropped
    }


def capture_content_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """True when `CAPTURE_VARIABLE` asks for content on spans (true, SPAN_ONLY, SPAN_AND_EVENT)."""
    env = os.environ if environ is None else environ
    return env.get(CAPTURE_VARIABLE, "").strip().lower() in _CAPTURE_ON


def _as_int(hex_id: str, bits: int) -> int | None:
    try:
        number = int(hex_id, 16)
    except ValueError:
        return None
    return number if 0 < number < 2**bits else None


def _ids() -> Any:
    """An SDK id generator that hands out the ids of the trace it `follow`s (random ones where
    they are not hex): the SDK asks for a trace id per root span and a span id per span, in order."""
    from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

    class TraceIds(IdGenerator):
        def __init__(self) -> None:
            self.fallback = RandomIdGenerator()
            self.trace_id = ""
            self.spans: Iterator[Span] = iter(())

        def follow(self, trace: Trace) -> None:
            self.trace_id, self.spans = trace.trace_id, iter(trace.spans)

        def generate_trace_id(self) -> int:
            return _as_int(self.trace_id, 128) or self.fallback.generate_trace_id()

        def generate_span_id(self) -> int:
            span = next(self.spans, None)
            return (_as_int(span.span_id, 64) if span else None) or self.fallback.generate_span_id()

    return TraceIds()


def _counted(exporter: Any, results: list[bool]) -> Any:
    """`exporter`, noting in `results` whether each batch it was handed was accepted."""
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Counted(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            result = exporter.export(spans)
            results.append(result == SpanExportResult.SUCCESS)
            return result

        def shutdown(self) -> None:
            exporter.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return bool(exporter.force_flush(timeout_millis))

    return Counted()


def _emit(trace: Trace, tracer: Any, logs: Any, capture: bool) -> int:
    """Start and end an SDK span for every span of `trace`, and emit its evaluation events."""
    from opentelemetry import trace as otel
    from opentelemetry.trace import SpanKind, Status, StatusCode

    started_ns = int(datetime.fromisoformat(trace.started_at).timestamp() * 1e9)
    made: dict[str, Any] = {}  # span id -> the SDK span, so a child can name its parent
    for span in trace.spans:  # trace order: every parent before its children
        parent = otel.set_span_in_context(made[span.parent_id]) if span.parent_id else None
        made[span.span_id] = tracer.start_span(
            span.name,
            context=parent,
            kind=SpanKind.CLIENT if span.kind == "model_call" else SpanKind.INTERNAL,
            attributes={
                "cafe.span.kind": span.kind,
                **otel_attributes(span, capture_content=capture),
            },
            start_time=started_ns + int(span.start_s * 1e9),
        )
    emit_evaluations(trace, made, started_ns, logs)
    for span in reversed(trace.spans):  # children end before their parents, as they did in the run
        sdk_span = made[span.span_id]
        if span.get(ERROR_TYPE) is not None:
            sdk_span.set_status(Status(StatusCode.ERROR, str(span.get(ERROR_TYPE))))
        sdk_span.end(end_time=started_ns + int(span.end_s * 1e9))
    return len(made)


def _checked(trace: Any) -> Trace:
    if not isinstance(trace, Trace):
        raise TypeError(
            f"export_trace() takes a cafe.trace.spans.Trace, not {type(trace).__name__}."
        )
    return trace


def export_traces(
    traces: Iterable[Trace],
    exporter: Any,
    *,
    log_exporter: Any = None,
    capture_content: bool | None = None,
    service_name: str = "cafe",
) -> int:
    """Send every span of `traces` (a shift, say) through the OpenTelemetry SDK; returns how many.

    `exporter` is any SDK `SpanExporter` (`InMemorySpanExporter` in the tests, `OTLPSpanExporter`
    for a backend); it is shut down at the end. `log_exporter` (a `LogRecordExporter`) carries the
    evaluation events as log-based events; without one they are span events of the same name and
    attributes. `capture_content` None reads `CAPTURE_VARIABLE` now. Raises `TraceExportError`
    when the exporter did not accept a batch.
    """
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    clean = Scrubber()
    traces = [scrubbed(_checked(trace), clean) for trace in traces]
    capture = capture_content_from_env() if capture_content is None else capture_content
    resource, ids = Resource.create({"service.name": service_name}), _ids()
    results: list[bool] = []  # one per batch the exporter was handed: accepted or not
    provider = TracerProvider(resource=resource, id_generator=ids)
    provider.add_span_processor(BatchSpanProcessor(_counted(exporter, results)))
    logs = log_provider(resource, log_exporter)
    tracer, sent = provider.get_tracer("cafe.trace.otel"), 0
    for trace in traces:
        ids.follow(trace)
        sent += _emit(trace, tracer, logs, capture)
    for sdk_provider in (provider, logs):
        if sdk_provider is not None:
            sdk_provider.force_flush()
            sdk_provider.shutdown()
    if not all(results):  # the SDK only logs a failed export; a learner must see it
        where = getattr(exporter, "_endpoint", None)  # the OTLP exporters keep their URL here
        raise TraceExportError(
            redact(
                f"{results.count(False)} of {len(results)} batches of spans were not accepted "
                f"({type(exporter).__name__} said FAILURE): is a backend listening at "
                f"{display_url(str(where)) if where else 'the address the exporter sends to'}? "
                f"{_HOW_TO}."
            )
        )
    return sent


def export_trace(trace: Trace, exporter: Any, **options: Any) -> int:
    """`export_traces` for one trace: every span of `trace` to `exporter`; returns how many."""
    return export_traces([trace], exporter, **options)
