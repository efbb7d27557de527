"""A key in a trace nobody scrubbed (built by hand, not by the recorder) reaches neither the trace
file, nor an OpenTelemetry export, nor the words of an error, raw or encoded.

`cafe.trace.spans.scrubbed` is what the file and the export both pass every span through; the
errors that quote a trace's text (`TraceFileError`, `ShapeError`, a span's own `ValueError`, the
writer's refusals, `TraceExportError`) mask what they quote.
"""

from __future__ import annotations

import base64
import json
import urllib.parse

import pytest

from cafe.trace.attribute_shapes import check_attributes
from cafe.trace.file import read_trace, write_trace
from cafe.trace.spans import Span, Trace

KEY = "q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5EuR0tXe"


def encodings(key: str) -> dict[str, str]:
    data = key.encode()
    return {
        "raw": key,
        "base64": base64.b64encode(data).decode()[:-2],
        "hex": data.hex(),
        "url": "".join(f"%{b:02X}" for b in data),
        "spaced": " ".join(key[i : i + 5] for i in range(0, len(key), 5)),
    }


def found(text: str, key: str = KEY) -> list[str]:
    """Each encoding of `key` that `text` holds, and any 8 characters of the raw key in a row."""
    forms = [name for name, form in encodings(key).items() if form in text]
    return forms + [key[i : i + 8] for i in range(len(key) - 7) if key[i : i + 8] in text]


@pytest.fixture
def key(monkeypatch) -> str:
    """The course's key, as the learner's settings hold it."""
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    return KEY


def hand_made(key: str) -> Trace:
    """A trace built without a recorder, the key in every string it has, in every disguise."""
    forms = list(encodings(key).values())
    attributes = {
        "cafe.run.stop_reason": f"passed {forms[0]}",
        "cafe.run.stop_detail": " / ".join(forms),
        f"cafe.note.{key}": {"nested": [f"b64 {forms[1]}", f"hex {forms[2]}"]},
        "error.type": f"Error {forms[3]}",
    }
    run = Span(f"run-{key}", None, "run", f"invoke {key}", 0.0, 1.0, attributes)
    call = Span(f"call-{key}", run.span_id, "model_call", f"chat {forms[4]}", 0.1, 0.9, {"x": key})
    return Trace(f"trace-{key}", "2026-12-06T08:00:00+00:00", (run, call))


def test_a_hand_made_trace_is_written_without_the_key(key, tmp_path):
    path = write_trace(hand_made(key), tmp_path / "t.jsonl")
    text = path.read_text(encoding="utf-8")
    assert not found(text), found(text)
    back = read_trace(path)
    assert len(back.spans) == 2 and back.spans[1].parent_id == back.spans[0].span_id


def test_a_hand_made_trace_is_exported_without_the_key(key):
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from cafe.trace.otel import export_trace

    exporter = InMemorySpanExporter()
    assert export_trace(hand_made(key), exporter, capture_content=True) == 2
    sent = "\n".join(span.to_json() for span in exporter.get_finished_spans())
    assert "passed" in sent and not found(sent), found(sent)


def test_errors_that_quote_a_trace_mask_the_key(key, tmp_path):
    messages = []
    for make in (
        lambda: Span("s", None, "run", f"run {key}", 2.0, 1.0, {}),
        lambda: Span("s", None, f"kind {key}", "run", 0.0, 1.0, {}),  # type: ignore[arg-type]
        lambda: check_attributes({"gen_ai.output.messages": f"{key}"}),
    ):
        with pytest.raises(ValueError) as caught:
            make()
        messages.append(str(caught.value))
    path = write_trace(hand_made("another-key-0123456789"), tmp_path / "t.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record["kind"] = f"kind {urllib.parse.quote(key)} {key}"
    path.write_text(f"{lines[0]}\n{json.dumps(record)}\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_trace(path)
    messages.append(str(caught.value))
    assert "field 'kind'" in messages[-1]
    for message in messages:
        assert not found(message), (message, found(message))


def test_an_export_that_fails_names_its_address_without_credentials(key):
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    from cafe.trace.otel import TraceExportError, export_trace

    class Refusing(SpanExporter):
        _endpoint = f"http://user:{key}@collector:4318/v1/traces?api-key={key}"

        def export(self, spans):
            return SpanExportResult.FAILURE

    with pytest.raises(TraceExportError) as caught:
        export_trace(hand_made(key), Refusing())
    assert "collector:4318" in str(caught.value) and not found(str(caught.value))
