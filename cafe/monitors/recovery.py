"""The recovery checkpoint: failures in a row, and the moment to stop and take stock.

Session 15 (run monitors). A failing agent has a ladder of responses. Rung 1 is trying another
way (session 13's strategy-shift nudge). Rung 2, this module, is asking for a recovery: once
tool calls keep failing in a row, the agent is told to stop, name the cause, and take a
different next step. Rung 3 is the safe-state abort (`cafe/monitors/safe_state.py`), which
reads the same streak. Rung 2 is always on: no switch turns it off, and `safe_state_abort: off`
switches off rung 3 only.

The streak is weighted: an errored tool result adds 1, a timeout 2 (it cost the most), and any
success clears it. A forced check (the harness's own) does not count. The checkpoint is due when
the weight reaches `CHECKPOINT_THRESHOLD` (3) and, after one has been sent, again each time the
weight has grown by another threshold since the last one, so an agent that keeps failing hears
it again, and one failing once more does not. The message counts the failing CALLS (two
timeouts are two calls, though they weigh four) and quotes the last `MAX_EXCERPTS` failures,
`EXCERPT_CHARS` each. The abort is due at twice the threshold (`abort_due`); when it fires it
takes the checkpoint's place at that boundary ("retry" and "abort" in one breath contradict).

Left out: the abort itself (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from cafe.loop.turns import Nudge, ToolResult, TurnView
from cafe.stall.verify import scrub_output

__all__ = [
    "RECOVERY_PREFIX",
    "RECOVERY_SOURCE",
    "CHECKPOINT_THRESHOLD",
    "MAX_EXCERPTS",
    "EXCERPT_CHARS",
    "TIMEOUT_MARKER",
    "streak_weight",
    "fold_streak",
    "abort_due",
    "excerpt",
    "FailureStreak",
    "fold_failures",
    "checkpoint_due",
    "recovery_message",
    "RecoveryCheckpoint",
]

# --- constants ------------------------------------------------------------------------------

RECOVERY_PREFIX = "[recovery]"
RECOVERY_SOURCE = "recovery"
# Failures in a row (weighted) before the checkpoint; the abort is due at twice this (the
# design's numbers, as are the five excerpts of 160 characters).
CHECKPOINT_THRESHOLD = 3
MAX_EXCERPTS = 5
EXCERPT_CHARS = 160
# How the workbench's tools word a timeout ("the tests did not finish within 60 seconds").
TIMEOUT_MARKER = "did not finish within"


# --- small pure helpers ---------------------------------------------------------------------


def streak_weight(result: ToolResult) -> int:
    """What one result adds to the failure streak: 0 for a success (which clears it), 2 for a
    timeout, 1 for any other error."""
    if result.ok:
        return 0
    return 2 if TIMEOUT_MARKER in result.output else 1


def fold_streak(streak: int, results: Sequence[ToolResult]) -> int:
    """The weighted streak after one turn's results, in order."""
    for result in results:
        weight = streak_weight(result)
        streak = 0 if weight == 0 else streak + weight
    return streak


def abort_due(streak: int, threshold: int = CHECKPOINT_THRESHOLD) -> bool:
    """Rung 3 is due: the weighted streak reached twice the checkpoint threshold."""
    return streak >= 2 * threshold


def excerpt(output: str) -> str:
    """One failure, on one line, the endpoint's key masked, cut to `EXCERPT_CHARS`."""
    flat = " ".join(scrub_output(output).split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


# --- the streak -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FailureStreak:
    """The failures in a row: their weight, how many calls, the last excerpts, how many timed
    out, and the weight at the last checkpoint sent in this streak (None before one)."""

    weight: int = 0
    calls: int = 0
    excerpts: tuple[str, ...] = ()
    timeouts: int = 0
    emitted_at: int | None = None


def fold_failures(streak: FailureStreak, results: Sequence[ToolResult]) -> FailureStreak:
    """Fold one turn's results (the model's own; forced checks are skipped) into the streak."""
    for result in results:
        if result.forced:
            continue
        weight = streak_weight(result)
        if weight == 0:
            streak = FailureStreak()
            continue
        quoted = excerpt(f"{result.name}: {result.output}")
        streak = replace(
            streak,
            weight=streak.weight + weight,
            calls=streak.calls + 1,
            excerpts=(*streak.excerpts, quoted)[-MAX_EXCERPTS:],
            timeouts=streak.timeouts + (weight == 2),
        )
    return streak


def checkpoint_due(streak: FailureStreak, threshold: int = CHECKPOINT_THRESHOLD) -> bool:
    """The first checkpoint at `threshold`; each later one a full `threshold` after the last."""
    if streak.weight < threshold:
        return False
    return streak.emitted_at is None or streak.weight - streak.emitted_at >= threshold


def recovery_message(streak: FailureStreak) -> str:
    """The checkpoint's text: how many calls failed, the last of them, and what to do."""
    seen = "\n".join(f"- {e}" for e in streak.excerpts)
    timed_out = f"\n{streak.timeouts} of them ran out of time." if streak.timeouts else ""
    return (
        f"{RECOVERY_PREFIX} {streak.calls} tool calls in a row have failed:\n{seen}{timed_out}\n"
        "Stop before the next call: name what these failures have in common, then take a "
        "different next step, not the same one again."
    )


# --- the hook -------------------------------------------------------------------------------


class RecoveryCheckpoint:
    """Rung 2 for one run, always on. `after_turn` folds the turn and sends the checkpoint when
    it is due. Run beside the abort, `fold` and `send` are the two halves, and `mark_sent` lets
    the abort take the checkpoint's place at its boundary."""

    def __init__(self, threshold: int = CHECKPOINT_THRESHOLD):
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
            raise ValueError(f"threshold must be a whole number of at least 1, not {threshold!r}.")
        self.threshold = threshold
        self.streak = FailureStreak()
        self.sent: list[str] = []

    def fold(self, view: TurnView) -> bool:
        """Fold the turn's results; True when a checkpoint is due at this boundary."""
        self.streak = fold_failures(self.streak, view.dispatch)
        return checkpoint_due(self.streak, self.threshold)

    def mark_sent(self) -> None:
        """A checkpoint (or the abort in its place) went out at this boundary."""
        self.streak = replace(self.streak, emitted_at=self.streak.weight)

    def send(self) -> Nudge:
        """The checkpoint, sent now."""
        self.mark_sent()
        text = recovery_message(self.streak)
        self.sent.append(text)
        return Nudge(text, source=RECOVERY_SOURCE)

    def after_turn(self, view: TurnView) -> Nudge | None:
        """(After-turn hook.) The checkpoint, when due."""
        return self.send() if self.fold(view) else None
