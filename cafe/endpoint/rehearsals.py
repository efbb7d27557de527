"""Scripts for `cafe serve --session NN`, and how a toy tells it is talking to `cafe serve`.

`cafe serve` with no script answers from `default_responder`: it calls the first tool offered with
the smallest valid arguments, which proves the plumbing and makes a toy's story unreadable
(`look_up(item='')` on every turn). `cafe serve --session 01` answers from a script written for
that session's toy and notebook instead, so a learner rehearsing live mode without a key sees a
story that reads like the offline one, over real HTTP.

`rehearsal_script(client, model)` says which script a `cafe serve` endpoint answers from, read off
its model list (each entry's `owned_by` is `cafe-serve:<label>`), so a toy can say "this is the
rehearsal server's default rule, not a model" without spending a request. Any other endpoint, and
the offline scripted client, give None.

A session adds its script as a responder in `SESSION_SCRIPTS` (code here may import only session
00's modules) or, when a fixed list of replies tells its story, as `cafe/data/serve/sNN.json`.
What it leaves out: sessions without a script fall back to the default rule; a script is a
stand-in that proves the story reads, never a judgement a real model would make. Part of session
00's set-up (sessions/s00-setup/lesson.md); `cafe.cli` adds the flag.
"""

from __future__ import annotations

import functools
import json
import re
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cafe.endpoint.config import OFFLINE_MODEL
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.formats import admits, requested_format
from cafe.endpoint.scripted import Reply, Script, default_responder, minimal_instance

__all__ = ["OWNER_PREFIX", "DEFAULT_LABEL", "SESSION_SCRIPTS", "SCRIPTS_DIR", "session_script", "session_label",
           "waiter_responder", "ticket_responder", "habits_responder", "habit_orders", "lenient_judge_responder",
           "routing_responder", "eager_responder", "gullible_responder", "SHIFT_HABITS", "shift_responder", "by_turn", "rehearsal_script", "default_rehearsal_note"]

# `cafe serve` names itself in each model's `owned_by` field, which OpenAI's model list carries.
OWNER_PREFIX = "cafe-serve:"
# The label of the built-in responder (no --script, no --session).
DEFAULT_LABEL = "default"
# Sessions whose story a fixed list of replies can tell ship it as JSON here, as `sNN.json`: the
# `Script.from_file` format, or {"by_turn": true, "replies": [...]} for a reply chosen by the turn
# (see `by_turn`). A session whose replies must react to the request has a responder below.
SCRIPTS_DIR = Path(__file__).resolve().parent.parent / "data" / "serve"
# The words a customer uses for "how many", as the café's orders spell them.
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_ORDER_LINE = re.compile(r"\b(a|an|one|two|three|four|\d+)\s+([a-z][a-z ]*?)(?=,|\.|!|\?| and |\s+please|$)")


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


def _since_customer(messages: list[Mapping[str, Any]]) -> tuple[str, list[Mapping[str, Any]]]:
    """The customer's last words, and the messages after them."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user" and isinstance(messages[index].get("content"), str):
            return messages[index]["content"], list(messages[index + 1:])
    return "", list(messages)


def _called(messages: list[Mapping[str, Any]]) -> set[str]:
    return {call["function"]["name"] for m in messages if m.get("role") == "assistant"
            for call in m.get("tool_calls") or []}


# --- the session scripts --------------------------------------------------------------------


def waiter_responder(request: dict) -> Reply:
    """A waiter who reads the order: looks each item up (when `look_up` is offered), adds each to
    the ticket (`add_to_ticket` or `add_item`), then says what it wrote. Sessions 00 and 01."""
    offered = {t["function"]["name"]: t["function"] for t in request.get("tools") or []}
    said, since = _since_customer(request.get("messages") or [])
    adder = next((name for name in ("add_to_ticket", "add_item") if name in offered), None)
    if isinstance(request.get("tool_choice"), Mapping) or (adder is None and "look_up" not in offered):
        # a forced call (the doctor's check), or tools this waiter does not know: call one once, then answer
        return "Done." if any(m.get("role") == "tool" for m in since) else default_responder(request)
    lines = _ordered(said)
    if not lines:
        return "What can I get you?"
    called = _called(since)
    if "look_up" in offered and "look_up" not in called and adder not in called:
        return {"content": None, "tool_calls": [{"name": "look_up", "arguments": {"item": item}} for item, _ in lines]}
    if adder is not None and adder not in called:
        takes_quantity = "quantity" in offered[adder].get("parameters", {}).get("properties", {})
        return {"content": None, "tool_calls": [
            {"name": adder, "arguments": {"item": item, **({"quantity": n} if takes_quantity else {})}}
            for item, n in lines]}
    return "On the ticket: " + ", ".join(f"{n} x {item}" for item, n in lines) + "."


# The lines of session 07's brief a ticket is written from ("Order for table 3.", "Items: ...").
_BRIEF_LINE = re.compile(r"^(Order for table|Items:|Declared allergies:|Notes for the kitchen:)\s*(.*?)\.?$", re.M)


def _brief_ticket(brief: str) -> dict[str, Any]:
    """The ticket session 07's brief describes, copied faithfully (86'd items included)."""
    fields = {key: value.strip() for key, value in _BRIEF_LINE.findall(brief)}
    listed = lambda key: [part.strip() for part in fields.get(key, "").split(",")  # noqa: E731
                          if part.strip() and part.strip().lower() not in ("none", "(none)")]
    table = fields.get("Order for table", "")
    return {"table": int(table) if table.isdigit() else 0, "items": listed("Items:"),
            "allergies": listed("Declared allergies:"), "notes": ""}


def _user_texts(request: dict) -> list[str]:
    return [m.get("content") or "" for m in request.get("messages") or [] if m.get("role") == "user"]


def ticket_responder(request: dict) -> Reply:
    """A drafter for session 07's re-ask that behaves like a model which uses feedback: its first
    draft of an order forgets the table; asked again with the identical brief (a naive retry) it
    forgets it again; once a message after the brief says what failed (a curated retry) it writes
    the ticket the brief describes. It copies the brief faithfully, 86'd items included.
    Sessions 07, 08 (recorded and replayed) and 09 (a shift of them)."""
    users = _user_texts(request)
    ticket = _brief_ticket(users[0] if users else "")
    if len(users) < 2:  # no feedback yet: the table goes missing
        del ticket["table"]
    return json.dumps(ticket)


def lenient_judge_responder(request: dict) -> Reply:
    """A judge for session 12's calibration that passes every ticket and, asked to compare two,
    always prefers the first one shown: the two biases a calibration should expose at once."""
    text, _ = _since_customer(request.get("messages", []))
    if "<<ticket_A>>" in text:
        return json.dumps({"better": "A", "reason": "the first one reads well"})
    return json.dumps({"verdict": "pass", "reason": "looks fine to me"})

@functools.lru_cache(maxsize=1)
def habit_orders() -> tuple[Mapping[str, Any], ...]:
    """Session 04's practice orders, each {"table", "words", "drafts"} with every draft as text,
    read once from `SCRIPTS_DIR/s04.json` (an object draft becomes compact JSON)."""
    data = json.loads((SCRIPTS_DIR / "s04.json").read_text(encoding="utf-8"))
    return tuple(types.MappingProxyType({**order, "drafts": tuple(
        draft if isinstance(draft, str) else json.dumps(draft) for draft in order["drafts"])})
        for order in data["orders"])


def _bend(value: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """`value` with each field the schema refuses replaced by the first value it allows, and the
    fields it does not name dropped: what a decoder that may only emit the schema writes."""
    fields = schema.get("properties", {})
    bent = {}
    for name, node in fields.items():
        wanted = value.get(name)
        fits = name in value and admits("json_schema", {"type": "object", "properties": {name: node},
                                                        "required": [name]}, json.dumps({name: wanted}))
        bent[name] = wanted if fits else minimal_instance(node)
    return bent


def habits_responder(request: dict) -> Reply:
    """A waiter with habits, for session 04's formats: for a practice order (matched by the
    customer's words) it sends the first of its drafts the requested `response_format` lets out;
    when none fits a strict schema it bends the last until it does. Other words get a short note
    saying so. Offline, session 04's `cafe.format_trial.waiter_client` answers from this too."""
    said, _ = _since_customer(request.get("messages") or [])
    kind, schema = requested_format(request.get("response_format"))
    order = next((o for o in habit_orders() if o["words"] == said.strip()), None)
    note = {"table": 0, "items": [], "allergies": [], "notes": "not one of session 04's practice orders"}
    drafts = order["drafts"] if order else ("I only know session 04's practice orders.", json.dumps(note))
    for draft in drafts:
        if admits(kind, schema, draft):
            return draft
    return json.dumps(_bend(json.loads(drafts[-1]), schema or {}))


def routing_responder(request: dict) -> Reply:
    """A drafter for session 11's priced runs: `ticket_responder`, tripping on some orders only.
    Its first draft of an order for an even-numbered table forgets the table, and so does every
    naive retry of it; a curated retry fixes it. Orders for odd-numbered tables pass at once, so
    session 11's ten practice orders pass six first drafts in ten."""
    users = _user_texts(request)
    ticket = _brief_ticket(users[0] if users else "")
    if len(users) < 2 and ticket["table"] % 2 == 0:
        del ticket["table"]
    return json.dumps(ticket)


# The trusted menu's lines in session 07's system prompt: name, price, and the 86'd mark.
_MENU_LINE = re.compile(r"^- (.+?) \(\D?(\d+(?:\.\d+)?);[^)]*\)(\s+\[86'd)?", re.M)
# What the customer's words must say for the eager drafter to "help" (session 05's tempting orders).
_TEMPTATIONS = (("birthday", "notes", "Happy birthday! Free refill, on the house."),
                ("starving", "items", "croissant"), ("two of us", "double", ""))
_AVOIDS = re.compile(r"\bavoid\s+([a-z]+)")


def _swap_86d(items: list[str], system: str) -> list[str]:
    """Each 86'd item swapped for the available item closest in price: what a helpful model does."""
    menu = {name: (float(price), bool(out)) for name, price, out in _MENU_LINE.findall(system)}
    swapped = []
    for item in items:
        price, out = menu.get(item, (0.0, False))
        open_now = [name for name, (_, gone) in menu.items() if not gone and name not in items]
        swapped.append(min(open_now, key=lambda name: abs(menu[name][0] - price)) if out and open_now else item)
    return swapped


def eager_responder(request: dict) -> Reply:
    """A drafter for session 05 that is too helpful. On a first draft (or when told an item is
    86'd) it swaps each 86'd item for the nearest-priced one on the menu; on a first draft it also
    acts on the customer's words: a birthday earns a free refill in the notes, "starving" an added
    croissant, "the two of us" doubled items, "I avoid gluten" an allergy nobody declared. Told
    what failed in any other way, it writes the ticket the brief describes."""
    messages = request.get("messages") or []
    system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
    users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
    fields = {key: value.strip() for key, value in _BRIEF_LINE.findall(users[0] if users else "")}
    listed = lambda key: [part.strip() for part in fields.get(key, "").split(",")  # noqa: E731
                          if part.strip() and part.strip().lower() not in ("none", "(none)")]
    table = fields.get("Order for table", "")
    ticket = {"table": int(table) if table.isdigit() else 0, "items": listed("Items:"),
              "allergies": listed("Declared allergies:"), "notes": ", ".join(listed("Notes for the kitchen:"))}
    feedback = "\n".join(users[1:])
    if not feedback or "86'd" in feedback:
        ticket["items"] = _swap_86d(ticket["items"], system)
    if not feedback:
        words = (users[0].split("<<customer_words>>")[-1] if users else "").casefold()
        for cue, field, value in _TEMPTATIONS:
            if cue in words:
                ticket.update({"notes": value} if field == "notes" else
                              {"items": ticket["items"] * 2} if field == "double" else
                              {"items": ticket["items"] + [value]})
        ticket["allergies"] += [word for word in _AVOIDS.findall(words) if word not in ticket["allergies"]]
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
    users = [m.get("content") or "" for m in request.get("messages") or [] if m.get("role") == "user"]
    brief = users[0] if users else ""
    if "Order for table" not in brief:  # not a brief: the notebook's screening question, say
        return "ORDER"
    fields = {key: value.strip() for key, value in _BRIEF_LINE.findall(brief)}
    items = [part.strip() for part in fields.get("Items:", "").split(",") if part.strip()]
    words = _CUSTOMER_LINE.search(brief)
    for count, item in _ASKED.findall(_MARKS.sub(" ", words.group(1)).casefold() if words else ""):
        items += [item] * max(_COUNTS[count] - items.count(item), 0)
    table = fields.get("Order for table", "")
    return json.dumps({"table": int(table) if table.isdigit() else 0, "items": items, "allergies": [], "notes": ""})


# Session 10's practice shift: how the drafter writes each table's ticket. A table not listed here
# gets "careful", the ticket its brief describes. Chosen so the shift holds a known mix of failure
# modes; `cafe.practice_shift` lists the orders and the class each one was built to land in.
#   slips_once        leaves out the table until a retry's failure view names it
#   allergy_in_notes  writes the declared allergy into the notes, never into allergies, whatever it is told
#   scattered         a different slip on each attempt: prose, then an extra espresso, then no table
#   server_error      the endpoint fails (HTTP 503) instead of answering
SHIFT_HABITS: Mapping[int, str] = types.MappingProxyType({
    9: "slips_once", 11: "slips_once", 12: "slips_once",
    6: "allergy_in_notes", 10: "allergy_in_notes", 15: "allergy_in_notes",
    17: "scattered", 18: "scattered",
    22: "server_error",
})
# A failure view's attempt line ("Attempt 2 failed 1 check:") and its failure lines
# ("- sold_out: 'cheese omelette'. Fix: ..."), as `cafe.repair.failure_view` writes them.
_FAILED_ATTEMPT = re.compile(r"^Attempt (\d+) failed", re.M)
_VIEW_LINE = re.compile(r"^- (\w+): '([^'\n]*)'", re.M)


def _shift_brief(brief: str) -> dict[str, Any] | None:
    """The ticket a session 07 brief describes, or None when the text is not such a brief."""
    fields = {key: value.strip() for key, value in _BRIEF_LINE.findall(brief)}
    table = fields.get("Order for table", "")
    if not table.isdigit():
        return None
    listed = lambda key: [part.strip() for part in fields.get(key, "").split(",")  # noqa: E731
                          if part.strip() and part.strip().lower() not in ("none", "(none)")]
    return {"table": int(table), "items": listed("Items:"), "allergies": listed("Declared allergies:"), "notes": ""}


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
    users = [m.get("content") or "" for m in request.get("messages") or [] if m.get("role") == "user"]
    ticket = _shift_brief(users[0]) if users else None
    if ticket is None:
        return default_responder(request)
    view = "\n".join(users[1:])
    attempt = 1 + max((int(n) for n in _FAILED_ATTEMPT.findall(view)), default=0)
    habit = SHIFT_HABITS.get(ticket["table"], "careful")
    if habit == "server_error":
        raise EndpointError(f"HTTP 503 from the model endpoint (scripted: table {ticket['table']}'s habit in "
                            "session 10's practice shift)",
                            status=503, kind="http_error")
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


# Session number -> the responder `cafe serve --session NN` answers from. Read-only.
SESSION_SCRIPTS: Mapping[str, Callable[[dict], Reply]] = types.MappingProxyType({
    "00": waiter_responder,
    "01": waiter_responder,
    "04": habits_responder,
    "05": eager_responder,
    "06": gullible_responder,
    "07": ticket_responder,
    "08": ticket_responder,  # session 08 records and replays session 07's re-ask
    "09": ticket_responder,  # session 09's shift: the same drafter, over twenty orders
    "10": shift_responder,
    "11": routing_responder,
    "12": lenient_judge_responder,
})


def _number(session: str) -> str:
    digits = str(session).strip().lower().removeprefix("s")
    if not digits.isdigit():
        raise ValueError(f"--session takes a session number like 01, not {session!r}.")
    return f"{int(digits):02d}"


def session_label(session: str) -> str:
    """The label `cafe serve --session` shows in its model list, e.g. "session-01"."""
    return f"session-{_number(session)}"


def by_turn(replies: list[Reply]) -> Callable[[dict], Reply]:
    """A responder answering turn N of a conversation with `replies[N - 1]` (the last one after
    that), N counted from the assistant messages already in the request. Unlike a queue, every
    run starts at the first reply, however many runs or `cafe doctor` checks came before."""
    if not replies:
        raise ValueError("by_turn needs at least one reply.")

    def responder(request: dict) -> Reply:
        turn = sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant")
        return replies[min(turn, len(replies) - 1)]

    return responder


def _from_file(path: Path) -> Script:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and data.get("by_turn"):
        return Script(by_turn(list(data["replies"])), models=data.get("models", [OFFLINE_MODEL]))
    return Script.from_file(path)


def _available(folder: Path) -> list[str]:
    files = {path.stem.removeprefix("s") for path in folder.glob("s[0-9][0-9].json")} if folder.is_dir() else set()
    return sorted(set(SESSION_SCRIPTS) | files)


def session_script(session: str, *, folder: Path = SCRIPTS_DIR) -> Script:
    """The `Script` for `cafe serve --session NN`: a responder in `SESSION_SCRIPTS`, else the file
    `folder/sNN.json`; ValueError naming the sessions that have one."""
    number = _number(session)
    if number in SESSION_SCRIPTS:
        return Script(SESSION_SCRIPTS[number], models=(OFFLINE_MODEL,))
    path = folder / f"s{number}.json"
    if path.is_file():
        return _from_file(path)
    raise ValueError(f"No rehearsal script for session {number}; there are scripts for sessions "
                     f"{', '.join(_available(folder))}. Without --session, the default rule answers.")


# --- telling a toy where its replies come from ------------------------------------------------


def rehearsal_script(client: Any, model: str) -> str | None:
    """The label of the script a `cafe serve` endpoint answers `model` from ("default",
    "session-01", "script"); None for any other endpoint or the offline client. Asks the model
    list only, so it spends no scripted reply; an endpoint that cannot list models gives None."""
    try:
        listed = client.models.list()
    except Exception:  # not ours to diagnose here: the toy's own request will say what is wrong
        return None
    for entry in getattr(listed, "data", []):
        owner = getattr(entry, "owned_by", "") or ""
        if getattr(entry, "id", None) == model and owner.startswith(OWNER_PREFIX):
            return owner[len(OWNER_PREFIX):]
    return None


def default_rehearsal_note(session: str) -> str:
    """What a toy prints when `cafe serve`'s default rule answered it, in plain words."""
    number = _number(session)
    return ("This is cafe serve's default rule, not a model: it calls the first tool offered with the "
            "smallest valid arguments (an empty item, a zero), so the story does not read. "
            + (f"Restart it with `cafe serve --session {number}` for replies written for this toy."
               if number in _available(SCRIPTS_DIR) else "Start it with --script FILE to choose its replies."))
