"""One model call as span attributes, in the OpenTelemetry GenAI conventions' shapes.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). The
recorder (`cafe.trace.recorder`) calls `chat_attributes` for every `chat.completions.create` it
sees, and replay (`cafe.trace.replay`) calls `request_attributes` on each call it is asked to
answer, so a recorded request and a replayed one are compared in the same form. The recorder defers the
work: it keeps `reply_of(completion)` (plain values, not the SDK's objects) and builds the
span's attributes with `call_attributes` when they are first read; `chat_attributes` is the
two in one step.

Messages are written the way the conventions' `gen_ai.input.messages` / `gen_ai.output.messages`
write them: a role and a list of parts (`text`, `tool_call`, `tool_call_response`). A tool call's
arguments are kept as the exact text the model sent, so a replay hands back the same bytes.
Each call also says where it was served (`origin_attributes`: the provider's name, the server's
address and port, from `cafe.trace.origin`) and the reply cap it was sent with.

Every string taken from a call goes through the `cafe.trace.attributes.Scrubber` passed in, so
no secret is kept. An error's text is scrubbed before it is clipped (`ERROR_CHARS`), so no cut
can leave half a key behind. What it leaves out: which span a call belongs to
(`cafe.trace.recorder`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.readable import finish_reason_of, usage_counts
from cafe.trace.attributes import (
    ERROR_TYPE,
    FINISH_REASONS,
    INPUT_MESSAGES,
    INPUT_TOKENS,
    OPERATION,
    OUTPUT_MESSAGES,
    OUTPUT_TOKENS,
    PROVIDER,
    REQUEST_MAX_TOKENS,
    REQUEST_MODEL,
    RESPONSE_ID,
    RESPONSE_MODEL,
    SERVER_ADDRESS,
    SERVER_PORT,
    Scrubber,
)
from cafe.trace.origin import Origin, generator_origin, origin_of

__all__ = [
    "REQUEST_KEYS",
    "ERROR_CHARS",
    "STATUS_CODE",
    "ERROR_MESSAGE",
    "ERROR_PARAM",
    "input_messages",
    "output_messages",
    "request_attributes",
    "reply_of",
    "call_attributes",
    "chat_attributes",
    "error_attributes",
    "generator_attributes",
    "provider_of",
    "origin_attributes",
]

# The request attributes a replay compares, in the order it reports a difference: the model
# asked for, how the answer must be shaped, which tools were offered, then the messages.
REQUEST_KEYS = (
    REQUEST_MODEL,
    "gen_ai.output.type",
    "cafe.request.format",
    "cafe.request.tools",
    INPUT_MESSAGES,
)
# A call that failed keeps what a replay needs to fail the same way: the HTTP status (OpenTelemetry's
# general attribute name), the request field the endpoint blamed, and the first sentences of what
# it said (as much as an error message of the client quotes).
STATUS_CODE = "http.response.status_code"
ERROR_PARAM = "cafe.error.param"
ERROR_MESSAGE = "cafe.error.message"
ERROR_CHARS = 300


def _cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters plus "…" (it has been scrubbed already)."""
    return text if len(text) <= limit else text[:limit] + "…"


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return str(content)


def _tool_call_part(call: Any, clean: Scrubber) -> dict[str, Any]:
    """A tool call (a dict, as the loop writes them, or the SDK's object) as a `tool_call` part."""
    if isinstance(call, Mapping):
        function = call.get("function") or {}
        call_id, name, arguments = call.get("id"), function.get("name"), function.get("arguments")
    else:
        call_id, name, arguments = call.id, call.function.name, call.function.arguments
    return {"type": "tool_call", "id": call_id, "name": clean(name), "arguments": clean(arguments)}


def _message(message: Mapping[str, Any], clean: Scrubber) -> dict[str, Any]:
    role, text = message.get("role"), clean(_text(message.get("content")))
    if role == "tool":
        return {
            "role": role,
            "parts": [
                {"type": "tool_call_response", "id": message.get("tool_call_id"), "response": text}
            ],
        }
    parts = [{"type": "text", "content": text}] if text is not None else []
    parts += [_tool_call_part(c, clean) for c in message.get("tool_calls") or []]
    return {"role": role, "parts": parts}


def input_messages(messages: Sequence[Mapping[str, Any]], clean: Scrubber) -> list[dict[str, Any]]:
    """The request's messages as role + parts, each string masked by `clean`.

    A run sends the same messages again and again (the brief on every attempt, the whole
    transcript on every turn), so each distinct message is converted once and kept in
    `clean.memo`; the lists returned share those dicts, which nothing may modify.
    """
    converted = []
    for message in messages:
        calls, content = message.get("tool_calls"), message.get("content")
        key = (
            message.get("role"),
            content if isinstance(content, str) else repr(content),
            message.get("tool_call_id"),
            repr(calls) if calls else "",
        )
        found = clean.memo.get(key)
        if found is None:
            found = clean.memo[key] = _message(message, clean)
        converted.append(found)
    return converted


def _output_message(
    finish_reason: Any, content: Any, tool_calls: Any, clean: Scrubber
) -> dict[str, Any]:
    parts = [{"type": "text", "content": clean(content)}] if content is not None else []
    parts += [_tool_call_part(c, clean) for c in tool_calls or []]
    return {"role": "assistant", "parts": parts, "finish_reason": finish_reason}


def output_messages(completion: Any, clean: Scrubber) -> list[dict[str, Any]]:
    """The completion's choices as role + parts + finish_reason."""
    return [
        _output_message(finish_reason_of(c), c.message.content, c.message.tool_calls, clean)
        for c in completion.choices
    ]


def reply_of(completion: Any) -> tuple[Any, ...] | None:
    """What a span needs of a completion, in plain tuples, so the SDK's objects can be let go:
    (model, id, (input, output tokens) or None, ((finish_reason, content, tool_calls), ...)).
    None when the call returned no completion.

    What the recorder records, the writer writes and the reader reads back equal: usage and
    finish reasons are taken as the course's reply check reads them (`usage_counts`,
    `finish_reason_of` in `cafe.endpoint.client.readable`), so counts it judged "not reported"
    (-5, 10**30, null) are recorded as not reported, and a reason that is not text as null."""
    if completion is None or not hasattr(completion, "choices"):
        return None
    return (
        completion.model,
        completion.id,
        usage_counts(getattr(completion, "usage", None)),
        tuple(
            (finish_reason_of(c), c.message.content, c.message.tool_calls)
            for c in completion.choices
        ),
    )


def request_attributes(kwargs: Mapping[str, Any], clean: Scrubber) -> dict[str, Any]:
    """What was asked: model, output shape, tool names, messages (see `REQUEST_KEYS`)."""
    shape = kwargs.get("response_format") or {}
    tools = [t.get("function", {}).get("name") for t in kwargs.get("tools") or []]
    attributes: dict[str, Any] = {
        OPERATION: "chat",
        REQUEST_MODEL: clean(kwargs.get("model")),
        "gen_ai.output.type": "json" if shape else "text",
        "cafe.request.format": shape.get("type") if isinstance(shape, dict) else None,
        "cafe.request.tools": clean(tools) if tools else [],
        INPUT_MESSAGES: input_messages(kwargs.get("messages") or [], clean),
    }
    cap = kwargs.get("max_tokens", kwargs.get("max_completion_tokens"))
    if isinstance(cap, int) and not isinstance(cap, bool):  # `complete()` sends the reply cap
        attributes[REQUEST_MAX_TOKENS] = cap
    if "temperature" in kwargs or "seed" in kwargs:  # the course's own calls send neither
        for name, key in (
            ("temperature", "gen_ai.request.temperature"),
            ("seed", "gen_ai.request.seed"),
        ):
            if isinstance(kwargs.get(name), (int, float)):
                attributes[key] = kwargs[name]
    return attributes


def origin_attributes(origin: Origin | str) -> dict[str, Any]:
    """`gen_ai.provider.name`, and `server.address` and `server.port` when the origin has them.
    A bare string is a provider name with no server (as a test may write it)."""
    origin = Origin(origin) if isinstance(origin, str) else origin
    attributes: dict[str, Any] = {PROVIDER: origin.provider}
    if origin.address is not None:
        attributes[SERVER_ADDRESS] = origin.address
        if origin.port is not None:
            attributes[SERVER_PORT] = origin.port
    return attributes


def call_attributes(
    kwargs: Mapping[str, Any],
    reply: tuple[Any, ...] | None,
    origin: Origin | str,
    clean: Scrubber,
) -> dict[str, Any]:
    """The request, where it was served (`origin_attributes`), and, for a call that answered,
    its `reply_of`: model, id, reasons, usage."""
    attributes = request_attributes(kwargs, clean)
    attributes.update(origin_attributes(origin))
    if reply is None:
        return attributes
    model, response_id, usage, choices = reply
    attributes.update(
        {
            RESPONSE_MODEL: clean(model),
            RESPONSE_ID: clean(response_id),
            FINISH_REASONS: [choice[0] for choice in choices],
            OUTPUT_MESSAGES: [_output_message(c[0], c[1], c[2], clean) for c in choices],
        }
    )
    if usage is not None:
        attributes[INPUT_TOKENS], attributes[OUTPUT_TOKENS] = usage
    return attributes


def chat_attributes(
    kwargs: Mapping[str, Any], completion: Any, origin: Origin | str, clean: Scrubber
) -> dict[str, Any]:
    """The request, and, when the call returned one, the completion: model, id, reasons, usage."""
    return call_attributes(kwargs, reply_of(completion), origin, clean)


def error_attributes(exc: BaseException, clean: Scrubber) -> dict[str, Any]:
    """A failed call's attributes. `error.type` is the HTTP status for an HTTP error, as the
    OpenTelemetry HTTP conventions write it, so a replay that refuses alike records alike."""
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    status = status if isinstance(status, int) and not isinstance(status, bool) else None
    attributes: dict[str, Any] = {
        ERROR_TYPE: str(status) if status else type(exc).__name__,
        ERROR_MESSAGE: _cut(clean.text(str(exc)), ERROR_CHARS),  # scrubbed first, then cut
    }
    if status:
        attributes[STATUS_CODE] = status
    param = getattr(exc, "param", None)
    if isinstance(param, str) and param:
        attributes[ERROR_PARAM] = param
    return attributes


def generator_attributes(
    generate: Any, messages: Sequence[Mapping[str, Any]], answer: Any, clean: Scrubber
) -> dict[str, Any]:
    """A model call made from a generator with no recorded client: what it was sent and wrote."""
    text = (
        answer
        if isinstance(answer, str)
        else answer.text
        if hasattr(answer, "text")
        else str(answer)
    )
    attributes: dict[str, Any] = {
        OPERATION: "chat",
        REQUEST_MODEL: clean(str(getattr(generate, "model", "scripted"))),
        **origin_attributes(generator_origin(generate)),
        INPUT_MESSAGES: input_messages(messages, clean),
        OUTPUT_MESSAGES: [
            {
                "role": "assistant",
                "parts": [{"type": "text", "content": clean(text)}],
                "finish_reason": "stop",
            }
        ],
        FINISH_REASONS: ["stop"],
    }
    usage = usage_counts(getattr(answer, "usage", None))
    if usage is not None:
        attributes[INPUT_TOKENS], attributes[OUTPUT_TOKENS] = usage
    return attributes


def provider_of(client: ChatClient) -> str:
    """The provider name of `client`'s calls (`cafe.trace.origin.origin_of`): `cafe.scripted`
    offline, the client's own name for a replay, else `openai` (the API spoken)."""
    return origin_of(client).provider
