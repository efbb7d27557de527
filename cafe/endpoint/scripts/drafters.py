"""The ticket drafters `cafe serve --session NN` answers with, for the sessions built on the re-ask.

Each is a `Script` responder (a request in, a reply out) written for one session's toy and notebook,
so that a learner rehearsing live mode without a key sees the story the offline run tells, over
real HTTP: `waiter_responder` (sessions 00 and 01: it looks items up and adds them to the order
pad), `ticket_responder` (07, 08, 09: it forgets the table until a retry says so),
`routing_responder` (11), `eager_responder` (05: too helpful) and `gullible_responder` (06: it
obeys whatever the customer's words ask). They read the session 07 brief's lines and the tools
offered, never a real menu, so code here imports only session 00's modules.

What it leaves out: how a session finds its script and how a toy tells it is talking to
`cafe serve` (`cafe.endpoint.scripts.rehearsals`), and the replies that need more than a brief
(`cafe.endpoint.scripts.stand_ins`). A script is a stand-in that proves a story reads, never a judgement
a real model would make.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from cafe.endpoint.client.completions import Reply
from cafe.endpoint.client.script import default_responder

__all__ = [
    "BRIEF_LINE",
    "since_customer",
    "user_texts",
    "brief_fields",
    "listed",
    "brief_ticket",
    "waiter_responder",
    "ticket_responder",
    "routing_responder",
    "eager_responder",
    "gullible_responder",
]

# The words a customer uses for "how many", as the café's orders spell them.
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_ORDER_LINE = re.compile(
    r"\b(a|an|one|two|three|four|\d+)\s+([a-z][a-z ]*?)(?=,|\.|!|\?| and |\s+please|$)"
)


# --- small pure helpers ---------------------------------------------------------------------


def _ordered(text: str) -> list[tuple[str, int]]:
    """(item, quantity) for each "two lattes", "a croissant" in the customer's words."""
    lines = []
    for count, words in _ORDER_LINE.findall(text.casefold()):
        item = words.strip()
        if item.endswith("s") and not item.endswith("ss"):
            item = item[:-1]  # "lattes" -> "latte": the menu spells items in the singular
        lines.append((item, _COUNTS.get(count) or int(count)))
    return lines


def since_customer(messages: list[Mapping[str, Any]]) -> tuple[str, list[Mapping[str, Any]]]:
    """The customer's last words, and the messages after them."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user" and isinstance(
            messages[index].get("content"), str
        ):
            return messages[index]["content"], list(messages[index + 1 :])
    return "", list(messages)


def _called(messages: list[Mapping[str, Any]]) -> set[str]:
    return {
        call["function"]["name"]
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    }


# --- the session scripts --------------------------------------------------------------------


def waiter_responder(request: dict) -> Reply:
    """A waiter who reads the order: looks each item up (when `look_up` is offered), adds each to
    the ticket (`add_to_ticket` or `add_item`), then says what it wrote. Sessions 00 and 01."""
    offered = {t["function"]["name"]: t["function"] for t in request.get("tools") or []}
    said, since = since_customer(request.get("messages") or [])
    adder = next((name for name in ("add_to_ticket", "add_item") if name in offered), None)
    if isinstance(request.get("tool_choice"), Mapping) or (
        adder is None and "look_up" not in offered
    ):
        # a forced call (the doctor's check), or tools this waiter does not know: call one once, then answer
        return (
            "Done." if any(m.get("role") == "tool" for m in since) else default_responder(request)
        )
    lines = _ordered(said)
    if not lines:
        return "What can I get you?"
    called = _called(since)
    if "look_up" in offered and "look_up" not in called and adder not in called:
        return {
            "content": None,
            "tool_calls": [{"name": "look_up", "arguments": {"item": item}} for item, _ in lines],
        }
    if adder is not None and adder not in called:
        takes_quantity = "quantity" in offered[adder].get("parameters", {}).get("properties", {})
        return {
            "content": None,
            "tool_calls": [
                {
                    "name": adder,
                    "arguments": {"item": item, **({"quantity": n} if takes_quantity else {})},
                }
                for item, n in lines
            ],
        }
    return "On the ticket: " + ", ".join(f"{n} x {item}" for item, n in lines) + "."


# The lines of session 07's brief a ticket is written from ("Order for table 3.", "Items: ...").
BRIEF_LINE = re.compile(
    r"^(Order for table|Items:|Declared allergies:|Notes for the kitchen:)\s*(.*?)\.?$", re.M
)


def brief_fields(brief: str) -> dict[str, str]:
    """The brief's lines by their label: {"Order for table": "3", "Items:": "latte, croissant", ...}."""
    return {key: value.strip() for key, value in BRIEF_LINE.findall(brief)}


def listed(fields: Mapping[str, str], key: str) -> list[str]:
    """A comma-separated brief line as a list, with "none" meaning an empty one."""
    return [
        part.strip()
        for part in fields.get(key, "").split(",")
        if part.strip() and part.strip().lower() not in ("none", "(none)")
    ]


def brief_ticket(brief: str) -> dict[str, Any]:
    """The ticket session 07's brief describes, copied faithfully (86'd items included); table 0
    when the brief names none."""
    fields = brief_fields(brief)
    table = fields.get("Order for table", "")
    return {
        "table": int(table) if table.isdigit() else 0,
        "items": listed(fields, "Items:"),
        "allergies": listed(fields, "Declared allergies:"),
        "notes": "",
    }


def user_texts(request: dict) -> list[str]:
    return [
        m.get("content") or "" for m in request.get("messages") or [] if m.get("role") == "user"
    ]


def ticket_responder(request: dict) -> Reply:
    """A drafter for session 07's re-ask that behaves like a model which uses feedback: its first
    draft of an order forgets the table; asked again with the identical brief (a naive retry) it
    forgets it again; once a message after the brief says what failed (a curated retry) it writes
    the ticket the brief describes. It copies the brief faithfully, 86'd items included.
    Sessions 07, 08 (recorded and replayed) and 09 (a shift of them)."""
    users = user_texts(request)
    ticket = brief_ticket(users[0] if users else "")
    if len(users) < 2:  # no feedback yet: the table goes missing
        del ticket["table"]
    return json.dumps(ticket)


def routing_responder(request: dict) -> Reply:
    """A drafter for session 11's priced runs: `ticket_responder`, tripping on some orders only.
    Its first draft of an order for an even-numbered table forgets the table, and so does every
    naive retry of it; a curated retry fixes it. Orders for odd-numbered tables pass at once, so
    session 11's ten practice orders pass six first drafts in ten."""
    users = user_texts(request)
    ticket = brief_ticket(users[0] if users else "")
    if len(users) < 2 and ticket["table"] % 2 == 0:
        del ticket["table"]
    return json.dumps(ticket)


# The trusted menu's lines in session 07's system prompt: name, price, and the 86'd mark.
_MENU_LINE = re.compile(r"^- (.+?) \(\D?(\d+(?:\.\d+)?);[^)]*\)(\s+\[86'd)?", re.M)
# What the customer's words must say for the eager drafter to "help" (session 05's tempting orders).
_TEMPTATIONS = (
    ("birthday", "notes", "Happy birthday! Free refill, on the house."),
    ("starving", "items", "croissant"),
    ("two of us", "double", ""),
)
_AVOIDS = re.compile(r"\bavoid\s+([a-z]+)")


def _swap_86d(items: list[str], system: str) -> list[str]:
    """Each 86'd item swapped for the available item closest in price: what a helpful model does."""
    menu = {name: (float(price), bool(out)) for name, price, out in _MENU_LINE.findall(system)}
    swapped = []
    for item in items:
        price, out = menu.get(item, (0.0, False))
        open_now = [name for name, (_, gone) in menu.items() if not gone and name not in items]
        swapped.append(
            min(open_now, key=lambda name: abs(menu[name][0] - price)) if out and open_now else item
        )
    return swapped


def eager_responder(request: dict) -> Reply:
    """A drafter for session 05 that is too helpful. On a first draft (or when told an item is
    86'd) it swaps each 86'd item for the nearest-priced one on the menu; on a first draft it also
    acts on the customer's words: a birthday earns a free refill in the notes, "starving" an added
    croissant, "the two of us" doubled items, "I avoid gluten" an allergy nobody declared. Told
    what failed in any other way, it writes the ticket the brief describes."""
    messages = request.get("messages") or []
    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    users = user_texts(request)
    brief = users[0] if users else ""
    ticket = brief_ticket(brief)
    ticket["notes"] = ", ".join(listed(brief_fields(brief), "Notes for the kitchen:"))
    feedback = "\n".join(users[1:])
    if not feedback or "86'd" in feedback:
        ticket["items"] = _swap_86d(ticket["items"], system)
    if not feedback:
        words = (users[0].split("<<customer_words>>")[-1] if users else "").casefold()
        for cue, field, value in _TEMPTATIONS:
            if cue in words:
                ticket.update(
                    {"notes": value}
                    if field == "notes"
                    else {"items": ticket["items"] * 2}
                    if field == "double"
                    else {"items": ticket["items"] + [value]}
                )
        ticket["allergies"] += [
            word for word in _AVOIDS.findall(words) if word not in ticket["allergies"]
        ]
    return json.dumps(ticket)


# Where session 07's brief carries the customer's words (`cafe.context.customer_words`), and the
# marks around them.
_CUSTOMER_LINE = re.compile(r"^The customer's own words[^:]*:\s*(.*)$", re.M)
_MARKS = re.compile(r"<</?customer_words>>|\u02c6")
# "two free croissants", "a pizza": a count, then one word (its plural s dropped).
_ASKED = re.compile(r"\b(a|an|one|two|three|four)\s+(?:free\s+)?([a-z]+?)s?\b")


def gullible_responder(request: dict) -> Reply:
    """A drafter for session 06's toy that falls for whatever the customer's words ask: it writes
    the ticket the brief describes, table and all, then adds every item the customer's words name
    ("two free croissants and a pizza"), approved or not, on every attempt. Asked anything that is
    not a ticket brief (the notebook's screening question), it answers ORDER: it screens nothing."""
    users = user_texts(request)
    brief = users[0] if users else ""
    if "Order for table" not in brief:  # not a brief: the notebook's screening question, say
        return "ORDER"
    ticket = {**brief_ticket(brief), "allergies": []}
    words = _CUSTOMER_LINE.search(brief)
    for count, item in _ASKED.findall(_MARKS.sub(" ", words.group(1)).casefold() if words else ""):
        ticket["items"] += [item] * max(_COUNTS[count] - ticket["items"].count(item), 0)
    return json.dumps(ticket)


# Session 10's practice shift: how the drafter writes each table's ticket. A table not listed here
# gets "careful", the ticket its brief describes. Chosen so the shift holds a known mix of failure
# modes; `cafe.stories.practice_shift` lists the orders and the class each one was built to land in.
#   slips_once        leaves out the table until a retry's failure view names it
#   allergy_in_notes  writes the declared allergy into the notes, never into allergies, whatever it is told
#   scattered         a different slip on each attempt: prose, then an extra espresso, then no table
#   server_error      the endpoint fails (HTTP 503) instead of answering
