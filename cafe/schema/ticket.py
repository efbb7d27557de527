"""The ticket contract: four fields, a strict JSON schema, and a parser that never raises.

Session 04 (`sessions/s04-schema`) shipped this module; session 07 carries it in to score every
draft the repair loop sees. It adds:

- `Ticket`, the four fields the kitchen reads (`table`, `items`, `allergies`, `notes`), as a frozen
  pydantic model, and `Failure`, the one shape every check in the course reports in;
- `strict_ticket_schema()` and `response_format()`: the same contract as a JSON schema the
  endpoint can enforce while it generates (strict structured output);
- `parse_draft()`: raw model text in (JSON, JSON in a code fence or prose, or garbage), a ticket
  or named failures out, and never an exception; `failures_from()` is its last step, pydantic's
  `ValidationError` turned into `Failure`s;
- `StructuredDrafts`: asks an endpoint for a draft, strictest format first, stepping down to JSON
  mode and then plain text when the endpoint rejects the format (a `RequestRejected` that names
  it); any other rejection is raised.

What it leaves out: what each output format lets through, measured on the same orders, which is
`cafe.schema.trials` (this session's second module); whether the ticket is *right* (on the menu,
safe, what the customer approved), which is `cafe.consent` and `cafe.detect`, sessions 05 and 06.
Retrying a bad draft is `cafe.repair`, session 07. Lesson: sessions/s04-schema/lesson.md;
notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cafe.endpoint import formats
from cafe.endpoint.client import chat_in_format
from cafe.endpoint.formats import OUTPUT_FORMATS, OutputFormat

__all__ = [
    "MAX_TABLE",
    "TICKET_FIELDS",
    "FIELD_HINTS",
    "CONTRACT_CHECKS",
    "FORMATS",
    "Format",
    "Ticket",
    "SPAN_CHARS",
    "FIX_CHARS",
    "clip",
    "Failure",
    "Parsed",
    "Usage",
    "Draft",
    "strict_ticket_schema",
    "response_format",
    "contract_text",
    "extract_json",
    "parse_draft",
    "failures_from",
    "StructuredDrafts",
]

# The café has 30 tables (invented for the course; every fixture order uses one of them).
MAX_TABLE = 30

# The four fields of a kitchen ticket, in the order the kitchen reads them.
TICKET_FIELDS: tuple[str, ...] = ("table", "items", "allergies", "notes")

# What a correct value looks like, per field. Used in failure fix targets and in the prompt.
FIELD_HINTS: Mapping[str, str] = MappingProxyType(
    {
        "table": f"the table number, a whole number from 1 to {MAX_TABLE}",
        "items": "a non-empty list of menu item names, spelled as the menu spells them",
        "allergies": "a list of the allergies the customer declared (an empty list if none)",
        "notes": "free text for the kitchen (an empty string if none)",
    }
)

# The checks this module can fail a draft on. Declared once; `cafe.detect` adds its own.
ContractCheck = Literal["not_json", "missing_field", "unknown_field", "bad_value"]
CONTRACT_CHECKS: frozenset[str] = frozenset(get_args(ContractCheck))

# Output formats, strictest first: the order `StructuredDrafts` steps down through. Declared with
# the endpoint side (`cafe.endpoint.formats`), which also knows each server's spelling of them.
Format = OutputFormat
FORMATS: tuple[str, ...] = OUTPUT_FORMATS
# The name the strict schema travels under in `response_format`.
TICKET_SCHEMA_NAME = "kitchen_ticket"

# Keywords OpenAI's strict mode has not always accepted; the parser enforces them instead.
_NOT_STRICT_SAFE = frozenset(
    {"minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength"}
)

# How much of an offending value a failure quotes. A span is a pointer, not a copy of the draft:
# 60 characters name any real menu item or field, and a retry prompt stays short whatever the
# draft held (one 100,000-character item once made a 300,000-character retry prompt).
SPAN_CHARS = 60
# The longest fix a failure carries: the longest fix wording in the course (about 130 characters)
# plus one quoted span, with room to spare. A fix states a target; it never carries the draft.
FIX_CHARS = 240
# A run of anything but whitespace: the words `clip` keeps.
_WORD = re.compile(r"\S+")


class Ticket(BaseModel):
    """A kitchen ticket. Frozen, no extra fields, and no type coercion ('7' is not a table)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    table: int = Field(ge=1, le=MAX_TABLE, description=FIELD_HINTS["table"])
    items: tuple[str, ...] = Field(min_length=1, description=FIELD_HINTS["items"])
    allergies: tuple[str, ...] = Field(description=FIELD_HINTS["allergies"])
    notes: str = Field(description=FIELD_HINTS["notes"])


def clip(text: str, limit: int = SPAN_CHARS) -> str:
    """`text` with each whitespace run folded to one space, cut to `limit` characters ending in '…'.

    What a failure quotes from a draft goes through here, so a run of 100,000 newlines or one
    enormous item becomes a short pointer. Reads words only until `limit` is passed.
    """
    words: list[str] = []
    length = -1  # the length of " ".join(words)
    for match in _WORD.finditer(text):
        words.append(match.group())
        length += len(words[-1]) + 1
        if length > limit:
            break
    folded = " ".join(words)
    return folded if length <= limit else folded[: limit - 1] + "…"


@dataclass(frozen=True)
class Failure:
    """One failed check: which check, the offending span (quoted), and what a correct draft says.

    Every failure is bounded where it is made, whichever module makes it: `span` is clipped to
    `SPAN_CHARS` and `fix` to `FIX_CHARS` (see `clip`). A check that quotes a drafted value in its
    fix should `clip` that value itself, so the fix keeps its ending; the bound here is the floor
    that no check can forget.
    """

    check: str
    span: str
    fix: str

    def __post_init__(self) -> None:
        for name in ("check", "span", "fix"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(
                    f"Failure.{name} must be text, not {type(getattr(self, name)).__name__}."
                )
        object.__setattr__(self, "span", clip(self.span, SPAN_CHARS))
        object.__setattr__(self, "fix", clip(self.fix, FIX_CHARS))

    def line(self) -> str:
        """One line, whatever the texts hold: the span quoted with repr, the fix's whitespace flattened."""
        return f"{self.check}: {self.span!r}. Fix: {' '.join(self.fix.split())}"


@dataclass(frozen=True)
class Parsed:
    """What `parse_draft` made of a draft: a ticket and no failures, or no ticket and failures."""

    ticket: Ticket | None
    failures: tuple[Failure, ...]


@dataclass(frozen=True)
class Usage:
    """Token counts the endpoint reported for one request."""

    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True)
class Draft:
    """A generator's answer with its token usage. Generators may return this or plain text."""

    text: str
    usage: Usage | None = None


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in _NOT_STRICT_SAFE}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def strict_ticket_schema() -> dict[str, Any]:
    """The ticket's JSON schema, trimmed to what strict structured output accepts."""
    schema = _strip(Ticket.model_json_schema())
    schema["required"] = list(TICKET_FIELDS)  # strict mode wants every field required
    schema["additionalProperties"] = False
    return schema


def response_format(kind: str) -> dict[str, Any] | None:
    """The `response_format` argument that asks for a ticket in format `kind` (None for plain text)."""
    return formats.response_format(kind, strict_ticket_schema(), TICKET_SCHEMA_NAME)


def contract_text() -> str:
    """The contract in words, for the system prompt: the four fields and what each must hold."""
    fields = "\n".join(f"- {name}: {FIELD_HINTS[name]}" for name in TICKET_FIELDS)
    return (
        "Answer with one JSON object, a kitchen ticket with exactly these four fields:\n"
        f"{fields}\nNo other fields, and no text outside the JSON object."
    )


# A fence's language tag: ```json. Stripped from a block before it is read.
_FENCE_TAG = re.compile(r"[a-zA-Z]*")
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
    return [block[_FENCE_TAG.match(block).end() :] for block in blocks]


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


def _failure_from(error: dict[str, Any]) -> tuple[str, Failure]:
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


class StructuredDrafts:
    """Ask an endpoint for ticket drafts, strictest output format the endpoint accepts first.

    Tries `json_schema` (strict); when the endpoint refuses the request (`RequestRejected`: an
    HTTP 400/422, or any status whose message names `response_format`) and the refusal is about the
    output format, it steps down through `FORMATS` (llama-cpp-python's `json_object` with a
    schema, then plain `json_object`, then plain text) and remembers the step for later calls. A refusal about anything else (the messages, the model)
    is raised as it is: the format was not the problem, so dropping it would only hide the cause.
    Transport failures are `EndpointError`s and are not caught: a dead endpoint is not a bad draft.
    """

    def __init__(self, client: Any, model: str, system_prompt: str):
        self.client = client
        self.model = model
        self.system_prompt = system_prompt
        self.format: str = FORMATS[0]
        self.rejections: list[str] = []  # why each stronger format was dropped

    def __call__(self, messages: Sequence[dict[str, Any]]) -> Draft:
        sent = [{"role": "system", "content": self.system_prompt}, *copy.deepcopy(list(messages))]
        # (No temperature: some reasoning models refuse any value but their own.)
        completion, self.format = chat_in_format(
            self.client,
            self.format,
            strict_ticket_schema(),
            TICKET_SCHEMA_NAME,
            rejections=self.rejections,
            model=self.model,
            messages=sent,
        )
        text = (completion.choices[0].message.content or "") if completion.choices else ""
        usage = completion.usage
        counted = Usage(usage.prompt_tokens, usage.completion_tokens) if usage is not None else None
        return Draft(text=text, usage=counted)
