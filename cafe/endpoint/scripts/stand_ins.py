"""The replies `cafe serve --session NN` gives where a brief is not enough: formats, shifts, judges.

- `habits_responder` (session 04): a waiter with habits that sends the first of its drafts the
  requested `response_format` lets out, from `cafe/data/serve/s04.json` (`habit_orders`);
- `shift_responder` (session 10): the drafter of the practice shift, each table with the habit
  `SHIFT_HABITS` gives it, one of them an endpoint that fails;
- `lenient_judge_responder` (session 12): a judge that passes every ticket and prefers whichever
  of two it was shown first.

Like `cafe.endpoint.scripts.drafters`, code here imports only session 00's modules; `cafe.endpoint.
rehearsals` maps each session to its script. A stand-in proves a story reads over HTTP; it is
never a judgement a real model would make.
"""

from __future__ import annotations

import functools
import json
import re
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cafe.endpoint.client.completions import Reply
from cafe.endpoint.client.formats import admits, requested_format
from cafe.endpoint.client.script import default_responder, minimal_instance
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.scripts.drafters import brief_fields, brief_ticket, since_customer, user_texts

__all__ = [
    "SCRIPTS_DIR",
    "habit_orders",
    "habits_responder",
    "SHIFT_HABITS",
    "shift_responder",
    "lenient_judge_responder",
]

# Sessions whose story a fixed list of replies can tell ship it as JSON here, as `sNN.json`: the
# `Script.from_file` format, or {"by_turn": true, "replies": [...]} for a reply chosen by the turn
# (see `cafe.endpoint.scripts.rehearsals.by_turn`). Session 04's habits live here too.
SCRIPTS_DIR = Path(__file__).resolve().parents[2] / "data" / "serve"

SHIFT_HABITS: Mapping[int, str] = types.MappingProxyType(
    {
        9: "slips_once",
        11: "slips_once",
        12: "slips_once",
        6: "allergy_in_notes",
        10: "allergy_in_notes",
        15: "allergy_in_notes",
        17: "scattered",
        18: "scattered",
        22: "server_error",
    }
)
# A failure view's attempt line ("Attempt 2 failed 1 check:") and its failure lines
# ("- sold_out: 'cheese omelette'. Fix: ..."), as `cafe.repair.failure_view` writes them.
_FAILED_ATTEMPT = re.compile(r"^Attempt (\d+) failed", re.M)
_VIEW_LINE = re.compile(r"^- (\w+): '([^'\n]*)'", re.M)


def _shift_brief(brief: str) -> dict[str, Any] | None:
    """The ticket a session 07 brief describes, or None when the text is not such a brief."""
    return brief_ticket(brief) if brief_fields(brief).get("Order for table", "").isdigit() else None


def _follow_view(ticket: dict[str, Any], view: str) -> None:
    """Drop every item the last failure view calls 86'd. The ticket starts from the brief each
    time, so an item a view said was missing is written again: a retry is only ever shown the
    last view, and one fix can undo the one before it."""
    named = _VIEW_LINE.findall(view)
    dropped = {span for check, span in named if check == "sold_out"}
    ticket["items"] = [item for item in ticket["items"] if item not in dropped]


def shift_responder(request: dict) -> Reply:
    """The drafter of session 10's practice shift: it writes the ticket its brief describes, reads
    the last failure view literally (see `_follow_view`), and has the habit `SHIFT_HABITS` gives
    the order's table. Stateless: the attempt number comes from the view ("Attempt 2 failed"), so
    a shift run twice drafts the same tickets. A request that is not a brief gets the default rule."""
    users = user_texts(request)
    ticket = _shift_brief(users[0]) if users else None
    if ticket is None:
        return default_responder(request)
    view = "\n".join(users[1:])
    attempt = 1 + max((int(n) for n in _FAILED_ATTEMPT.findall(view)), default=0)
    habit = SHIFT_HABITS.get(ticket["table"], "careful")
    if habit == "server_error":
        raise EndpointError(
            f"HTTP 503 from the model endpoint (scripted: table {ticket['table']}'s habit in "
            "session 10's practice shift)",
            status=503,
            kind="http_error",
        )
    _follow_view(ticket, view)
    if habit == "slips_once" and attempt == 1:
        del ticket["table"]
    elif habit == "allergy_in_notes":
        ticket["notes"] = "allergy: " + ", ".join(ticket["allergies"])
        ticket["allergies"] = []
    elif habit == "scattered":
        slip = (attempt - 1) % 3
        if slip == 0:
            return f"Sure! Table {ticket['table']} would like {' and '.join(ticket['items'])}."
        if slip == 1:
            ticket["items"].append("espresso")
        else:
            del ticket["table"]
    return json.dumps(ticket)


@functools.lru_cache(maxsize=1)
def habit_orders() -> tuple[Mapping[str, Any], ...]:
    """Session 04's practice orders, each {"table", "words", "drafts"} with every draft as text,
    read once from `SCRIPTS_DIR/s04.json` (an object draft becomes compact JSON)."""
    data = json.loads((SCRIPTS_DIR / "s04.json").read_text(encoding="utf-8"))
    return tuple(
        types.MappingProxyType(
            {
                **order,
                "drafts": tuple(
                    draft if isinstance(draft, str) else json.dumps(draft)
                    for draft in order["drafts"]
                ),
            }
        )
        for order in data["orders"]
    )


def _bend(value: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """`value` with each field the schema refuses replaced by the first value it allows, and the
    fields it does not name dropped: what a decoder that may only emit the schema writes."""
    fields = schema.get("properties", {})
    bent = {}
    for name, node in fields.items():
        wanted = value.get(name)
        fits = name in value and admits(
            "json_schema",
            {"type": "object", "properties": {name: node}, "required": [name]},
            json.dumps({name: wanted}),
        )
        bent[name] = wanted if fits else minimal_instance(node)
    return bent


def habits_responder(request: dict) -> Reply:
    """A waiter with habits, for session 04's formats: for a practice order (matched by the
    customer's words) it sends the first of its drafts the requested `response_format` lets out;
    when none fits a strict schema it bends the last until it does. Other words get a short note
    saying so. Offline, session 04's `cafe.schema.trials.waiter_client` answers from this too."""
    said, _ = since_customer(request.get("messages") or [])
    kind, schema = requested_format(request.get("response_format"))
    order = next((o for o in habit_orders() if o["words"] == said.strip()), None)
    note = {
        "table": 0,
        "items": [],
        "allergies": [],
        "notes": "not one of session 04's practice orders",
    }
    drafts = (
        order["drafts"]
        if order
        else ("I only know session 04's practice orders.", json.dumps(note))
    )
    for draft in drafts:
        if admits(kind, schema, draft):
            return draft
    return json.dumps(_bend(json.loads(drafts[-1]), schema or {}))


def lenient_judge_responder(request: dict) -> Reply:
    """A judge for session 12's calibration that passes every ticket and, asked to compare two,
    always prefers the first one shown: the two biases a calibration should expose at once."""
    text, _ = since_customer(request.get("messages", []))
    if "<<ticket_A>>" in text:
        return json.dumps({"better": "A", "reason": "the first one reads well"})
    return json.dumps({"verdict": "pass", "reason": "looks fine to me"})
