"""Session 08, tracing: a run recorded as spans, written as JSONL, and replayed content-identically.

Read the files in this order:

- `attributes.py`: what a span holds (the attribute names), the scrubber every value passes,
  and attributes built on first read;
- `vocabulary.py`: the format's own words (attribute names, roles, part types, ...), which the
  scrubber never masks, so a short key such as `user` cannot break a run's file;
- `spans.py`: what a trace is made of (`Span`, `Trace`) and the hash of its content;
- `lines.py`: the file's line format (one record, one line, whatever its text, read back with no
  key twice), and the digests that make an accident show;
- `attribute_shapes.py`: the shapes of the attributes readers rely on, checked on the way in;
- `parse.py`: reading a file's lines back into runs, each line checked;
- `file.py`: writing a trace file, and reading one (`write_trace`, `read_trace`);
- `origin.py`: where a model call was served (provider, server address and port);
- `calls.py`: one model call as span attributes, in the OpenTelemetry GenAI conventions' names;
- `recorder.py`: `Recorder`, which builds a run's spans, and the client that records each call;
- `record.py`: `record_repair`, session 07's re-ask recorded through its seams;
- `loop.py`: `record_loop`, the same for a run of session 01's agent loop;
- `replayable.py`: whether a recording can be replayed, checked before the replay answers;
- `replay.py`: a client that answers each call with the recorded reply, and the proof it matched;
- `evaluations.py`: a check's verdict as the conventions' `gen_ai.evaluation.result` event;
- `otel.py`: sending recorded traces to any OpenTelemetry backend (docs/traces.md: Jaeger).

Lesson: sessions/s08-tracing/lesson.md. Notebook: notebooks/s08-tracing.ipynb.
"""

from __future__ import annotations

from cafe.trace.attribute_shapes import (
    ATTRIBUTE_SHAPES,
    FINISH_REASON_VALUES,
    MAX_DEPTH,
    ShapeError,
    check_attributes,
)
from cafe.trace.attributes import (
    AGENT_NAME,
    ATTEMPT_NUMBER,
    CHECK_FAILURES,
    CHECK_LINES,
    CONTENT_ATTRIBUTES,
    ERROR_TYPE,
    EVALUATION_LABEL,
    EVALUATION_NAME,
    FINISH_REASONS,
    INPUT_MESSAGES,
    INPUT_TOKENS,
    NOT_HASHED,
    OPERATION,
    OUTPUT_MESSAGES,
    OUTPUT_TOKENS,
    PROVIDER,
    REDACTED,
    REQUEST_MAX_TOKENS,
    REQUEST_MODEL,
    RESPONSE_ID,
    RESPONSE_MODEL,
    SERVER_ADDRESS,
    SERVER_PORT,
    STOP_DETAIL,
    STOP_REASON,
    TOOL_ARGUMENTS,
    TOOL_CALL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    TURN_NUMBER,
    DeferredAttributes,
    Scrubber,
    scrub,
)
from cafe.trace.calls import (
    ERROR_CHARS,
    ERROR_MESSAGE,
    ERROR_PARAM,
    REQUEST_KEYS,
    STATUS_CODE,
    call_attributes,
    chat_attributes,
    error_attributes,
    generator_attributes,
    input_messages,
    origin_attributes,
    output_messages,
    provider_of,
    reply_of,
    request_attributes,
)
from cafe.trace.evaluations import (
    EVALUATION_EVENT,
    emit_evaluations,
    evaluation_attributes,
    judged_calls,
    log_provider,
)
from cafe.trace.file import (
    read_trace,
    read_traces,
    trace_lines,
    write_trace,
    write_traces,
)
from cafe.trace.lines import (
    DIGEST_CHARS,
    DIGEST_FIELDS,
    HEADER_KEYS,
    MAX_LINE_CHARS,
    SCHEMA_VERSION,
    SPAN_KEYS,
    TraceFileError,
    dump_line,
    header_problem,
    parse_line,
    record_digest,
    written_header,
)
from cafe.trace.loop import (
    record_loop,
)
from cafe.trace.origin import (
    LIVE_PROVIDER,
    SCRIPTED_PROVIDER,
    Origin,
    generator_origin,
    origin_of,
)
from cafe.trace.otel import (
    CAPTURE_VARIABLE,
    TraceExportError,
    capture_content_from_env,
    export_trace,
    export_traces,
    otel_attributes,
    otel_value,
)
from cafe.trace.parse import (
    parse_traces,
)
from cafe.trace.record import (
    record_repair,
)
from cafe.trace.recorder import (
    OpenSpan,
    Recorder,
    RecordingClient,
)
from cafe.trace.replay import (
    SHOWN_CHARS,
    Difference,
    ReplayClient,
    ReplayDiverged,
    first_difference,
    recorded_failure,
    recorded_reply,
    replay_client,
    request_difference,
)
from cafe.trace.spans import (
    SPAN_KINDS,
    Span,
    SpanKind,
    Trace,
    canonical_spans,
    content_hash,
    scrubbed,
)

__all__ = [
    "AGENT_NAME",
    "ATTEMPT_NUMBER",
    "ATTRIBUTE_SHAPES",
    "CAPTURE_VARIABLE",
    "CHECK_FAILURES",
    "CHECK_LINES",
    "CONTENT_ATTRIBUTES",
    "DIGEST_CHARS",
    "DIGEST_FIELDS",
    "DeferredAttributes",
    "Difference",
    "ERROR_CHARS",
    "ERROR_MESSAGE",
    "ERROR_PARAM",
    "ERROR_TYPE",
    "EVALUATION_EVENT",
    "EVALUATION_LABEL",
    "EVALUATION_NAME",
    "FINISH_REASONS",
    "FINISH_REASON_VALUES",
    "HEADER_KEYS",
    "INPUT_MESSAGES",
    "INPUT_TOKENS",
    "LIVE_PROVIDER",
    "MAX_DEPTH",
    "MAX_LINE_CHARS",
    "NOT_HASHED",
    "OPERATION",
    "OUTPUT_MESSAGES",
    "OUTPUT_TOKENS",
    "OpenSpan",
    "Origin",
    "PROVIDER",
    "REDACTED",
    "REQUEST_KEYS",
    "REQUEST_MAX_TOKENS",
    "REQUEST_MODEL",
    "RESPONSE_ID",
    "RESPONSE_MODEL",
    "Recorder",
    "RecordingClient",
    "ReplayClient",
    "ReplayDiverged",
    "SCHEMA_VERSION",
    "SCRIPTED_PROVIDER",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "SHOWN_CHARS",
    "SPAN_KEYS",
    "SPAN_KINDS",
    "STATUS_CODE",
    "STOP_DETAIL",
    "STOP_REASON",
    "Scrubber",
    "ShapeError",
    "Span",
    "SpanKind",
    "TOOL_ARGUMENTS",
    "TOOL_CALL_ID",
    "TOOL_NAME",
    "TOOL_RESULT",
    "TURN_NUMBER",
    "Trace",
    "TraceExportError",
    "TraceFileError",
    "call_attributes",
    "canonical_spans",
    "capture_content_from_env",
    "chat_attributes",
    "check_attributes",
    "content_hash",
    "emit_evaluations",
    "error_attributes",
    "evaluation_attributes",
    "export_trace",
    "export_traces",
    "dump_line",
    "first_difference",
    "generator_attributes",
    "generator_origin",
    "header_problem",
    "parse_line",
    "input_messages",
    "judged_calls",
    "log_provider",
    "origin_attributes",
    "origin_of",
    "otel_attributes",
    "otel_value",
    "output_messages",
    "parse_traces",
    "provider_of",
    "read_trace",
    "read_traces",
    "record_digest",
    "record_loop",
    "record_repair",
    "recorded_failure",
    "recorded_reply",
    "replay_client",
    "reply_of",
    "request_attributes",
    "request_difference",
    "scrub",
    "scrubbed",
    "trace_lines",
    "write_trace",
    "write_traces",
    "written_header",
]
