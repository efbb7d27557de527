"""From the model's reply to tool results: reading the calls it asked for, and running one call.

Session 01. The loop (`cafe/loop/agent.py`) hands the model's reply here and gets back the calls
it holds; each call then goes through `dispatch_call`, which always answers with a `ToolResult`:
an unknown tool, arguments that are not JSON, an argument of the wrong JSON type for the tool's
schema ("quantity must be an integer (a whole number), not 'two'"), or an exception inside the
tool become a failed result the model can read, never a crash of the harness. So does a call in
a shape the loop did not ask for (`decode_calls`): no function or no tool name, arguments that are
a list or a number, `tool_calls` that is not a list. Arguments sent as a JSON object rather than
as text, as some servers send them, are taken as they are.

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


def _field(value: Any, name: str) -> Any:
    """`value.name`, or `value[name]` when `value` is a dict; None when it has neither. A call
    comes as the SDK's record, as a dict (a scripted model), or, from a hostile endpoint, as
    anything at all."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _as_json(value: Any) -> str:
    """`value` as JSON text, or its repr when JSON cannot hold it (keys that are not text, say)."""
    try:
        return json.dumps(value, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _shown(value: Any) -> str:
    """A value the model sent, as it is shown back to it: text as it came, anything else as
    JSON (or its repr), cut to `_SHOWN_ARGUMENT_CHARS`."""
    return (value if isinstance(value, str) else _as_json(value))[:_SHOWN_ARGUMENT_CHARS]


def _decoded(sent: Any) -> tuple[dict[str, Any] | None, str, str]:
    """The arguments of one call as (the decoded object or None, the JSON text kept for the
    transcript, what is wrong with them). No arguments at all are `{}`. An object instead of
    text (some servers send one) is taken as it is; anything else must be text holding a JSON
    object."""
    if sent is None or sent == "":
        return {}, "{}", ""
    if isinstance(sent, Mapping):
        return dict(sent), _as_json(sent), ""
    if not isinstance(sent, str):
        return None, _shown(sent), f"they are {type(sent).__name__}, not JSON text"
    try:
        arguments = json.loads(sent)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested thousands deep
        return None, sent, str(exc) or type(exc).__name__
    if not isinstance(arguments, dict):
        return None, sent, "arguments must be a JSON object"
    return arguments, sent, ""


def _one_call(raw: Any, call_id: str) -> tuple[ToolCall, ToolResult | None]:
    """One call in whatever shape it came, and the error result the model reads when it is
    unusable (no function, no tool name, arguments that are not a JSON object), else None."""
    function = _field(raw, "function")
    name = _field(function, "name")
    arguments, text, problem = _decoded(_field(function, "arguments"))
    if not isinstance(name, str) or not name:
        said = f"Your call {call_id} has no tool name; send a function with a name: {_shown(raw)}"
    elif arguments is None:
        said = f"Your arguments for {name} are not a JSON object ({problem}): {_shown(text)}"
    else:
        return ToolCall(call_id, name, arguments, text), None
    name = name if isinstance(name, str) else ""
    return ToolCall(call_id, name, {}, text), ToolResult(call_id, name, {}, False, said)


def _fresh_id(sent: Any, turn: int, i: int, used: set[str]) -> str:
    """The id the model gave a call, or `call_<turn>_<i>` when it gave none, not text, or one
    already used in this reply (each tool result must answer exactly one call)."""
    if isinstance(sent, str) and sent and sent not in used:
        return sent
    made = f"call_{turn}_{i}"
    while made in used:  # the model itself used this name for another call
        made += "_"
    return made


def decode_calls(message: Any, turn: int) -> tuple[list[ToolCall], list[ToolResult]]:
    """The calls in an assistant message, plus an error result for each the model sent broken:
    arguments that are not a JSON object, a call with no function or no tool name, `tool_calls`
    that is not a list at all (one error for the lot).

    Never raises, whatever the shape: a broken call is the model's to fix, so it becomes a
    `ToolCall` the transcript answers with its error result, and the run goes on to a named end.
    A call whose id is missing, not text, or already used in this reply is given
    `call_<turn>_<i>`, so each result answers exactly one call."""
    listed = _field(message, "tool_calls")
    if listed is None:
        return [], []
    if not isinstance(listed, (list, tuple)):
        call_id = f"call_{turn}_0"
        said = f"Your tool_calls must be a list of calls, not {type(listed).__name__}: {_shown(listed)}"
        return [ToolCall(call_id, "", {}, "{}")], [ToolResult(call_id, "", {}, False, said)]
    calls, errors, used = [], [], set[str]()
    for i, raw in enumerate(listed):
        call, error = _one_call(raw, _fresh_id(_field(raw, "id"), turn, i, used))
        used.add(call.id)
        calls.append(call)
        if error is not None:
            errors.append(error)
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
