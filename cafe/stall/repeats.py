"""The blind repeat counters: the stall detector a loop has before it reads the evidence.

Session 13. Before the current-failure model (`cafe/stall/detector.py`), a loop could only count:
the same call, asked for again and again, answering the same way each time. The counters work
per CALL, in the order the model proposes them, and each call is compared with the call
processed just before it:

    repeated_error             the call about to run has failed the same way `repeat_same_error`
                               (3) times in a row
    repeated_same_observation  the call has been asked for `repeat_same_observation` (4) times in
                               a row (this request included) and keeps returning the same output

A call's outcome is what the previous turn's first result of the same tool said (failing or not,
and its output, normalised as `cafe.stall.evidence` does, so a changed timing is not a changed
answer). A different call starts both counts again; so does an answer that changed.

That catches an agent re-running one failing test without touching anything, and misses an agent
that edits, re-tests, edits, re-tests without the error ever changing: every call differs from
the one before it. The stall detector keeps these counters beside its failure model: they trip
while `repair_aware` is off; with it on, the evidence-aware pattern owns repeated failures of
checks, and the counters keep only what the failure model does not read: a tool that is not a
check failing the same way again (`outside_the_model`), since a refused write is evidence about
the write, not about the bug.

Left out: the current-failure model, the trips and the nudges (`cafe/stall/detector.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from cafe.loop.turns import ToolCall, ToolResult
from cafe.stall.evidence import normalize_evidence

__all__ = [
    "RepeatPattern",
    "REPEAT_PATTERNS",
    "REPEAT_SAME_ERROR",
    "REPEAT_SAME_OBSERVATION",
    "RepeatCounters",
    "call_key",
    "count_call",
    "repeat_trip",
    "outside_the_model",
]

# --- constants ------------------------------------------------------------------------------

RepeatPattern = Literal["repeated_error", "repeated_same_observation"]
REPEAT_PATTERNS: frozenset[str] = frozenset(get_args(RepeatPattern))

# The thresholds of the design this session follows (the detector's `repeat_same_error` and
# `repeat_same_observation` knobs). A failure repeating is the stronger signal, so it trips
# sooner. Session 14's `remediation_delivered` is asked sooner still (at 2): it knows more.
REPEAT_SAME_ERROR = 3
REPEAT_SAME_OBSERVATION = 4


# --- records and helpers --------------------------------------------------------------------


@dataclass(frozen=True)
class RepeatCounters:
    """What the blind counters remember about the last call they processed."""

    last_call: str = ""  # its name and arguments (`call_key`)
    last_observation: str = ""  # what it answered last time, or the call itself when unknown
    observation_known: bool = False  # the previous turn held a result of that tool
    last_failed: bool = False  # that result was a failure
    same_error: int = 0  # failures of this call, the same way, in a row
    same_observation: int = 0  # asks for this call in a row, answered the same (this one counted)

    @property
    def longest(self) -> int:
        """The larger of the two counts (what a notebook tabulates)."""
        return max(self.same_error, self.same_observation)


def call_key(call: ToolCall) -> str:
    """A call's name and arguments, as one comparable string."""
    return call.name + "\n" + json.dumps(dict(call.arguments), sort_keys=True, default=str)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _outcome(name: str, prev_dispatch: Sequence[ToolResult]) -> ToolResult | None:
    """What the tool answered last turn: its first result there. A check a hook forced is not the
    model's call and is skipped."""
    return next((r for r in prev_dispatch if r.name == name and not r.forced), None)


def count_call(
    counters: RepeatCounters, call: ToolCall, prev_dispatch: Sequence[ToolResult]
) -> RepeatCounters:
    """Fold one proposed call into the counters (pure: returns new counters)."""
    key = call_key(call)
    same_call = key == counters.last_call
    outcome = _outcome(call.name, prev_dispatch)
    if outcome is None:
        observation, failed = "call:" + _digest(key), False
    else:
        failed = not outcome.ok
        observation = ("error:" if failed else "ok:") + _digest(normalize_evidence(outcome.output))
    changed = (
        outcome is not None
        and counters.observation_known
        and observation != counters.last_observation
    )
    if not same_call or failed:
        same_observation = 0 if failed else 1
    else:
        same_observation = 1 if changed else counters.same_observation + 1
    if not same_call or not failed:
        same_error = 1 if failed else 0
    else:
        same_error = 1 if changed else counters.same_error + 1
    return RepeatCounters(
        key, observation, outcome is not None, failed, same_error, same_observation
    )


def repeat_trip(
    counters: RepeatCounters,
    name: str,
    *,
    repeat_same_error: int = REPEAT_SAME_ERROR,
    repeat_same_observation: int = REPEAT_SAME_OBSERVATION,
) -> tuple[RepeatPattern, str] | None:
    """The blind pattern these counters trip for the call `name`, with the note for the model."""
    if counters.same_error >= repeat_same_error:
        return (
            "repeated_error",
            f"[stall] {name} with the same arguments has failed the same way "
            f"{counters.same_error} times in a row, and you are asking for it again. "
            "Try something different.",
        )
    if not counters.last_failed and counters.same_observation >= repeat_same_observation:
        return (
            "repeated_same_observation",
            f"[stall] You have asked for {name} with the same arguments "
            f"{counters.same_observation} times in a row, and it keeps returning the same "
            "output. Try something different.",
        )
    return None


def outside_the_model(
    pattern: RepeatPattern, call: ToolCall, prev_dispatch: Sequence[ToolResult]
) -> bool:
    """True when a blind trip is about something the current-failure model never reads, so it
    still trips with `repair_aware` on: `repeated_error` for a tool that is not a check."""
    outcome = _outcome(call.name, prev_dispatch)
    return pattern == "repeated_error" and outcome is not None and outcome.kind != "verify"
