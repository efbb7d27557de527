"""The trace file's line format: its version, its keys, how a line is written so that it stays one
line and read back, the digests that make an accident show, and the one error for a file that
breaks it.

Session 08 (`sessions/s08-tracing/lesson.md`). A run is a header line and one line per span
(`cafe.trace.file` writes them, `cafe.trace.parse` reads them). `dump_line` writes a record as
one line of JSON that every reader splits in the same place: the characters JSON leaves raw but
some line readers break on (U+0085, U+2028, U+2029: Python's `str.splitlines` splits on all
three) are escaped, and so are lone surrogates, which UTF-8 cannot hold. From schema version 2 the
header carries three digests, so a run that was damaged after it was written is found:

- `line_sha256`: for each span line, the first 16 hex digits of the SHA-256 of its record as
  canonical JSON (sorted keys, no spaces), so reformatting a file (`jq .`) changes nothing, and
  a changed value, time or id is found, on that line;
- `content_hash`: the run's `cafe.trace.spans.content_hash`, which a replay is proven against;
- `header_sha256`: the same digest of the header's other fields, so an edit to the header
  shows too, and a header relabelled as version 1 still carries them and is refused.

`parse_line` reads one line back: one JSON object, with no key written twice in any object
(the writer never writes one, and a reader keeps only one copy, so an edit could hide in the
other).

The digests are corruption-evident, not tamper-evident: they have no key, so they find a cut, a
flipped byte or a hand edit, never a forger, who can recompute every one of them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from cafe.endpoint.secrets.redaction import redact

__all__ = [
    "SCHEMA_VERSION",
    "HEADER_KEYS",
    "SPAN_KEYS",
    "MAX_LINE_CHARS",
    "DIGEST_CHARS",
    "DIGEST_FIELDS",
    "TraceFileError",
    "dump_line",
    "record_digest",
    "written_header",
    "header_problem",
    "parse_line",
]

# The version of the line format this course writes (2: with digests). It reads 2, and 1 only
# when asked (nothing in a version-1 file shows an edit); a larger number it refuses by name
# instead of guessing at fields it has never seen.
SCHEMA_VERSION = 2
# The keys of each line, in the order they are written (version 1 headers stop after "spans").
HEADER_KEYS = (
    "record",
    "schema_version",
    "trace_id",
    "started_at",
    "spans",
    "content_hash",
    "line_sha256",
    "header_sha256",
)
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
# The header fields a version-2 run adds: a version-1 header carrying any of them was relabelled.
DIGEST_FIELDS = HEADER_KEYS[5:]
# A line longer than this is refused before it is parsed: a course trace line is a few KB, a
# long run's model call well under a megabyte.
MAX_LINE_CHARS = 16 * 2**20
# Hex digits kept of each SHA-256: 64 bits, far past any accidental collision in a trace.
DIGEST_CHARS = 16
_DIGEST = re.compile(rf"[0-9a-f]{{{DIGEST_CHARS}}}")
# What `dump_line` escapes: next line (U+0085), line and paragraph separators (U+2028, U+2029),
# which JSON may leave raw and `str.splitlines` splits on, and lone surrogates, which UTF-8 cannot
# encode. (Every other line break is a control character, which JSON always escapes.)
_UNSAFE = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
_ESCAPES = {c: f"\\u{c:04x}" for c in (0x85, 0x2028, 0x2029, *range(0xD800, 0xE000))}


class TraceFileError(ValueError):
    """A trace file that cannot be read. `line` is 1-based (0: the file as a whole). The message
    quotes what the file holds, so it is scrubbed of secrets like everything the course shows."""

    def __init__(self, source: str, line: int, message: str):
        where = f"{source} line {line}" if line else source
        super().__init__(redact(f"{where}: {message}"))
        self.source, self.line = source, line


def dump_line(record: Mapping[str, Any]) -> str:
    """`record` as one line of JSON: keys in the order given, non-ASCII text kept readable, and
    every character a line reader could split on, or UTF-8 could not encode, escaped (`\\u2028`).
    Those characters only ever stand inside a JSON string, where the escape means the same.

    A number that is not finite is written as Python's `json` writes and reads it: `NaN`,
    `Infinity`, `-Infinity`. The loop accepts them in a tool call's arguments (Python's `json`
    parses them), so the trace keeps them and reads them back; strict JSON has no word for them
    (`jq` reads them as null and the largest float). Times are checked finite before this."""
    text = json.dumps(record, ensure_ascii=False, separators=(", ", ": "), allow_nan=True)
    return text.translate(_ESCAPES) if _UNSAFE.search(text) else text  # a search costs less


def record_digest(record: Mapping[str, Any]) -> str:
    """The first `DIGEST_CHARS` hex digits of the SHA-256 of `record` as canonical JSON (a lone
    surrogate hashed as its three bytes, `surrogatepass`, since UTF-8 proper has none)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]


def written_header(
    version: int, trace_id: str, started_at: str, content: str, spans: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The header line of a run whose span records are `spans` and whose content hash is `content`."""
    header: dict[str, Any] = dict(
        zip(
            HEADER_KEYS,
            ("trace", version, trace_id, started_at, len(spans), content),
        )
    )
    header["line_sha256"] = [record_digest(record) for record in spans]
    header["header_sha256"] = record_digest(header)
    return header


def header_problem(header: Mapping[str, Any]) -> str | None:
    """What is wrong with a version-2 header's digest fields (None when they hold): missing or
    malformed, or the header's own digest no longer matching what it says."""
    content, lines, own = (header.get(k) for k in ("content_hash", "line_sha256", "header_sha256"))
    if not (isinstance(content, str) and content.startswith("sha256:")):
        return "field 'content_hash' must be text starting sha256:, as the writer records it."
    if not (
        isinstance(lines, list) and all(isinstance(d, str) and _DIGEST.fullmatch(d) for d in lines)
    ):
        return f"field 'line_sha256' must be a list of {DIGEST_CHARS}-digit hex digests."
    if len(lines) != header.get("spans"):
        return f"field 'line_sha256' holds {len(lines)} digests for {header.get('spans')} spans."
    if not (isinstance(own, str) and _DIGEST.fullmatch(own)):
        return f"field 'header_sha256' must be a {DIGEST_CHARS}-digit hex digest."
    rest = {k: v for k, v in header.items() if k != "header_sha256"}
    if record_digest(rest) != own:
        return (
            f"was changed after it was written (its digest is {record_digest(rest)}, the header "
            f"records {own}); re-record the run, or restore the file."
        )
    return None


class _DuplicateKey(Exception):
    """Raised from inside `json.loads` by `_one_of_each`; `parse_line` turns it into a
    TraceFileError, which needs the file and line the hook does not know."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _one_of_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict, or `_DuplicateKey` naming a key that comes twice.

    `json.loads` calls this for every object it reads, innermost first, in place of building the
    dict itself (its `object_pairs_hook`), so a key repeated anywhere in a line is seen."""
    record = dict(pairs)
    if len(record) != len(pairs):  # the common case, no key twice, costs one comparison
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


def _quoted(key: str) -> str:
    """A key as an error quotes it: at most 60 characters of its repr (a pasted key can be long),
    masked before it is cut, since half a secret may no longer be recognised as one."""
    shown = repr(redact(key))
    return shown if len(shown) <= 60 else shown[:59] + "…"


def parse_line(text: str, source: str, line: int) -> dict[str, Any]:
    """Line number `line` of `source` as a JSON object, or a TraceFileError saying what it is
    instead: over `MAX_LINE_CHARS`, not JSON, cut off, nested beyond what any trace writes (a
    `RecursionError` would otherwise escape), or holding a key twice in any object at any depth.
    `json.loads` keeps the last copy of a key and the digest is over what it kept, so without
    that check an edit to the first copy would read as clean."""
    if len(text) > MAX_LINE_CHARS:
        raise TraceFileError(
            source, line, f"is over {MAX_LINE_CHARS} characters; no trace line is."
        )
    try:
        record = json.loads(text, object_pairs_hook=_one_of_each)
    except _DuplicateKey as duplicate:
        raise TraceFileError(
            source,
            line,
            f"holds the key {_quoted(duplicate.key)} twice in one object; the writer never "
            "writes a key twice, and a reader keeps only one copy, so an edit to the other would "
            "go unseen. Remove the copy that was added, or restore the file.",
        ) from None
    except RecursionError:
        raise TraceFileError(
            source,
            line,
            "is nested more deeply than any trace line; the file was edited or is not a trace.",
        ) from None
    except ValueError as exc:
        detail = (
            f" ({exc.msg}, at character {exc.pos})"
            if isinstance(exc, json.JSONDecodeError)
            else f" ({exc})"
        )
        raise TraceFileError(
            source,
            line,
            f"is not a complete JSON object{detail}; the file may have been cut off while it was written.",
        ) from None
    if not isinstance(record, dict):
        raise TraceFileError(
            source, line, "is not a JSON object; each line is one trace header or one span."
        )
    return record
