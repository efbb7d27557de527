"""Shared helpers for tests that drive a live endpoint: settings for one, and a dead one.

Imported by the test modules (`from endpoints import ...`); pytest puts this folder on the path.
"""

from __future__ import annotations

import atexit
import socket

# A key distinctive enough that a test can assert it never appears in any output.
KEY = "sk-test-SECRET-1234567890abcdef"
MODEL = "cafe-scripted"


def live_env(base_url: str, *, key: str = KEY, model: str = MODEL) -> dict[str, str]:
    """The environment of a learner in live mode pointed at `base_url`."""
    return {
        "COURSE_MODE": "live",
        "CAFE_BASE_URL": base_url,
        "CAFE_API_KEY": key,
        "CAFE_MODEL": model,
    }


# Sockets dead_url() holds for the rest of the test run (see there).
_HELD: list[socket.socket] = []
atexit.register(lambda: [sock.close() for sock in _HELD])


def dead_url() -> str:
    """A URL on a port nobody listens on, and nobody else can take while the tests run.

    The socket is bound but never listens, so a connection to it is refused at once. It stays
    bound (it is not closed, then reused): on a busy machine where other test runs open servers
    on free ports, a port that was merely free a moment ago may be answering by the time a test
    connects to it.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD.append(sock)
    return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
