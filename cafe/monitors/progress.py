"""The progress monitor: a run that stopped reaching new states, and a visible turn budget.

Session 15 (run monitors). Every guard of sessions 13 and 14 keys on failures: the same error,
the same failing test, the same call. An agent whose calls all succeed, differ, and lead nowhere
trips none of them; it spends its turns until `max_turns` ends the run without a word. This
module watches the turn boundaries for progress instead, and adds two bounded signals:

- A progress event at a boundary is one of: a todo closed (the count of open items fell; adding
  items only plans the work), a file changed that no earlier turn had changed
  (editing the same file again is the thrash being watched for), or verification going from not
  green to green. Green here is LATCHED: set by a passing check, cleared only by a failing one.
  The gate's notion (`cafe/monitors/gate.py`) goes stale on every code edit; reading that here
  would make each edit-then-test cycle a fresh green, reset the count every time, and switch the
  monitor off for exactly the green-but-not-converging runs it exists for.
- `[stall]`: after `threshold` barren boundaries in a row, one checkpoint asking what blocks the
  agent. The count ARMS only once something has changed: an agent reading its way into a codebase is
  exploring. At most `MAX_STALL_CHECKPOINTS` per run; after one, a full `threshold` must pass again.
- `[budget]`: when the turns used cross `BUDGET_NOTICE_PERCENTS` of `max_turns`, one notice each
  saying how many are used and left (never more than one per boundary, never re-armed). Without a
  turn cap there is nothing to count down, and nothing is said.

`ProgressMonitor.after_turn` is the loop hook; `cafe/monitors/run.py` builds the `Boundary` readings
from the real workbench (its todo board, its git tree).

Left out: what the agent does with a checkpoint (its call), verification tiers and the gate
(`cafe/monitors/gate.py`), the safe-state abort (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from cafe.loop.agent import Nudge, TurnView

__all__ = [
    "STALL_PREFIX",
    "BUDGET_PREFIX",
    "MIN_STALL_THRESHOLD",
    "MAX_STALL_CHECKPOINTS",
    "BUDGET_NOTICE_PERCENTS",
    "stall_threshold",
    "Boundary",
    "ProgressMonitorState",
    "progress_events",
    "fold_boundary",
    "budget_notice",
    "stall_message",
    "ProgressMonitor",
]

# --- constants ------------------------------------------------------------------------------

# The tags that start this monitor's messages.
STALL_PREFIX = "[stall]"
BUDGET_PREFIX = "[budget]"
# A threshold of 1 would fire on any quiet turn; the source design clamps it to at least 2.
MIN_STALL_THRESHOLD = 2
# Checkpoints per run (source design): a second chance to change course, then silence.
MAX_STALL_CHECKPOINTS = 2
# Share of max_turns at which the budget notices go out (source design): one early, one late.
BUDGET_NOTICE_PERCENTS: tuple[int, ...] = (60, 85)


# --- small pure helpers ---------------------------------------------------------------------


def stall_threshold(value: object) -> int | None:
    """The `progress_stall_threshold` setting read: None (absent) is off; a whole number is clamped
    to at least `MIN_STALL_THRESHOLD`; anything else is refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"progress_stall_threshold must be a whole number (or absent), not {value!r}."
        )
    return max(value, MIN_STALL_THRESHOLD)


@dataclass(frozen=True)
class Boundary:
    """What the harness read at one turn boundary: open todos, every file changed so far, and
    the latched green."""

    open_todos: int
    changed_files: frozenset[str]
    green: bool


@dataclass(frozen=True)
class ProgressMonitorState:
    """The monitor's memory. `previous` is the last boundary read (None before the first)."""

    previous: Boundary | None = None
    ever_changed: frozenset[str] = frozenset()
    armed: bool = False
    barren: int = 0
    checkpoints: int = 0
    notices: tuple[int, ...] = ()  # the percentages already announced


def progress_events(state: ProgressMonitorState, now: Boundary) -> tuple[str, ...]:
    """The progress events between the previous boundary and `now`, in plain words."""
    before = state.previous or Boundary(now.open_todos, frozenset(), False)
    events = []
    if now.open_todos < before.open_todos:
        events.append("a todo closed")
    if now.changed_files - state.ever_changed:
        events.append("a file changed for the first time")
    if now.green and not before.green:
        events.append("verification went green")
    return tuple(events)


def fold_boundary(
    state: ProgressMonitorState, now: Boundary, threshold: int
) -> tuple[ProgressMonitorState, bool]:
    """Fold one boundary; True when it is due a `[stall]` checkpoint."""
    progressed = bool(progress_events(state, now))
    state = replace(state, previous=now, ever_changed=state.ever_changed | now.changed_files)
    if progressed:
        return replace(state, armed=True, barren=0), False
    if not state.armed:
        return state, False
    state = replace(state, barren=state.barren + 1)
    if state.barren >= threshold and state.checkpoints < MAX_STALL_CHECKPOINTS:
        return replace(state, barren=0, checkpoints=state.checkpoints + 1), True
    return state, False


def budget_notice(
    used: int, max_turns: int | None, announced: tuple[int, ...]
) -> tuple[int, str] | None:
    """(percent, notice) for the lowest threshold crossed and not yet announced, or None. The
    comparison is in whole numbers, `used * 100 >= max_turns * percent`, so 60% of 10 is turn 6."""
    if max_turns is None:
        return None
    for percent in BUDGET_NOTICE_PERCENTS:
        if percent not in announced and used * 100 >= max_turns * percent:
            return percent, (
                f"{BUDGET_PREFIX} You've used {used} of {max_turns} turns; {max_turns - used} remain. "
                "Finish the most important open item first."
            )
    return None


def stall_message(threshold: int) -> str:
    return (
        f"{STALL_PREFIX} {threshold} turns have gone by without a new state: no todo closed, no new "
        "file changed, no check turned green. What is blocking you? Change your approach, or cut the "
        "task down to what you can finish."
    )


# --- the hook -------------------------------------------------------------------------------


class ProgressMonitor:
    """The progress monitor for one run. `read` gives the `Boundary` at the end of each turn;
    `threshold` None turns the whole monitor off; `budget=False` silences the budget notices (the
    cap they count against is the loop's own, read from the view)."""

    def __init__(
        self, read: Callable[[TurnView], Boundary], threshold: int | None, *, budget: bool = True
    ):
        if not callable(read):
            raise TypeError(
                "ProgressMonitor needs read=a function returning a Boundary for the current turn."
            )
        self.read = read
        self.threshold = stall_threshold(threshold)
        self.budget = budget
        self.state = ProgressMonitorState()
        self.sent: list[str] = []

    def after_turn(self, view: TurnView) -> Nudge | None:
        """(After-turn hook.) Read the boundary; a `[stall]` checkpoint outranks a budget notice,
        which then waits for the next boundary (one message per poll)."""
        if self.threshold is None:
            return None
        now = self.read(view)
        if not isinstance(now, Boundary):
            raise TypeError(f"ProgressMonitor's read returned {now!r}; it must return a Boundary.")
        self.state, due = fold_boundary(self.state, now, self.threshold)
        if due:
            return self._send(stall_message(self.threshold), "stall")
        notice = budget_notice(
            view.turn, view.max_turns if self.budget else None, self.state.notices
        )
        if notice is None:
            return None
        self.state = replace(self.state, notices=self.state.notices + (notice[0],))
        return self._send(notice[1], "budget")

    def _send(self, text: str, source: str) -> Nudge:
        self.sent.append(text)
        return Nudge(text, source=source)
