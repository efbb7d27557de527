"""A stand-in for a server that spells structured output its own way, for the step-down tests.

`running_dialect_server(...)` serves /v1/models and /v1/chat/completions on 127.0.0.1 the way
llama-cpp-python's server (0.3) does in the two places that matter to the course:

- `response_format: {"type": "json_schema", ...}` is refused with HTTP **500** and a pydantic
  validation error naming `response_format` (not a 400, which is what the OpenAI API sends);
- `{"type": "json_object", "schema": {...}}` is its spelling for schema-constrained JSON: the
  reply fills the schema's required fields.

It records every request body. With `refuse_max_tokens=True` it answers a request carrying
`max_tokens` as OpenAI's newer models do (400, asking for `max_completion_tokens`), and with
`refuse_temperature=True` a temperature other than 1 as OpenAI's reasoning models do.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "smollm2"
# What llama-cpp-python 0.3.36 sends for a json_schema response_format, as seen from the real
# server (its error handler wraps the request's validation error in an OpenAI-shaped 500).
LLAMA_FORMAT_ERROR = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}\n"
)


@dataclass
class DialectServer:
    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)


def _reply(request: dict[str, Any]) -> str:
    fmt = request.get("response_format") or {}
    schema = fmt.get("schema") if fmt.get("type") == "json_object" else None
    if schema:
        return json.dumps(
            {
                name: True if spec.get("type") == "boolean" else 1
                for name, spec in schema.get("properties", {}).items()
            }
        )
    if fmt.get("type") == "json_object":
        return '{"ok": true}'
    return "Sure! Here is your answer."


def _handler(
    server: DialectServer, refuse_max_tokens: bool, refuse_temperature: bool
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep the test output clean
            pass

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(
                200,
                {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "me"}]},
            )

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            server.requests.append(request)
            if (request.get("response_format") or {}).get("type") == "json_schema":
                return self._send(
                    500,
                    {
                        "error": {
                            "message": LLAMA_FORMAT_ERROR,
                            "type": "internal_server_error",
                            "param": None,
                            "code": None,
                        }
                    },
                )
            if refuse_temperature and request.get("temperature", 1) != 1:
                return self._send(
                    400,
                    {
                        "error": {
                            "message": "Unsupported value: 'temperature' does not support 0 with this model. "
                            "Only the default (1) value is supported.",
                            "type": "invalid_request_error",
                            "param": "temperature",
                            "code": "unsupported_value",
                        }
                    },
                )
            if refuse_max_tokens and "max_tokens" in request:
                return self._send(
                    400,
                    {
                        "error": {
                            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                            "Use 'max_completion_tokens' instead.",
                            "type": "invalid_request_error",
                            "param": "max_tokens",
                            "code": "unsupported_parameter",
                        }
                    },
                )
            self._send(
                200,
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": MODEL,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": _reply(request)},
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                },
            )

    return Handler


@contextmanager
def running_dialect_server(
    *, refuse_max_tokens: bool = False, refuse_temperature: bool = False
) -> Iterator[DialectServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server = DialectServer(f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    httpd.RequestHandlerClass = _handler(server, refuse_max_tokens, refuse_temperature)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
