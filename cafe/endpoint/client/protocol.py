"""What the course needs of a chat client, written down as a `Protocol`: `client.chat.completions.create`.

Both clients the course hands out satisfy it (and `EndpointClient`, which can list models too): `openai.OpenAI` live, `ScriptedClient` offline, and so
does any wrapper a later session builds (session 08's recording client, its replay client). Code
that takes a client types it `ChatClient`, never `Any`, so mypy checks that what is passed in can
be asked for a completion. The harness never calls `create` itself: it calls
`cafe.endpoint.client.chat.chat`, which puts a deadline, a reply cap and a reply check around it.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ChatClient", "ChatNamespace", "Completions", "ModelList", "EndpointClient"]


class Completions(Protocol):
    """`client.chat.completions`: one method, `create(model=..., messages=..., ...)`."""

    def create(self, *args: Any, **kwargs: Any) -> Any: ...


class ChatNamespace(Protocol):
    """`client.chat`: holds `completions`."""

    @property
    def completions(self) -> Completions: ...


class ChatClient(Protocol):
    """Anything with `client.chat.completions.create(...)`, as the `openai` SDK spells it."""

    @property
    def chat(self) -> ChatNamespace: ...


class ModelList(Protocol):
    """`client.models`: `list()`, the models the endpoint offers."""

    def list(self, *args: Any, **kwargs: Any) -> Any: ...


class EndpointClient(ChatClient, Protocol):
    """A chat client that can also list the endpoint's models (`client.models.list()`): what the
    doctor asks of a client. `openai.OpenAI`, `LiveClient` and `ScriptedClient` all can."""

    @property
    def models(self) -> ModelList: ...
