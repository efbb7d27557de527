"""cafe.trace.otel: a recorded trace handed to the OpenTelemetry SDK (its in-memory exporter)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402

from cafe.endpoint.client.chat import make_client  # noqa: E402
from cafe.repair.reask import make_model_generator  # noqa: E402
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel  # noqa: E402
from cafe.trace.otel import export_trace, otel_value  # noqa: E402
from cafe.trace.record import Recorder, record_repair  # noqa: E402
from cafe.trace.spans import Span, Trace  # noqa: E402


def _trace() -> Trace:
    recorder = Recorder(started_at="2026-11-30T12:00:00+00:00")
    generate = make_model_generator(recorder.client(make_client(FeedbackModel())))
    return record_repair(PRACTICE_ORDERS[1], generate, recorder=recorder)[1]


def _exported(trace: Trace, **options):
    exporter = InMemorySpanExporter()
    assert export_trace(trace, exporter, **options) == len(trace.spans)
    return {format(s.context.span_id, "016x"): s for s in exporter.get_finished_spans()}


def test_export_trace_every_span_keeps_its_id_parent_and_trace_id():
    trace = _trace()
    sent = _exported(trace)
    assert set(sent) == {s.span_id for s in trace.spans}
    for span in trace.spans:
        otel = sent[span.span_id]
        assert format(otel.context.trace_id, "032x") == trace.trace_id and otel.name == span.name
        assert (format(otel.parent.span_id, "016x") if otel.parent else None) == span.parent_id


def test_export_trace_keeps_the_genai_attributes_and_times():
    trace = _trace()
    sent = _exported(trace, capture_content=True)
    call = trace.model_calls[0]
    otel = sent[call.span_id]
    assert otel.kind == SpanKind.CLIENT and sent[trace.root.span_id].kind == SpanKind.INTERNAL
    assert otel.attributes["gen_ai.request.model"] == "cafe-scripted"
    assert otel.attributes["gen_ai.usage.input_tokens"] == call.get("gen_ai.usage.input_tokens")
    assert tuple(otel.attributes["gen_ai.response.finish_reasons"]) == ("stop",)
    assert json.loads(otel.attributes["gen_ai.input.messages"]) == call.get("gen_ai.input.messages")
    assert otel.resource.attributes["service.name"] == "cafe"
    assert (otel.end_time - otel.start_time) == pytest.approx(call.duration_s * 1e9, abs=2000)


def test_export_trace_error_type_sets_the_error_status():
    trace = Trace(
        "0" * 31 + "1",
        "2026-11-30T12:00:00+00:00",
        (Span("0000000000000001", None, "run", "r", 0.0, 1.0, {"error.type": "EndpointError"}),),
    )
    (otel,) = _exported(trace).values()
    assert otel.status.status_code == StatusCode.ERROR


def test_export_trace_ids_that_are_not_hex_get_fresh_ones():
    trace = Trace(
        "my run", "2026-11-30T12:00:00+00:00", (Span("root", None, "run", "r", 0.0, 1.0, {}),)
    )
    exporter = InMemorySpanExporter()
    export_trace(trace, exporter)
    (otel,) = exporter.get_finished_spans()
    assert otel.context.trace_id != 0 and otel.context.span_id != 0


@pytest.mark.parametrize(
    "value, expected",
    [
        ("text", "text"),
        (3, 3),
        (True, True),
        (["a", "b"], ["a", "b"]),
        ([], "[]"),
        (None, "null"),
        ([1, "a"], '[1, "a"]'),
        ({"b": 1, "a": [2]}, '{"a": [2], "b": 1}'),
    ],
)
def test_otel_value_keeps_scalars_and_flat_lists_and_writes_the_rest_as_json(value, expected):
    assert otel_value(value) == expected


def test_export_trace_refuses_what_is_not_a_trace():
    with pytest.raises(TypeError, match="Trace"):
        export_trace({"spans": []}, InMemorySpanExporter())
