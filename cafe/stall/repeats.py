"""The blind repeat counters: the stall detector a loop has before it reads the evidence.

Session 13. Before the current-failure model (`cafe/stall/detector.py`), a loop could only count: the same
call, answered the same way, N times in a row. That catches an agent re-running one failing test
without touching anything, and misses an agent that edits, re-tests, edits, re-tests without
the error ever changing (every other turn is a different action, so the count keeps restarting).
The stall detector keeps these counters beside its failure model: they trip only while
`repair_aware` is off, and with it on the evidence-aware pattern owns repeated failures.

    repeated_error             the same action failed with the same output N times running
    repeated_same_observation  the same action returned the same (non-failing) output N times running

Left out: the current-failure model, the trips and the nudges (`cafe/stall/detector.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from cafe.loop.agent import ToolResult
from cafe.stall.evidence import normalize_evidence

__all__ = [
    "RepeatPattern",
    "REPEAT_PATTERNS",
    "REPEATED_FAILURE_AFTER",
    "RepeatCounters",
    "action_key",
    "count_repeats",
    "repeat_trip",
]

# --- constants ------------------------------------------------------------------------------

RepeatPattern = Literal["repeated_error", "repeated_same_observation"]
REPEAT_PATTERNS: frozenset[str] = frozenset(get_args(RepeatPattern))

# Three repeats, the older detector's threshold. Session 14's `remediation_delivered` is asked a
# turn sooner (at 2), because it knows more than a count does.
REPEATED_FAILURE_AFTER = 3


# --- records and helpers --------------------------------------------------------------------


@dataclass(frozen=True)
class RepeatCounters:
    """What the blind counters remember: the last action, its last output, and two run lengths."""

    last_action: str | None = None
    same_error: int = 0
    same_observation: int = 0
    last_output: str | None = None

    @property
    def longest(self) -> int:
        """The current run length, failing or not (what a notebook tabulates)."""
        return max(self.same_error, self.same_observation)


def action_key(dispatch: Sequence[ToolResult]) -> str:
    """The calls the model made this turn (names and arguments), as one comparable string.
    Verifications the loop forced are not the model's action and are left out."""
    return json.dumps(
        [[r.name, dict(r.arguments)] for r in dispatch if not r.forced], sort_keys=True
    )


def count_repeats(
    counters: RepeatCounters, dispatch: Sequence[ToolResult], *, failed: bool
) -> RepeatCounters:
    """Fold one turn's results into the counters. A new action starts them again; a turn
    without results changes nothing."""
    if not dispatch:
        return counters
    action = action_key(dispatch)
    if action != counters.last_action:
        counters = RepeatCounters(last_action=action)
    output = "\n".join(normalize_evidence(r.output) for r in dispatch)
    again = output == counters.last_output
    if failed:
        return RepeatCounters(action, counters.same_error + 1 if again else 1, 0, output)
    return RepeatCounters(action, 0, counters.same_observation + 1 if again else 1, output)


def repeat_trip(counters: RepeatCounters) -> tuple[RepeatPattern, str] | None:
    """The blind pattern these counters trip, with the note for the model, or None."""
    if counters.same_error >= REPEATED_FAILURE_AFTER:
        return (
            "repeated_error",
            f"[stall] The same call has failed the same way {counters.same_error} "
            "times in a row. Try something different.",
        )
    if counters.same_observation >= REPEATED_FAILURE_AFTER:
        return (
            "repeated_same_observation",
            "[stall] The same call has returned the same output "
            f"{counters.same_observation} times in a row. Try something different.",
        )
    return None
