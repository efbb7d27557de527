"""The doctor's probes: list the models, ask for a JSON object, find the output format, force a tool call.

Each probe asks the endpoint one small question through `cafe.endpoint.client.chat` (so it runs
against a deadline for the whole request) and returns what it saw, or raises what went wrong for
`cafe.endpoint.doctor.health` to explain. A reply that came back but is wrong (not JSON, no tool call) is
a result, `(False, why)`, not an exception. Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from cafe.endpoint.client.chat import complete, list_models
from cafe.endpoint.client.diagnosis import classify_error, clip, endpoint_said
from cafe.endpoint.client.formats import (
    FORMAT_FIELD,
    OUTPUT_FORMATS,
    names_output_format,
    response_format,
)
from cafe.endpoint.client.protocol import ChatClient, EndpointClient
from cafe.endpoint.client.script import HEALTH_CHECK_OPENING

__all__ = ["probe_models", "probe_json", "probe_formats", "probe_tools"]

# Replies longer than this are cut (at a word boundary) in what a probe reports; enough to see
# what went wrong.
SHOWN_CHARS = 120
# The JSON probe: OpenAI's JSON mode wants the word "JSON" in the messages.
_JSON_PROBE = [
    {"role": "system", "content": f"{HEALTH_CHECK_OPENING} Reply with a JSON object only."},
    {"role": "user", "content": 'Reply with exactly this JSON object: {"ok": true}'},
]
# The tool-call probe: one tool, and tool_choice forcing the model to call it.
_TOOL_PROBE = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Add one item to the café order.",
        "parameters": {
            "type": "object",
            "properties": {"item": {"type": "string"}},
            "required": ["item"],
        },
    },
}
_TOOL_PROBE_MESSAGES = [
    {"role": "system", "content": f"{HEALTH_CHECK_OPENING} Call the tool you are offered."},
    {"role": "user", "content": "Add a latte to the order."},
]
_TOOL_PROBE_CHOICE = {"type": "function", "function": {"name": "add_item"}}


# The longest reply a probe asks for: each wants a few tokens, and a small local model that rambles
# in JSON mode must not hold the server (it keeps generating after we give up) past the check's
# time limit. Room enough for a reasoning model's short think.
PROBE_MAX_TOKENS = 256
# The format probe's schema: as small as a schema gets, strict-mode safe.
_FORMAT_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


def _short(text: Any) -> str:
    """A reply as one short line: the report prints one line per check."""
    return clip(" ".join(str(text).split()), SHOWN_CHARS)


def _ask(client: ChatClient, timeout: float, **request: Any) -> Any:
    """One probe request, at temperature 0 so the verdict does not hang on one sampling draw.

    Some models take no temperature but their own (OpenAI's reasoning models refuse 0); a refusal
    that names `temperature` is asked once more without it.
    """
    try:
        return complete(
            client, temperature=0, timeout=timeout, max_tokens=PROBE_MAX_TOKENS, **request
        )
    except Exception as exc:
        if getattr(exc, "status_code", None) not in (400, 422) or not (
            getattr(exc, "param", None) == "temperature" or "temperature" in endpoint_said(exc)
        ):
            raise
    return complete(client, timeout=timeout, max_tokens=PROBE_MAX_TOKENS, **request)


def _json_object(content: str | None) -> bool:
    try:
        return isinstance(json.loads(content or ""), dict)
    except json.JSONDecodeError:
        return False


def probe_models(client: EndpointClient, timeout: float) -> list[str]:
    """The names of the models the endpoint lists."""
    return list_models(client, timeout)


def probe_json(client: ChatClient, model: str, timeout: float) -> tuple[bool, str, float]:
    """(passed, what was seen, milliseconds taken) for a JSON-mode request."""
    started = time.perf_counter()
    reply = _ask(
        client, timeout, model=model, messages=_JSON_PROBE, response_format={"type": "json_object"}
    )
    elapsed_ms = (time.perf_counter() - started) * 1000
    content = reply.choices[0].message.content
    if content is None:
        return False, "The reply has no text: its content is null.", elapsed_ms
    try:
        parsed = json.loads(content)
    except json.JSONDecodeError:
        return False, f"The reply is not JSON: {_short(content)!r}", elapsed_ms
    if not isinstance(parsed, dict):
        return False, f"The reply is JSON but not an object: {_short(content)!r}", elapsed_ms
    return True, f"asked for a JSON object and got one: {_short(content)}", elapsed_ms


def probe_tools(client: ChatClient, model: str, timeout: float) -> tuple[bool, str]:
    """(passed, what was seen) for a request that forces a call to the tool `add_item`."""
    reply = _ask(
        client,
        timeout,
        model=model,
        messages=_TOOL_PROBE_MESSAGES,
        tools=[_TOOL_PROBE],
        tool_choice=_TOOL_PROBE_CHOICE,
    )
    calls = reply.choices[0].message.tool_calls or []
    if not calls:
        said = _short(reply.choices[0].message.content)
        return (
            False,
            f"No tool call came back, though tool_choice forced one; the reply said: {said!r}",
        )
    call = calls[0]
    try:
        arguments = json.loads(call.function.arguments)
    except (json.JSONDecodeError, TypeError):
        return False, f"The tool call's arguments are not JSON: {_short(call.function.arguments)!r}"
    if not isinstance(arguments, dict):
        return (
            False,
            f"The tool call's arguments are not a JSON object: {_short(call.function.arguments)!r}",
        )
    if call.function.name != "add_item":
        return False, f"The model called {call.function.name!r}, not the forced tool 'add_item'."
    return (
        True,
        f"forced a call to add_item and got one, arguments {_short(call.function.arguments)}",
    )


def probe_formats(client: ChatClient, model: str, timeout: float) -> tuple[str, list[str]]:
    """(the strictest output format the endpoint honours, why each stricter one was passed over).

    Walks `cafe.endpoint.client.formats.OUTPUT_FORMATS` as the lessons' drafts do: a refusal that names
    the output format, or a reply that is not a JSON object, moves on to the next; any other
    failure is raised. "plain" means no JSON format worked.
    """
    passed_over = []
    for kind in OUTPUT_FORMATS[:-1]:
        fmt = response_format(kind, _FORMAT_SCHEMA, "health_check")
        try:
            reply = _ask(client, timeout, model=model, messages=_JSON_PROBE, response_format=fmt)
        except Exception as exc:
            problem = classify_error(exc)
            if problem.kind != "rejected" or not (
                (problem.param or "").startswith(FORMAT_FIELD) or names_output_format(problem.said)
            ):
                raise
            passed_over.append(f"{kind} refused (HTTP {problem.status})")
            continue
        if _json_object(reply.choices[0].message.content):
            return kind, passed_over
        passed_over.append(f"{kind} answered {_short(reply.choices[0].message.content)!r}")
    return OUTPUT_FORMATS[-1], passed_over
