"""Session 00's your-turn checkers: reading a tool call's arguments, and scripting a model.

The notebook's first exercise asks for `tool_arguments(message)`, the first tool call's arguments
as a dict; the second for a responder, the function a `Script` calls with each request to choose
the scripted model's reply. Both are tried on the scripted client the course runs offline
(`cafe.endpoint.client.scripted.ScriptedClient`), so they check the same in both modes.

- `check_tool_arguments(fn)` hands `fn` replies the way the SDK delivers them: one call, two calls
  (the first one counts), words beside a call, a call with no arguments, JSON's `true` and `null`,
  and a reply in words (`{}`); then beside `reference_tool_arguments` on generated replies, each
  from a new client (so call ids repeat) and words with `tool_calls=[]` as vLLM sends them. Every
  input shape the exercise names is generated: "words" include text that is itself JSON (an
  object, one inside prose, a list, a string, a number), since a message that calls no tool has
  no arguments (`{}`) whatever its text says.
- `check_responder(fn)` sends orders the notebook never shows ("An americano", a second order after
  the waiter's question) and requests with no tools, so a responder must read the customer's last
  message, and answer in words whenever no tool is on offer; then generated orders with the tools
  in every shape (absent, None, [], add_item first or after remove_item). Every order has the one
  shape the notebook states, "A croissant, please." ("An" before a vowel): an opening it never
  names ("One", "The") is not asked for. A reply the scripted model cannot send (None, a number,
  a dict with other keys) is a problem named as such.

`reference_tool_arguments` and `reference_responder` are one answer each.
Notebook: notebooks/s00-setup.ipynb.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from cafe.endpoint.client.chat import chat
from cafe.endpoint.client.completions import Reply, normalize_reply
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.settings.config import OFFLINE_MODEL
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    mismatch,
    shown,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.reference_s00 import ADD_ITEM, REMOVE_ITEM, replies, requests

__all__ = [
    "ADD_ITEM",
    "REMOVE_ITEM",
    "check_tool_arguments",
    "check_responder",
    "reference_tool_arguments",
    "reference_responder",
]

_SYSTEM = {"role": "system", "content": "You take orders at a small café."}


def _ask(client: ChatClient, said: str, tools: list[dict] | None) -> Any:
    messages = [_SYSTEM, {"role": "user", "content": said}]
    return chat(
        client, model=OFFLINE_MODEL, messages=messages, **({"tools": tools} if tools else {})
    )


def _add(*arguments: Any) -> list[dict]:
    return [{"name": "add_item", "arguments": args} for args in arguments]


# --- tool_arguments ---------------------------------------------------------------------------

# (case, the scripted reply, the dict tool_arguments must return, the idea the case tests)
_ARGUMENT_CASES: tuple[tuple[str, Reply, dict, str], ...] = (
    (
        "one call",
        {"tool_calls": _add({"item": "latte", "size": "large"})},
        {"item": "latte", "size": "large"},
        "every argument of the call, as a dict",
    ),
    (
        "a reply in words",
        "We are out of oat milk today.",
        {},
        "no tool call means no arguments: an empty dict (tool_calls is None then)",
    ),
    (
        "a call using JSON's true and null",
        {"tool_calls": _add({"item": "flat white", "shots": 2, "iced": True, "note": None})},
        {"item": "flat white", "shots": 2, "iced": True, "note": None},
        "the arguments are a JSON string: parse them as JSON, whatever the order holds",
    ),
    (
        "two calls",
        {"tool_calls": _add({"item": "scone", "warm": True}, {"item": "latte"})},
        {"item": "scone", "warm": True},
        "the first call's arguments, on their own",
    ),
    (
        "words beside a call",
        {"content": "Adding a mocha for you.", "tool_calls": _add({"item": "mocha"})},
        {"item": "mocha"},
        "a reply may hold text and a tool call: the call still counts",
    ),
    (
        "a call with no arguments",
        {"tool_calls": [{"name": "add_item", "arguments": "{}"}]},
        {},
        "an empty arguments object is an empty dict",
    ),
)


def check_tool_arguments(fn: Callable[[Any], dict]) -> list[str]:
    """Problems with a learner's `tool_arguments`, tried on six replies as the SDK delivers them."""
    client = ScriptedClient([reply for _, reply, _, _ in _ARGUMENT_CASES])
    problems = []
    for case, _, wanted, idea in _ARGUMENT_CASES:
        got = call(fn, _ask(client, "?", [ADD_ITEM]).choices[0].message)
        if isinstance(got, Raised):
            problems.append(got.problem(case))
        elif not isinstance(got, dict):
            problems.append(wrong_type(case, got, f"a dict, such as {shown(wanted)}"))
        elif got != wanted:
            problems.append(mismatch(case, got, wanted, idea))
    found = None if problems else _generated_arguments(fn)
    return [*problems, found] if found else problems


def _delivered(reply: Reply, empty_list: bool) -> Any:
    """The message a fresh scripted client delivers for `reply` (its first call's id is always
    `call_1_0`); with `empty_list`, a reply in words carries `tool_calls=[]`, as vLLM sends one."""
    client = ScriptedClient([reply])
    message = chat(client, model=OFFLINE_MODEL, messages=[_SYSTEM]).choices[0].message
    if empty_list and not message.tool_calls:
        return message.model_copy(update={"tool_calls": []})
    return message


def _generated_arguments(fn: Callable[[Any], dict]) -> str | None:
    """The learner's function beside the reference on generated replies, each from a new client."""
    found = first_difference(
        lambda given: fn(_delivered(*given)),
        lambda given: reference_tool_arguments(_delivered(*given)),
        built_once(replies),
        idea="the first call's arguments, parsed from this message alone, or {} when it calls no "
        "tool (tool_calls None, or [] as some servers send), even when its text is JSON; whatever "
        "messages came before",
        frozen=True,
        examples=200,
    )
    if found is None:
        return None
    reply, empty_list = found.given
    if isinstance(reply, str):
        said = f"a reply in words, {reply!r} (tool_calls {'[]' if empty_list else 'None'})"
    else:
        calls = "; ".join(f"{c['name']} {c['arguments']}" for c in reply["tool_calls"])
        said = f"{calls} (first call's id call_1_0, as from any new client)"
    return counterexample(Described(said), found.returned, found.expected, found.idea)


def reference_tool_arguments(message: Any) -> dict:
    """The first tool call's arguments as a dict; {} when the message has no tool call."""
    if not message.tool_calls:
        return {}
    found: dict = json.loads(message.tool_calls[0].function.arguments)
    return found


# --- responder --------------------------------------------------------------------------------

# (what the customer said, in order, and the item the responder must put on the order). Every
# order has the notebook's shape, "A croissant, please."; "An" is the same article before a vowel.
_ORDERS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("A latte, please.",), "latte", "send the item the customer named"),
    (("A croissant, please.",), "croissant", "send the item the customer named"),
    (("A flat white, please.",), "flat white", "an item can be more than one word"),
    (("An americano, please.",), "americano", "'An' starts an order as 'A' does, before a vowel"),
    (("A banana bread, please.",), "banana bread", "read the item from the words"),
    (
        ("A latte, please.", "A cinnamon bun, please."),
        "cinnamon bun",
        "read the customer's LAST message, not the first",
    ),
)
# Requests with no tool on offer: the responder must answer in words.
_NO_TOOLS = ("Thank you!", "A latte, please.")
_REPLY_SHAPE = "text, or a dict like {'tool_calls': [{'name': 'add_item', 'arguments': {...}}]}"


def _conversation(said: tuple[str, ...]) -> list[dict]:
    messages: list[dict] = [_SYSTEM]
    for number, words in enumerate(said):
        if number:
            messages.append({"role": "assistant", "content": "Anything else?"})
        messages.append({"role": "user", "content": words})
    return messages


def _reply_of(responder: Callable[[dict], Any], said: tuple[str, ...], tools: bool) -> Any:
    """(what the responder returned, the message the scripted model sent with it as its script),
    or a problem string when the responder raised or returned what no scripted reply can be."""
    case = f"for {said[-1]!r}" + ("" if tools else " with no tools offered")
    seen: list[Any] = []

    def script(request: dict) -> Any:
        seen.append(call(responder, request))
        try:
            normalize_reply(seen[-1])
        except (TypeError, ValueError):
            return "?"
        return seen[-1]

    extra = {"tools": [ADD_ITEM]} if tools else {}
    messages = _conversation(said)
    reply = chat(ScriptedClient(script), model=OFFLINE_MODEL, messages=messages, **extra)
    if isinstance(seen[0], Raised):
        return seen[0].problem(case)
    try:
        normalize_reply(seen[0])
    except (TypeError, ValueError):
        return wrong_type(case, seen[0], _REPLY_SHAPE)
    return seen[0], reply.choices[0].message


def _sent_item(message: Any) -> Any:
    """The `item` argument of the message's first call (the arguments text when it is not JSON)."""
    try:
        arguments = json.loads(message.tool_calls[0].function.arguments or "{}")
    except ValueError:
        return message.tool_calls[0].function.arguments
    return arguments.get("item") if isinstance(arguments, dict) else arguments


def _order_problem(
    responder: Callable[[dict], Any], said: tuple[str, ...], item: str, idea: str
) -> str | None:
    answer = _reply_of(responder, said, tools=True)
    if isinstance(answer, str):
        return answer
    returned, message = answer
    calls = message.tool_calls or []
    sent = _sent_item(message) if calls and calls[0].function.name == "add_item" else None
    if isinstance(sent, str) and sent.strip().casefold() == item:
        return None
    wanted = Described(f"an add_item call with item {item!r}")
    return mismatch(f"for {said[-1]!r}", returned, wanted, idea)


def check_responder(responder: Callable[[dict], Any]) -> list[str]:
    """Problems with a learner's responder: it must put the item the customer names in their last
    message on the order, and answer in words whenever the request offers no tools."""
    problems = []
    for said, item, idea in _ORDERS:
        problem = _order_problem(responder, said, item, idea)
        if problem:
            problems.append(problem)
    for words in _NO_TOOLS:
        answer = _reply_of(responder, (words,), tools=False)
        if isinstance(answer, str):
            problems.append(answer)
            continue
        returned, message = answer
        if message.tool_calls or not (message.content or "").strip():
            problems.append(
                mismatch(
                    f"for {words!r} with no tools offered",
                    returned,
                    Described('words, e.g. "You\'re welcome!"'),
                    "with no tool on offer, the only way to answer is in words",
                )
            )
    found = None if problems else _generated_orders(responder)
    return [*problems, found] if found else problems


def _sent(responder: Callable[[dict], Any], given: tuple[tuple[str, ...], Any]) -> Any:
    """What the scripted model sent with `responder` as its script: words, or the first call's
    tool and item (spaces and case aside). `given` is (what was said, the tools: "absent" for none)."""
    said, offered = given
    extra = {} if offered == "absent" else {"tools": offered}
    client = ScriptedClient(responder)
    message = chat(client, model=OFFLINE_MODEL, messages=_conversation(said), **extra)
    message = message.choices[0].message
    if not message.tool_calls:
        return "words" if (message.content or "").strip() else "nothing"
    item = _sent_item(message)
    return message.tool_calls[0].function.name, item.strip().casefold() if isinstance(
        item, str
    ) else item


def _generated_orders(responder: Callable[[dict], Any]) -> str | None:
    """The learner's responder beside the reference on generated orders and tool lists."""
    found = first_difference(
        lambda given: _sent(responder, given),
        lambda given: _sent(reference_responder, given),
        built_once(requests),
        idea="the item of the last message goes on the order with add_item, wherever the tools "
        "list it; words when no tool is offered (no tools argument, None or [])",
        frozen=True,
        examples=150,
    )
    if found is None:
        return None
    said, offered = found.given
    if offered == "absent":
        tools = "no tools argument"
    elif offered:
        tools = "tools " + ", ".join(t["function"]["name"] for t in offered)
    else:
        tools = f"tools={offered!r}"
    given = Described(f"{said[-1]!r} ({len(said)} message(s)) with {tools}")
    return counterexample(given, found.returned, found.expected, found.idea)


_ORDER = re.compile(r"^\s*(?:a|an)\s+(?P<item>.+?)(?:,?\s*please)?[.!?]*\s*$", re.I)


def reference_responder(request: dict) -> Reply:
    """Put the item of the customer's last message on the order; words when no tool is offered."""
    if not request.get("tools"):
        return "You're welcome!"
    said = request["messages"][-1]["content"]
    match = _ORDER.match(said)
    if match is None:
        return "Sorry, what would you like?"
    item = match["item"].lower()
    return {"tool_calls": [{"name": "add_item", "arguments": {"item": item}}]}
