"""One HTTP request to `cafe serve`: check the key, route it, answer JSON, or misbehave on purpose.

`Handler` is the request handler `cafe.endpoint.server.serve.CafeServer` runs for every connection (what
it needs of that server is `Serving`). It
answers the two routes the course uses, `GET /v1/models` and `POST /v1/chat/completions`, from
the server's `Script`, and answers like a hosted endpoint when something is wrong: 401 without
the key (when one is set), 404 for an unknown route or model, 400 for a malformed request
(`cafe.endpoint.server.validation`), 413 for a body over `MAX_BODY_BYTES`, 500 when the script has run
out of replies or its responder raised. Every error body has OpenAI's shape, so the SDK raises
its usual exceptions. A `Faults` record (`cafe.endpoint.server.faults`) makes it misbehave on purpose.
Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import hmac
import json
import sys
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol, cast

from cafe.endpoint.client.completions import completion_payload, normalize_reply
from cafe.endpoint.client.script import Script, default_responder, is_health_check
from cafe.endpoint.errors import ScriptExhausted
from cafe.endpoint.scripts.rehearsals import OWNER_PREFIX
from cafe.endpoint.secrets.redaction import redact
from cafe.endpoint.server.faults import MALFORMED_BODY, Faults, fault_error, reply_body
from cafe.endpoint.server.validation import Problem, validate_chat_request

__all__ = ["IDLE_TIMEOUT_S", "MAX_BODY_BYTES", "Serving", "Handler"]

# A connection that sends nothing for this long is dropped, so a stuck client cannot pin a thread.
IDLE_TIMEOUT_S = 30.0
# Request bodies larger than this are refused (413). Chat requests in the course are a few KB.
MAX_BODY_BYTES = 2_000_000


class Serving(Protocol):
    """What a handler needs of the server it answers for (`cafe.endpoint.server.serve.CafeServer`)."""

    script: Script
    label: str
    api_key: str | None
    supports_json_schema: bool
    faults: Faults | None
    log_requests: bool
    stopping: threading.Event

    def record(self, request: dict) -> None: ...

    def take_fault(self) -> Faults | None: ...


class Handler(BaseHTTPRequestHandler):
    """One HTTP request: check the key, route it, answer JSON. Errors become `Problem` bodies."""

    server_version = "cafe-serve/0.1"
    timeout = IDLE_TIMEOUT_S  # applied to the socket by StreamRequestHandler
    trickle_s = 0.0  # seconds between bytes of the answer; set by a `Faults(trickle_s=...)`

    @property
    def serving(self) -> Serving:
        """The server this handler answers for, as what the handler needs of it."""
        return cast(Serving, self.server)

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
            faults = self.serving.faults
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
        expected = self.serving.api_key
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
                "owned_by": f"{OWNER_PREFIX}{self.serving.label}",
            }
            for name in self.serving.script.models
        ]
        self._send(200, {"object": "list", "data": data})

    def _chat(self) -> None:
        server = self.serving
        request = self._read_json()
        server.record(request)
        fault = server.take_fault()
        if fault is not None and self._misbehave(fault, request):
            return
        validate_chat_request(
            request, models=server.script.models, supports_json_schema=server.supports_json_schema
        )
        try:
            reply = self._answer(request)
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

    def _answer(self, request: dict) -> dict:
        """The script's reply; a session script leaves `cafe doctor`'s probes to the default rule
        (`is_health_check`), since it was written for its toy's requests only."""
        if self.serving.label.startswith("session-") and is_health_check(request):
            return normalize_reply(default_responder(request))
        return self.serving.script.reply_to(request)

    def _misbehave(self, fault: Faults, request: dict) -> bool:
        """Act out `fault` on this chat request; False when it leaves the answer to the script."""
        self.trickle_s = fault.trickle_s
        if fault.delay_s and self.serving.stopping.wait(fault.delay_s):
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
            if self.serving.stopping.wait(self.trickle_s):
                return
            self.wfile.write(data[i : i + 1])
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        """One `--log` line. The server masks the secret it holds itself (its `--api-key`), in
        every form the course's redactor masks (as typed, spaced, percent-encoded, hex, base64,
        fragments), along with every secret the course knows of: a client may put the key in
        the path or the query, and the shell `cafe serve` runs in need not hold it in a variable."""
        if self.serving.log_requests:
            line = redact(format % args, self.serving.api_key)
            sys.stderr.write(f"cafe serve: {line}\n")
