"""Toy 10 against an endpoint that does not answer: it says so within one deadline and exits 1.

The principle: a toy tells the learner within one deadline that the endpoint is not answering,
and exits non-zero with the fix. Before, an endpoint that took the connection and never replied
cost the full deadline on each of the shift's eighteen drafted orders (about eighteen minutes at
the default 60 s), and the toy then exited 0 with eighteen transport runs.

The live checks run the toy's file as `__main__` in this process (as tests/test_toys.py does)
against a fake endpoint on a local socket, with a short deadline through `CAFE_TIMEOUT_S`, and
count the chat requests it received, never the time. The rule that decides when the shift stops
(`Listening`) is checked on generated shifts against `stop_at`, written here from the rule alone.
"""

from __future__ import annotations

import json
import os
import runpy
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from endpoints import dead_url
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.errors import EndpointError
from cafe.report.listening import GIVE_UP_AFTER
from cafe.stories.practice_shift import practice_generator, practice_orders
from cafe.taxonomy import Run, run_shift

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "sessions" / "s10-failure-taxonomy" / "toy.py"
KEY = "sk-toy10-SECRET-1b7c9e3a5d2f4086"
MODELS = json.dumps({"object": "list", "data": []}).encode()
TOY_GLOBALS = runpy.run_path(str(TOY), run_name="toy10")  # the toy's names, main() not run
Listening = TOY_GLOBALS["Listening"]


# --- a fake endpoint that never answers a chat request ---------------------------------------


class Silent:
    """A local endpoint that lists no models at once (so the toy's question about where its
    replies come from costs no wait) and takes every other request without ever replying.
    `chats` counts the chat requests it received."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.server.getsockname()[1]}/v1"
        self.chats = 0
        self.held: list[socket.socket] = []
        self.lock = threading.Lock()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:  # closed: the test is over
                return
            with self.lock:
                self.held.append(conn)
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def answer(self, conn: socket.socket) -> None:
        head = b""
        try:
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(65536)
                if not chunk:  # a probe that only connects
                    return
                head += chunk
        except OSError:
            return
        line = head.split(b"\r\n", 1)[0]
        if line.startswith(b"GET ") and b"/models" in line:
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + f"Content-Length: {len(MODELS)}\r\n\r\n".encode()
                + MODELS
            )
            return
        if b"/chat/completions" in line:
            with self.lock:
                self.chats += 1
        # ... and never a reply: the connection stays open until the test closes it

    def close(self) -> None:
        self.server.close()
        with self.lock:
            for conn in self.held:
                conn.close()


@contextmanager
def silent_endpoint() -> Iterator[Silent]:
    endpoint = Silent()
    threading.Thread(target=endpoint.serve, daemon=True).start()
    try:
        yield endpoint
    finally:
        endpoint.close()


def run_toy_live(base_url, home, monkeypatch, capfd) -> tuple[int, str, str]:
    """The toy as `COURSE_MODE=live python toy.py` runs it, with a half-second deadline."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    env.update(
        COURSE_MODE="live",
        CAFE_HOME=str(home),
        CAFE_BASE_URL=base_url,
        CAFE_API_KEY=KEY,
        CAFE_MODEL="any-model",
        CAFE_TIMEOUT_S="0.5",
    )
    for name in list(os.environ):
        if name not in env:
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "argv", [str(TOY)])
    monkeypatch.chdir(ROOT)
    capfd.readouterr()
    try:
        runpy.run_path(str(TOY), run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    out, err = capfd.readouterr()
    return code, out, err


def asked(run: Run) -> bool:
    """Did the order reach the endpoint? Not when it was sent back or refused before any draft."""
    return run.transport is not None or (run.result is not None and bool(run.result.attempts))


def first_drafted() -> int:
    """The index of the first practice order that reaches the endpoint (the offline shift's)."""
    return next(
        i for i, run in enumerate(run_shift(practice_orders(), practice_generator())) if asked(run)
    )


# --- the toy, live ----------------------------------------------------------------------------


def test_toy10_against_an_endpoint_that_never_answers_sends_one_request_and_exits_1(
    tmp_path, monkeypatch, capfd
):
    with silent_endpoint() as endpoint:
        code, out, err = run_toy_live(endpoint.base_url, tmp_path, monkeypatch, capfd)
        chats = endpoint.chats
    assert chats == 1  # was 18: one deadline waited out per drafted order
    assert code == 1
    assert f"the shift stopped after {first_drafted() + 1} of 20 orders" in err
    assert "has not answered any order yet" in err
    assert endpoint.base_url in err and "CAFE_TIMEOUT_S" in err  # the endpoint's own fix
    assert "orders passed" not in out and "Traceback" not in err
    assert KEY not in out + err and "SECRET" not in out + err


def test_toy10_against_a_refused_connection_stops_at_the_first_drafted_order(
    tmp_path, monkeypatch, capfd
):
    code, out, err = run_toy_live(dead_url(), tmp_path, monkeypatch, capfd)
    assert code == 1
    progress = out.split("running the shift ", 1)[1].split("\n", 1)[0]
    assert progress == "." * (first_drafted() + 1)  # one dot per order tried, then the stop
    assert "Could not connect to the endpoint" in err and "CAFE_BASE_URL" in err


# --- when the shift stops, on generated shifts -------------------------------------------------


def stop_at(outcomes: list[str]) -> int | None:
    """Where the rule ends the shift: at the first order the endpoint left unanswered when no
    order before it was answered, or when it is the GIVE_UP_AFTER-th unanswered in a row among
    the orders that reached the endpoint. None: the shift runs to the end."""
    reached: list[str] = []
    for index, outcome in enumerate(outcomes):
        if outcome == "not_asked":
            continue
        reached.append(outcome)
        tail = reached[-GIVE_UP_AFTER:]
        if outcome == "silent" and (
            "answered" not in reached or tail == ["silent"] * GIVE_UP_AFTER
        ):
            return index
    return None


@pytest.fixture(scope="module")
def practice_runs() -> dict[str, list[Run]]:
    """Real runs of the offline practice shift: those the endpoint answered with a draft, and
    those it never saw (refused before any draft)."""
    runs = run_shift(practice_orders(), practice_generator())
    return {
        "answered": [r for r in runs if r.result is not None and r.result.attempts],
        "not_asked": [r for r in runs if not asked(r)],
    }


OUTCOMES = st.sampled_from(["answered", "answered_badly", "silent", "not_asked"])
SILENT_KINDS = st.sampled_from(["timeout", "slow", "connection"])


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # capsys is read per example
)
@given(outcomes=st.lists(OUTCOMES, min_size=1, max_size=20), data=st.data())
def test_listening_ends_the_shift_where_the_rule_says(outcomes, data, practice_runs, capsys):
    runs = []
    for n, outcome in enumerate(outcomes):
        if outcome == "silent":
            kind = data.draw(SILENT_KINDS)
            runs.append(Run(None, transport=kind, detail=f"endpoint silent on order {n}"))
        elif outcome == "answered_badly":  # it answered, with something the client could not use
            runs.append(
                Run(None, transport=data.draw(st.sampled_from(["bad_body", "rate_limited"])))
            )
        else:
            pool = practice_runs[outcome]
            runs.append(pool[n % len(pool)])
    expected = stop_at(["answered" if o == "answered_badly" else o for o in outcomes])
    listening = Listening(len(runs))
    capsys.readouterr()
    stopped = None
    for index, run in enumerate(runs):
        try:
            listening(run)
        except EndpointError as exc:
            stopped = index
            assert f"after {index + 1} of {len(runs)} orders" in str(exc)
            assert str(exc).endswith(run.detail) and exc.kind == run.transport
            break
    assert stopped == expected
    assert capsys.readouterr().out.count(".") == (len(runs) if expected is None else expected + 1)
