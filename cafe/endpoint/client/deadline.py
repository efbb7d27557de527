"""A deadline for a whole call: `within_deadline` gives a call so many seconds in all, then gives up.

The `openai` SDK's timeout limits each wait for the next bytes, so a server that trickles a byte at
a time never times out, and neither does a scripted responder stuck in a loop. `within_deadline`
runs the call on a worker thread and stops waiting when its time is up, whatever the socket or the
script is doing; a call still waiting after `WAIT_NOTICE_S` says so, so silence never looks like a
hang. On a slow model every call waits: the notice then comes at most once every `NOTICE_EVERY_S`
on one stream, so a toy making forty slow calls prints a line a minute, not forty.
`cafe.endpoint.client.chat.complete` puts every call, offline and live, through it.
Session 00 (`sessions/s00-setup/lesson.md`) shows a call running out of time.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

__all__ = ["NOTICE_EVERY_S", "WAIT_NOTICE_S", "within_deadline"]

# After this many seconds without an answer a call says that it is waiting: long enough
# that a healthy endpoint never triggers it, short enough that silence never looks like a hang.
WAIT_NOTICE_S = 2.0
# After a notice, the next one on the same stream waits at least this long.
NOTICE_EVERY_S = 60.0

T = TypeVar("T")


class _Worker:
    """A daemon thread that runs the calls handed to it, one at a time. One cut off by its
    deadline is abandoned: it finishes that call in the background, then ends."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.abandoned = False
        threading.Thread(target=self._serve, name="cafe-endpoint-call", daemon=True).start()

    def _serve(self) -> None:
        while not self.abandoned:
            self.jobs.get()()


# Workers free for the next call. Starting a thread costs a few hundred microseconds on a busy
# machine, more than a scripted reply; a call takes an idle worker and gives it back when it
# answers in time. No call's outcome depends on this pool, nor on `_NOTICED` below.
_IDLE: list[_Worker] = []
_IDLE_LOCK = threading.Lock()


def _forget_idle_workers() -> None:
    """In a forked child: a fork copies the parent's memory but none of its threads, so the idle
    workers listed here do not exist there, and a call handed to one would wait for ever (the
    capstone grader forks the learner's harness). The child starts with an empty pool and a fresh
    lock (the parent's may have been held at the moment of the fork)."""
    global _IDLE_LOCK
    _IDLE.clear()
    _IDLE_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_forget_idle_workers)


# When each stream last showed the notice (weak keys: a closed capture buffer drops out).
_NOTICED: weakref.WeakKeyDictionary[TextIO, float] = weakref.WeakKeyDictionary()


def _notify(stream: TextIO, text: str) -> None:
    """Print `text` on `stream` unless it showed a notice less than `NOTICE_EVERY_S` ago."""
    now = time.monotonic()
    last = _NOTICED.get(stream)
    if last is not None and now - last < NOTICE_EVERY_S:
        return
    print(text, file=stream, flush=True)
    with contextlib.suppress(TypeError):  # a stream that cannot be weakly referenced: every time
        _NOTICED[stream] = now


def _worker() -> _Worker:
    with _IDLE_LOCK:
        if _IDLE:
            return _IDLE.pop()
    return _Worker()


def within_deadline(
    call: Callable[[], T], seconds: float, *, waiting_for: str, notice: TextIO | None = None
) -> T:
    """`call()`, given at most `seconds` in all; raise `TimeoutError` if it has not returned by then.

    The call runs on a worker thread, so the wait can be cut off whatever the socket or the
    script is doing. After `WAIT_NOTICE_S` it prints to `notice` (default stderr) that it is still
    waiting for `waiting_for` and for how long at most, unless that stream had a notice in the
    last `NOTICE_EVERY_S`. A call cut off finishes (or fails) in the background; its answer is
    thrown away. What the call raises is raised here.
    """
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def job() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting thread, which raises it
            outcome["error"] = exc
        done.set()

    worker = _worker()
    started = time.monotonic()
    worker.jobs.put(job)
    if not done.wait(min(seconds, WAIT_NOTICE_S)) and seconds > WAIT_NOTICE_S:
        _notify(
            notice or sys.stderr,
            f"cafe: waiting for {waiting_for} (giving up after {seconds:g} s)…",
        )
        done.wait(max(0.0, seconds - (time.monotonic() - started)))
    if not done.is_set():
        worker.abandoned = True  # it ends once the call it is stuck in returns
        raise TimeoutError(f"no answer within {seconds:g} s")
    with _IDLE_LOCK:
        _IDLE.append(worker)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
