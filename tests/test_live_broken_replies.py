"""An answer that started and broke is named by what happened, not as a failure to connect.

The principle: when the endpoint accepted the connection and its answer then broke (cut off in
the status line, the headers or the body, or a compressed body that does not decompress), `chat()`
raises an `EndpointError` of kind `broken_reply` that says the endpoint took the request, never
"Could not connect", whose fix (start the server) points the wrong way; the doctor says the same.

The answers come from a real socket on 127.0.0.1 that reads the request and writes the bytes a
test chose, read by the client `make_client` builds (the SDK's own HTTP stack, as a learner's
call goes), so what is checked is how the library really surfaces each break.
"""

from __future__ import annotations

import gzip
import io
import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import openai
import pytest
from endpoints import KEY, dead_url, live_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.chat import LiveClient, chat, make_client
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.errors import EndpointError

MESSAGES = [{"role": "user", "content": "A latte, please."}]
BODY = json.dumps(
    {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ],
    }
).encode()


def response(body: bytes, *headers: str) -> bytes:
    """A whole HTTP 200 response carrying `body`, with `headers` besides its length."""
    head = ["HTTP/1.1 200 OK", "Content-Type: application/json", "Connection: close", *headers]
    return ("\r\n".join([*head, f"Content-Length: {len(body)}", "", ""])).encode() + body


WHOLE = response(BODY)
# The two bytes every gzip stream starts with.
GZIP_MAGIC = gzip.compress(b"")[:2]


def _read_request(conn: socket.socket) -> None:
    """Read one request whole (headers, then a body of its Content-Length), so that the client
    is waiting for the answer, not still writing, when the server answers and closes."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536) or b"\r\n\r\n"
    head, _, body = data.partition(b"\r\n\r\n")
    lengths = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
    wanted = int(lengths[0].split(b":")[1]) if lengths else 0
    while len(body) < wanted and (more := conn.recv(65536)):
        body += more


@contextmanager
def answering(answers: list[bytes]) -> Iterator[str]:
    """A server that answers each request with `answers[0]` (as it is at the time) and closes the
    connection; its base URL. A test puts the answer it wants in the list before each call."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    done = threading.Event()

    def serve() -> None:
        while True:
            conn, _ = server.accept()
            with conn:
                if done.is_set():  # the connection that wakes this thread up to end
                    return
                _read_request(conn)
                conn.sendall(answers[0])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    finally:
        done.set()
        socket.create_connection(server.getsockname(), timeout=5).close()
        thread.join(timeout=5)
        server.close()


@pytest.fixture(scope="module")
def ask() -> Iterator[Callable[[bytes], object]]:
    """`ask(raw)`: what `chat()` returns or raises when the endpoint answers with `raw`; one
    server and one client (made as a learner's is, by `make_client`) for the whole module."""
    answers = [WHOLE]
    with answering(answers) as url:
        client = make_client(environ=live_env(url))

        def outcome(raw: bytes) -> object:
            answers[0] = raw
            try:
                return chat(client, model="m", messages=MESSAGES)
            except EndpointError as error:
                return error

        yield outcome
        client.close()


def assert_broke_off(result: object) -> None:
    assert isinstance(result, EndpointError), result
    assert result.kind == "broken_reply", str(result)
    assert "took the request, but its answer broke off" in str(result)
    assert "Could not connect" not in str(result)
    assert KEY not in str(result) and KEY[3:15] not in str(result)


def test_a_whole_answer_is_read(ask):
    assert ask(WHOLE).choices[0].message.content == "hi"


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cut=st.integers(min_value=0, max_value=len(WHOLE) - 1))
def test_chat_names_an_answer_cut_anywhere_a_broken_reply(ask, cut):
    assert_broke_off(ask(WHOLE[:cut]))


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cut=st.integers(min_value=0, max_value=len(BODY) - 1))
def test_chat_names_a_chunked_body_cut_short_a_broken_reply(ask, cut):
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    assert_broke_off(ask(head + b"%x\r\n" % len(BODY) + BODY[:cut]))


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(garbled=st.binary(min_size=2, max_size=64).filter(lambda b: b[0] != GZIP_MAGIC[0]))
def test_chat_names_a_body_that_does_not_decompress_a_broken_reply(ask, garbled):
    # Two bytes or more, not starting with gzip's magic number, so the reader knows at once that
    # it is not gzip. (A shorter or a cut gzip stream is not noticed by the HTTP library: it reads
    # as a body cut short, which `chat()` names as JSON that does not parse, a bad_body.)
    assert_broke_off(ask(response(garbled, "Content-Encoding: gzip")))


def test_a_refused_connection_is_still_a_connection_failure():
    client = make_client(environ=live_env(dead_url()))
    try:
        chat(client, model="m", messages=MESSAGES)
    except EndpointError as error:
        assert error.kind == "connection" and "Could not connect" in str(error)
    else:
        raise AssertionError("a dead port answered")


def test_doctor_names_a_model_list_cut_short_as_the_client_does():
    with answering([WHOLE[: len(WHOLE) - 5]]) as url:
        out = io.StringIO()
        report = doctor(environ=live_env(url), out=out, timeout=5)
    (reachable,) = [c for c in report.checks if c.name == "endpoint reachable"]
    assert not reachable.ok
    assert reachable.detail.startswith(f"The endpoint {url} took the request, but its answer broke")
    assert "Could not connect" not in out.getvalue() and KEY not in out.getvalue()


class _CutShort(httpx.SyncByteStream):
    """A body that breaks after its first bytes, as httpx reports a peer that closed early."""

    def __iter__(self) -> Iterator[bytes]:
        yield BODY[:10]
        raise httpx.RemoteProtocolError("peer closed connection without sending complete body")


def test_chat_names_a_broken_reply_from_httpx_as_older_sdks_use_it():
    # Older `openai` SDKs talk through httpx rather than httpx2; its errors are named the same.
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json"}, stream=_CutShort())

    sdk = openai.OpenAI(
        base_url="http://127.0.0.1:9/v1",
        api_key=KEY,
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(answer)),
    )
    with pytest.raises(EndpointError) as caught:
        chat(LiveClient(sdk, reply_cap=8, timeout=10.0), model="m", messages=MESSAGES)
    assert_broke_off(caught.value)
