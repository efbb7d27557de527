"""What the attributes a trace reader relies on must look like, checked before anything reads them.

Session 08 (`sessions/s08-tracing/lesson.md`). A trace file is input: it may have been cut off,
edited by hand, or written by something else. Replay (`cafe.trace.replay`), the shift report
(session 09) and the taxonomy (session 10) index into a span's attributes (`parts[0]`,
`content`, token counts), so `check_attributes` checks every attribute they read against one
table, `ATTRIBUTE_SHAPES` (attribute name → shape, one rule a line), and raises `ShapeError`
naming the path of the first value that does not fit: "attributes.gen_ai.output.messages[0].parts
must be a list, not 'hello'". Attributes outside the table are kept as they are, but no value may
nest deeper than `MAX_DEPTH` (a line nested thousands deep is not a trace). `cafe.trace.file`
turns a `ShapeError` into a `TraceFileError` naming the line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from cafe.endpoint.secrets.redaction import redact
from cafe.trace.attributes import (
    CHECK_FAILURES,
    CHECK_LINES,
    ERROR_TYPE,
    FINISH_REASONS,
    INPUT_MESSAGES,
    INPUT_TOKENS,
    OUTPUT_MESSAGES,
    OUTPUT_TOKENS,
    REQUEST_MODEL,
    RESPONSE_ID,
    RESPONSE_MODEL,
    STOP_DETAIL,
    STOP_REASON,
    TOOL_NAME,
)
from cafe.trace.calls import ERROR_MESSAGE, ERROR_PARAM, STATUS_CODE
from cafe.trace.vocabulary import FINISH_REASON_WORDS, PART_TYPES

__all__ = [
    "MAX_DEPTH",
    "FINISH_REASON_VALUES",
    "ShapeError",
    "ATTRIBUTE_SHAPES",
    "check_attributes",
    "finite_seconds",
    "MAX_COUNT",
]

# The largest count (tokens, a status code) a trace holds: every count a float adds up exactly,
# so a report's sums and costs never overflow (10**309 tokens once crashed `summarize`).
MAX_COUNT = 2**53
# The deepest a value may nest (lists and objects inside each other): a message's parts are four
# deep, a tool's arguments rarely ten; far beyond that is an edit, and it would exhaust recursion.
MAX_DEPTH = 64
# The finish reasons the OpenAI chat API defines: the words the scrubber keeps as they are. A
# trace holds any other text too (TGI's "eos_token", "STOP") or null (none reported), as the
# OpenTelemetry GenAI conventions allow (`gen_ai.response.finish_reasons` is a string array whose
# values are the provider's): what the model said is recorded, and a replay hands it back.
FINISH_REASON_VALUES = FINISH_REASON_WORDS
# What each kind of message part holds, besides its type: field name → allows null.
PART_FIELDS: Mapping[str, Mapping[str, bool]] = {
    "text": {"content": True},
    "tool_call": {"id": True, "name": False, "arguments": True},
    "tool_call_response": {"id": True, "response": True},
}
assert set(PART_FIELDS) == PART_TYPES  # the format's part types, declared in `vocabulary`

Shape = Callable[[Any, str], None]


class ShapeError(ValueError):
    """An attribute value that does not have the shape its readers rely on; the message names its
    path, and quotes the value with every secret in it masked."""

    def __init__(self, message: str):
        super().__init__(redact(message))


def _fail(path: str, wanted: str, value: Any) -> ShapeError:
    shown = repr(value)
    return ShapeError(
        f"{path} must be {wanted}, not {shown[:60] + '…' if len(shown) > 60 else shown}"
    )


def _text(nullable: bool) -> Shape:
    def check(value: Any, path: str) -> None:
        if not (isinstance(value, str) or (nullable and value is None)):
            raise _fail(path, "text or null" if nullable else "text", value)

    return check


def _count(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise _fail(path, f"a whole number from 0 to {MAX_COUNT:,}", value)


def finite_seconds(value: Any) -> float | None:
    """`value` as seconds when it is a number a float holds finitely (10**400 is not), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def _list_of(item: Shape) -> Shape:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise _fail(path, "a list", value)
        for i, element in enumerate(value):
            item(element, f"{path}[{i}]")

    return check


def _part(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise _fail(path, "an object", value)
    kind = value.get("type")
    fields = PART_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise _fail(f"{path}.type", f"one of {', '.join(PART_FIELDS)}", value.get("type"))
    for name, nullable in fields.items():
        if name not in value:
            raise ShapeError(f"{path}.{name} is missing")
        _text(nullable)(value[name], f"{path}.{name}")


def _message(output: bool) -> Shape:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise _fail(path, "an object", value)
        _text(True)(value.get("role"), f"{path}.role")
        _list_of(_part)(value.get("parts"), f"{path}.parts")
        if output:
            _text(True)(value.get("finish_reason"), f"{path}.finish_reason")

    return check


# Attribute name → the shape its readers rely on; one rule a line.
ATTRIBUTE_SHAPES: Mapping[str, Shape] = {
    INPUT_MESSAGES: _list_of(_message(output=False)),
    OUTPUT_MESSAGES: _list_of(_message(output=True)),
    FINISH_REASONS: _list_of(_text(True)),  # any text, or null: `FINISH_REASON_VALUES`
    INPUT_TOKENS: _count,
    OUTPUT_TOKENS: _count,
    REQUEST_MODEL: _text(True),
    RESPONSE_MODEL: _text(True),
    RESPONSE_ID: _text(True),
    ERROR_TYPE: _text(False),
    ERROR_MESSAGE: _text(False),
    ERROR_PARAM: _text(False),
    STATUS_CODE: _count,
    CHECK_FAILURES: _list_of(_text(False)),
    CHECK_LINES: _list_of(_text(False)),
    STOP_REASON: _text(False),
    STOP_DETAIL: _text(True),
    TOOL_NAME: _text(True),
    "cafe.request.tools": _list_of(_text(True)),
    "cafe.request.format": _text(True),
    "cafe.turn.nudges": _list_of(_text(False)),
}


def _depth(value: Any) -> int:
    """How deep `value` nests (a scalar is 0), counted without recursion."""
    deepest, waiting = 0, [(value, 0)]
    while waiting:
        item, depth = waiting.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        if isinstance(item, dict):
            waiting.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            waiting.extend((v, depth + 1) for v in item)
    return deepest


def check_attributes(attributes: Mapping[str, Any]) -> None:
    """Raise `ShapeError` for the first attribute that nests too deep or, when `ATTRIBUTE_SHAPES`
    has a rule for it, does not fit that rule."""
    for name, value in attributes.items():
        if _depth(value) > MAX_DEPTH:
            raise ShapeError(
                f"attributes.{name} nests more than {MAX_DEPTH} deep; no trace writes that"
            )
        shape = ATTRIBUTE_SHAPES.get(name)
        if shape is not None:
            shape(value, f"attributes.{name}")
