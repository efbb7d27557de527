"""A loopback OTLP/HTTP receiver for tests: collects what an OTLPSpanExporter (or log exporter) posts.

Imported by the test modules (`from otlp_receiver import otlp_receiver`); pytest puts this folder
on the path. Needs the [otel] extra: opentelemetry-exporter-otlp-proto-http brings
opentelemetry-proto and protobuf, which decode the requests.

OTLP/HTTP with binary protobuf: the exporter POSTs an ExportTraceServiceRequest to /v1/traces
(Content-Type application/x-protobuf, gzip-compressed when asked), and log records as an
ExportLogsServiceRequest to /v1/logs; the receiver answers 200 with the matching response.
`refuse=True` answers 400 instead, as a backend that takes no spans from us would.
"""

from __future__ import annotations

import contextlib
import gzip
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

# path -> (request message class, response message class)
_ROUTES = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse),
    "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse),
}


def _value(any_value: Any) -> Any:
    """An OTLP AnyValue as plain Python (str, bool, int, float, list)."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in any_value.kvlist_value.values}
    return getattr(any_value, kind) if kind else None


def attributes(key_values: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in key_values}


@dataclass
class Received:
    """What the receiver was sent: posts per path, and the decoded spans and log records."""

    posts: dict[str, int] = field(default_factory=dict)
    spans: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    content_types: set[str] = field(default_factory=set)


def _collect(received: Received, path: str, message: Any) -> None:
    if path == "/v1/traces":
        for resource_spans in message.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    received.spans.append(
                        {
                            "name": span.name,
                            "trace_id": span.trace_id.hex(),
                            "span_id": span.span_id.hex(),
                            "parent_id": span.parent_span_id.hex() or None,
                            "kind": span.kind,
                            "attributes": attributes(span.attributes),
                            "resource": resource,
                            "status": span.status.code,
                            "events": [(e.name, attributes(e.attributes)) for e in span.events],
                        }
                    )
    else:
        for resource_logs in message.resource_logs:
            for scope in resource_logs.scope_logs:
                for record in scope.log_records:
                    received.logs.append(
                        {
                            "event_name": record.event_name,
                            "span_id": record.span_id.hex(),
                            "trace_id": record.trace_id.hex(),
                            "attributes": attributes(record.attributes),
                        }
                    )


def _handler(
    received: Received, lock: threading.Lock, refuse: bool
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            route = _ROUTES.get(self.path)
            if route is None:
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if refuse:
                with lock:
                    received.posts[self.path] = received.posts.get(self.path, 0) + 1
                self.send_error(400)  # not retried by the exporter: the test stays quick
                return
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request_class, response_class = route
            message = request_class()
            message.ParseFromString(body)
            with lock:
                received.posts[self.path] = received.posts.get(self.path, 0) + 1
                received.content_types.add(self.headers.get("Content-Type", ""))
                _collect(received, self.path, message)
            answer = response_class().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    return Handler


@contextlib.contextmanager
def otlp_receiver(*, refuse: bool = False) -> Iterator[tuple[str, Received]]:
    """A receiver on a free loopback port: yields (base URL, what it received), then stops."""
    received, lock = Received(), threading.Lock()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(received, lock, refuse))
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
