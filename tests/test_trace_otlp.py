"""cafe.trace.otel over the wire: recorded traces sent by OTLP/HTTP to a loopback receiver, as they
would reach Jaeger; what is sent by default, the evaluation events, and the documented snippets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from otlp_receiver import otlp_receiver  # noqa: E402

from cafe.endpoint.client.chat import make_client  # noqa: E402
from cafe.repair.reask import make_model_generator  # noqa: E402
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel  # noqa: E402
from cafe.trace.attributes import CONTENT_ATTRIBUTES  # noqa: E402
from cafe.trace.evaluations import EVALUATION_EVENT  # noqa: E402
from cafe.trace.file import write_trace  # noqa: E402
from cafe.trace.otel import CAPTURE_VARIABLE, TraceExportError, export_trace, export_traces  # noqa: E402
from cafe.trace.record import Recorder, record_repair  # noqa: E402
from cafe.trace.spans import Trace  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://localhost:4318"  # the address the lesson and docs/traces.md write


def _trace(order: int = 1) -> Trace:
    """A recorded re-ask, as toy 08 records it (a scripted drafter that reads its feedback)."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(make_client(FeedbackModel())))
    return record_repair(PRACTICE_ORDERS[order], generate, recorder=recorder)[1]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _said(trace: Trace) -> set[str]:
    """Every longer string in the trace's content attributes: what was said in the run."""
    return {
        text
        for span in trace.spans
        for name in CONTENT_ATTRIBUTES
        for text in _strings(span.get(name))
        if len(text) >= 12
    }


def _sent_strings(received) -> set[str]:
    """Every string the receiver got in span and event attributes, JSON text opened up too."""
    values = [v for s in received.spans for v in s["attributes"].values()]
    values += [v for s in received.spans for _, attrs in s["events"] for v in attrs.values()]
    found = set()
    for text in _strings(values):
        found.add(text)
        try:
            found.update(_strings(json.loads(text)))
        except ValueError:
            pass
    return found


def test_export_trace_posts_once_to_a_loopback_receiver():
    trace = _trace()
    with otlp_receiver() as (url, received):
        assert export_trace(trace, OTLPSpanExporter(endpoint=f"{url}/v1/traces")) == len(
            trace.spans
        )
    assert received.posts == {"/v1/traces": 1}  # batched: one request, not one per span
    assert received.content_types == {"application/x-protobuf"}
    sent = {s["span_id"]: s for s in received.spans}
    assert set(sent) == {s.span_id for s in trace.spans}
    for span in trace.spans:
        assert sent[span.span_id]["trace_id"] == trace.trace_id
        assert sent[span.span_id]["parent_id"] == span.parent_id
        assert sent[span.span_id]["resource"]["service.name"] == "cafe"


def test_export_traces_sends_a_shift_in_one_request_each_run_its_own_trace():
    shift = [_trace(0), _trace(1), _trace(2)]
    with otlp_receiver() as (url, received):
        sent = export_traces(shift, OTLPSpanExporter(endpoint=f"{url}/v1/traces"))
    assert sent == sum(len(t.spans) for t in shift) == len(received.spans)
    assert received.posts == {"/v1/traces": 1}
    assert {s["trace_id"] for s in received.spans} == {t.trace_id for t in shift}


def test_export_leaves_content_out_unless_asked(monkeypatch):
    trace = _trace()
    said = _said(trace)
    assert len(said) >= 3  # the brief, the order, the drafts: there is something to leave out
    monkeypatch.delenv(CAPTURE_VARIABLE, raising=False)
    with otlp_receiver() as (url, received):
        export_trace(trace, OTLPSpanExporter(endpoint=f"{url}/v1/traces"))
    text = "\n".join(_sent_strings(received))
    assert [s for s in said if s in text] == []
    assert not any(set(s["attributes"]) & CONTENT_ATTRIBUTES for s in received.spans)
    call = next(s for s in received.spans if s["name"].startswith("chat "))
    assert call["attributes"]["gen_ai.request.model"] == "cafe-scripted"  # the shape still goes


@pytest.mark.parametrize("how", ["argument", "true", "SPAN_ONLY", "span_and_event"])
def test_export_sends_content_when_opted_in(monkeypatch, how):
    trace = _trace()
    options = {"capture_content": True} if how == "argument" else {}
    if how != "argument":
        monkeypatch.setenv(CAPTURE_VARIABLE, how)
    with otlp_receiver() as (url, received):
        export_trace(trace, OTLPSpanExporter(endpoint=f"{url}/v1/traces"), **options)
    assert _said(trace) <= _sent_strings(received)


def test_export_content_stays_out_for_no_content(monkeypatch):
    monkeypatch.setenv(CAPTURE_VARIABLE, "NO_CONTENT")
    exporter = InMemorySpanExporter()
    export_trace(_trace(), exporter)
    assert not any(set(s.attributes) & CONTENT_ATTRIBUTES for s in exporter.get_finished_spans())


def _judged(trace: Trace) -> list[tuple[str, str]]:
    """(model call span id, label) for each check, read off the recorded trace itself."""
    out = []
    for attempt in (s for s in trace.spans if s.kind == "attempt"):
        children = [s for s in trace.spans if s.parent_id == attempt.span_id]
        call = next(s for s in children if s.kind == "model_call")
        check = next(s for s in children if s.kind == "check")
        out.append((call.span_id, check.get("gen_ai.evaluation.score.label")))
    return out


def test_evaluation_results_are_span_events_on_the_judged_call():
    trace = _trace()
    with otlp_receiver() as (url, received):
        export_trace(trace, OTLPSpanExporter(endpoint=f"{url}/v1/traces"))
    events = [
        (s["span_id"], attrs)
        for s in received.spans
        for name, attrs in s["events"]
        if name == EVALUATION_EVENT
    ]
    labels = sorted((span, a["gen_ai.evaluation.score.label"]) for span, a in events)
    assert labels == sorted(_judged(trace))
    assert {a["gen_ai.evaluation.name"] for _, a in events} == {"ticket"}
    assert all(a["gen_ai.response.id"] for _, a in events)
    checks = [s for s in received.spans if s["attributes"]["cafe.span.kind"] == "check"]
    assert checks and not any("gen_ai.evaluation.name" in s["attributes"] for s in checks)


def test_evaluation_results_are_log_events_with_a_log_exporter():
    trace = _trace()
    with otlp_receiver() as (url, received):
        export_trace(
            trace,
            OTLPSpanExporter(endpoint=f"{url}/v1/traces"),
            log_exporter=OTLPLogExporter(endpoint=f"{url}/v1/logs"),
        )
    assert received.posts == {"/v1/traces": 1, "/v1/logs": 1}
    logs = [(r["span_id"], r["attributes"]) for r in received.logs]
    assert all(r["event_name"] == EVALUATION_EVENT for r in received.logs)
    labels = sorted((span, a["gen_ai.evaluation.score.label"]) for span, a in logs)
    assert labels == sorted(_judged(trace))
    assert not any(name == EVALUATION_EVENT for s in received.spans for name, _ in s["events"])


def test_export_nobody_accepts_raises_naming_how_to_start_jaeger():
    with otlp_receiver(refuse=True) as (url, received):
        with pytest.raises(
            TraceExportError, match=rf"not accepted.*at {url}/v1/traces\?.*docs/traces\.md"
        ):
            export_trace(_trace(), OTLPSpanExporter(endpoint=f"{url}/v1/traces", timeout=2))
    assert received.posts == {"/v1/traces": 1}


def test_otel_extra_brings_the_otlp_exporter():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    otel = re.search(r"^otel = \[(.*?)^\]", pyproject, flags=re.S | re.M)  # (tomllib is 3.11+)
    assert otel is not None and '"opentelemetry-exporter-otlp-proto-http>=' in otel.group(1)
    constraints = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    assert "opentelemetry-exporter-otlp-proto-http==" in constraints


def _python_blocks(path: Path, needle: str) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)
    return [b for b in blocks if needle in b]


def _run_snippet(code: str, url: str, folder: Path, monkeypatch) -> None:
    """Run a documented snippet as written, in `folder`, with only the collector's address swapped."""
    assert LOCAL in code, "the snippet no longer sends to localhost:4318; update this test"
    monkeypatch.chdir(folder)
    exec(compile(code.replace(LOCAL, url), "<snippet>", "exec"), {})


def test_docs_traces_snippets_run_as_written(tmp_path, monkeypatch, capsys):
    home = tmp_path / "cafe-home"
    shift = home / "s09-shift" / "traces"
    shift.mkdir(parents=True)
    for number in range(3):
        write_trace(_trace(number), shift / f"run-{number + 1:02d}.jsonl")
    write_trace(_trace(), tmp_path / "run.jsonl")
    monkeypatch.setenv("CAFE_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))  # the shift is found by CAFE_HOME only
    one, many = _python_blocks(ROOT / "docs" / "traces.md", "OTLPSpanExporter")
    with otlp_receiver() as (url, received):
        _run_snippet(one, url, tmp_path, monkeypatch)
        _run_snippet(many, url, tmp_path, monkeypatch)
    assert received.posts == {"/v1/traces": 2}
    assert re.search(r"\d+ spans from 3 runs sent", capsys.readouterr().out)


def test_docs_traces_shift_snippet_with_no_runs_says_where_and_exits_non_zero(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path / "empty-home"))
    _, many = _python_blocks(ROOT / "docs" / "traces.md", "OTLPSpanExporter")
    with otlp_receiver() as (url, received), pytest.raises(SystemExit) as stopped:
        _run_snippet(many, url, tmp_path, monkeypatch)
    assert "no trace files in" in str(stopped.value.code) and "empty-home" in str(
        stopped.value.code
    )
    assert received.posts == {}


def test_lesson_s08_export_snippet_runs_as_written(tmp_path, monkeypatch):
    (code,) = _python_blocks(ROOT / "sessions" / "s08-tracing" / "lesson.md", "OTLPSpanExporter")
    write_trace(_trace(), tmp_path / "run.jsonl")
    with otlp_receiver() as (url, received):
        _run_snippet(code, url, tmp_path, monkeypatch)
    assert received.posts == {"/v1/traces": 1}
