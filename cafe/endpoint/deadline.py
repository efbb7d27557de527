"""A deadline for a whole call: `within_deadline` gives a call so many seconds in all, then gives up.

The `openai` SDK's timeout limits each wait for the next bytes, so a server that trickles a byte at
a time never times out, and neither does a scripted responder stuck in a loop. `within_deadline`
runs the call in a worker thread and stops waiting when its time is up, whatever the socket or the
script is doing; a call still waiting after `WAIT_NOTICE_S` says so once, so silence never looks
like a hang. `cafe.endpoint.client.complete` puts every call, offline and live, through it.
Session 00 (`sessions/s00-setup/lesson.md`) shows a call running out of time.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

__all__ = ["WAIT_NOTICE_S", "within_deadline"]

# After this many seconds without an answer a call says, once, that it is waiting: long enough
# that a healthy endpoint never triggers it, short enough that silence never looks like a hang.
WAIT_NOTICE_S = 2.0

T = TypeVar("T")


def within_deadline(
    call: Callable[[], T], seconds: float, *, waiting_for: str, notice: TextIO | None = None
) -> T:
    """`call()`, given at most `seconds` in all; raise `TimeoutError` if it has not returned by then.

    After `WAIT_NOTICE_S` it prints, once, to `notice` (default stderr) that it is still waiting for
    `waiting_for` and for how long at most. A call cut off finishes (or fails) in the background;
    its answer is thrown away. What the call raises is raised here, as it is.
    """
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting thread, which raises it
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="cafe-endpoint-call", daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(min(seconds, WAIT_NOTICE_S))
    if worker.is_alive() and seconds > WAIT_NOTICE_S:
        print(
            f"cafe: waiting for {waiting_for} (giving up after {seconds:g} s)…",
            file=notice or sys.stderr,
            flush=True,
        )
        worker.join(max(0.0, seconds - (time.monotonic() - started)))
    if worker.is_alive():
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
