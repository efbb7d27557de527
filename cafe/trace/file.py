"""The trace file: one JSON object per line, a header line for each run, then its spans.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A trace
on disk is JSON Lines, so it can be appended to while a shift runs, read with `grep` or `jq`,
and diffed line by line:

    {"record": "trace", "schema_version": 2, "trace_id": "...", "started_at": "...", "spans": 9,
     "content_hash": "sha256:...", "line_sha256": ["3f1c...", ...], "header_sha256": "9ab0..."}
    {"record": "span", "trace_id": "...", "span_id": "...", "parent_id": null, "kind": "run", ...}
    ... one line per span, parents before children ...

Keys are written in one fixed order (attributes sorted by name), so the same trace is always
the same text, and every string is scrubbed of secrets on the way out (`Scrubber`), whoever
built the trace. A file may hold many runs: `read_traces` returns them all, `read_trace`
insists on exactly one; `cafe.trace.parse` checks every line they read.

The file says when it has been changed (`cafe.trace.lines`): the header records the run's
`content_hash` and a digest of each span line, and a digest of itself. Reading checks each line's
shape first (its fields, and the attributes readers rely on: `cafe.trace.attribute_shapes`), then
its digest, then the whole run's hash, and keeps that hash as `Trace.recorded_hash`, which a
replay is proven against. Anything wrong, a cut-off line, a hand edit, a value of the wrong shape,
a line nested thousands deep, is one `TraceFileError` naming the file, the line and what is wrong.
The limit, said plainly: a digest with no secret catches accidents and hand edits, not someone
who recomputes the digests; proving who wrote a file would need a key the learner keeps.
Files of schema version 1 (before digests) still read, with `recorded_hash` None.

What it leaves out: the records themselves (`cafe.trace.spans`) and sending spans to an
OpenTelemetry backend instead of a file (`cafe.trace.otel`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cafe.trace.attributes import Scrubber
from cafe.trace.lines import SCHEMA_VERSION, SPAN_KEYS, TraceFileError, written_header
from cafe.trace.parse import parse_traces
from cafe.trace.spans import Span, Trace, content_hash

__all__ = [
    "SCHEMA_VERSION",
    "TraceFileError",
    "trace_lines",
    "write_traces",
    "write_trace",
    "parse_traces",
    "read_traces",
    "read_trace",
]

# --- writing ----------------------------------------------------------------------------------


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _span_record(trace_id: str, span: Span) -> dict[str, Any]:
    values = (
        "span",
        trace_id,
        span.span_id,
        span.parent_id,
        span.kind,
        span.name,
        round(span.start_s, 6),
        round(span.end_s, 6),
        dict(sorted(span.attributes.items())),
    )
    return dict(zip(SPAN_KEYS, values))


def _scrubbed(trace: Trace) -> Trace:
    """`trace` with every span name and attribute scrubbed of secrets (a trace built by hand, or
    one holding a secret the recorder was not told of, is written clean all the same)."""
    clean = Scrubber()
    spans = tuple(
        Span(
            s.span_id,
            s.parent_id,
            s.kind,
            clean.text(s.name),
            s.start_s,
            s.end_s,
            clean(dict(s.attributes)),
        )
        for s in trace.spans
    )
    return Trace(trace.trace_id, trace.started_at, spans)


def trace_lines(trace: Trace) -> list[str]:
    """The lines (without newlines) that stand for `trace` in a file: its header, then its spans."""
    clean = _scrubbed(trace)
    records = [_span_record(clean.trace_id, span) for span in clean.spans]
    header = written_header(
        SCHEMA_VERSION, clean.trace_id, clean.started_at, content_hash(clean), records
    )
    return [_dumps(header), *(_dumps(record) for record in records)]


def write_traces(traces: Iterable[Trace], path: str | Path, *, append: bool = False) -> Path:
    """Write each trace to `path` (UTF-8 JSON Lines); `append=True` adds to what is there."""
    path = Path(path)
    with path.open("a" if append else "w", encoding="utf-8", newline="\n") as out:
        for trace in traces:
            if not isinstance(trace, Trace):
                raise TypeError(
                    f"write_traces() takes cafe.trace.spans.Trace records, not {type(trace).__name__}."
                )
            out.write("\n".join(trace_lines(trace)) + "\n")
    return path


def write_trace(trace: Trace, path: str | Path, *, append: bool = False) -> Path:
    """Write one trace to `path`; see `write_traces`."""
    return write_traces([trace], path, append=append)


# --- reading ----------------------------------------------------------------------------------


def read_traces(path: str | Path) -> tuple[Trace, ...]:
    """Every run in the trace file at `path`, in file order, each checked (`cafe.trace.parse`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceFileError(
            str(path), 0, "does not exist; record a run with cafe.trace first."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFileError(str(path), 0, f"could not be read as UTF-8 text ({exc}).") from None
    return parse_traces(text.splitlines(), str(path))


def read_trace(path: str | Path) -> Trace:
    """The one run in the trace file at `path` (use `read_traces` for a file of many)."""
    traces = read_traces(path)
    if len(traces) != 1:
        raise TraceFileError(
            str(path),
            0,
            f"holds {len(traces)} runs; read_trace() reads a file of one "
            "run, read_traces() a file of many.",
        )
    return traces[0]
