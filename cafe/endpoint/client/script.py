"""Where a scripted model's replies come from: a `Script`, and the reply it gives by default.

A script is either a queue of canned replies, used in order, or a function from the request to a
reply (a `Responder`); the reply's shape is `cafe.endpoint.client.completions`'s. The offline client
(`cafe.endpoint.client.scripted.ScriptedClient`) and `cafe serve` (`cafe.endpoint.server.serve`) answer from the
same kind of script, so a story reads the same offline and over HTTP.

With no script at all, `default_responder` answers in the most boring valid way: it calls the first
offered tool with the smallest valid arguments (`minimal_instance` of its JSON schema), fills a
requested JSON schema the same way, and answers JSON mode with a JSON object. That is enough for
`cafe doctor` to pass and for a learner to see the plumbing work. Session 00
(`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cafe.endpoint.client.completions import Reply, Responder, normalize_reply
from cafe.endpoint.errors import ScriptExhausted
from cafe.endpoint.settings.config import OFFLINE_MODEL

__all__ = [
    "Script",
    "HEALTH_CHECK_OPENING",
    "is_health_check",
    "default_responder",
    "minimal_instance",
]

# How each of `cafe doctor`'s format and tool probes opens (its system line). `cafe serve --session
# NN` answers these with `default_responder`, not the session's script, so the doctor checks the
# server there rather than a script written for one toy's requests.
HEALTH_CHECK_OPENING = "You are a health check."


def minimal_instance(schema: Mapping[str, Any]) -> Any:
    """The smallest value that satisfies a simple JSON schema (objects, arrays, scalars, enums).

    Good enough for rehearsal: required properties only, empty arrays, zero, the first enum value.
    `$ref` into `$defs`/`definitions` is followed, since pydantic schemas use it.
    """
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def build(node: Mapping[str, Any]) -> Any:
        if "$ref" in node:
            return build(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return node["enum"][0]
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node:
                return build(node[key][0])
        kind = node.get("type", "object")
        if isinstance(kind, list):
            kind = kind[0]
        if kind == "object":
            props = node.get("properties", {})
            return {name: build(props[name]) for name in node.get("required", []) if name in props}
        if kind == "array":
            return [build(node["items"]) for _ in range(node.get("minItems", 0))]
        return {
            "string": "",
            "integer": max(0, node.get("minimum", 0)),
            "number": 0,
            "boolean": False,
            "null": None,
        }.get(kind, None)

    return build(schema)


def is_health_check(request: Mapping[str, Any]) -> bool:
    """True when `request` is one of `cafe doctor`'s probes: its first message is a system line
    that opens with `HEALTH_CHECK_OPENING`."""
    messages = request.get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], Mapping) else {}
    content = first.get("content")
    return (
        first.get("role") == "system"
        and isinstance(content, str)
        and content.startswith(HEALTH_CHECK_OPENING)
    )


def default_responder(request: dict) -> Reply:
    """Answer any request in the most boring valid way. See the module docstring."""
    tools = request.get("tools") or []
    choice = request.get("tool_choice", "auto")
    if tools and choice != "none":
        tool = tools[0]["function"]
        if isinstance(choice, Mapping):  # {"type": "function", "function": {"name": ...}}
            wanted = choice["function"]["name"]
            offered = [t["function"]["name"] for t in tools]
            if wanted not in offered:
                raise ValueError(
                    f"tool_choice names the tool {wanted!r}, but the request only offers {offered}."
                )
            tool = tools[offered.index(wanted)]["function"]
        arguments = minimal_instance(tool.get("parameters") or {"type": "object"})
        return {"content": None, "tool_calls": [{"name": tool["name"], "arguments": arguments}]}
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema")
        if not isinstance(spec, Mapping):
            raise ValueError(
                'response_format json_schema needs a "json_schema" object, e.g. '
                '{"type": "json_schema", "json_schema": {"name": "ticket", "schema": {...}}}.'
            )
        schema = spec.get("schema", {"type": "object"})
        return json.dumps(minimal_instance(schema))
    if response_format.get("type") == "json_object":
        return json.dumps({"ok": True})
    return "Hello from the scripted café model."


class Script:
    """Where a scripted model's replies come from: a queue of replies, or a responder function.

    `Script(["first", "second"])` answers two requests and then raises `ScriptExhausted`;
    `cycle=True` starts the queue again instead. `Script(fn)` calls `fn(request)` every time.
    `Script()` uses `default_responder`. Safe to share between threads (`cafe serve` does).
    """

    def __init__(
        self,
        source: Sequence[Reply] | Responder | None = None,
        *,
        cycle: bool = False,
        models: Sequence[str] = (OFFLINE_MODEL,),
    ):
        if source is None:
            source = default_responder
        if isinstance(source, (str, Mapping)):
            raise TypeError(
                "Script expects a list of replies or a function; wrap a single reply in a list."
            )
        if not callable(source):
            replies = list(source)
            if not replies:
                raise ValueError("Script got an empty list of replies; give at least one.")
            for reply in replies:
                normalize_reply(reply)  # fail now, not on the fifth request
            source = list(replies)
        self._source = source
        self._cycle = cycle
        self._served = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        if (
            isinstance(models, str)
            or not models
            or not all(isinstance(m, str) and m for m in models)
        ):
            raise ValueError(
                f"Script models must be a non-empty list of model names, like "
                f"[{OFFLINE_MODEL!r}]; got {models!r}."
            )
        self.models: tuple[str, ...] = tuple(models)

    @classmethod
    def from_file(cls, path: str | Path) -> Script:
        """Load a script from JSON: a list of replies, or {"replies": [...], "cycle": bool, "models": [...]}."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"Script file {path} does not exist.") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"Script file {path} is not valid JSON: {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:  # a folder, no permission, not text
            raise ValueError(f"Script file {path} could not be read: {exc}") from None
        if isinstance(data, list):
            data = {"replies": data}
        if not isinstance(data, dict) or not isinstance(data.get("replies"), list):
            raise ValueError(
                f'Script file {path} must hold a list of replies or {{"replies": [...]}}.'
            )
        return cls(
            data["replies"],
            cycle=bool(data.get("cycle", False)),
            models=data.get("models", [OFFLINE_MODEL]),
        )

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def reply_to(self, request: dict) -> dict:
        """The normalized reply for `request` (see `cafe.endpoint.client.completions.normalize_reply`)."""
        if callable(self._source):
            # Its own dict, so a responder that adds to the request cannot change the record
            # (the scripted client hands it a copy of every field and message it reads).
            return normalize_reply(self._source(dict(request)))
        with self._lock:
            replies = self._source
            if self._served >= len(replies) and not self._cycle:
                raise ScriptExhausted(
                    f"The scripted model has answered all {len(replies)} of its replies and was asked "
                    "again. Give the Script more replies, or pass cycle=True to repeat them."
                )
            reply = replies[self._served % len(replies)]
            self._served += 1
        return normalize_reply(reply)
