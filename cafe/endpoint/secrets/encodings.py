"""A key in disguise: the patterns that find a known key once it has been encoded.

Masking a key by value finds it as it was typed. A tool, a model or a learner can hand it on
encoded instead: in a basic-auth header (base64), a hex dump, a URL (percent-encoding), inside a
JSON string (`\\u0073k-...`, which a model may write in a tool call's arguments and the trace
keeps as written), or split by spaces and line breaks so no search for the whole string finds it.
`encoded_patterns(secret)` returns one compiled pattern per disguise, each finding the secret
however it is spaced:

- as text: each character as itself, percent-encoded (`%41`, `%c3%a9`, `+` for a space) or
  JSON-escaped (`\\u0041`, a surrogate pair for a character past U+FFFF, `\\"` and the other
  short escapes), in any mix, with any whitespace between characters (`q7Zr 2mWx`, a key wrapped
  across two lines);
- as hex: its UTF-8 bytes in hex digits, lower or upper case;
- as base64, at each of the three alignments: a key that starts 0, 1 or 2 bytes into what was
  encoded lands on a different 6-bit boundary, so it has three encodings, not one. Each pattern is
  the run of base64 characters whose bits all come from the key (the one or two characters at
  either edge that mix in a neighbour's bits cannot be known in advance), in both alphabets
  (`+/` and the URL-safe `-_`).

`cafe.endpoint.secrets.redaction.Redactor` masks every match, for secrets of `ENCODED_SECRET_CHARS`
or more (a shorter key's encodings are short enough to turn up by chance). Each pattern starts
with one character or a small set of them, so a search costs one pass over the text. What is left
out: a key encoded twice, compressed or encrypted, and a fragment of an encoded key. Session 00
(`sessions/s00-setup/lesson.md`) says what the course promises about the key.
"""

from __future__ import annotations

import base64
import re

__all__ = ["ENCODED_SECRET_CHARS", "encoded_patterns", "base64_core"]

# Secrets at least this long are also looked for encoded (the length from which the redactor masks
# fragments too): a 12-character key has a base64 core of at least 14 characters.
ENCODED_SECRET_CHARS = 12
# Between two characters of a disguised key: any whitespace (a space, a tab, a line break).
_GAP = r"\s*"
# The characters JSON may write with a two-character escape instead of `\\u` (RFC 8259, 7).
_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def base64_core(secret: str, offset: int) -> str:
    """The base64 characters that encode only `secret`'s bits when it starts `offset` bytes (0, 1
    or 2) into what was encoded: what every encoding of it at that alignment has in common."""
    if offset not in (0, 1, 2):
        raise ValueError(f"offset must be 0, 1 or 2 (a byte position modulo 3), not {offset}.")
    data = secret.encode("utf-8")
    text = base64.b64encode(bytes(offset) + data).decode("ascii")
    first = -(-8 * offset // 6)  # the first character that starts at or after the key's first bit
    last = 8 * (offset + len(data)) // 6  # the characters before it end at or before its last bit
    return text[first:last]


def _spaced(units: list[str]) -> str:
    return _GAP.join(units)


def _json_escape(char: str) -> str:
    """`char` as a JSON string may spell it with `\\u`: one escape, or a surrogate pair's two."""
    units = char.encode("utf-16-be", "surrogatepass")
    return "".join(
        f"\\u{int.from_bytes(units[at : at + 2], 'big'):04x}" for at in range(0, len(units), 2)
    )


def _as_text(secret: str) -> str:
    """Each character as itself, as its percent-encoded bytes or as its JSON escape (hex digits in
    either case), or as the short JSON escape of a quote, a slash or a control character."""
    units = []
    for char in secret:
        encoded = "".join(f"%{byte:02x}" for byte in char.encode("utf-8"))
        choices = [
            re.escape(char),
            f"(?i:{re.escape(encoded)})",
            f"(?i:{re.escape(_json_escape(char))})",
        ]
        if char in _SHORT_ESCAPES:
            choices.append(re.escape(_SHORT_ESCAPES[char]))
        if char == " ":
            choices.append(r"\+")
        units.append(f"(?:{'|'.join(choices)})")
    return _spaced(units)


def _as_hex(secret: str) -> str:
    digits = secret.encode("utf-8").hex()
    return f"(?i:{_spaced(list(digits))})"


def _as_base64(secret: str, offset: int) -> str:
    alphabet = {"+": "[+-]", "/": "[/_]"}  # the standard and URL-safe alphabets differ only here
    return _spaced([alphabet.get(char, char) for char in base64_core(secret, offset)])


def encoded_patterns(secret: str) -> tuple[re.Pattern[str], ...]:
    """The patterns that find `secret` spaced, percent-encoded, in hex, and in base64 at each
    alignment (see the module docstring); none for a secret shorter than `ENCODED_SECRET_CHARS`."""
    if len(secret) < ENCODED_SECRET_CHARS:
        return ()
    sources = [_as_text(secret), _as_hex(secret), *(_as_base64(secret, o) for o in (0, 1, 2))]
    return tuple(re.compile(source) for source in sources)
