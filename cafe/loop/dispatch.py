"""From the model's reply to tool results: reading the calls it asked for, and running one call.

Session 01. The loop (`cafe/loop/agent.py`) hands the model's reply here and gets back the calls
it holds; each call then goes through `dispatch_call`, which always answers with a `ToolResult`:
an unknown tool, arguments that are not JSON, an argument of the wrong JSON type for the tool's
schema ("quantity must be an integer (a whole number), not 'two'"), or an exception inside the
tool become a failed result the model can read, never a crash of the harness.

Left out: which calls to run and when (the loop), what the results mean (later sessions).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cafe.loop.tools import Tool, ToolOutput
from cafe.loop.turns import ToolCall, ToolResult

__all__ = ["dispatch_call", "decode_calls", "assistant_message", "argument_problem"]

# How much of an undecodable argument string the model is shown back.
_SHOWN_ARGUMENT_CHARS = 200
# JSON Schema's scalar type names, the Python values json.loads gives for each, and how the
# sentence names them (bool is an int in Python, so it is ruled out of the number types).
_JSON_TYPES: Mapping[str, tuple[tuple[type, ...], str]] = {
    "string": ((str,), "a string"),
    "integer": ((int,), "an integer (a whole number)"),
    "number": ((int, float), "a number"),
    "boolean": ((bool,), "true or false"),
    "array": ((list,), "a list"),
    "object": ((dict,), "an object"),
    "null": ((type(None),), "null"),
}


def _render(value: Any) -> tuple[bool, str]:
    if isinstance(value, ToolOutput):
        return value.ok, value.text
    if isinstance(value, str):
        return True, value
    return True, json.dumps(value, default=str)


def _is(value: Any, json_type: str) -> bool:
    python_types, _ = _JSON_TYPES[json_type]
    if isinstance(value, bool) and json_type in ("integer", "number"):
        return False
    return isinstance(value, python_types)


def argument_problem(arguments: Mapping[str, Any], parameters: Mapping[str, Any]) -> str | None:
    """The first argument whose value is not of the JSON type its schema names, as a sentence
    the model can act on; None when every typed argument fits."""
    properties = parameters.get("properties", {})
    for name, value in arguments.items():
        wanted = properties.get(name, {}).get("type") if isinstance(properties, Mapping) else None
        types = [wanted] if isinstance(wanted, str) else list(wanted or [])
        types = [t for t in types if t in _JSON_TYPES]
        if types and not any(_is(value, t) for t in types):
            said = " or ".join(_JSON_TYPES[t][1] for t in types)
            return f"{name} must be {said}, not {json.dumps(value, default=str)}."
    return None


def dispatch_call(call: ToolCall, tools: Mapping[str, Tool], *, forced: bool = False) -> ToolResult:
    """Run one call and return its result. Mistakes become error results the model can read.
    `forced` marks a call a hook made itself, not one the model asked for."""
    chosen = tools.get(call.name)
    if chosen is None:
        known = ", ".join(sorted(tools)) or "(none)"
        return ToolResult(
            call.id,
            call.name,
            call.arguments,
            False,
            f"There is no tool named {call.name!r}. The tools are: {known}.",
            forced=forced,
        )
    problem = argument_problem(call.arguments, chosen.parameters)
    if problem is not None:
        return ToolResult(call.id, call.name, call.arguments, False, problem, chosen.kind, forced)
    try:
        ok, text = _render(chosen.function(**call.arguments))
    except Exception as exc:  # a tool's failure is the model's information, not our crash
        ok, text = False, f"{type(exc).__name__}: {exc}"
    return ToolResult(call.id, call.name, call.arguments, ok, text, chosen.kind, forced)


def decode_calls(message: Any, turn: int) -> tuple[list[ToolCall], list[ToolResult]]:
    """The calls in an assistant message, plus error results for any whose arguments are not JSON."""
    calls, errors = [], []
    for i, raw in enumerate(message.tool_calls or []):
        call_id = raw.id or f"call_{turn}_{i}"
        text = raw.function.arguments or "{}"
        try:
            arguments = json.loads(text)
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            errors.append(
                ToolResult(
                    call_id,
                    raw.function.name,
                    {},
                    False,
                    f"Your arguments for {raw.function.name} are not a JSON object "
                    f"({exc}): {text[:_SHOWN_ARGUMENT_CHARS]}",
                )
            )
            arguments = {}
        calls.append(ToolCall(call_id, raw.function.name, arguments, text))
    return calls, errors


def assistant_message(text: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The model's reply as the transcript keeps it: its words and the calls it asked for."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.raw_arguments},
            }
            for c in calls
        ]
    return message
