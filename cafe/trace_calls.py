"""One model call as span attributes, in the OpenTelemetry GenAI conventions' shapes.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). The
recorder (`cafe.trace`) calls `chat_attributes` for every `chat.completions.create` it sees, and
replay (`cafe.replay`) calls `request_attributes` on each call it is asked to answer, so a
recorded request and a replayed one are compared in the same form.

Messages are written the way the conventions' `gen_ai.input.messages` / `gen_ai.output.messages`
write them: a role and a list of parts (`text`, `tool_call`, `tool_call_response`). A tool call's
arguments are kept as the exact text the model sent, so a replay hands back the same bytes.

What it leaves out: which span a call belongs to (`cafe.trace`) and masking credentials
(`cafe.spans.scrub`, applied by the recorder to everything this returns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cafe.spans import (FINISH_REASONS, INPUT_MESSAGES, INPUT_TOKENS, OPERATION, OUTPUT_MESSAGES, OUTPUT_TOKENS,
                        PROVIDER, REQUEST_MODEL, RESPONSE_ID, RESPONSE_MODEL)

__all__ = ["REQUEST_KEYS", "input_messages", "output_messages", "request_attributes", "chat_attributes",
           "generator_attributes", "provider_of"]

# The request attributes a replay compares, in the order it reports a difference: the model
# asked for, how the answer must be shaped, which tools were offered, then the messages.
REQUEST_KEYS = (REQUEST_MODEL, "gen_ai.output.type", "cafe.request.format", "cafe.request.tools",
                INPUT_MESSAGES)


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return str(content)


def _tool_call_part(call: Any) -> dict[str, Any]:
    """A tool call (a dict, as the loop writes them, or the SDK's object) as a `tool_call` part."""
    if isinstance(call, Mapping):
        function = call.get("function") or {}
        return {"type": "tool_call", "id": call.get("id"), "name": function.get("name"),
                "arguments": function.get("arguments")}
    return {"type": "tool_call", "id": call.id, "name": call.function.name, "arguments": call.function.arguments}


def input_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The request's messages as role + parts."""
    converted = []
    for message in messages:
        role, text = message.get("role"), _text(message.get("content"))
        if role == "tool":
            parts = [{"type": "tool_call_response", "id": message.get("tool_call_id"), "response": text}]
        else:
            parts = [{"type": "text", "content": text}] if text is not None else []
            parts += [_tool_call_part(c) for c in message.get("tool_calls") or []]
        converted.append({"role": role, "parts": parts})
    return converted


def output_messages(completion: Any) -> list[dict[str, Any]]:
    """The completion's choices as role + parts + finish_reason."""
    out = []
    for choice in completion.choices:
        message = choice.message
        parts = [{"type": "text", "content": message.content}] if message.content is not None else []
        parts += [_tool_call_part(c) for c in message.tool_calls or []]
        out.append({"role": "assistant", "parts": parts, "finish_reason": choice.finish_reason})
    return out


def request_attributes(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """What was asked: model, output shape, tool names, messages (see `REQUEST_KEYS`)."""
    shape = kwargs.get("response_format") or {}
    tools = [t.get("function", {}).get("name") for t in kwargs.get("tools") or []]
    attributes: dict[str, Any] = {
        OPERATION: "chat", REQUEST_MODEL: kwargs.get("model"),
        "gen_ai.output.type": "json" if shape else "text",
        "cafe.request.format": shape.get("type") if isinstance(shape, Mapping) else None,
        "cafe.request.tools": tools, INPUT_MESSAGES: input_messages(kwargs.get("messages") or []),
    }
    for name, key in (("temperature", "gen_ai.request.temperature"), ("seed", "gen_ai.request.seed")):
        if kwargs.get(name) is not None:
            attributes[key] = kwargs[name]
    return attributes


def chat_attributes(kwargs: Mapping[str, Any], completion: Any, provider: str) -> dict[str, Any]:
    """The request, and, when the call returned one, the completion: model, id, reasons, usage."""
    attributes = request_attributes(kwargs)
    attributes[PROVIDER] = provider
    if completion is None or not hasattr(completion, "choices"):
        return attributes
    attributes.update({RESPONSE_MODEL: completion.model, RESPONSE_ID: completion.id,
                       FINISH_REASONS: [c.finish_reason for c in completion.choices],
                       OUTPUT_MESSAGES: output_messages(completion)})
    usage = getattr(completion, "usage", None)
    if usage is not None:
        attributes[INPUT_TOKENS], attributes[OUTPUT_TOKENS] = usage.prompt_tokens, usage.completion_tokens
    return attributes


def generator_attributes(generate: Any, messages: Sequence[Mapping[str, Any]], answer: Any) -> dict[str, Any]:
    """A model call made from a generator with no recorded client: what it was sent and wrote."""
    text = answer if isinstance(answer, str) else getattr(answer, "text", str(answer))
    attributes: dict[str, Any] = {
        OPERATION: "chat", REQUEST_MODEL: getattr(generate, "model", "scripted"), PROVIDER: "cafe.generator",
        INPUT_MESSAGES: input_messages(messages),
        OUTPUT_MESSAGES: [{"role": "assistant", "parts": [{"type": "text", "content": text}], "finish_reason": "stop"}],
        FINISH_REASONS: ["stop"],
    }
    usage = getattr(answer, "usage", None)
    if usage is not None:
        attributes[INPUT_TOKENS], attributes[OUTPUT_TOKENS] = usage.prompt_tokens, usage.completion_tokens
    return attributes


def provider_of(client: Any) -> str:
    """`cafe.scripted` for an offline client, `cafe.replay` for a replay, else `openai` (the API spoken)."""
    return str(getattr(client, "provider", None) or ("cafe.scripted" if getattr(client, "base_url", "")
                                                       == "scripted://offline" else "openai"))
