"""A scripted reply, and the chat completion that carries it: the JSON an OpenAI-compatible server sends.

A script's reply is plain text, or a dict:

    {"content": "text or null",
     "tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}],
     "finish_reason": "stop",                      # optional; worked out when missing
     "usage": {"prompt_tokens": 12, "completion_tokens": 3}}   # optional; estimated when missing

`normalize_reply` checks one and writes it in a single shape; `completion_payload` wraps it in the
body of a chat completion, exactly as a hosted endpoint would send it. The offline client
(`cafe.endpoint.client.scripted`) and `cafe serve` both build their answers here, so both honour the
reply cap the same way a real model does: a reply longer than the request's `max_tokens` is cut
there, and its finish reason is `length`.

Usage counts are estimates (one token per four characters) unless the reply sets them: a real
tokenizer belongs to a real model. Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "Reply",
    "Responder",
    "CHARS_PER_TOKEN",
    "estimate_tokens",
    "message_chars",
    "prompt_length",
    "normalize_reply",
    "completion_payload",
]

Reply = str | Mapping[str, Any]
Responder = Callable[[dict], Reply]

# The rough rule behind every estimated count: about four characters of English text a token.
CHARS_PER_TOKEN = 4
# The keys a reply dict may have.
REPLY_KEYS = frozenset({"content", "tool_calls", "finish_reason", "usage"})


def estimate_tokens(text: str) -> int:
    """A rough token count: one token per four characters, at least one for non-empty text."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def message_chars(message: Any) -> int:
    """The characters of text in one message (a dict, or an SDK message object): its content,
    or the text parts of a list of content parts."""
    content = (
        message.get("content")
        if isinstance(message, Mapping)
        else getattr(message, "content", None)
    )
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return 0


def prompt_length(messages: Sequence[Any]) -> int:
    """The characters of text in a list of messages (what an estimate of prompt tokens reads)."""
    return sum(message_chars(m) for m in messages)


def normalize_reply(reply: Reply) -> dict:
    """Turn a reply (text or dict) into {"content", "tool_calls", "finish_reason", "usage"}."""
    if isinstance(reply, str):
        return {"content": reply, "tool_calls": [], "finish_reason": "stop", "usage": None}
    if not isinstance(reply, Mapping):
        raise TypeError(
            f"A scripted reply must be text or a dict, not {type(reply).__name__}: {reply!r}"
        )
    unknown = set(reply) - REPLY_KEYS
    if unknown:
        raise ValueError(
            f"A scripted reply has unknown keys {sorted(unknown)}; "
            "use content, tool_calls, finish_reason, usage."
        )
    calls = []
    for call in reply.get("tool_calls") or []:
        if "name" not in call:
            raise ValueError(f"A scripted tool call needs a 'name': {call!r}")
        arguments = call.get("arguments", {})
        calls.append(
            {
                "name": call["name"],
                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
            }
        )
    finish = reply.get("finish_reason") or ("tool_calls" if calls else "stop")
    return {
        "content": reply.get("content"),
        "tool_calls": calls,
        "finish_reason": finish,
        "usage": reply.get("usage"),
    }


def _reply_cap(request: Mapping[str, Any]) -> int | None:
    """The request's cap on the reply, under either of its names; None when it sets none."""
    for name in ("max_completion_tokens", "max_tokens"):
        cap = request.get(name)
        if isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1:
            return cap
    return None


def _capped(reply: dict, cap: int | None) -> dict:
    """`reply` cut to `cap` tokens (content first, then each call's arguments) with the finish
    reason `length`, as a model stopped by `max_tokens` answers; as it is when it fits."""
    texts = [reply["content"] or ""] + [c["name"] + c["arguments"] for c in reply["tool_calls"]]
    if cap is None or estimate_tokens("".join(texts)) <= cap:
        return reply
    budget = cap * CHARS_PER_TOKEN
    content = (reply["content"] or "")[:budget] if reply["content"] is not None else None
    budget -= len(content or "")
    calls = []
    for call in reply["tool_calls"]:
        if budget <= len(call["name"]):
            break
        arguments = call["arguments"][: budget - len(call["name"])]
        calls.append({"name": call["name"], "arguments": arguments})
        budget -= len(call["name"]) + len(arguments)
    return {**reply, "content": content, "tool_calls": calls, "finish_reason": "length"}


def _tool_call_body(number: int, i: int, call: Mapping[str, str]) -> dict[str, Any]:
    return {
        "id": f"call_{number}_{i}",
        "type": "function",
        "function": {"name": call["name"], "arguments": call["arguments"]},
    }


def completion_payload(
    reply: dict,
    *,
    model: str,
    request: Mapping[str, Any],
    number: int,
    prompt_chars: int | None = None,
) -> dict:
    """The JSON body of a chat completion, exactly as an OpenAI-compatible server sends it.

    `reply` is a normalized reply, cut to the request's reply cap when it is longer. `number` makes
    ids deterministic (`chatcmpl-scripted-1`, `call_1_0`, ...) so offline runs repeat.
    `prompt_chars` is the request's text length when the caller keeps a running count; otherwise
    the messages are counted here.
    """
    reply = _capped(reply, _reply_cap(request))
    if prompt_chars is None:
        prompt_chars = prompt_length(request.get("messages") or [])
    calls_text = "".join(c["name"] + c["arguments"] for c in reply["tool_calls"])
    usage = dict(reply["usage"] or {})
    usage.setdefault("prompt_tokens", math.ceil(prompt_chars / CHARS_PER_TOKEN))
    usage.setdefault("completion_tokens", estimate_tokens((reply["content"] or "") + calls_text))
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    message: dict[str, Any] = {"role": "assistant", "content": reply["content"]}
    if reply["tool_calls"]:
        message["tool_calls"] = [
            _tool_call_body(number, i, c) for i, c in enumerate(reply["tool_calls"])
        ]
    choice = {"index": 0, "message": message, "finish_reason": reply["finish_reason"]}
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": 0,  # fixed, so offline output never depends on the clock
        "model": model,
        "choices": [{**choice, "logprobs": None}],
        "usage": usage,
    }
