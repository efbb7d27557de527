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
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from cafe.endpoint.errors import RequestRejected

__all__ = ["OutputFormat", "OUTPUT_FORMATS", "FORMAT_FIELD", "response_format", "names_output_format",
           "about_format"]

OutputFormat = Literal["json_schema", "json_object_schema", "json_object", "plain"]
# Strictest first: the order every step-down follows.
OUTPUT_FORMATS: tuple[str, ...] = get_args(OutputFormat)
# The request field that carries the output format, as refusals name it.
FORMAT_FIELD = "response_format"

# How a server with no `param` in its refusal says the format was the problem: it names the field,
# or says what it does not support about JSON output.
_FORMAT_REFUSAL = re.compile(r"response[_ ]format|json[_ ]schema|json[_ ]object|structured output|json mode",
                             re.IGNORECASE)


def response_format(kind: str, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The `response_format` argument for `kind` (one of `OUTPUT_FORMATS`); None for plain text."""
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    if kind == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "plain":
        return None
    raise ValueError(f"Unknown output format {kind!r}; use one of {', '.join(OUTPUT_FORMATS)}.")


def names_output_format(text: str) -> bool:
    """Does an endpoint's message talk about the output format?"""
    return _FORMAT_REFUSAL.search(text) is not None


def about_format(rejection: RequestRejected) -> bool:
    """Is this refusal about the output format we asked for, rather than the rest of the request?"""
    if rejection.param:
        return rejection.param.startswith(FORMAT_FIELD)
    return names_output_format(str(rejection))
