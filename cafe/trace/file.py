"""The trace file: one JSON object per line, a header line for each run, then its spans.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A trace
on disk is JSON Lines, so it can be appended to while a shift runs, read with `grep` or `jq`,
and diffed line by line:

    {"record": "trace", "schema_version": 1, "trace_id": "...", "started_at": "...", "spans": 9}
    {"record": "span", "trace_id": "...", "span_id": "...", "parent_id": null, "kind": "run", ...}
    ... one line per span, parents before children ...

Keys are written in one fixed order (attributes sorted by name), so the same trace is always
the same text. A file may hold many runs, one after another: `read_traces` returns them all,
`read_trace` insists on exactly one. A file that cannot be read (cut off, edited by hand, from
a newer course) raises `TraceFileError`, which names the file, the line and the field.

What it leaves out: the records themselves (`cafe.trace.spans`) and sending spans to an OpenTelemetry
backend instead of a file (`cafe.trace.otel`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cafe.trace.spans import SPAN_KINDS, Span, Trace

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

# The version of the line format this module writes and reads. A reader meeting a larger
# number says so instead of guessing at fields it has never seen.
SCHEMA_VERSION = 1
# The keys of each line, in the order they are written.
HEADER_KEYS = ("record", "schema_version", "trace_id", "started_at", "spans")
SPAN_KEYS = (
    "record",
    "trace_id",
    "span_id",
    "parent_id",
    "kind",
    "name",
    "start_s",
    "end_s",
    "attributes",
)


class TraceFileError(ValueError):
    """A trace file that cannot be read. `line` is 1-based (0: the file as a whole)."""

    def __init__(self, source: str, line: int, message: str):
        where = f"{source} line {line}" if line else source
        super().__init__(f"{where}: {message}")
        self.source, self.line = source, line


# --- writing ----------------------------------------------------------------------------------


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def trace_lines(trace: Trace) -> list[str]:
    """The lines (without newlines) that stand for `trace` in a file."""
    header = dict(
        zip(
            HEADER_KEYS,
            ("trace", SCHEMA_VERSION, trace.trace_id, trace.started_at, len(trace.spans)),
        )
    )
    lines = [_dumps(header)]
    for s in trace.spans:
        values = (
            "span",
            trace.trace_id,
            s.span_id,
            s.parent_id,
            s.kind,
            s.name,
            round(s.start_s, 6),
            round(s.end_s, 6),
            dict(sorted(s.attributes.items())),
        )
        lines.append(_dumps(dict(zip(SPAN_KEYS, values))))
    return lines


def write_traces(traces: Iterable[Trace], path: str | Path, *, append: bool = False) -> Path:
    """Write each trace to `path` (UTF-8 JSON Lines); `append=True` adds to what is there."""
    path = Path(path)
    with path.open("a" if append else "w", encoding="utf-8") as out:
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


def _field(
    record: dict[str, Any],
    name: str,
    kinds: type | tuple[type, ...],
    source: str,
    line: int,
    what: str,
) -> Any:
    """`record[name]`, checked to be one of `kinds`; TraceFileError naming the field otherwise."""
    if name not in record:
        raise TraceFileError(
            source,
            line,
            f"field {name!r} is missing; a {record.get('record')} line has "
            f"{', '.join(HEADER_KEYS if record.get('record') == 'trace' else SPAN_KEYS)}.",
        )
    value, allowed = record[name], kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise TraceFileError(source, line, f"field {name!r} must be {what}, not {value!r}.")
    return value


def _header(record: dict[str, Any], source: str, line: int) -> tuple[str, str, int]:
    version = _field(record, "schema_version", int, source, line, "a whole number")
    if version > SCHEMA_VERSION:
        raise TraceFileError(
            source,
            line,
            f"schema_version {version} is newer than this version of cafe "
            f"reads (up to {SCHEMA_VERSION}); update cafe to read this trace.",
        )
    if version < 1:
        raise TraceFileError(
            source, line, f"field 'schema_version' must be 1 or more, not {version}."
        )
    return (
        _field(record, "trace_id", str, source, line, "text"),
        _field(record, "started_at", str, source, line, "text"),
        _field(record, "spans", int, source, line, "a whole number of spans"),
    )


def _span(record: dict[str, Any], trace_id: str, source: str, line: int) -> Span:
    if _field(record, "trace_id", str, source, line, "text") != trace_id:
        raise TraceFileError(
            source,
            line,
            f"field 'trace_id' is {record['trace_id']!r}, but the run "
            f"this line belongs to is {trace_id!r}.",
        )
    kind = _field(record, "kind", str, source, line, "text")
    if kind not in SPAN_KINDS:
        raise TraceFileError(
            source,
            line,
            f"field 'kind' is {kind!r}; a span kind is one of {', '.join(SPAN_KINDS)}.",
        )
    start = _field(record, "start_s", (int, float), source, line, "a number of seconds")
    end = _field(record, "end_s", (int, float), source, line, "a number of seconds")
    if not (math.isfinite(start) and math.isfinite(end)) or end < start:
        raise TraceFileError(
            source,
            line,
            f"field 'end_s' ({end}) must be a number no smaller than start_s ({start}).",
        )
    return Span(
        _field(record, "span_id", str, source, line, "text"),
        _field(record, "parent_id", (str, type(None)), source, line, "text or null"),
        kind,
        _field(record, "name", str, source, line, "text"),
        float(start),
        float(end),
        _field(record, "attributes", dict, source, line, "a JSON object"),
    )


def _build(trace_id: str, started: str, spans: list[Span], source: str, line: int) -> Trace:
    try:
        return Trace(trace_id, started, tuple(spans))
    except ValueError as exc:  # a parent that is missing, an id used twice, no run span first
        raise TraceFileError(
            source, line, f"run {trace_id!r} does not form a tree: {exc}"
        ) from None


def parse_traces(lines: Sequence[str], source: str = "<trace>") -> tuple[Trace, ...]:
    """The runs in these lines (a file's text split into lines); `source` names it in errors."""
    traces: list[Trace] = []
    current: tuple[str, str, int, int] | None = (
        None  # trace id, started, spans declared, header line
    )
    spans: list[Span] = []
    ids: set[str] = set()  # the span ids of the current run so far
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except ValueError as exc:
            raise TraceFileError(
                source,
                number,
                f"is not a complete JSON object ({exc.msg}, at character "
                f"{exc.pos}); the file may have been cut off while it was written.",
            ) from None
        if not isinstance(record, dict):
            raise TraceFileError(
                source, number, "is not a JSON object; each line is one trace header or one span."
            )
        kind = record.get("record")
        if kind == "trace":
            if current is not None:
                traces.append(_finish(current, spans, source, number - 1))
            trace_id, started, declared = _header(record, source, number)
            current, spans, ids = (trace_id, started, declared, number), [], set()
        elif kind == "span":
            if current is None:
                raise TraceFileError(source, number, "a span comes before any trace header line.")
            span = _span(record, current[0], source, number)
            if span.parent_id is not None and span.parent_id not in ids:
                raise TraceFileError(
                    source,
                    number,
                    f"field 'parent_id' names span {span.parent_id!r}, which no "
                    "line before it in this run has; a parent is written before its children.",
                )
            spans.append(span)
            ids.add(span.span_id)
        else:
            raise TraceFileError(
                source, number, f"field 'record' is {kind!r}; it must be 'trace' or 'span'."
            )
    if current is None:
        raise TraceFileError(source, 0, 'holds no trace (no header line with "record": "trace").')
    traces.append(_finish(current, spans, source, len(lines)))
    return tuple(traces)


def _finish(current: tuple[str, str, int, int], spans: list[Span], source: str, last: int) -> Trace:
    trace_id, started, declared, header_line = current
    if len(spans) != declared:
        raise TraceFileError(
            source,
            header_line,
            f"field 'spans' says run {trace_id!r} has {declared} spans, "
            f"but {len(spans)} follow it; the file may have been cut off or edited.",
        )
    return _build(trace_id, started, spans, source, header_line)


def read_traces(path: str | Path) -> tuple[Trace, ...]:
    """Every run in the trace file at `path`, in file order."""
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
