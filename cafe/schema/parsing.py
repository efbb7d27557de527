"""Reading a draft: raw model text in, a ticket or named failures out, and never an exception.

Session 04. `cafe.schema.ticket` declares the contract; this module reads a model's text against
it:

- `extract_json()`: the JSON object in a reply, whether bare, in a code fence or buried in prose;
- `parse_draft()`: that object checked against `Ticket`, giving a `Parsed` with the ticket or the
  failures, never raising, whatever the text;
- `failures_from()`: its last step, pydantic's `ValidationError` turned into the course's
  `Failure`s, one per field and check.

Lesson: sessions/s04-schema/lesson.md. Notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from cafe.schema.ticket import FIELD_HINTS, TICKET_FIELDS, Failure, Parsed, Ticket, clip

__all__ = ["extract_json", "parse_draft", "failures_from"]

# A fence's language tag: ```json. Stripped from a block before it is read.
_FENCE_TAG = re.compile(r"^[a-zA-Z]*")
# How many '{' positions to try when the JSON is buried in prose; bounds the work on garbage.
_MAX_STARTS = 32


def _fenced_blocks(text: str) -> list[str]:
    """The text between each pair of ``` fences, language tag dropped: ```json {...} ``` -> ' {...} '.

    Split on the fences rather than matched with a pattern: a pattern with a tag, then any text up
    to the closing fence, retries every shorter tag when no fence closes, and that is quadratic
    on a long unclosed block.
    """
    parts = text.split("```")
    blocks = parts[1:-1:2]  # the odd parts are inside a fence; an unclosed last one is not
    return [_FENCE_TAG.sub("", block, count=1) for block in blocks]


def extract_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text`: the whole text, a fenced block, or an object inside prose.

    Linear in the length of `text`: each fenced block is read once, and at most `_MAX_STARTS`
    '{' positions are tried.
    """
    chunks = [text, *_fenced_blocks(text)]
    for chunk in chunks:
        if not chunk.lstrip().startswith("{"):  # only an object is a ticket; skip the rest unread
            continue
        try:
            value = json.loads(chunk)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for match in itertools.islice(re.finditer(r"\{", text), _MAX_STARTS):
        start = match.start()
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _failure_from(error: Mapping[str, Any]) -> tuple[str, Failure]:
    if not error.get("loc"):  # about the ticket as a whole (e.g. a string the JSON reader refuses)
        return "<ticket>", Failure(
            "bad_value",
            "<ticket>",
            f"write one JSON object of plain text with exactly "
            f"{', '.join(TICKET_FIELDS)} ({error.get('msg', 'unreadable')})",
        )
    field = str(error["loc"][0])
    return field, _failure_for(field, error.get("type", ""), error.get("input"))


def _failure_for(field: str, kind: str, value: Any) -> Failure:
    if kind == "missing":
        return Failure(
            "missing_field", field, f"include {field}: {FIELD_HINTS.get(field, 'see the contract')}"
        )
    if kind == "extra_forbidden":
        return Failure(
            "unknown_field",
            field,
            f"remove {field}; a ticket has exactly {', '.join(TICKET_FIELDS)}",
        )
    hint = FIELD_HINTS.get(field, "see the contract")
    return Failure("bad_value", f"{field} = {clip(repr(value))}", f"{field} must be {hint}")


def parse_draft(draft: str) -> Parsed:
    """Turn raw model text into a `Ticket`, or into named failures. Never raises on any string."""
    if not isinstance(draft, str):
        raise TypeError(f"parse_draft() takes the model's text, not {type(draft).__name__}.")
    data = extract_json(draft)
    if data is None:
        return Parsed(
            None,
            (
                Failure(
                    "not_json",
                    clip(draft) or "(empty draft)",
                    "answer with one JSON object holding the four ticket fields",
                ),
            ),
        )
    try:
        # Through JSON again so strict mode judges JSON types (a list is fine for a tuple field).
        return Parsed(Ticket.model_validate_json(json.dumps(data), strict=True), ())
    except ValidationError as exc:
        return Parsed(None, failures_from(exc))


def failures_from(error: ValidationError) -> tuple[Failure, ...]:
    """pydantic's errors for a ticket as `Failure`s: one per field and check, in pydantic's order."""
    failures: dict[tuple[str, str], Failure] = {}
    for detail in error.errors(include_url=False):
        field, failure = _failure_from(detail)
        # One failure per field and check, not one per bad list element.
        failures.setdefault((field, failure.check), failure)
    return tuple(failures.values())
