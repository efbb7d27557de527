"""The ticket contract: four fields, their strict JSON schema, and the records every check reports in.

Session 04 (`sessions/s04-schema`) shipped this module; session 07 carries it in to score every
draft the repair loop sees. It adds:

- `Ticket`, the four fields the kitchen reads (`table`, `items`, `allergies`, `notes`), as a frozen
  pydantic model, and `Failure`, the one shape every check in the course reports in;
- `strict_ticket_schema()` and `response_format()`: the same contract as a JSON schema the
  endpoint can enforce while it generates (strict structured output);
- `Parsed`, `Usage` and `Draft`: what a parse and a model call give back.

Reading raw model text into a ticket is `cafe.schema.parsing`; asking an endpoint for a draft in
the strictest format it accepts is `cafe.schema.drafts`. What this session leaves out: what each
output format lets through, measured on the same orders, is `cafe.schema.trials`; whether the ticket is *right* (on the menu,
safe, what the customer approved), which is `cafe.consent` and `cafe.detect`, sessions 05 and 06.
Retrying a bad draft is `cafe.repair`, session 07. Lesson: sessions/s04-schema/lesson.md;
notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from cafe.endpoint.client import formats
from cafe.endpoint.client.formats import OUTPUT_FORMATS, OutputFormat
from cafe.endpoint.secrets.redaction import redact

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
# the endpoint side (`cafe.endpoint.client.formats`), which also knows each server's spelling of them.
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
    """`text` with secrets masked, each whitespace run folded to one space, cut to `limit`
    characters ending in '…'.

    What a failure quotes from a draft goes through here, so a run of 100,000 newlines or one
    enormous item becomes a short pointer. The secrets are masked first (`redact`), before the
    cut, so no part of a key can survive at the edge of a quote. Reads words only until `limit`
    is passed.
    """
    words: list[str] = []
    length = -1  # the length of " ".join(words)
    for match in _WORD.finditer(redact(text)):
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
