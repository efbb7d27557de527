"""A local OpenAI-compatible endpoint that answers from a script: `cafe serve`.

Offline mode swaps the HTTP client for a `ScriptedClient`. That proves the harness logic, but not
the plumbing around it: the URL, the key, JSON over a socket, the SDK's own error handling. This
module closes that gap. It serves the two routes the course uses,

    GET  /v1/models              the models this server offers (the script's `models`)
    POST /v1/chat/completions    text, tool calls, JSON mode and JSON schema, with `usage`

from the same `cafe.endpoint.client.scripted.Script` the offline client uses, on the standard library's
`ThreadingHTTPServer`, so the real `openai` SDK talks to it exactly as it talks to a hosted model.
A learner without a key runs `cafe serve` to rehearse live mode (session 00,
`sessions/s00-setup/lesson.md`); tests and notebooks use `running_server(...)` to drive the SDK
over HTTP. `Faults` (`cafe.endpoint.server.faults`; `cafe serve --fault ...` on the command line) make it
misbehave on purpose: a 429 or a 500, a slow or trickling reply, a web page, no choices.

One request is handled by `cafe.endpoint.server.handler.Handler`; the `cafe serve` command itself (the
banner, the script chosen, Ctrl-C) is `cafe.endpoint.server.command`, and its flags `cafe.cli`.

It answers like a hosted endpoint when something is wrong: 401 without the key (when one is
configured), 404 for a model it does not offer (listing the ones it does), 400 for a malformed
request, 500 when the script has run out of replies. Every error body has OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`, so the SDK raises its usual exceptions.

What it leaves out: streaming, the other OpenAI routes, and any check that a reply really matches
the requested JSON schema. The script decides what the "model" says; session 04 checks replies
against the ticket contract. It is a rehearsal stage, not a model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any

from cafe.endpoint.client.completions import Reply, Responder
from cafe.endpoint.client.script import Script
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL
from cafe.endpoint.server.faults import Faults
from cafe.endpoint.server.handler import Handler

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "POLL_INTERVAL_S",
    "Faults",
    "ServerSettings",
    "CafeServer",
    "make_server",
    "running_server",
]

# Loopback only: a rehearsal server has no business being reachable from the network.
DEFAULT_HOST = "127.0.0.1"
# The port `cafe serve` uses when none is given, and the one `LIVE_VARIABLES`' example URL shows.
DEFAULT_PORT = 8000
# How often the serving loop checks for a stop request; small, so tests and Ctrl-C stop promptly.
POLL_INTERVAL_S = 0.05


@dataclass(frozen=True)
class ServerSettings:
    """How a `CafeServer` behaves, declared once: the keyword arguments of `make_server` and
    `running_server` besides the script.

    `api_key`: the key requests must carry (None accepts any). `supports_json_schema`: False
    refuses `response_format` json_schema, as some servers do. `faults`: misbehave on purpose.
    `log_requests`: one line per request on stderr (never a header). `label`: names the script
    in the model list (default "default" with no script, else "script").
    """

    host: str = DEFAULT_HOST
    port: int = 0
    api_key: str | None = None
    supports_json_schema: bool = True
    faults: Faults | None = None
    log_requests: bool = False
    label: str | None = None

    def __post_init__(self) -> None:
        if self.api_key is not None and not self.api_key:
            raise ValueError(
                "api_key is empty; pass None to accept any key, or a non-empty key to require it."
            )


class CafeServer(ThreadingHTTPServer):
    """The HTTP server: one thread per request, all answering from one shared `Script`.

    `base_url` is what CAFE_BASE_URL should be; `requests` lists the JSON bodies of the chat
    completion requests received, in arrival order, so a test can assert on what the SDK sent.
    `label` names the script in the model list (`owned_by` is `cafe-serve:<label>`), so a toy can
    tell the default rule from a session's script (`cafe.endpoint.scripts.rehearsals.rehearsal_script`).
    """

    daemon_threads = True
    block_on_close = False  # a slow (faulted) reply must not hold up shutdown

    def __init__(self, script: Script, settings: ServerSettings, label: str):
        super().__init__((settings.host, settings.port), Handler)
        self.script = script
        self.settings = settings
        self.label = label
        self.api_key = settings.api_key
        self.supports_json_schema = settings.supports_json_schema
        self.faults = settings.faults
        self.log_requests = settings.log_requests
        self.requests: list[dict] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._faults_left = None if settings.faults is None else settings.faults.times

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        if host in ("0.0.0.0", ""):
            host = "127.0.0.1"  # listening everywhere; loopback is the address that works locally
        return f"http://{host}:{port}/v1"

    def record(self, request: dict) -> None:
        with self._lock:
            self.requests.append(request)

    def take_fault(self) -> Faults | None:
        """The fault to apply to this request, if any, counting it against `Faults.times`."""
        if self.faults is None:
            return None
        with self._lock:
            if self._faults_left is None:
                return self.faults
            if self._faults_left <= 0:
                return None
            self._faults_left -= 1
            return self.faults


def make_server(
    script: Script | Sequence[Reply] | Responder | None = None, **settings: Any
) -> CafeServer:
    """Bind a `CafeServer` (port 0 picks a free port); the caller runs and closes it.

    `settings` are the fields of `ServerSettings` (`api_key=`, `host=`, `port=`, `faults=`, ...).
    """
    chosen = ServerSettings(**settings)
    label = chosen.label or (DEFAULT_LABEL if script is None else "script")
    return CafeServer(script if isinstance(script, Script) else Script(script), chosen, label)


@contextmanager
def running_server(
    script: Script | Sequence[Reply] | Responder | None = None, **settings: Any
) -> Iterator[CafeServer]:
    """Run a server in a background thread for the length of a `with` block, then stop it.

    `settings` are as for `make_server`:

        with running_server(["Hello!"], api_key="sk-local") as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="sk-local")
    """
    server = make_server(script, **settings)
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": POLL_INTERVAL_S},
        name=f"cafe-serve-{server.server_address[1]}",
        daemon=True,
    )
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()  # wakes any faulted request that is still waiting out its delay
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
