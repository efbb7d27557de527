"""Session 00's your-turn checkers: reading a tool call's arguments, and scripting a model.

The notebook's first exercise asks for `tool_arguments(message)`, the first tool call's arguments
as a dict; the second for a responder, the function a `Script` calls with each request to choose
the scripted model's reply. Both are tried on the scripted client the course runs offline
(`cafe.endpoint.scripted.ScriptedClient`), so they check the same in both modes.
Notebook: notebooks/s00-setup.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cafe.endpoint.client import chat
from cafe.endpoint.completions import Reply
from cafe.endpoint.config import OFFLINE_MODEL
from cafe.endpoint.protocol import ChatClient
from cafe.endpoint.scripted import ScriptedClient

__all__ = ["ADD_ITEM", "check_tool_arguments", "check_responder"]

# The one tool session 00's requests offer: put a menu item on the order.
ADD_ITEM = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Put one menu item on the customer's order.",
        "parameters": {
            "type": "object",
            "properties": {"item": {"type": "string"}},
            "required": ["item"],
        },
    },
}


def _ask(client: ChatClient, said: str, tools: list[dict] | None) -> Any:
    messages = [
        {"role": "system", "content": "You take orders at a small café."},
        {"role": "user", "content": said},
    ]
    return chat(
        client, model=OFFLINE_MODEL, messages=messages, **({"tools": tools} if tools else {})
    )


def check_tool_arguments(fn: Callable[[Any], dict]) -> list[str]:
    """Problems with a learner's `tool_arguments`, tried on a tool call and on a plain-text reply."""
    replies: list[Reply] = [
        {"tool_calls": [{"name": "add_item", "arguments": {"item": "latte", "size": "large"}}]},
        "We are out of oat milk today.",
    ]
    client = ScriptedClient(replies)
    problems = []
    for reply, wanted in zip(replies, [{"item": "latte", "size": "large"}, {}]):
        got = fn(_ask(client, "?", [ADD_ITEM]).choices[0].message)
        if got != wanted:
            problems.append(f"for the reply {reply!r} it returned {got!r}, expected {wanted!r}")
    return problems


def check_responder(responder: Callable[[dict], Any]) -> list[str]:
    """Problems with a learner's responder: it must put the item the customer names on the order,
    and answer in words when the request offers no tools."""
    problems = []
    for said, item in [
        ("A latte, please.", "latte"),
        ("A croissant, please.", "croissant"),
        ("One flat white, please.", "flat white"),
    ]:
        message = _ask(ScriptedClient(responder), said, [ADD_ITEM]).choices[0].message
        calls = message.tool_calls or []
        if not calls or calls[0].function.name != "add_item":
            problems.append(
                f"for {said!r} it should call add_item, but it answered {message.content!r}"
            )
            continue
        sent = json.loads(calls[0].function.arguments).get("item")
        if sent != item:
            problems.append(
                f"for {said!r} it sent item {sent!r}; read the customer's last message "
                f"(request['messages'][-1]['content']) and send {item!r}"
            )
    message = _ask(ScriptedClient(responder), "Thank you!", None).choices[0].message
    if message.tool_calls:
        problems.append(
            'with no tools offered it still called a tool: answer in words, e.g. "You\'re welcome!"'
        )
    return problems
