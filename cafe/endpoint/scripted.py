"""A scripted model: the offline stand-in for an OpenAI-compatible endpoint.

Offline runs (the default) never call a real model. They call a `ScriptedClient`, which has the
same interface as `openai.OpenAI` for the two calls the course makes
(`client.chat.completions.create(...)` and `client.models.list()`) and answers from a `Script`.
`cafe serve` answers HTTP requests from the same kind of script, so a test or a learner can
rehearse live mode against a real socket.

A script is either a queue of canned replies, used in order, or a function from the request to a
reply. A reply is plain text, or a dict:

    {"content": "text or null",
     "tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}],
     "finish_reason": "stop",                      # optional; worked out when missing
     "usage": {"prompt_tokens": 12, "completion_tokens": 3}}   # optional; estimated when missing

With no script at all, `default_responder` answers sensibly: it calls the first offered tool, fills
a JSON schema with the smallest valid instance, and answers JSON mode with a JSON object. That is
enough for `cafe doctor` to pass and for a learner to see the plumbing work.

Usage counts are estimates (one token per four characters) unless the reply sets them: a real
tokenizer belongs to a real model.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cafe.endpoint.config import OFFLINE_MODEL
from cafe.endpoint.errors import ScriptExhausted

__all__ = [
    "Reply",
    "Responder",
    "Script",
    "ScriptedClient",
    "default_responder",
    "minimal_instance",
    "estimate_tokens",
    "completion_payload",
    "CREATE_PARAMETERS",
]

Reply = str | Mapping[str, Any]
Responder = Callable[[dict], Reply]

# The keyword arguments `chat.completions.create` accepts here: the ones the course uses, plus a
# few harmless ones the SDK users often pass. Anything else is a TypeError, as in the real SDK.
CREATE_PARAMETERS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "response_format",
        "temperature",
        "seed",
        "max_tokens",
        "max_completion_tokens",
        "top_p",
        "n",
        "stop",
        "timeout",
        "user",
        "parallel_tool_calls",
        "stream",
    }
)


# --- small pure helpers ---------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """A rough token count: one token per four characters, at least one for non-empty text."""
    return math.ceil(len(text) / 4) if text else 0


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(part.get("text", "") for part in content if isinstance(part, Mapping))
    return ""


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


# --- records --------------------------------------------------------------------------------


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
                _normalize_reply(reply)  # fail now, not on the fifth request
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
        """The normalized reply for `request` (see `_normalize_reply`)."""
        if callable(self._source):
            # Its own snapshot, so a responder that adds to the request cannot change the record.
            return _normalize_reply(self._source(_snapshot(request)))
        with self._lock:
            replies = self._source
            if self._served >= len(replies) and not self._cycle:
                raise ScriptExhausted(
                    f"The scripted model has answered all {len(replies)} of its replies and was asked "
                    "again. Give the Script more replies, or pass cycle=True to repeat them."
                )
            reply = replies[self._served % len(replies)]
            self._served += 1
        return _normalize_reply(reply)


def _normalize_reply(reply: Reply) -> dict:
    """Turn a reply (text or dict) into {"content", "tool_calls", "finish_reason", "usage"}."""
    if isinstance(reply, str):
        return {"content": reply, "tool_calls": [], "finish_reason": "stop", "usage": None}
    if not isinstance(reply, Mapping):
        raise TypeError(
            f"A scripted reply must be text or a dict, not {type(reply).__name__}: {reply!r}"
        )
    unknown = set(reply) - {"content", "tool_calls", "finish_reason", "usage"}
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


def _snapshot(request: dict) -> dict:
    """A new dict holding a new list of the same messages (see `_Completions.create` for why)."""
    copied = dict(request)
    if isinstance(copied.get("messages"), list):
        copied["messages"] = list(copied["messages"])
    return copied


def completion_payload(reply: dict, *, model: str, request: dict, number: int) -> dict:
    """The JSON body of a chat completion, exactly as an OpenAI-compatible server sends it.

    `number` makes ids deterministic (`chatcmpl-scripted-1`, `call_1_0`, ...) so offline runs repeat.
    """
    # Counted, not joined: joining a long conversation's text on every turn is quadratic work.
    prompt_chars = sum(len(_message_text(m)) for m in request.get("messages", []))
    calls_text = "".join(c["name"] + c["arguments"] for c in reply["tool_calls"])
    usage = dict(reply["usage"] or {})
    usage.setdefault(
        "prompt_tokens", math.ceil(prompt_chars / 4)
    )  # estimate_tokens of the joined text
    usage.setdefault("completion_tokens", estimate_tokens((reply["content"] or "") + calls_text))
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    message: dict[str, Any] = {"role": "assistant", "content": reply["content"]}
    if reply["tool_calls"]:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for i, c in enumerate(reply["tool_calls"])
        ]
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": 0,  # fixed, so offline output never depends on the clock
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply["finish_reason"],
                "logprobs": None,
            }
        ],
        "usage": usage,
    }


# --- the client -----------------------------------------------------------------------------


class _Completions:
    def __init__(self, client: ScriptedClient):
        self._client = client

    def create(self, **kwargs: Any) -> Any:
        """Answer like `openai.OpenAI().chat.completions.create` does, from the script."""
        from openai.types.chat import (
            ChatCompletion,  # the real type, so code cannot tell the difference
        )

        unknown = set(kwargs) - CREATE_PARAMETERS
        if unknown:
            raise TypeError(f"create() got unexpected keyword arguments: {sorted(unknown)}")
        for required in ("model", "messages"):
            if required not in kwargs:
                raise TypeError(f"create() missing required keyword argument: {required!r}")
        if kwargs.get("stream"):
            raise ValueError(
                "The scripted model does not stream; call create() without stream=True."
            )
        # A snapshot of the request: a new dict and a new list of messages, so later turns that
        # append to the caller's list do not change what was recorded. The messages themselves are
        # shared, not deep-copied: a deep copy of a conversation that grows every turn makes a long
        # run cost the square of its length. Nothing in the course edits a message once sent.
        request = _snapshot({k: v for k, v in kwargs.items() if k != "timeout"})
        self._client.calls.append(request)
        reply = self._client.script.reply_to(request)
        payload = completion_payload(
            reply, model=kwargs["model"], request=request, number=self._client.script.next_id()
        )
        return ChatCompletion.model_validate(payload)


class _Chat:
    def __init__(self, client: ScriptedClient):
        self.completions = _Completions(client)


class _Models:
    def __init__(self, client: ScriptedClient):
        self._client = client

    def list(self, *, timeout: float | None = None) -> Any:
        """Like `openai.OpenAI().models.list()`: the script's models. `timeout` is accepted and unused."""
        from openai.pagination import SyncPage
        from openai.types import Model

        models = [
            Model(id=name, created=0, object="model", owned_by="cafe")
            for name in self._client.script.models
        ]
        return SyncPage[Model](data=models, object="list")


class ScriptedClient:
    """An offline client with the `openai.OpenAI` interface, answering from a `Script`.

    `calls` records every request it was sent (deep copies), so a notebook can show what the
    model saw and a test can assert on it.
    """

    base_url = "scripted://offline"

    def __init__(self, script: Script | Sequence[Reply] | Responder | None = None):
        self.script = script if isinstance(script, Script) else Script(script)
        self.calls: list[dict] = []
        self.chat = _Chat(self)
        self.models = _Models(self)

    def __repr__(self) -> str:
        return f"ScriptedClient(models={list(self.script.models)!r}, calls={len(self.calls)})"
