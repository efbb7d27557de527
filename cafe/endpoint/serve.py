"""A local OpenAI-compatible endpoint that answers from a script: `cafe serve`.

Offline mode swaps the HTTP client for a `ScriptedClient`. That proves the harness logic, but not
the plumbing around it: the URL, the key, JSON over a socket, the SDK's own error handling. This
module closes that gap. It serves the two routes the course uses,

    GET  /v1/models              the models this server offers (the script's `models`)
    POST /v1/chat/completions    text, tool calls, JSON mode and JSON schema, with `usage`

from the same `cafe.endpoint.scripted.Script` the offline client uses, on the standard library's
`ThreadingHTTPServer`, so the real `openai` SDK talks to it exactly as it talks to a hosted model.
A learner without a key runs `cafe serve` to rehearse live mode (session 00,
`sessions/s00-setup/lesson.md`); tests use `running_server(...)` to drive the SDK over HTTP, and
`Faults` to make the endpoint misbehave on purpose: a status such as 429 or 500, a slow reply, a
body that is not JSON.

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
import ipaddress
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from cafe.endpoint.config import mask_key
from cafe.endpoint.errors import ScriptExhausted
from cafe.endpoint.scripted import Reply, Responder, Script, completion_payload

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Faults",
    "CafeServer",
    "make_server",
    "running_server",
    "serve_forever",
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
# The response_format types OpenAI's chat completions accept.
RESPONSE_FORMATS = frozenset({"text", "json_object", "json_schema"})
# The string forms of tool_choice; the dict form names one function.
TOOL_CHOICES = frozenset({"none", "auto", "required"})
# What a `Faults(malformed=True)` reply sends: announced as JSON, cut off in the middle.
MALFORMED_BODY = b'{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"mess'


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Faults:
    """Misbehaviour to inject into chat completions, for tests of the unhappy paths.

    - `status`: answer with this HTTP error (e.g. 429, 500, 503) instead of a completion;
    - `delay_s`: wait this long before answering (pair it with a small client `timeout=`);
    - `malformed`: answer 200 with a body that claims to be JSON and is not;
    - `times`: how many chat requests misbehave before the server recovers (None: all of them).

    Only `POST /v1/chat/completions` is affected; `GET /v1/models` keeps answering, so a test can
    tell "the endpoint is up but the model misbehaves" from "the endpoint is down" (for that, use
    a port nobody listens on).
    """

    status: int | None = None
    delay_s: float = 0.0
    malformed: bool = False
    times: int | None = None

    def __post_init__(self) -> None:
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(f"Faults(status={self.status}) must be an HTTP error status, 400 to 599.")
        if self.delay_s < 0:
            raise ValueError(f"Faults(delay_s={self.delay_s}) must be zero or more seconds.")
        if self.times is not None and self.times < 1:
            raise ValueError(f"Faults(times={self.times}) must be at least 1, or None for every request.")


class _Problem(Exception):
    """An HTTP error to send back, raised anywhere inside a request handler."""

    def __init__(self, status: int, message: str, *, kind: str = "invalid_request_error",
                 code: str | None = None, param: str | None = None):
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": kind, "param": param, "code": code}}


# --- small pure helpers ---------------------------------------------------------------------


def _as_script(script: Script | Sequence[Reply] | Responder | None) -> Script:
    return script if isinstance(script, Script) else Script(script)


def _fault_problem(status: int) -> _Problem:
    """The error body an injected fault sends, shaped like the real thing for common statuses."""
    if status == 429:
        return _Problem(429, "Rate limit reached (injected by cafe serve Faults). Wait and try again.",
                        kind="rate_limit_error", code="rate_limit_exceeded")
    if status >= 500:
        return _Problem(status, f"The server had an error (HTTP {status}, injected by cafe serve Faults).",
                        kind="server_error")
    return _Problem(status, f"HTTP {status} injected by cafe serve Faults.")


def _validate_chat_request(request: Any, *, models: Sequence[str], supports_json_schema: bool) -> None:
    """Raise `_Problem` (400 or 404) unless `request` is a chat completion request we can answer."""
    if not isinstance(request, dict):
        raise _Problem(400, "The request body must be a JSON object.")
    model = request.get("model")
    if not isinstance(model, str) or not model:
        raise _Problem(400, "Missing required field 'model' (a model name, as GET /v1/models lists it).",
                       param="model")
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _Problem(400, "Missing required field 'messages' (a non-empty list of messages).",
                       param="messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise _Problem(400, f"messages[{i}] must be an object with a 'role'.", param=f"messages[{i}]")
    if model not in models:
        raise _Problem(404, f"The model {model!r} does not exist on this server. It offers: "
                            f"{', '.join(models)}. Set CAFE_MODEL to one of them.",
                       code="model_not_found", param="model")
    if request.get("stream"):
        raise _Problem(400, "Streaming is not supported by cafe serve; call without stream=True.",
                       param="stream")
    _validate_tools(request)
    _validate_response_format(request.get("response_format"), supports_json_schema)


def _validate_tools(request: dict) -> None:
    tools = request.get("tools")
    names = []
    if tools is not None:
        if not isinstance(tools, list):
            raise _Problem(400, "'tools' must be a list of function tools.", param="tools")
        for i, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(function, dict) or tool.get("type") != "function" or not function.get("name"):
                raise _Problem(400, f"tools[{i}] must look like "
                                    '{"type": "function", "function": {"name": ..., "parameters": {...}}}.',
                               param=f"tools[{i}]")
            names.append(function["name"])
    choice = request.get("tool_choice")
    if choice is None:
        return
    if not names:
        raise _Problem(400, "'tool_choice' is only allowed when 'tools' are given.", param="tool_choice")
    if isinstance(choice, str) and choice in TOOL_CHOICES:
        return
    function = choice.get("function") if isinstance(choice, dict) else None
    wanted = function.get("name") if isinstance(function, dict) else None
    if wanted not in names:
        raise _Problem(400, f"'tool_choice' must be one of {sorted(TOOL_CHOICES)} or name one of the "
                            f"offered tools ({', '.join(names)}); got {choice!r}.", param="tool_choice")


def _validate_response_format(response_format: Any, supports_json_schema: bool) -> None:
    if response_format is None:
        return
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in RESPONSE_FORMATS:
        raise _Problem(400, f"'response_format' must have a 'type' among {sorted(RESPONSE_FORMATS)}; "
                            f"got {response_format!r}.", param="response_format")
    if kind == "json_schema":
        if not supports_json_schema:
            raise _Problem(400, "response_format json_schema is not supported by this server. "
                                'Use {"type": "json_object"} and check the reply against the schema yourself.',
                           param="response_format")
        if not isinstance(response_format.get("json_schema"), dict):
            raise _Problem(400, "response_format json_schema needs a 'json_schema' object "
                                "(with 'name' and 'schema').", param="response_format")


# --- the server -----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    """One HTTP request: check the key, route it, answer JSON. Errors become `_Problem` bodies."""

    server: "CafeServer"
    server_version = "cafe-serve/0.1"
    timeout = IDLE_TIMEOUT_S  # applied to the socket by StreamRequestHandler

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
            if path not in routes:
                raise _Problem(404, f"No route {method} {path}. This server answers GET /v1/models and "
                                    "POST /v1/chat/completions: does your base URL end in /v1?")
            if method not in routes[path]:
                raise _Problem(405, f"{path} does not accept {method}; use {', '.join(routes[path])}.")
            routes[path][method]()
        except _Problem as problem:
            self._send(problem.status, problem.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up first (its timeout fired during a slow reply): nothing to send
        except Exception as exc:  # a bug must still answer as an endpoint would, not drop the socket
            self._send(500, _Problem(500, f"cafe serve failed: {type(exc).__name__}: {exc}",
                                     kind="server_error").body)

    def _authorize(self) -> None:
        expected = self.server.api_key
        if expected is None:
            return
        header = self.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            raise _Problem(401, "Missing API key: send 'Authorization: Bearer <key>' (CAFE_API_KEY).",
                           code="invalid_api_key")
        # compare_digest: the time taken does not reveal how much of the key was right
        if not hmac.compare_digest(header[len("Bearer "):].encode(), expected.encode()):
            raise _Problem(401, "Incorrect API key provided. Check CAFE_API_KEY against the key this "
                                "server was started with.", code="invalid_api_key")

    def _models(self) -> None:
        data = [{"id": name, "object": "model", "created": 0, "owned_by": "cafe"}
                for name in self.server.script.models]
        self._send(200, {"object": "list", "data": data})

    def _chat(self) -> None:
        server = self.server
        request = self._read_json()
        server.record(request)
        fault = server.take_fault()
        if fault is not None:
            if fault.delay_s and server.stopping.wait(fault.delay_s):
                return  # the server is shutting down: do not keep the caller (or the test) waiting
            if fault.status is not None:
                raise _fault_problem(fault.status)
            if fault.malformed:
                self._send_raw(200, MALFORMED_BODY)
                return
        _validate_chat_request(request, models=server.script.models,
                              supports_json_schema=server.supports_json_schema)
        try:
            reply = server.script.reply_to(request)
        except ScriptExhausted as exc:
            raise _Problem(500, str(exc), kind="server_error", code="script_exhausted") from None
        except Exception as exc:  # the learner's responder function raised, or returned a bad reply
            raise _Problem(500, f"The script could not answer: {type(exc).__name__}: {exc}",
                           kind="server_error", code="script_error") from None
        payload = completion_payload(reply, model=request["model"], request=request,
                                     number=server.script.next_id())
        self._send(200, payload)

    def _read_json(self) -> Any:
        try:
            length = int(self.headers.get("Content-Length", ""))
            if length < 0:
                raise ValueError(length)
        except ValueError:
            raise _Problem(400, "The request has no valid Content-Length header.") from None
        if length > MAX_BODY_BYTES:
            raise _Problem(413, f"The request body is {length} bytes; this server takes at most "
                                f"{MAX_BODY_BYTES}.")
        raw = self.rfile.read(length)
        try:
            request = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _Problem(400, f"The request body is not valid JSON: {exc}.") from None
        if not isinstance(request, dict):
            raise _Problem(400, "The request body must be a JSON object.")
        return request

    def _send(self, status: int, body: Mapping[str, Any]) -> None:
        self._send_raw(status, json.dumps(body).encode("utf-8"))

    def _send_raw(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        # The request line holds the method and path, never a header, so the key cannot leak here.
        if self.server.log_requests:
            sys.stderr.write(f"cafe serve: {format % args}\n")


class CafeServer(ThreadingHTTPServer):
    """The HTTP server: one thread per request, all answering from one shared `Script`.

    `base_url` is what CAFE_BASE_URL should be; `requests` lists the JSON bodies of the chat
    completion requests received, in arrival order, so a test can assert on what the SDK sent.
    """

    daemon_threads = True
    block_on_close = False  # a slow (faulted) reply must not hold up shutdown

    def __init__(self, address: tuple[str, int], *, script: Script, api_key: str | None,
                 supports_json_schema: bool, faults: Faults | None, log_requests: bool):
        super().__init__(address, _Handler)
        self.script = script
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
) -> CafeServer:
    """Bind a `CafeServer` (port 0 picks a free port); the caller runs and closes it."""
    if api_key is not None and not api_key:
        raise ValueError("api_key is empty; pass None to accept any key, or a non-empty key to require it.")
    return CafeServer((host, port), script=_as_script(script), api_key=api_key,
                      supports_json_schema=supports_json_schema, faults=faults, log_requests=log_requests)


@contextmanager
def running_server(
    script: Script | Sequence[Reply] | Responder | None = None,
    *,
    api_key: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    supports_json_schema: bool = True,
    faults: Faults | None = None,
) -> Iterator[CafeServer]:
    """Run a server in a background thread for the length of a `with` block, then stop it.

        with running_server(["Hello!"], api_key="sk-local") as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="sk-local")
    """
    server = make_server(script, api_key=api_key, host=host, port=port,
                         supports_json_schema=supports_json_schema, faults=faults)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S},
                              name=f"cafe-serve-{server.server_address[1]}", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()  # wakes any faulted request that is still waiting out its delay
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --- the command ----------------------------------------------------------------------------


def _banner(server: CafeServer, api_key: str | None) -> str:
    if api_key is None:
        key_line = "export CAFE_API_KEY=sk-local        # any non-empty text: this server checks no key"
        key_note = "any key is accepted"
    else:
        key_line = (f"export CAFE_API_KEY=YOUR-KEY        "
                    f"# the value you passed to --api-key ({mask_key(api_key)})")
        key_note = f"requests must carry the key you gave ({mask_key(api_key)})"
    lines = [
        f"cafe serve: a scripted OpenAI-compatible endpoint at {server.base_url}",
        f"Models: {', '.join(server.script.models)}; {key_note}.",
        "To point the course at it, run these in another terminal:",
        "",
        "  export COURSE_MODE=live",
        f"  export CAFE_BASE_URL={server.base_url}",
        f"  {key_line}",
        f"  export CAFE_MODEL={server.script.models[0]}",
        "",
        "then `cafe doctor` to check. Press Ctrl-C to stop.",
    ]
    if not ipaddress.ip_address(server.server_address[0]).is_loopback:
        lines.append("Note: this server listens beyond loopback; "
                     "anyone who can reach this machine can use it.")
    return "\n".join(lines)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def serve_forever(
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    api_key: str | None = None,
    script_path: str | None = None,
    log_requests: bool = False,
    out: TextIO | None = None,
) -> int:
    """`cafe serve`: answer HTTP requests until Ctrl-C (or SIGTERM), then return 0.

    Returns 2 when the script file cannot be loaded or the port cannot be bound, after saying why.
    """
    out = out or sys.stdout
    try:
        script = Script.from_file(script_path) if script_path else Script()
        server = make_server(script, api_key=api_key, host=host, port=port, log_requests=log_requests)
    except ValueError as exc:
        print(f"cafe serve: {exc}", file=sys.stderr)
        return 2
    except PermissionError as exc:
        print(f"cafe serve: not allowed to listen on {host}:{port} ({exc.strerror or exc}). Ports below "
              "1024 usually need administrator rights; pick one above 1024 with --port.", file=sys.stderr)
        return 2
    except (OSError, OverflowError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        print(f"cafe serve: could not listen on {host}:{port} ({reason}). Is another server using "
              "that port? Pick another with --port, or --port 0 for any free one.", file=sys.stderr)
        return 2
    # Ctrl-C and SIGTERM both mean "stop cleanly", even if our parent started us ignoring SIGINT.
    previous = {}
    if threading.current_thread() is threading.main_thread():  # only the main thread may set handlers
        previous = {sig: signal.signal(sig, _raise_interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    print(_banner(server, api_key), file=out, flush=True)
    try:
        server.serve_forever(poll_interval=POLL_INTERVAL_S)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping.set()
        server.server_close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("\ncafe serve: stopped. Goodbye from the café.", file=out, flush=True)
    return 0
