"""A local OpenAI-compatible endpoint that answers from a script: `cafe serve`.

Offline mode swaps the HTTP client for a `ScriptedClient`. That proves the harness logic, but not
the plumbing around it: the URL, the key, JSON over a socket, the SDK's own error handling. This
module closes that gap. It serves the two routes the course uses,

    GET  /v1/models              the models this server offers (the script's `models`)
    POST /v1/chat/completions    text, tool calls, JSON mode and JSON schema, with `usage`

from the same `cafe.endpoint.scripted.Script` the offline client uses, on the standard library's
`ThreadingHTTPServer`, so the real `openai` SDK talks to it exactly as it talks to a hosted model.
A learner without a key runs `cafe serve` to rehearse live mode (session 00,
`sessions/s00-setup/lesson.md`); tests and notebooks use `running_server(...)` to drive the SDK
over HTTP. `Faults` (`cafe.endpoint.faults`; `cafe serve --fault ...` on the command line) make it
misbehave on purpose: a 429 or a 500, a slow or trickling reply, a web page, no choices.

The `cafe serve` command itself (flags, banner, Ctrl-C) is in `cafe.cli`.

It answers like a hosted endpoint when something is wrong: 401 without the key (when one is
configured), 404 for a model it does not offer (listing the ones it does), 400 for a malformed
request, 500 when the script has run out of replies. Every error body has OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`, so the SDK raises its usual exceptions.

What it leaves out: streaming, the other OpenAI routes, and any check that a reply really matches
the requested JSON schema. The script decides what the "model" says; session 04 checks replies
against the ticket contract. It is a rehearsal stage, not a model.
"""

from __future__ import annotations

import hmac
import json
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cafe.endpoint.completions import Reply, Responder, completion_payload
from cafe.endpoint.errors import ScriptExhausted
from cafe.endpoint.faults import MALFORMED_BODY, Faults, fault_error, reply_body
from cafe.endpoint.rehearsals import DEFAULT_LABEL, OWNER_PREFIX
from cafe.endpoint.script import Script
from cafe.endpoint.validation import Problem, validate_chat_request

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Faults",
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
# A connection that sends nothing for this long is dropped, so a stuck client cannot pin a thread.
IDLE_TIMEOUT_S = 30.0
# Request bodies larger than this are refused (413). Chat requests in the course are a few KB.
MAX_BODY_BYTES = 2_000_000


def _as_script(script: Script | Sequence[Reply] | Responder | None) -> Script:
    return script if isinstance(script, Script) else Script(script)


# --- the server -----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    """One HTTP request: check the key, route it, answer JSON. Errors become `Problem` bodies."""

    server: CafeServer
    server_version = "cafe-serve/0.1"
    timeout = IDLE_TIMEOUT_S  # applied to the socket by StreamRequestHandler
    trickle_s = 0.0  # seconds between bytes of the answer; set by a `Faults(trickle_s=...)`

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        routes: dict[str, dict[str, Callable[[], None]]] = {
            "/v1/models": {"GET": self._models},
            "/v1/chat/completions": {"POST": self._chat},
        }
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            self._authorize()
            faults = self.server.faults
            if faults is not None and faults.reply == "html" and path != "/v1/chat/completions":
                content_type, page = reply_body("html", "")  # a web site answers every path
                self._send_raw(200, page, content_type=content_type)
                return
            if path not in routes:
                raise Problem(
                    404,
                    f"No route {method} {path}. This server answers GET /v1/models and "
                    "POST /v1/chat/completions: does your base URL end in /v1?",
                )
            if method not in routes[path]:
                raise Problem(
                    405, f"{path} does not accept {method}; use {', '.join(routes[path])}."
                )
            routes[path][method]()
        except Problem as problem:
            self._send(problem.status, problem.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up first (its timeout fired during a slow reply): nothing to send
        except (
            Exception
        ) as exc:  # a bug must still answer as an endpoint would, not drop the socket
            self._send(
                500,
                Problem(
                    500, f"cafe serve failed: {type(exc).__name__}: {exc}", kind="server_error"
                ).body,
            )

    def _authorize(self) -> None:
        expected = self.server.api_key
        if expected is None:
            return
        header = self.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            raise Problem(
                401,
                "Missing API key: send 'Authorization: Bearer <key>' (CAFE_API_KEY).",
                code="invalid_api_key",
            )
        # compare_digest: the time taken does not reveal how much of the key was right
        if not hmac.compare_digest(header[len("Bearer ") :].encode(), expected.encode()):
            raise Problem(
                401,
                "Incorrect API key provided. Check CAFE_API_KEY against the key this "
                "server was started with.",
                code="invalid_api_key",
            )

    def _models(self) -> None:
        data = [
            {
                "id": name,
                "object": "model",
                "created": 0,
                "owned_by": f"{OWNER_PREFIX}{self.server.label}",
            }
            for name in self.server.script.models
        ]
        self._send(200, {"object": "list", "data": data})

    def _chat(self) -> None:
        server = self.server
        request = self._read_json()
        server.record(request)
        fault = server.take_fault()
        if fault is not None and self._misbehave(fault, request):
            return
        validate_chat_request(
            request, models=server.script.models, supports_json_schema=server.supports_json_schema
        )
        try:
            reply = server.script.reply_to(request)
        except ScriptExhausted as exc:
            raise Problem(500, str(exc), kind="server_error", code="script_exhausted") from None
        except Exception as exc:  # the learner's responder function raised, or returned a bad reply
            raise Problem(
                500,
                f"The script could not answer: {type(exc).__name__}: {exc}",
                kind="server_error",
                code="script_error",
            ) from None
        payload = completion_payload(
            reply, model=request["model"], request=request, number=server.script.next_id()
        )
        self._send(200, payload)

    def _misbehave(self, fault: Faults, request: dict) -> bool:
        """Act out `fault` on this chat request; False when it leaves the answer to the script."""
        self.trickle_s = fault.trickle_s
        if fault.delay_s and self.server.stopping.wait(fault.delay_s):
            return True  # the server is shutting down: do not keep the caller (or the test) waiting
        if fault.status is not None:
            body, headers = fault_error(fault.status, fault.retry_after_s)
            self._send_raw(fault.status, json.dumps(body).encode("utf-8"), headers=headers)
        elif fault.malformed:
            self._send_raw(200, MALFORMED_BODY)
        elif fault.reply is not None:
            content_type, data = reply_body(fault.reply, str(request.get("model", "")))
            self._send_raw(200, data, content_type=content_type)
        else:
            return False
        return True

    def _read_json(self) -> Any:
        try:
            length = int(self.headers.get("Content-Length", ""))
            if length < 0:
                raise ValueError(length)
        except ValueError:
            raise Problem(400, "The request has no valid Content-Length header.") from None
        if length > MAX_BODY_BYTES:
            raise Problem(
                413,
                f"The request body is {length} bytes; this server takes at most {MAX_BODY_BYTES}.",
            )
        raw = self.rfile.read(length)
        try:
            request = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise Problem(400, f"The request body is not valid JSON: {exc}.") from None
        if not isinstance(request, dict):
            raise Problem(400, "The request body must be a JSON object.")
        return request

    def _send(self, status: int, body: Mapping[str, Any]) -> None:
        self._send_raw(status, json.dumps(body).encode("utf-8"))

    def _send_raw(
        self,
        status: int,
        data: bytes,
        *,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        for name, value in {
            "Content-Type": content_type,
            "Content-Length": str(len(data)),
            **(headers or {}),
        }.items():
            self.send_header(name, value)
        self.end_headers()
        if not self.trickle_s:
            self.wfile.write(data)
            return
        for i in range(len(data)):  # a `Faults(trickle_s=...)` reply: one byte at a time
            if self.server.stopping.wait(self.trickle_s):
                return
            self.wfile.write(data[i : i + 1])
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        # The request line holds the method and path, never a header, so the key cannot leak here.
        if self.server.log_requests:
            sys.stderr.write(f"cafe serve: {format % args}\n")


class CafeServer(ThreadingHTTPServer):
    """The HTTP server: one thread per request, all answering from one shared `Script`.

    `base_url` is what CAFE_BASE_URL should be; `requests` lists the JSON bodies of the chat
    completion requests received, in arrival order, so a test can assert on what the SDK sent.
    `label` names the script in the model list (`owned_by` is `cafe-serve:<label>`), so a toy can
    tell the default rule from a session's script (`cafe.endpoint.rehearsals.rehearsal_script`).
    """

    daemon_threads = True
    block_on_close = False  # a slow (faulted) reply must not hold up shutdown

    def __init__(
        self,
        address: tuple[str, int],
        *,
        script: Script,
        api_key: str | None,
        supports_json_schema: bool,
        faults: Faults | None,
        log_requests: bool,
        label: str,
    ):
        super().__init__(address, _Handler)
        self.script = script
        self.label = label
        self.api_key = api_key
        self.supports_json_schema = supports_json_schema
        self.faults = faults
        self.log_requests = log_requests
        self.requests: list[dict] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._faults_left = None if faults is None else faults.times

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
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
    script: Script | Sequence[Reply] | Responder | None = None,
    *,
    api_key: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    supports_json_schema: bool = True,
    faults: Faults | None = None,
    log_requests: bool = False,
    label: str | None = None,
) -> CafeServer:
    """Bind a `CafeServer` (port 0 picks a free port); the caller runs and closes it.

    `label` names the script in the model list; by default "default" with no script, else "script".
    """
    if api_key is not None and not api_key:
        raise ValueError(
            "api_key is empty; pass None to accept any key, or a non-empty key to require it."
        )
    label = label or (DEFAULT_LABEL if script is None else "script")
    return CafeServer(
        (host, port),
        script=_as_script(script),
        api_key=api_key,
        supports_json_schema=supports_json_schema,
        faults=faults,
        log_requests=log_requests,
        label=label,
    )


@contextmanager
def running_server(
    script: Script | Sequence[Reply] | Responder | None = None,
    *,
    api_key: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    supports_json_schema: bool = True,
    faults: Faults | None = None,
    label: str | None = None,
) -> Iterator[CafeServer]:
    """Run a server in a background thread for the length of a `with` block, then stop it.

    with running_server(["Hello!"], api_key="sk-local") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-local")
    """
    server = make_server(
        script,
        api_key=api_key,
        host=host,
        port=port,
        supports_json_schema=supports_json_schema,
        faults=faults,
        label=label,
    )
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
