"""Shared helpers for tests that drive a live endpoint: settings for one, and a dead one.

Imported by the test modules (`from endpoints import ...`); pytest puts this folder on the path.
"""

from __future__ import annotations

import socket

# A key distinctive enough that a test can assert it never appears in any output.
KEY = "sk-test-SECRET-1234567890abcdef"
MODEL = "cafe-scripted"


def live_env(base_url: str, *, key: str = KEY, model: str = MODEL) -> dict[str, str]:
    """The environment of a learner in live mode pointed at `base_url`."""
    return {"COURSE_MODE": "live", "CAFE_BASE_URL": base_url, "CAFE_API_KEY": key, "CAFE_MODEL": model}


def dead_url() -> str:
    """A URL on a port nobody listens on: bind a socket to get a free port, then close it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
