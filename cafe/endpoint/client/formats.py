"""The ways to ask an endpoint for JSON, strictest first, and how to tell a refusal of one.

Servers spell structured output differently, and the only reliable way to learn which spelling a
server takes is to try, strictest first, and step down when a refusal names the output format:

    json_schema         {"type": "json_schema", "json_schema": {"name", "strict", "schema"}}
                        OpenAI's strict structured output; vLLM, Ollama and llama.cpp's own
                        llama-server accept it too.
    json_object_schema  {"type": "json_object", "schema": {...}}
                        llama-cpp-python's server: JSON mode constrained by a schema (it refuses
                        the json_schema spelling, with an HTTP 500 naming `response_format`).
    json_object         {"type": "json_object"}: any JSON object; the shape is up to the prompt.
    plain               no response_format at all: the prompt and the parser do all the work.

`cafe.schema.StructuredDrafts` (session 04) walks this list for ticket drafts, and `cafe doctor`
walks it with a tiny schema to say which format the lessons will get. A refusal counts as being
about the format only when it names `response_format` (the field it blamed, or its message):
a refusal about anything else (a prompt too long, an unknown model) is never hidden by stepping
down to a weaker format.

`admits(kind, schema, text)` says what each format promises: could a server that enforces `kind`
have sent `text`? Plain text promises nothing, JSON mode one JSON object, a schema that object's
fields and types (the keywords in `ENFORCED_KEYWORDS`; bounds such as `minimum` are not among
them). `requested_format` reads a request's `response_format` back into a kind and a schema. The
scripted waiter of session 04 (`cafe serve --session 04`) answers through them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

from cafe.endpoint.errors import RequestRejected

__all__ = [
    "OutputFormat",
    "OUTPUT_FORMATS",
    "FORMAT_FIELD",
    "ENFORCED_KEYWORDS",
    "response_format",
    "requested_format",
    "admits",
    "names_output_format",
    "about_format",
]

OutputFormat = Literal["json_schema", "json_object_schema", "json_object", "plain"]
# Strictest first: the order every step-down follows.
OUTPUT_FORMATS: tuple[OutputFormat, ...] = get_args(OutputFormat)
# The request field that carries the output format, as refusals name it.
FORMAT_FIELD = "response_format"

# The schema keywords every strict server the course has met enforces while it generates: types,
# an object's fields, list items, fixed choices. Others (minimum, maxItems, pattern, ...) some
# servers refuse, some drop, some enforce; `admits` assumes the weakest and ignores them.
ENFORCED_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
    }
)
# JSON type names and the Python values `json.loads` gives for them (a bool is not a number here).
_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}

# How a server with no `param` in its refusal says the format was the problem: it names the field,
# or says what it does not support about JSON output.
_FORMAT_REFUSAL = re.compile(
    r"response[_ ]format|json[_ ]schema|json[_ ]object|structured output|json mode", re.IGNORECASE
)


def response_format(kind: str, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The `response_format` argument for `kind` (one of `OUTPUT_FORMATS`); None for plain text."""
    if kind == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "strict": True, "schema": schema},
        }
    if kind == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "plain":
        return None
    raise ValueError(f"Unknown output format {kind!r}; use one of {', '.join(OUTPUT_FORMATS)}.")


def requested_format(
    argument: Mapping[str, Any] | None,
) -> tuple[OutputFormat, dict[str, Any] | None]:
    """A request's `response_format` read back: (one of `OUTPUT_FORMATS`, its schema or None)."""
    if not argument or argument.get("type") == "text":
        return "plain", None
    if argument.get("type") == "json_schema":
        return "json_schema", dict((argument.get("json_schema") or {}).get("schema") or {})
    if argument.get("type") == "json_object":
        schema = argument.get("schema")
        return ("json_object_schema", dict(schema)) if schema else ("json_object", None)
    raise ValueError(
        f"Unknown response_format {argument!r}; its type is one of text, json_object, json_schema."
    )


def _is(value: Any, kind: str) -> bool:
    return isinstance(value, _JSON_TYPES.get(kind, ())) and (
        kind == "boolean" or not isinstance(value, bool)
    )


def _fits(value: Any, node: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    """Does `value` satisfy the enforced keywords of schema `node`? Everything else is ignored."""
    if "$ref" in node:
        return _fits(value, defs.get(node["$ref"].rsplit("/", 1)[-1], {}), defs)
    if "anyOf" in node and not any(_fits(value, option, defs) for option in node["anyOf"]):
        return False
    allowed = node["enum"] if "enum" in node else [node["const"]] if "const" in node else None
    if allowed is not None and not any(value == a and type(value) is type(a) for a in allowed):
        return False
    kinds = node.get("type")
    if kinds is not None and not any(
        _is(value, kind) for kind in ([kinds] if isinstance(kinds, str) else kinds)
    ):
        return False
    if isinstance(value, dict):
        fields = node.get("properties", {})
        if any(name not in value for name in node.get("required", ())):
            return False
        if node.get("additionalProperties") is False and any(name not in fields for name in value):
            return False
        return all(
            _fits(item, fields[name], defs) for name, item in value.items() if name in fields
        )
    if isinstance(value, list) and "items" in node:
        return all(_fits(item, node["items"], defs) for item in value)
    return True


def admits(kind: str, schema: Mapping[str, Any] | None, text: str) -> bool:
    """Could a server enforcing output format `kind` (with `schema`) have sent `text`?

    plain: anything. json_object: one JSON object, nothing around it. json_schema and
    json_object_schema: a JSON object that also fits the schema's `ENFORCED_KEYWORDS`.
    """
    if kind not in OUTPUT_FORMATS:
        raise ValueError(f"Unknown output format {kind!r}; use one of {', '.join(OUTPUT_FORMATS)}.")
    if kind == "plain":
        return True
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(value, dict):
        return False
    if kind == "json_object":
        return True
    if not schema:
        raise ValueError(f"admits({kind!r}, ...) needs the schema the server enforces.")
    return _fits(value, schema, {**schema.get("definitions", {}), **schema.get("$defs", {})})


def names_output_format(text: str) -> bool:
    """Does an endpoint's message talk about the output format?"""
    return _FORMAT_REFUSAL.search(text) is not None


def about_format(rejection: RequestRejected) -> bool:
    """Is this refusal about the output format we asked for, rather than the rest of the request?"""
    if rejection.param:
        return rejection.param.startswith(FORMAT_FIELD)
    return names_output_format(str(rejection))
