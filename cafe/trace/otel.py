"""Send a recorded trace to OpenTelemetry, so any OTel backend can show it.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). The
course keeps traces in its own small file (`cafe.trace.file`); this module hands the same spans
to the OpenTelemetry SDK (the optional extra: `pip install -e ".[otel]"`), whose exporters send
them on to Jaeger, Grafana Tempo, Langfuse, Phoenix or any other OTLP receiver.

- `export_trace(trace, exporter)`: each span becomes an SDK span with the same parent, the same
  start and end (the trace's `started_at` plus the span's offsets), the same ids, and the same
  attributes. A model call is a `CLIENT` span (the process calling out), the rest `INTERNAL`; a
  span with `error.type` gets the status `ERROR`.
- `otel_value(value)`: OpenTelemetry attributes hold text, numbers, booleans and flat lists of
  one of those; anything else (a list of messages, an object) is written as JSON text, which is
  how the GenAI conventions carry `gen_ai.input.messages` on a span.

The SDK is imported inside the functions, so `import cafe` does not need it. What it leaves out:
configuring a real backend (an OTLP exporter is one line, see the lesson) and metrics.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from cafe.trace.attributes import ERROR_TYPE
from cafe.trace.spans import Span, Trace

__all__ = ["otel_value", "otel_attributes", "export_trace"]

# The scalar types an OpenTelemetry attribute may hold (and flat lists of one of them).
_SCALARS = (str, bool, int, float)


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


def otel_attributes(span: Span) -> dict[str, Any]:
    """The span's attributes, each through `otel_value`; attributes that are None are left out."""
    return {name: otel_value(value) for name, value in span.attributes.items() if value is not None}


def _as_int(hex_id: str, bits: int) -> int | None:
    try:
        number = int(hex_id, 16)
    except ValueError:
        return None
    return number if 0 < number < 2**bits else None


def _ids(trace: Trace) -> Any:
    """An SDK id generator that hands out the trace's own ids (random ones where they are not hex)."""
    from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

    class TraceIds(IdGenerator):
        def __init__(self) -> None:
            self.fallback = RandomIdGenerator()
            self.spans: Iterator[Span] = iter(trace.spans)

        def generate_trace_id(self) -> int:
            return _as_int(trace.trace_id, 128) or self.fallback.generate_trace_id()

        def generate_span_id(self) -> int:
            span = next(self.spans, None)
            return (_as_int(span.span_id, 64) if span else None) or self.fallback.generate_span_id()

    return TraceIds()


def export_trace(trace: Trace, exporter: Any, *, service_name: str = "cafe") -> int:
    """Emit every span of `trace` through the OpenTelemetry SDK to `exporter`; returns how many.

    `exporter` is any SDK `SpanExporter` (`InMemorySpanExporter` in the tests, `OTLPSpanExporter`
    for a backend). The spans go out as they are made, in trace order.
    """
    from opentelemetry import trace as otel
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.trace import SpanKind, Status, StatusCode

    if not isinstance(trace, Trace):
        raise TypeError(
            f"export_trace() takes a cafe.trace.spans.Trace, not {type(trace).__name__}."
        )
    provider = TracerProvider(
        resource=Resource.create({"service.name": service_name}), id_generator=_ids(trace)
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("cafe.trace.otel")
    started_ns = int(datetime.fromisoformat(trace.started_at).timestamp() * 1e9)
    made: dict[str, Any] = {}  # span id -> the SDK span, so a child can name its parent
    for span in trace.spans:  # trace order: every parent before its children
        parent = otel.set_span_in_context(made[span.parent_id]) if span.parent_id else None
        made[span.span_id] = tracer.start_span(
            span.name,
            context=parent,
            kind=SpanKind.CLIENT if span.kind == "model_call" else SpanKind.INTERNAL,
            attributes={"cafe.span.kind": span.kind, **otel_attributes(span)},
            start_time=started_ns + int(span.start_s * 1e9),
        )
    for span in reversed(trace.spans):  # children end before their parents, as they did in the run
        sdk_span = made[span.span_id]
        if span.get(ERROR_TYPE) is not None:
            sdk_span.set_status(Status(StatusCode.ERROR, str(span.get(ERROR_TYPE))))
        sdk_span.end(end_time=started_ns + int(span.end_s * 1e9))
    provider.force_flush()
    provider.shutdown()
    return len(made)
