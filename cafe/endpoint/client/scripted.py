"""A scripted model: the offline stand-in for an OpenAI-compatible endpoint.

Offline runs (the default) never call a real model. They call a `ScriptedClient`, which has the
same interface as `openai.OpenAI` for the two calls the course makes
(`client.chat.completions.create(...)` and `client.models.list()`) and answers from a `Script`
(`cafe.endpoint.client.script`; the reply's shape is `cafe.endpoint.client.completions`'s). It is asked through
the same door as a live client, `cafe.endpoint.client.chat.chat`, with the same deadline, the same reply
cap (`reply_cap`, which it honours as a model does: a longer reply is cut, finish reason
`length`) and the same check of the answer.

It records every request in `calls`, so a notebook can show what the model saw and a test can
assert on it. A long run sends the same growing conversation on every turn, so copying it each
time would make the run cost the square of its length. Instead the client keeps one append-only
log of the messages it was sent, with a running count of their characters, and records each call
as a `MessagesView`: a read-only window on the first n messages of the log, which compares equal
to the list it stands for. A request whose list extends the one logged (the same list object,
grown by appends, as the agent loop sends it) costs only its new messages; any other (a new
conversation, a rebuilt list, a popped message) starts a new log with one copy. Nothing in the
course edits a message once it is sent.

What a live client sends is a serialized copy, so offline takes a request the same way on both
counts. Each message is checked once, as it enters the log, for text UTF-8 cannot encode
(`cafe.endpoint.client.sendable.encodable`), and the other fields on every call: such a request
fails here as it fails live, with nothing recorded. And a responder gets its own copy of the
request: each other field read back from the JSON written for its check, and the messages as
`Copies`, a view that deep-copies each message the first time it is read. A responder that
rewrites `request["messages"][-1]` or the tools changes neither the caller's request nor the
record, and pays only for the messages it reads.
Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from cafe.endpoint.client.completions import (
    Reply,
    Responder,
    completion_payload,
    estimate_tokens,
    message_chars,
)
from cafe.endpoint.client.script import Script, default_responder, minimal_instance
from cafe.endpoint.client.sendable import JSON, encodable
from cafe.endpoint.settings.config import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S

__all__ = [
    "CREATE_PARAMETERS",
    "Copies",
    "MessagesView",
    "ScriptedClient",
    # what a script is made of, importable from here as the lessons write it
    "Reply",
    "Responder",
    "Script",
    "default_responder",
    "minimal_instance",
    "estimate_tokens",
    "completion_payload",
]

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


class _Log:
    """The messages one client has been sent, append-only, with running character counts."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.chars: list[int] = [0]  # chars[k]: the characters of text in the first k messages
        self.source: Sequence[Any] | None = None  # the caller's list this log follows

    def extended_by(self, messages: Sequence[Any]) -> bool:
        """Is `messages` the list this log follows, grown only by appends? (O(1): same list, at
        least as long, and the last message logged is still in its place.)"""
        n = len(self.messages)
        return (
            messages is self.source
            and len(messages) >= n
            and (n == 0 or messages[n - 1] is self.messages[-1])
        )

    def take(self, messages: Sequence[Any]) -> None:
        for message in messages[len(self.messages) :]:  # only the new ones
            self.messages.append(message)
            self.chars.append(self.chars[-1] + message_chars(message))
        self.source = messages


class MessagesView(Sequence[Any]):
    """The first `len(view)` messages of a client's log: read-only, O(1) to make, and equal to
    the list it stands for (`view == [...]`). Slicing gives a new list."""

    __slots__ = ("_log", "_length")

    def __init__(self, log: _Log, length: int):
        self._log, self._length = log, length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return self._log.messages[: self._length][index]
        position = index + self._length if index < 0 else index
        if not 0 <= position < self._length:
            raise IndexError("message index out of range")
        return self._log.messages[position]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._log.messages[: self._length])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, MessagesView)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        return repr(list(self))

    @property
    def prompt_chars(self) -> int:
        """The characters of text in these messages, from the log's running count."""
        return self._log.chars[self._length]

    def copies(self) -> Copies:
        """The same messages as `Copies`: each deep-copied the first time it is read."""
        return Copies(self._log, self._length)


class Copies(MessagesView):
    """The same messages, each a deep copy made the first time it is read and kept for the next
    read: what a responder is handed, so that what it does to a message reaches neither the
    caller's list nor the log, as with a real endpoint's own copy. Reading one message copies one.
    """

    __slots__ = ("_copies",)

    def __init__(self, log: _Log, length: int):
        super().__init__(log, length)
        self._copies: dict[int, Any] = {}

    def _copy(self, position: int) -> Any:
        if position not in self._copies:
            self._copies[position] = copy.deepcopy(self._log.messages[position])
        return self._copies[position]

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._copy(p) for p in range(self._length)[index]]
        super().__getitem__(index)  # the same IndexError for a message out of range
        return self._copy(index + self._length if index < 0 else index)

    def __iter__(self) -> Iterator[Any]:
        return (self._copy(p) for p in range(self._length))


def _sent(value: Any, name: str) -> Any:
    """The field `name` of a request as an endpoint receives it: its own copy, read back from its
    JSON (deep-copied, if it is not JSON), once `encodable` has found no lone surrogate in it.
    The JSON written for the check is the one read back: one pass in C serves both."""
    if value is None or isinstance(value, (str, int, float)):  # the model's name, a cap
        encodable(value, name)
        return value  # immutable: its own copy
    try:
        text = JSON.encode(value)
    except (TypeError, ValueError):  # not JSON: a class as `response_format`, an SDK object
        encodable(value, name)
        return copy.deepcopy(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        encodable(value, name)  # raises, naming where the surrogate stands
    return json.loads(text)


class _Completions:
    def __init__(self, client: ScriptedClient):
        self._client = client

    def create(self, **kwargs: Any) -> Any:
        """Answer like `openai.OpenAI().chat.completions.create` does, from the script."""
        from openai.types.chat import (
            ChatCompletion,
        )  # the real type: code cannot tell the difference

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
        client = self._client
        # Each field but the messages (checked as they are logged) is written as JSON once: its
        # check, and the responder's copy. Only `timeout` is not part of the request.
        fields = {k: _sent(v, k) for k, v in kwargs.items() if k not in ("messages", "timeout")}
        view = client.log_messages(kwargs["messages"])
        request = {k: view if k == "messages" else v for k, v in kwargs.items() if k != "timeout"}
        client.calls.append(request)
        own = {k: view.copies() if k == "messages" else fields[k] for k in request}
        reply = client.script.reply_to(own)
        payload = completion_payload(
            reply,
            model=kwargs["model"],
            request=request,
            number=client.script.next_id(),
            prompt_chars=view.prompt_chars,
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

    `calls` records every request it was sent, its messages as a `MessagesView`. `reply_cap` and
    `timeout` are the limits `cafe.endpoint.client.chat.chat` applies to every call, as for a live
    client (`make_client` sets them from `CAFE_MAX_TOKENS` and `CAFE_TIMEOUT_S`).
    """

    base_url = "scripted://offline"

    def __init__(
        self,
        script: Script | Sequence[Reply] | Responder | None = None,
        *,
        reply_cap: int = DEFAULT_MAX_TOKENS,
        timeout: float = DEFAULT_TIMEOUT_S,
    ):
        import openai.types.chat  # noqa: F401  # loaded now, not inside the first call's deadline

        self.script = script if isinstance(script, Script) else Script(script)
        self.reply_cap = reply_cap
        self.timeout = timeout
        self.calls: list[dict[str, Any]] = []
        self.chat = _Chat(self)
        self.models = _Models(self)
        self._log = _Log()
        self._lock = threading.Lock()  # a call cut off by its deadline may still be running

    def log_messages(self, messages: Sequence[Any]) -> MessagesView:
        """`messages` as a view of the log, logging only what is new (see the module docstring)."""
        if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
            raise TypeError(
                f"create() takes messages as a list of messages, not {type(messages).__name__}."
            )
        with self._lock:
            if not self._log.extended_by(messages):
                self._log = _Log()
            for position in range(len(self._log.messages), len(messages)):
                encodable(messages[position], f"messages[{position}]")
            self._log.take(messages)
            return MessagesView(self._log, len(messages))

    def close(self) -> None:
        """Nothing to close (no connections); here so that code can close any client it made."""

    def __repr__(self) -> str:
        return f"ScriptedClient(models={list(self.script.models)!r}, calls={len(self.calls)})"
