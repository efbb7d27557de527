"""Tools for the agent loop: plain Python functions with a JSON schema read off their signature.

Session 01 (the agent loop). A model cannot call Python; it can only ask for a function by name
with JSON arguments. This module is the translation layer:

- `Tool` is the record the loop works with: a name, a description, the JSON schema of the
  arguments, the function itself, and its `kind` (does it only look, does it change the
  workspace, or does it check the work?). The kind is what later sessions reason about: the
  stall detector of session 13 treats a `mutate` call as an edit and a `verify` call as evidence.
- `tool(fn)` builds a `Tool` from a plain function: the type hints give the JSON types, the
  parameters without a default are required (a required `X | None` may be sent as `null`), the
  docstring's first paragraph is the description and its `Args:` block describes each argument.
- `ToolOutput` lets a function say "I ran, and the answer is a failure" without raising, which is
  what a test runner needs (a red test run is a result, not a crash).
- `tool_schemas(tools)` is the `tools=[...]` list the OpenAI chat API expects.

The session's worked example, the café's order pad built from these pieces, is `cafe/world/orderpad.py`.

Left out: running the tools and feeding results back (that is `cafe.loop`; its dispatch turns an
argument of the wrong JSON type into an error result the model reads, and checks nothing beyond
the types), and structured outputs (session 04, `cafe.schema`).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

__all__ = [
    "ToolKind",
    "TOOL_KINDS",
    "Tool",
    "ToolOutput",
    "tool",
    "tool_schemas",
    "json_type",
]

# What a tool does to the world, declared once. `observe` reads (a file, the todo board),
# `mutate` changes the workspace (writes a file), `verify` checks the work (runs the tests).
ToolKind = Literal["observe", "mutate", "verify"]
TOOL_KINDS: frozenset[str] = frozenset(get_args(ToolKind))

# Python annotations and the JSON schema types they become (JSON Schema's own type names).
# Anything else is rejected by name. Read-only.
_SCALARS: Mapping[Any, str] = types.MappingProxyType(
    {str: "string", int: "integer", float: "number", bool: "boolean"}
)

# OpenAI function names: letters, digits, underscores and dashes, at most 64 characters
# (the limit the chat completions API documents for `function.name`).
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


# --- small pure helpers ---------------------------------------------------------------------


def json_type(annotation: Any) -> dict[str, Any]:
    """The JSON schema for one Python annotation: str, int, float, bool, list[X], dict, Literal, X | None."""
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    origin = get_origin(annotation)
    if origin is Literal:
        values = list(get_args(annotation))
        return {"type": _SCALARS[type(values[0])], "enum": values}
    if origin in (list, tuple, Sequence) or annotation in (list, tuple):
        args = get_args(annotation)
        return {"type": "array", "items": json_type(args[0])} if args else {"type": "array"}
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        return {"type": "object"}
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:  # `X | None`: `tool` adds null when the parameter has no default
            return json_type(members[0])
    raise TypeError(
        f"tool() cannot describe the annotation {annotation!r} as JSON. Use str, int, float, bool, "
        "list[...], dict, Literal[...] or X | None for tool parameters."
    )


def _docstring_parts(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """The first paragraph of the docstring, and the `name: text` lines of its `Args:` block."""
    doc = inspect.getdoc(fn) or ""
    summary = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    described: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        if line.strip() in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if in_args:
            match = re.match(r"^\s+(\w+)\s*(?:\([^)]*\))?:\s*(.+)$", line)
            if match:
                described[match.group(1)] = match.group(2).strip()
            elif line.strip() and not line.startswith((" ", "\t")):
                in_args = False
    return summary, described


def _admits_none(annotation: Any) -> bool:
    """Whether an annotation is `X | None` (or `Optional[X]`)."""
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolOutput:
    """What a tool function may return instead of plain text: the text, plus whether it succeeded.

    Returning plain text (or any JSON-able value) means success. Raising an exception means
    failure with the exception as the text. `ToolOutput(ok=False, text=...)` is the third way:
    the tool ran fine, and what it found is a failure (a red test run, a missing file).
    """

    ok: bool
    text: str


@dataclass(frozen=True)
class Tool:
    """One function the model may call. Build it with `tool(fn)`; read it, do not subclass it."""

    name: str
    description: str
    parameters: Mapping[str, Any]  # JSON schema of the arguments (an object schema)
    function: Callable[..., Any] = field(repr=False)
    kind: ToolKind = "observe"

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"Tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'.")
        if self.kind not in TOOL_KINDS:
            raise ValueError(f"Tool kind {self.kind!r} is not one of {sorted(TOOL_KINDS)}.")

    def schema(self) -> dict[str, Any]:
        """This tool in the shape the chat completions API takes in its `tools` list."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }


# --- the main functions ---------------------------------------------------------------------


def tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    kind: ToolKind = "observe",
    description: str | None = None,
) -> Tool:
    """Build a `Tool` from a plain function, reading the schema off its signature.

    Every parameter needs a type hint (the model has to know what to send); parameters without a
    default are required. `*args` and `**kwargs` are refused, since a JSON object has named keys.
    """
    summary, described = _docstring_parts(fn)
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:  # an unresolvable forward reference, usually
        raise TypeError(f"tool() could not read the type hints of {fn.__name__}: {exc}") from None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(
                f"tool() cannot expose {fn.__name__}(*{param.name}): name every argument."
            )
        if param.name not in hints:
            raise TypeError(
                f"tool() needs a type hint on {fn.__name__}'s parameter {param.name!r}."
            )
        schema = json_type(hints[param.name])
        if param.default is inspect.Parameter.empty and _admits_none(hints[param.name]):
            # The model must send it, and None is one of its values: JSON says so with null.
            schema["type"] = [schema["type"], "null"]
        if param.name in described:
            schema["description"] = described[param.name]
        properties[param.name] = schema
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return Tool(
        name=name or fn.__name__,
        description=description or summary or fn.__name__,
        parameters=parameters,
        function=fn,
        kind=kind,
    )


def tool_schemas(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The `tools=[...]` argument for `chat.completions.create`, one entry per tool."""
    names = [t.name for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(
            f"Two tools share the name(s) {duplicates}; the model could not tell them apart."
        )
    return [t.schema() for t in tools]
