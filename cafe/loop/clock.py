"""The loop's stopwatch: the time since a run started, from a clock whose every reading is checked.

Session 01. `run_loop` takes its clock as a parameter (default `time.monotonic`), so that session
14's pace governor and fixed timeout can be tested on a fake clock without sleeping. A parameter
can be wrong: a fake clock may return NaN, infinity or a string, or a time earlier than its last.
Every comparison with NaN is False, so a deadline checked against it is never reached; a clock
that runs backwards makes the run younger, not older. Either way the time limits would switch
themselves off and say nothing.

The principle: a limit the harness cannot measure is not a limit that passed. So every reading is
checked before anything compares it with a limit, and a reading that is not a finite number of
seconds, or that is earlier than the one before, raises `ClockError`, which names the clock, the
reading and the fix. No stop reason decided that, just as none decides an unusable endpoint: the
clock is the caller's to mend.

- `ClockError`: the error, a `ValueError`, since the clock is a parameter the caller passed.
- `checked_seconds`: one value checked: a real number, finite, and not below a floor.
- `checked_elapsed`: the same check for the `view.elapsed` a time-limit hook is handed.
- `Stopwatch`: a clock's readings since the run started, each one checked.

Left out: what to do with the time. Session 14 (`cafe/governor/pacing.py`) compares it with a
budget, and checks what it is handed with `checked_elapsed`.

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

__all__ = ["ClockError", "Stopwatch", "checked_elapsed", "checked_seconds"]

# --- constants ------------------------------------------------------------------------------

# What to do about a bad reading from the loop's own clock.
CLOCK_FIX = (
    "pass run_loop(clock=...) a function that returns seconds as a finite number that never "
    "goes down, such as time.monotonic (the default)"
)
# What to do about a bad `view.elapsed` in a hook. A time-limit hook keeps the last elapsed time
# it saw, so one made for an earlier run sees the time go backwards in the next.
ELAPSED_FIX = (
    "view.elapsed is the seconds since the run started, as run_loop measures them with its clock; "
    "make a new hook for each run"
)


# --- the error and the check ----------------------------------------------------------------


class ClockError(ValueError):
    """A clock gave a reading that no time limit can be measured against."""


def clock_name(clock: object) -> str:
    """A clock's name for a message: a function's own name, else its type's (`TurnClock`)."""
    return getattr(clock, "__qualname__", None) or type(clock).__name__


def checked_seconds(value: object, floor: float | None, what: str, fix: str) -> float:
    """`value` as seconds when it is a real number (not a bool), finite and not below `floor`
    (None: no floor); otherwise a `ClockError` saying which of the three it broke, `what` gave
    it, and `fix`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ClockError(
            f"{what} gave {value!r} ({type(value).__name__}), not a number of seconds; {fix}."
        )
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float
        seconds = math.inf
    if not math.isfinite(seconds):
        raise ClockError(
            f"{what} gave {value!r}, not a finite number of seconds: no time limit can be "
            f"compared with it, so none would ever be reached; {fix}."
        )
    if floor is not None and seconds < floor:
        raise ClockError(
            f"{what} gave {seconds!r} after {floor!r}: the time went backwards, so a time limit "
            f"measured with it could be passed and never noticed; {fix}."
        )
    return seconds


def checked_elapsed(elapsed: object, last: float, who: str) -> float:
    """The `view.elapsed` a hook named `who` is handed, checked: finite seconds, at least 0 and
    at least `last`, the elapsed time the same hook saw before (0.0 on its first turn)."""
    return checked_seconds(elapsed, max(0.0, last), f"{who}: view.elapsed", ELAPSED_FIX)


# --- the stopwatch --------------------------------------------------------------------------


class Stopwatch:
    """The time since a run started, by `clock`. The first reading is the start; `elapsed()`
    reads the clock again, and every reading is checked against the one before it."""

    def __init__(self, clock: Callable[[], float]) -> None:
        if not callable(clock):
            raise TypeError(
                f"clock must be a function returning seconds, not {clock!r}; {CLOCK_FIX}."
            )
        self.clock = clock
        self.what = f"run_loop's clock ({clock_name(clock)})"
        self.started = self.last = checked_seconds(clock(), None, self.what, CLOCK_FIX)

    def elapsed(self) -> float:
        """Seconds since the start: a new reading, refused by `ClockError` when it is not a
        finite number, when it is earlier than the last, or when it is too far from the start
        to subtract (two readings near the float's limits)."""
        self.last = checked_seconds(self.clock(), self.last, self.what, CLOCK_FIX)
        elapsed = self.last - self.started
        if not math.isfinite(elapsed):
            raise ClockError(
                f"{self.what} moved from {self.started!r} to {self.last!r}, too far apart for "
                f"the seconds between them to be a number; {CLOCK_FIX}."
            )
        return elapsed
