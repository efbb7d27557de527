"""Where a model call was served: the provider's name, and the server's address and port.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). The GenAI
conventions require `gen_ai.provider.name` on every model call and recommend `server.address`
(with `server.port` whenever the address is set). One client gives one answer, whichever harness
made the call, so a re-ask recorded through its client and a shift recorded through its
generator name the same provider:

- `openai` for every live endpoint: the course speaks the OpenAI API, and the conventions' note
  for OpenAI-compatible servers is to name the API and let `server.address` tell Ollama, vLLM or
  `cafe serve` apart;
- `cafe.scripted` for the offline scripted client (no server: no address, no port), and for a
  generator with no client behind it, the course's in-process stand-ins;
- a client's own `provider` attribute when it declares one (a replay says `cafe.trace.replay`).

`origin_of(client)` reads this off the client's `base_url`, never its key; an address is the
host name alone, so credentials written into the URL never reach a span. What it leaves out:
turning the origin into attributes (`cafe.trace.calls`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cafe.endpoint.client.protocol import ChatClient

__all__ = [
    "LIVE_PROVIDER",
    "SCRIPTED_PROVIDER",
    "Origin",
    "origin_of",
    "generator_origin",
]

# The conventions' well-known value for the OpenAI API, which every live endpoint of the course speaks.
LIVE_PROVIDER = "openai"
# The course's own name for replies written in-process (no well-known value applies).
SCRIPTED_PROVIDER = "cafe.scripted"
# The base URL of the offline scripted client (`cafe.endpoint.client.scripted.ScriptedClient`).
_SCRIPTED_URL = "scripted://offline"
# The port a URL means when it names none, by scheme (HTTP's and HTTPS's defaults).
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Origin:
    """Who served a model call: `provider` always; `address` and `port` for a server over HTTP."""

    provider: str
    address: str | None = None
    port: int | None = None


def _server(base_url: str) -> tuple[str | None, int | None]:
    """The host name and port of an http(s) URL (the scheme's default port when it names none)."""
    parts = urlsplit(base_url)
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None, None
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: the address still says where
        port = None
    return parts.hostname, port if port is not None else _DEFAULT_PORTS[parts.scheme]


def origin_of(client: ChatClient | Any) -> Origin:
    """The `Origin` of `client`'s calls, from its `provider` (if it declares one) and `base_url`."""
    base_url = str(getattr(client, "base_url", "") or "")
    declared = getattr(client, "provider", None)
    if isinstance(declared, str) and declared:
        return Origin(declared, *_server(base_url))
    if base_url.rstrip("/") == _SCRIPTED_URL:
        return Origin(SCRIPTED_PROVIDER)
    return Origin(LIVE_PROVIDER, *_server(base_url))


def generator_origin(generate: Any) -> Origin:
    """The `Origin` of a generator's calls: its client's (`make_model_generator` keeps one as
    `.client`), else `cafe.scripted`, the course's in-process stand-ins."""
    client = getattr(generate, "client", None)
    return origin_of(client) if client is not None else Origin(SCRIPTED_PROVIDER)
