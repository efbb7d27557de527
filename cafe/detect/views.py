"""Readings of a text a model could make and a pattern could not: decoded, hidden, split apart.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). A model reads
base64, rot13 and text written backwards; it also reads text a person never sees. Each `View` is
one such reading, normalised (`cafe.detect.normalize`) and traced back into the customer's own
characters, so the same rules run on it and a finding still quotes what was written:

- decoded: each base64 or hex run, percent-escapes, the whole text in rot13 and backwards;
- hidden, read rather than deleted: tag characters (U+E0020 to U+E007E spell ASCII no renderer
  shows), a run of zero-width characters used as bits, text inside a right-to-left override
  (displayed forwards, stored backwards);
- spaced: the marks inside words (`SPLIT_MARKS`, "." and "/") and camelCase read as spaces, so
  "IGNORE_PREVIOUS_INSTRUCTIONS" and "ignorePreviousInstructions" read as three words.

`decoded_views(text)` returns every reading that applies. What it leaves out: deciding whether a
reading is an attack (`cafe.detect.checks`).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cafe.detect.normalize import SPLIT_MARKS, Normalized, normalize_text

__all__ = [
    "ENCODED_MIN",
    "PRINTABLE_SHARE",
    "PERCENT_MIN",
    "ZERO_WIDTH_MIN",
    "View",
    "decoded_views",
]

# A base64 or hex run must be at least this long to be worth decoding (12 bytes of text).
ENCODED_MIN = 16
# Decoded bytes count as text when at least this share of them is printable.
PRINTABLE_SHARE = 0.9
# Percent-encoding ("ignore%20previous"): read when the text holds at least this many escapes.
PERCENT_MIN = 3
# Zero-width characters used as bits: a run this long (one byte) is worth reading.
ZERO_WIDTH_MIN = 8
_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/\-_]{{{ENCODED_MIN},}}={{0,2}}")
_HEX_RUN = re.compile(rf"(?:[0-9a-fA-F]{{2}}){{{ENCODED_MIN // 2},}}")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]+")
_ZERO_WIDTH_RUN = re.compile(f"[\u200b\u200c\u200d\u2060\ufeff]{{{ZERO_WIDTH_MIN},}}")
_OVERRIDE = re.compile("\u202e([^\u202c\u202d\u202e]*)")
# Where a word is split for a pattern: a mark between letters, or two lower-case letters then a
# capital and a lower-case one ("ignorePrevious"; not "iPhone" or a base64 run's "xY2").
_SPLIT = re.compile(
    rf"(?<=[^\W\d_])(?:[{re.escape(SPLIT_MARKS)}./](?=[^\W\d_])|(?<=[a-z]{{2}})(?=[A-Z][a-z]))"
)


@dataclass(frozen=True)
class View:
    """One way of reading a text: `kind` says how it was read ("base64", "tags", ...)."""

    kind: str
    normalized: Normalized


def _traced(kind: str, pieces: Sequence[tuple[str, int]], text: str) -> View:
    """A reading built piece by piece, each piece (characters, index in `text`) traced exactly."""
    decoded = "".join(chars for chars, _ in pieces)
    where = [at for chars, at in pieces for _ in chars]
    inner = normalize_text(decoded)
    return View(kind, Normalized(inner.text, tuple(where[i] for i in inner.origin), text))


def _as_text(raw: bytes) -> str | None:
    """`raw` as UTF-8 text when it decodes and is nearly all printable; None for binary noise."""
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(char.isprintable() or char in "\n\t" for char in decoded)
    return decoded if decoded and printable >= PRINTABLE_SHARE * len(decoded) else None


def _decode_base64(run: str) -> str | None:
    padded = run.rstrip("=") + "=" * (-len(run.rstrip("=")) % 4)
    try:
        return _as_text(base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True))
    except (binascii.Error, ValueError):
        return None


def _decode_hex(run: str) -> str | None:
    return _as_text(bytes.fromhex(run))


def _blob_view(kind: str, decoded: str, text: str, start: int, end: int) -> View:
    """A decoded run, its characters traced back (proportionally) into the run that encoded it."""
    inner = normalize_text(decoded)
    scale = (end - start) / max(len(decoded), 1)
    origin = tuple(start + min(int(i * scale), end - start - 1) for i in inner.origin)
    return View(kind, Normalized(inner.text, origin, text))


def _hidden_views(text: str) -> list[View]:
    """Tag characters, zero-width bits and overridden text, each read as the text it carries."""
    views = [
        _traced(
            "tags", [(chr(ord(c) - 0xE0000), m.start() + i) for i, c in enumerate(m.group())], text
        )
        for m in _TAG_RUN.finditer(text)
    ]
    for match in _ZERO_WIDTH_RUN.finditer(text):
        bits = _zero_width_bits(match.group())
        if bits is not None:
            views.append(_blob_view("zero-width", bits, text, match.start(), match.end()))
    views += [
        _traced("override", [(c, m.end(1) - 1 - i) for i, c in enumerate(m.group(1)[::-1])], text)
        for m in _OVERRIDE.finditer(text)
        if m.group(1)
    ]
    return views


def _zero_width_bits(run: str) -> str | None:
    """A run of two zero-width characters read as bits, either way round, when it spells text."""
    symbols = [char for char, _ in Counter(run).most_common(2)]
    if len(symbols) != 2 or len(run) % 8:
        return None
    for zero, one in (symbols, symbols[::-1]):
        bits = run.replace(zero, "0").replace(one, "1")
        if set(bits) <= {"0", "1"}:
            decoded = _as_text(int(bits, 2).to_bytes(len(bits) // 8, "big"))
            if decoded is not None and any(c.isalpha() for c in decoded):
                return decoded
    return None


def _spaced_view(text: str) -> View | None:
    """Split marks and camelCase read as spaces: None when the text has none."""
    pieces: list[tuple[str, int]] = []
    done = 0
    for match in _SPLIT.finditer(text):
        pieces += [(text[at], at) for at in range(done, match.start())]
        pieces.append((" ", match.start()))
        done = match.end()  # a mark is replaced; a camelCase boundary is empty and keeps its letter
    if not pieces:
        return None
    pieces += [(text[at], at) for at in range(done, len(text))]
    return _traced("spaced", pieces, text)


def decoded_views(text: str, plain: Normalized | None = None) -> tuple[View, ...]:
    """Readings of `text` a model could make and a pattern could not: each base64 or hex run
    decoded (when it decodes to text), percent-escapes read, hidden characters read, words split
    apart read as words, the whole text in rot13, and the whole text backwards.

    `plain` is `normalize_text(text)` when the caller has it already."""
    views = _hidden_views(text)
    for pattern, kind, decode in (
        (_BASE64_RUN, "base64", _decode_base64),
        (_HEX_RUN, "hex", _decode_hex),
    ):
        for match in pattern.finditer(text):
            decoded = decode(match.group())
            if decoded is not None:
                views.append(_blob_view(kind, decoded, text, match.start(), match.end()))
    spaced = _spaced_view(text)
    if spaced is not None:
        views.append(spaced)
    if len(_PERCENT.findall(text)) >= PERCENT_MIN:
        views.append(_blob_view("percent", urllib.parse.unquote(text), text, 0, len(text)))
    plain = normalize_text(text) if plain is None else plain
    views.append(View("rot13", Normalized(codecs.encode(plain.text, "rot13"), plain.origin, text)))
    views.append(View("reversed", Normalized(plain.text[::-1], plain.origin[::-1], text)))
    return tuple(views)
