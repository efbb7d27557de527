"""Reading a trace file's lines back into runs: each line's shape, then its digest, then the run.

Session 08 (`sessions/s08-tracing/lesson.md`). `parse_traces(lines, source)` reads the text of a
trace file (`cafe.trace.file.read_traces` hands it the lines) and checks, line by line:

1. that the line is one JSON object, with no key twice in any object, not too long and not too
   deeply nested (`cafe.trace.lines.parse_line`);
2. that it is a header or a span with every field of the right type, and that the attributes
   readers rely on have their shape (`cafe.trace.attribute_shapes`);
3. for a version-2 run, that the line's digest is the one its header recorded
   (`cafe.trace.lines`), and, once the run's spans are all read, that they hash to the
   header's `content_hash`;
4. that no run comes twice: a run appended to its file again would be counted twice.

A version-1 header (written before the digests) is read only with `allow_unverified=True`, since
nothing in it shows an edit: otherwise an edited version-2 file relabelled as 1 would read as
clean. One that still carries a version-2 field is refused even then. The first thing wrong is
one `TraceFileError` naming the source, the line and what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cafe.trace.attribute_shapes import ShapeError, check_attributes, finite_seconds
from cafe.trace.lines import (
    DIGEST_FIELDS,
    HEADER_KEYS,
    SCHEMA_VERSION,
    SPAN_KEYS,
    TraceFileError,
    header_problem,
    parse_line,
    record_digest,
)
from cafe.trace.spans import SPAN_KINDS, Span, Trace, content_hash

__all__ = ["parse_traces"]


@dataclass
class _Run:
    """A run being read: its header's values, and the spans read so far."""

    header_line: int
    version: int
    trace_id: str
    started_at: str
    declared: int
    recorded_hash: str | None
    digests: list[str]
    spans: list[Span] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)


def _field(
    record: dict[str, Any],
    name: str,
    kinds: type | tuple[type, ...],
    where: tuple[str, int],
    what: str,
) -> Any:
    """`record[name]`, checked to be one of `kinds`; TraceFileError naming the field otherwise."""
    source, line = where
    if name not in record:
        keys = ", ".join(HEADER_KEYS[:5] if record.get("record") == "trace" else SPAN_KEYS)
        raise TraceFileError(
            source, line, f"field {name!r} is missing; a {record.get('record')} line has {keys}."
        )
    value, allowed = record[name], kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise TraceFileError(source, line, f"field {name!r} must be {what}, not {value!r}.")
    return value


def _version(record: dict[str, Any], source: str, line: int, allow_unverified: bool) -> int:
    """The header's schema version, if this reader reads it: 2, or 1 when `allow_unverified`
    and the header carries none of version 2's digest fields (else it was relabelled)."""
    version = _field(record, "schema_version", int, (source, line), "a whole number")
    if version > SCHEMA_VERSION:
        raise TraceFileError(
            source,
            line,
            f"schema_version {version} is newer than this version of cafe reads (up to "
            f"{SCHEMA_VERSION}); update cafe to read this trace.",
        )
    if version < 1:
        raise TraceFileError(
            source, line, f"field 'schema_version' must be 1 or more, not {version}."
        )
    carried = [name for name in DIGEST_FIELDS if name in record]
    if version < SCHEMA_VERSION and carried:
        raise TraceFileError(
            source,
            line,
            f"schema_version {version} has no digests, but this header carries "
            f"{', '.join(carried)}: a version-{SCHEMA_VERSION} run relabelled as {version}, "
            "which would hide any edit; restore the file or re-record the run.",
        )
    if version < SCHEMA_VERSION and not allow_unverified:
        raise TraceFileError(
            source,
            line,
            f"schema_version {version} was written before traces carried digests, so an edit "
            "to it cannot be found; re-record the run, or read it with allow_unverified=True "
            "if you trust where it came from.",
        )
    return version


def _header(record: dict[str, Any], source: str, line: int, allow_unverified: bool) -> _Run:
    where = (source, line)
    version = _version(record, source, line, allow_unverified)
    run = _Run(
        line,
        version,
        _field(record, "trace_id", str, where, "text"),
        _field(record, "started_at", str, where, "text"),
        _field(record, "spans", int, where, "a whole number of spans"),
        None,
        [],
    )
    if version >= 2:
        problem = header_problem(record)
        if problem is not None:
            raise TraceFileError(source, line, problem)
        run.recorded_hash, run.digests = record["content_hash"], list(record["line_sha256"])
    return run


def _timed(record: dict[str, Any], where: tuple[str, int]) -> tuple[float, float]:
    start = _field(record, "start_s", (int, float), where, "a number of seconds")
    end = _field(record, "end_s", (int, float), where, "a number of seconds")
    # a number a float cannot hold (10**400) is refused like an infinity, never an OverflowError
    start_s, end_s = finite_seconds(start), finite_seconds(end)
    if start_s is None or end_s is None or end_s < start_s:
        raise TraceFileError(
            where[0],
            where[1],
            f"field 'end_s' ({_clipped(end)}) must be a finite number no smaller than start_s "
            f"({_clipped(start)}).",
        )
    return start_s, end_s


def _clipped(number: Any) -> str:
    """A number as an error quotes it: 10**400 is 401 digits, so at most 20 of them."""
    shown = str(number)
    return shown if len(shown) <= 20 else shown[:20] + "…"


def _span(record: dict[str, Any], run: _Run, source: str, line: int) -> Span:
    where = (source, line)
    if _field(record, "trace_id", str, where, "text") != run.trace_id:
        raise TraceFileError(
            source,
            line,
            f"field 'trace_id' is {record['trace_id']!r}, but the run this line belongs to is {run.trace_id!r}.",
        )
    kind = _field(record, "kind", str, where, "text")
    if kind not in SPAN_KINDS:
        raise TraceFileError(
            source,
            line,
            f"field 'kind' is {kind!r}; a span kind is one of {', '.join(SPAN_KINDS)}.",
        )
    start, end = _timed(record, where)
    attributes = _field(record, "attributes", dict, where, "a JSON object")
    try:
        check_attributes(attributes)
    except ShapeError as exc:
        raise TraceFileError(source, line, f"field {exc}.") from None
    span_id = _field(record, "span_id", str, where, "text")
    parent = _field(record, "parent_id", (str, type(None)), where, "text or null")
    name = _field(record, "name", str, where, "text")
    return Span(span_id, parent, kind, name, start, end, attributes)


def _check_digest(record: dict[str, Any], run: _Run, source: str, line: int) -> None:
    """A version-2 span line must hash to the digest its header recorded for it."""
    index = len(run.spans)
    if run.version < 2 or index >= len(run.digests):
        return  # version 1 has no digests; a surplus line is counted when the run ends
    found = record_digest(record)
    if found != run.digests[index]:
        raise TraceFileError(
            source,
            line,
            f"was changed after it was written (its digest is {found}, the header on line "
            f"{run.header_line} records {run.digests[index]}); re-record the run, or restore "
            "the file.",
        )


def _add_span(record: dict[str, Any], run: _Run, source: str, line: int) -> None:
    span = _span(record, run, source, line)
    if span.parent_id is not None and span.parent_id not in run.ids:
        raise TraceFileError(
            source,
            line,
            f"field 'parent_id' names span {span.parent_id!r}, which no line before it in this "
            "run has; a parent is written before its children.",
        )
    _check_digest(record, run, source, line)
    run.spans.append(span)
    run.ids.add(span.span_id)


def _finish(run: _Run, source: str) -> Trace:
    """The run read, once its declared spans are all there and (version 2) hash as recorded."""
    if len(run.spans) != run.declared:
        raise TraceFileError(
            source,
            run.header_line,
            f"field 'spans' says run {run.trace_id!r} has {run.declared} spans, but "
            f"{len(run.spans)} follow it; the file may have been cut off or edited.",
        )
    try:
        trace = Trace(run.trace_id, run.started_at, tuple(run.spans), run.recorded_hash)
    except ValueError as exc:  # a parent that is missing, an id used twice, no run span first
        raise TraceFileError(
            source, run.header_line, f"run {run.trace_id!r} does not form a tree: {exc}"
        ) from None
    if run.recorded_hash is not None and content_hash(trace) != run.recorded_hash:
        raise TraceFileError(
            source,
            run.header_line,
            f"run {run.trace_id!r} hashes to {content_hash(trace)}, but its header records "
            f"{run.recorded_hash}; it was written by a version of cafe that hashes differently.",
        )
    return trace


def _once(run: _Run, seen: dict[str, int], source: str) -> None:
    """Note `run`'s id as read; a TraceFileError naming both lines when it was read before."""
    first = seen.setdefault(run.trace_id, run.header_line)
    if first != run.header_line:
        raise TraceFileError(
            source,
            run.header_line,
            f"run {run.trace_id!r} is here a second time (its first header is on line {first}): "
            "a run appended twice would be counted twice; remove one copy.",
        )


def parse_traces(
    lines: Sequence[str], source: str = "<trace>", *, allow_unverified: bool = False
) -> tuple[Trace, ...]:
    """The runs in these lines (a file's text split at each "\\n"); `source` names it in errors.

    `allow_unverified=True` also reads runs of schema version 1, which carry no digests."""
    traces: list[Trace] = []
    run: _Run | None = None
    seen: dict[str, int] = {}  # each run's id -> the line of its header
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        record = parse_line(text, source, number)
        kind = record.get("record")
        if kind == "trace":
            if run is not None:
                traces.append(_finish(run, source))
            run = _header(record, source, number, allow_unverified)
            _once(run, seen, source)
        elif kind == "span":
            if run is None:
                raise TraceFileError(source, number, "a span comes before any trace header line.")
            _add_span(record, run, source, number)
        else:
            raise TraceFileError(
                source, number, f"field 'record' is {kind!r}; it must be 'trace' or 'span'."
            )
    if run is None:
        raise TraceFileError(source, 0, 'holds no trace (no header line with "record": "trace").')
    traces.append(_finish(run, source))
    return tuple(traces)
