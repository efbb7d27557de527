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

What the writer writes, the reader reads back as it was written: each line is one line of JSON
whatever the text holds (`cafe.trace.lines.dump_line` escapes the separators some readers split
lines on, and lone surrogates), the reader splits the file at "\\n" and nowhere else, and the
writer refuses, before it writes a byte, what the reader would refuse: an attribute of the wrong
shape, a line over `MAX_LINE_CHARS`, a time that is not a finite number, a run already in the file.
Processes appending to one file at once take turns, under an advisory lock on it (`fcntl.flock`;
Windows has none, see `_lock`), so the check for a run already there cannot race its append. An
appended run starts on a line of its own, even when someone removed the file's last line break.

The file says when it has been damaged (`cafe.trace.lines`): the header records the run's
`content_hash` and a digest of each span line, and a digest of itself. Reading checks each line's
shape first (its fields, and the attributes readers rely on: `cafe.trace.attribute_shapes`), then
its digest, then the whole run's hash, and keeps that hash as `Trace.recorded_hash`, which a
replay is proven against. Anything wrong, a cut-off line, a hand edit, a value of the wrong shape,
a line nested thousands deep, a key written twice, a run appended twice, is one `TraceFileError`
naming the file, the line and what is wrong. The limit, said plainly: the digests are corruption-evident, not
tamper-evident; with no secret they catch accidents and hand edits, not someone who recomputes
them, and proving who wrote a file would need a key the learner keeps outside it. Files of schema
version 1 (before digests) read only with `allow_unverified=True`, with `recorded_hash` None.

What it leaves out: the records themselves (`cafe.trace.spans`) and sending spans to an
OpenTelemetry backend instead of a file (`cafe.trace.otel`).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from cafe.endpoint.secrets.redaction import redact
from cafe.trace.attribute_shapes import ShapeError, check_attributes, finite_seconds
from cafe.trace.lines import (
    MAX_LINE_CHARS,
    SCHEMA_VERSION,
    SPAN_KEYS,
    TraceFileError,
    dump_line,
    written_header,
)
from cafe.trace.parse import parse_traces
from cafe.trace.spans import Span, Trace, content_hash, scrubbed

if sys.platform != "win32":
    import fcntl

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


def _shown(name: Any) -> str:
    """A span's name as an error quotes it: at most 60 characters of its repr."""
    shown = repr(name)
    return shown if len(shown) <= 60 else shown[:59] + "…"


def _readable(span: Span) -> None:
    """ValueError naming `span` when the reader would refuse its line: a time that is not a finite
    number, or an attribute whose shape is not what readers rely on."""
    if finite_seconds(span.start_s) is None or finite_seconds(span.end_s) is None:
        raise ValueError(
            redact(
                f"span {_shown(span.name)} runs from {str(span.start_s)[:20]} to "
                f"{str(span.end_s)[:20]}; a trace records times as finite numbers of seconds."
            )
        )
    try:
        check_attributes(span.attributes)
    except ShapeError as exc:
        raise ValueError(redact(f"span {_shown(span.name)} cannot be written: {exc}.")) from None


def _line(record: dict[str, Any]) -> str:
    line = dump_line(record)
    if len(line) > MAX_LINE_CHARS:
        raise ValueError(
            redact(
                f"span {_shown(record.get('name', record.get('trace_id')))} would be a line of "
                f"{len(line)} characters, over the {MAX_LINE_CHARS} a reader reads; record less."
            )
        )
    return line


def trace_lines(trace: Trace) -> list[str]:
    """The lines (without newlines) that stand for `trace` in a file: its header, then its spans.

    ValueError when a line would be one the reader refuses, so nothing unreadable is written."""
    clean = scrubbed(trace)  # ids, names, attributes: a hand-made trace is written clean too
    for span in clean.spans:
        _readable(span)
    records = [_span_record(clean.trace_id, span) for span in clean.spans]
    header = written_header(
        SCHEMA_VERSION, clean.trace_id, clean.started_at, content_hash(clean), records
    )
    return [_line(header), *(_line(record) for record in records)]


def _ids_in(text: str) -> set[str]:
    """The run ids of the headers in a trace file's `text` (a line that does not parse is left to
    the reader, which will say what is wrong with it)."""
    ids = set()
    for line in text.split("\n"):
        if line.startswith('{"record": "trace"'):
            try:
                ids.add(str(json.loads(line).get("trace_id")))
            except (ValueError, RecursionError, AttributeError):
                continue
    return ids


def _ends_a_line(path: Path) -> bool:
    """Whether the file at `path` is empty or ends in a line break, read as bytes (its text may
    not be UTF-8), so a run appended to it starts on a line of its own."""
    with path.open("rb") as existing:
        if existing.seek(0, os.SEEK_END) == 0:
            return True
        existing.seek(-1, os.SEEK_END)
        return existing.read(1) == b"\n"


def _lock(out: IO[str]) -> None:
    """Hold an exclusive advisory lock on the open file `out` until it is closed, so another
    process writing the same file waits: between reading which runs the file holds and appending,
    nobody else can append the same run. Where `fcntl` is missing (Windows) there is no lock, and
    two processes appending the same run at the same moment can both write it; the reader then
    refuses the file by name ("here a second time"). Write one file per process there."""
    if sys.platform != "win32":  # fcntl.flock: Linux, macOS and the other Unixes
        fcntl.flock(out.fileno(), fcntl.LOCK_EX)


def _new_ids(lines: list[list[str]]) -> list[str]:
    """Each run's id as written (scrubbed of secrets); ValueError when a run comes twice."""
    ids: list[str] = []
    for run in lines:
        written_id = json.loads(run[0])["trace_id"]
        if written_id in ids:
            raise _twice(written_id, "the traces given")
        ids.append(written_id)
    return ids


def _twice(written_id: str, where: object) -> ValueError:
    return ValueError(
        redact(
            f"run {written_id!r} is already in {where}; a run written twice would be "
            "counted twice. Write each run once, or give a new run its own trace_id."
        )
    )


def write_traces(traces: Iterable[Trace], path: str | Path, *, append: bool = False) -> Path:
    """Write each trace to `path` (UTF-8 JSON Lines); `append=True` adds to what is there.

    Every line is made before the file is opened, so a trace that cannot be written (a
    ValueError saying why) leaves the file as it was. A run already in the file, or twice in
    `traces`, is a ValueError too: the reader would refuse the file, and a report count it twice.
    Several processes may append to one file at once: each holds a lock on it (`_lock`) while it
    reads which runs are there and appends, so the same run is written once and the others get
    the ValueError."""
    path = Path(path)
    runs: list[list[str]] = []
    for trace in traces:
        if not isinstance(trace, Trace):
            raise TypeError(
                f"write_traces() takes cafe.trace.spans.Trace records, not {type(trace).__name__}."
            )
        runs.append(trace_lines(trace))
    ids = _new_ids(runs)
    # "a+" never truncates on opening, so the file is emptied (when not appending) only once locked
    with path.open("a+", encoding="utf-8", newline="\n") as out:
        _lock(out)
        if append:
            out.seek(0)
            try:
                there = _ids_in(out.read())
            except UnicodeDecodeError:  # the reader will name it; appending does not make it worse
                there = set()
            for written_id in ids:
                if written_id in there:
                    raise _twice(written_id, path)
            if not _ends_a_line(path):
                out.write("\n")  # else the run's header would join the last line, and both break
        else:
            out.truncate(0)
        out.write("".join(line + "\n" for run in runs for line in run))
    return path


def write_trace(trace: Trace, path: str | Path, *, append: bool = False) -> Path:
    """Write one trace to `path`; see `write_traces`."""
    return write_traces([trace], path, append=append)


# --- reading ----------------------------------------------------------------------------------

# What an editor such as Notepad puts before the text when it saves "UTF-8 with BOM"; the writer
# never does, and JSON does not allow it, so a file that starts with it was saved by hand.
_BOM = "\ufeff"


def _text_of(path: Path) -> str:
    """The text of the regular file at `path`. A named pipe, a device or a folder is refused
    (TraceFileError) before anything is read from it: reading a pipe waits for a writer that may
    never come. It is opened non-blocking, so even opening a pipe returns at once, and then
    checked through the open file, so nothing can be swapped in between the check and the read."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # Windows has no O_NONBLOCK
    try:
        if stat.S_ISREG(os.fstat(handle).st_mode):
            with open(handle, encoding="utf-8", newline="", closefd=False) as source:
                return source.read()
    finally:
        os.close(handle)
    raise TraceFileError(
        str(path),
        0,
        "is not a regular file (a folder, a named pipe or a device); give the path of a trace file.",
    )


def read_traces(path: str | Path, *, allow_unverified: bool = False) -> tuple[Trace, ...]:
    """Every run in the trace file at `path`, in file order, each checked (`cafe.trace.parse`).

    The file is split at "\\n" only, the one line break the writer writes between records;
    `allow_unverified=True` also reads runs of schema version 1, which carry no digests."""
    path = Path(path)
    try:
        text = _text_of(path)
    except FileNotFoundError:
        raise TraceFileError(
            str(path), 0, "does not exist; record a run with cafe.trace first."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFileError(str(path), 0, f"could not be read as UTF-8 text ({exc}).") from None
    if text.startswith(_BOM):
        raise TraceFileError(
            str(path),
            1,
            "starts with a byte-order mark (U+FEFF, which some editors add when they save); "
            "save it as UTF-8 without BOM.",
        )
    return parse_traces(text.split("\n"), str(path), allow_unverified=allow_unverified)


def read_trace(path: str | Path, *, allow_unverified: bool = False) -> Trace:
    """The one run in the trace file at `path` (use `read_traces` for a file of many)."""
    traces = read_traces(path, allow_unverified=allow_unverified)
    if len(traces) != 1:
        raise TraceFileError(
            str(path),
            0,
            f"holds {len(traces)} runs; read_trace() reads a file of one "
            "run, read_traces() a file of many.",
        )
    return traces[0]
