"""One restore of a work tree at a time, across processes: a lock held on the tree's own folder.

Session 15 (run monitors; `restore` in `cafe/monitors/snapshots.py` holds it from its first
sample of the tree to its last). Two restores of one tree at the same moment (two agents on one
folder, a retried command) used to interleave: each sampled the tree, planned, wrote and sampled
again while the other was writing, so one could report `restore_unverified` about a tree that
ended restored (it had sampled the other's half-done writes), or fail on a file the other had just
set aside. A restore now waits for the one already running, then samples the tree as that one
left it: after a restore that succeeded, it finds `nothing_to_restore`, which is true.

Where the lock is: on the tree's root folder itself, `fcntl.flock` on a descriptor of it (as
`cafe/course/progress.py` locks its folder). There is no lock file, on purpose: a file in the tree
would be one more entry in every sample, and a name in the tree is a name the agent can take
first, with a link leading elsewhere or a folder. A file outside the tree would be named after the
tree's path, and a tree reached through a link would lock a second file. The folder is the tree: a
link to it opens the same folder, and a lock changes nothing a sample reads.

A restore that finds the lock taken tries again every `POLL_S` until `Waiting.seconds` have
passed, then gives up (`busy`); `restore` then declines `tree_locked` and writes nothing. The lock
is advisory: it keeps restores apart, not the agent's own writes (a sample sees those).

Where no lock can be taken (`unlocked`), the restore goes on as before this module: on Windows (no
`fcntl`), on a file system that refuses `flock` (some network mounts), or when the folder cannot
be opened (the restore then declines on its own, `not_a_repository`). Two restores at once can
still interleave there. Each still claims success only when its last sample matches green, but
one may report `restore_unverified` about a tree that the other then finishes.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

if sys.platform != "win32":  # fcntl.flock: Linux, macOS and the other Unixes
    import fcntl

__all__ = [
    "LockState",
    "LOCK_STATES",
    "RESTORE_WAIT_S",
    "POLL_S",
    "Waiting",
    "WAIT",
    "tree_lock",
]

# --- constants ------------------------------------------------------------------------------

# What taking the lock came to: held; busy (another holder past the deadline); unlocked (no lock
# can be taken here, and the restore goes on without one).
LockState = Literal["held", "busy", "unlocked"]
LOCK_STATES: frozenset[str] = frozenset(get_args(LockState))

# Course choice: a restore of the till takes a fraction of a second, one of a tree at the
# sample's limits (`MAX_SAMPLE_BYTES`) a few seconds; a holder past 30 s is stuck, and waiting
# longer would hold the run up for nothing.
RESTORE_WAIT_S = 30.0
# Course choice: how often a waiting restore tries the lock again (short next to any restore).
POLL_S = 0.01
# Open the folder without blocking (a pipe where the folder should be must not hang the open).
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NONBLOCK", 0)


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """How long a restore waits for another restore of the same tree, and the clock and sleep it
    waits with: parameters, so a test counts the waits instead of timing them."""

    seconds: float = RESTORE_WAIT_S
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        good = isinstance(self.seconds, (int, float)) and not isinstance(self.seconds, bool)
        if not good or not math.isfinite(self.seconds) or self.seconds < 0:
            raise ValueError(
                f"Waiting.seconds must be a finite number of seconds, 0 or more (0: do not "
                f"wait), not {self.seconds!r}."
            )


# How a restore waits unless told otherwise: up to RESTORE_WAIT_S, on the real clock.
WAIT = Waiting()


# --- taking the lock ------------------------------------------------------------------------


def _take(fd: int, waiting: Waiting) -> LockState:
    """Lock the open folder `fd`, trying again every POLL_S until `waiting.seconds` pass."""
    deadline = waiting.clock() + waiting.seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return "held"
        except BlockingIOError:  # another descriptor of the folder holds it
            if waiting.clock() >= deadline:
                return "busy"
            waiting.sleep(POLL_S)
        except OSError:  # a file system that does not lock
            return "unlocked"


# --- the main function ----------------------------------------------------------------------


@contextmanager
def tree_lock(root: str | Path, waiting: Waiting = WAIT) -> Iterator[LockState]:
    """Hold the restore lock of the tree at `root` until the block ends; the block is given what
    taking it came to (`LockState`), and must not write when it is `busy`. Never raises."""
    if sys.platform == "win32":
        yield "unlocked"
        return
    try:
        fd = os.open(root, _FOLDER_FLAGS)
    except (OSError, ValueError):  # not there, not a folder, a NUL in the name
        yield "unlocked"
        return
    try:
        yield _take(fd, waiting)
    finally:
        os.close(fd)  # closing the folder releases the lock
