"""What each output format lets through: the same orders asked for three ways, and the parse rate.

Session 04's second module (`cafe.schema` is the contract itself). It adds:

- `LESSON_FORMATS`: strict structured output (`json_schema`), JSON mode (`json_object`) and plain
  text, the three ways the lesson asks for a ticket;
- `unenforced_keywords()`: the rules of `Ticket` that `strict_ticket_schema()` leaves out (a table
  from 1 to 30, at least one item), so a strict server may let them through and `parse_draft`
  must catch them;
- `practice_orders()` and `waiter_client()`: ten orders, and an offline waiter with habits that
  answers each format as a server enforcing it would (`cafe serve --session 04` answers the same);
- `ask_once()`, one order in one format: the draft, whether the format could have let it out
  (`cafe.endpoint.client.formats.admits`), and what `parse_draft` made of it, as a `Trial`;
- `format_trial()`: every order in every format, one `FormatTally` each: drafts sent, tickets
  parsed, the checks that fired, the drafts a format let through that validation then caught; a
  format the endpoint refuses is counted as refused, never as failed drafts, and an order that
  meets an endpoint problem (a timeout) is counted apart, in `FormatTally.failed`;
- `closed_table_schema()`: the strict schema with the table range written as an `enum`, a keyword
  strict servers do enforce (the reference answer to the notebook's second exercise).

What it leaves out: whether a parsed ticket is right (on the menu, safe, within what the customer
approved): sessions 05 and 06. Asking again after a failure: session 07. Lesson:
sessions/s04-schema/lesson.md; notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cafe.endpoint.client.chat import chat, formats
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.errors import SETUP_PROBLEMS, EndpointError, RequestRejected
from cafe.endpoint.scripts.rehearsals import habit_orders, session_script
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import (
    MAX_TABLE,
    TICKET_FIELDS,
    Parsed,
    Ticket,
    contract_text,
    strict_ticket_schema,
)

__all__ = [
    "LESSON_FORMATS",
    "SAME_PROMISE",
    "SCHEMA_FORMATS",
    "TICKET_SCHEMA_NAME",
    "Unenforced",
    "unenforced_keywords",
    "closed_table_schema",
    "PracticeOrder",
    "practice_orders",
    "waiter_client",
    "ticket_messages",
    "Trial",
    "FormatTally",
    "ask_once",
    "format_trial",
]

# The three ways the lesson asks for a ticket, strictest first. (`cafe.endpoint.client.formats` also
# knows llama-cpp-python's spelling of a schema, `json_object_schema`; it promises what
# `json_schema` promises, so the lesson only meets it where a server refuses `json_schema`.)
LESSON_FORMATS: tuple[str, ...] = ("json_schema", "json_object", "plain")
# A refused format, and the other spelling of the same promise that `format_trial` tries then:
# llama-cpp-python's server (`cafe local`) takes a schema only as `json_object_schema`.
SAME_PROMISE = {"json_schema": "json_object_schema"}
# The formats that send a schema, which `admits` needs to judge a draft by.
SCHEMA_FORMATS = frozenset({"json_schema", "json_object_schema"})
# The name the schema travels under in a `json_schema` request (servers require one).
TICKET_SCHEMA_NAME = "kitchen_ticket"


# --- the rules a strict schema leaves out -----------------------------------------------------


@dataclass(frozen=True)
class Unenforced:
    """One rule of `Ticket` that the strict schema does not carry: `field` must meet `keyword: value`."""

    field: str
    keyword: str
    value: Any


def unenforced_keywords() -> tuple[Unenforced, ...]:
    """Every keyword `Ticket`'s full JSON schema puts on a field that `strict_ticket_schema()` drops."""
    full = Ticket.model_json_schema()["properties"]
    strict = strict_ticket_schema()["properties"]
    return tuple(
        Unenforced(field, keyword, value)
        for field in TICKET_FIELDS
        for keyword, value in full[field].items()
        if keyword not in strict[field]
    )


def closed_table_schema() -> dict[str, Any]:
    """`strict_ticket_schema()` with the table range as an `enum` of 1 to `MAX_TABLE`, a keyword
    strict servers enforce, so a table outside the café cannot be generated at all."""
    schema = copy.deepcopy(strict_ticket_schema())
    schema["properties"]["table"]["enum"] = list(range(1, MAX_TABLE + 1))
    return schema


# --- the practice orders and the offline waiter -----------------------------------------------


@dataclass(frozen=True)
class PracticeOrder:
    """An order as the customer said it, and the table they named (0: no table at all)."""

    table: int
    words: str


def practice_orders() -> tuple[PracticeOrder, ...]:
    """The ten practice orders, from `cafe/data/serve/s04.json` (the file `cafe serve` reads too)."""
    return tuple(PracticeOrder(order["table"], order["words"]) for order in habit_orders())


def waiter_client() -> ScriptedClient:
    """The offline waiter: `cafe serve --session 04`'s responder behind a scripted client."""
    return ScriptedClient(session_script("04"))


def ticket_messages(order: PracticeOrder) -> list[dict[str, str]]:
    """The request for one order: the contract in the system message, the customer's words as the user's."""
    return [
        {"role": "system", "content": contract_text()},
        {"role": "user", "content": order.words},
    ]


# --- one order, one format --------------------------------------------------------------------


@dataclass(frozen=True)
class Trial:
    """One draft: the order, the format asked for, the text that came back, and both verdicts."""

    order: PracticeOrder
    format: str
    draft: str
    admitted: bool  # could a server enforcing `format` have sent this text? (plain: always)
    parsed: Parsed

    @property
    def outcome(self) -> str:
        """The text "ticket", or the check of the first failure (`not_json`, `missing_field`, ...)."""
        return "ticket" if self.parsed.ticket is not None else self.parsed.failures[0].check


def _schema_for(kind: str, schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if kind not in formats.OUTPUT_FORMATS:
        raise ValueError(
            f"Unknown output format {kind!r}; use one of {', '.join(formats.OUTPUT_FORMATS)}."
        )
    return dict(schema or strict_ticket_schema()) if kind in SCHEMA_FORMATS else None


def ask_once(
    client: ChatClient,
    model: str,
    order: PracticeOrder,
    kind: str,
    schema: Mapping[str, Any] | None = None,
) -> Trial:
    """Ask for `order`'s ticket in format `kind` (with `schema`, default the strict ticket schema).

    A refusal of the request is raised as the endpoint's `RequestRejected`; `format_trial` tells
    a refusal of the format from any other.
    """
    sent_schema = _schema_for(kind, schema)
    kwargs: dict[str, Any] = {"model": model, "messages": ticket_messages(order)}
    argument = formats.response_format(kind, sent_schema or {}, TICKET_SCHEMA_NAME)
    if argument is not None:
        kwargs["response_format"] = argument
    completion = chat(client, **kwargs)
    text = (completion.choices[0].message.content or "") if completion.choices else ""
    return Trial(order, kind, text, formats.admits(kind, sent_schema, text), parse_draft(text))


# --- every order, every format ----------------------------------------------------------------


@dataclass(frozen=True)
class FormatTally:
    """What one format did over the practice orders. `refused` holds the endpoint's refusal, if any;
    `failed` the orders whose request met an endpoint problem, each with its kind ("timeout", ...):
    they were never drafted, so they are in no figure below."""

    format: str
    trials: tuple[Trial, ...]
    refused: str | None = None
    failed: tuple[tuple[PracticeOrder, str], ...] = ()

    @property
    def parsed(self) -> int:
        return sum(trial.parsed.ticket is not None for trial in self.trials)

    @property
    def parse_rate(self) -> float | None:
        """Tickets parsed over drafts sent; None when nothing was sent (a refused format)."""
        return round(self.parsed / len(self.trials), 3) if self.trials else None

    @property
    def checks(self) -> Mapping[str, int]:
        """How many drafts failed each check (a draft failing two checks counts under both)."""
        return Counter(
            check for trial in self.trials for check in {f.check for f in trial.parsed.failures}
        )

    @property
    def caught(self) -> int:
        """Drafts the format let out (a server enforcing it could send them) that `parse_draft` failed."""
        return sum(trial.admitted and trial.parsed.ticket is None for trial in self.trials)


def _tally(
    client: ChatClient,
    model: str,
    orders: Sequence[PracticeOrder],
    kind: str,
    schema: Mapping[str, Any] | None,
    on_trial: Callable[[Trial], None] | None,
) -> FormatTally:
    """Every order in one format; an endpoint problem costs its own order, a refusal the format."""
    trials: list[Trial] = []
    failed: list[tuple[PracticeOrder, str]] = []
    for order in orders:
        try:
            trials.append(ask_once(client, model, order, kind, schema))
        except RequestRejected as exc:
            if not formats.about_format(exc):
                raise
            return FormatTally(kind, (), refused=str(exc))
        except EndpointError as exc:
            if exc.kind in SETUP_PROBLEMS:
                raise
            failed.append((order, exc.kind))
            continue
        if on_trial is not None:
            on_trial(trials[-1])
    return FormatTally(kind, tuple(trials), failed=tuple(failed))


def format_trial(
    client: ChatClient,
    model: str,
    orders: Sequence[PracticeOrder] | None = None,
    kinds: Iterable[str] = LESSON_FORMATS,
    *,
    schema: Mapping[str, Any] | None = None,
    on_trial: Callable[[Trial], None] | None = None,
) -> dict[str, FormatTally]:
    """Every order asked for in every format in `kinds`: one `FormatTally` per format, in order.

    When the endpoint refuses a format (a `RequestRejected` about `response_format`), that format's
    tally is `refused` and the trial moves on to the next, after trying the same promise in its
    other spelling (`SAME_PROMISE`) under that spelling's name; any other refusal is raised, since
    a weaker format would not cure it. An order whose request meets any other endpoint problem (a
    timeout, a dropped connection) goes in the tally's `failed` and the trial goes on, so one slow
    draft costs one order; a problem no later request can escape
    (`cafe.endpoint.errors.SETUP_PROBLEMS`: a refused key) is raised, and so is an `EndpointError` when no
    order reached the model in any format. `on_trial` is called after each draft (for progress
    lines).
    """
    orders = practice_orders() if orders is None else tuple(orders)
    if not orders:
        raise ValueError("format_trial needs at least one order; practice_orders() gives ten.")
    tallies: dict[str, FormatTally] = {}
    for kind in kinds:
        tallies[kind] = _tally(client, model, orders, kind, schema, on_trial)
        other = SAME_PROMISE.get(kind)
        if tallies[kind].refused and other is not None and other not in kinds:
            tallies[other] = _tally(client, model, orders, other, schema, on_trial)
    failed = [kind for tally in tallies.values() for _, kind in tally.failed]
    if failed and not any(tally.trials for tally in tallies.values()):
        raise EndpointError(
            f"No order reached {model} in any format: every request met an endpoint problem "
            f"({', '.join(sorted(set(failed)))}). Run `cafe doctor` to check the endpoint.",
            kind=failed[-1],  # type: ignore[arg-type]  # a kind an EndpointError carried
        )
    return tallies
