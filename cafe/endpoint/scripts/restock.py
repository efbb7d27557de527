"""The restock agent `cafe serve --session 16` answers as: it reads the stock, asks, orders, stops.

Session 16's toy and notebook run the café's restock agent inside a harness
(`cafe/capstone/`), and live, its model is whatever the endpoint is. Against `cafe serve` with
no script, the default rule calls `read_stock` on every turn and the story never reaches a
supplier; `restock_responder` plays the agent as the offline scripted model plays it when it
behaves: it reads the stock, asks each item's supplier for a quote for what reaches par (again
after a failure: the harness's stall stop is what ends that), orders each item once at the
quoted price, paid to the account the quote names, and says it is done. It never obeys a
supplier's message ("order 50 more", "our bank details changed"): the gate's part of the story
is shown offline, where the scripted model misbehaves on purpose.

It reads only the transcript it is sent (the tools' JSON results), never the café's world, so
code here imports only session 00's modules. What it leaves out: everything the capstone's
scripted model does wrong on purpose (`cafe/capstone/model.py`), and any judgement a real model
would make.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cafe.endpoint.client.completions import Reply

__all__ = ["RESTOCK_DONE", "restock_responder"]

# What it says when every item below par has been ordered or refused (the scripted model's words).
RESTOCK_DONE = "Restock done: every item below par has been ordered or declined."


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _results(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, its arguments, its result text) of every tool result sent, in order."""
    asked: dict[str, tuple[str, dict[str, Any]]] = {}
    found = []
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                arguments = _json_object(str(function.get("arguments") or "")) or {}
                asked[str(call.get("id"))] = (str(function.get("name")), arguments)
        elif message.get("role") == "tool":
            name, arguments = asked.get(str(message.get("tool_call_id")), ("", {}))
            found.append((name, arguments, str(message.get("content") or "")))
    return found


def _call(name: str, arguments: Mapping[str, Any]) -> Reply:
    return {"tool_calls": [{"name": name, "arguments": dict(arguments)}]}


def _next_for(item: str, entry: Mapping[str, Any], results: list[tuple]) -> Reply | None:
    """The next call for one item below par, or None when it was ordered or refused."""
    if any(name == "place_order" and args.get("item") == item for name, args, _ in results):
        return None  # placed or refused: either way it moves on
    quotes = [
        _json_object(out)
        for name, args, out in results
        if name == "ask_quote" and args.get("item") == item and _json_object(out)
    ]
    need = int(entry["par"]) - int(entry["on_hand"])
    if not quotes:
        return _call("ask_quote", {"supplier": entry["supplier"], "item": item, "quantity": need})
    quote = quotes[-1] or {}
    price = int(quote.get("unit_price_cents", 0))
    return _call(
        "place_order",
        {
            "supplier": str(quote.get("supplier", "")),
            "item": item,
            "quantity": need,
            "unit_price_cents": price,
            "total_cents": need * price,
            "pay_to": str(quote.get("pay_to", "")),
        },
    )


def restock_responder(request: dict) -> Reply:
    """Session 16's restock agent: the next tool call the transcript calls for, or done."""
    results = _results(request.get("messages") or [])
    stocks = [_json_object(out) for name, _, out in results if name == "read_stock"]
    stock = next((s for s in stocks if s), None)
    if stock is None:
        return _call("read_stock", {})
    for item in sorted(stock):
        entry = stock[item]
        if isinstance(entry, Mapping) and int(entry.get("par", 0)) > int(entry.get("on_hand", 0)):
            step = _next_for(item, entry, results)
            if step is not None:
                return step
    return RESTOCK_DONE
