"""Host-supplied facts: what only the host knows, handed to the stall detector as two callbacks.

Session 14 (the stall half; `cafe/governor.py` holds the pace decision). The loop can see its own
transcript, but not whether the build got greener or whether the patch it asked for actually
reached the disk. The host can. Two callbacks carry those facts in, both set on the stall
configuration (`cafe.stall.stall_config`), both optional:

- `progress_signal(view) -> int | float | None`: the best verification state this turn (the
  number of passing tests, or 1 for a clean build and 0 otherwise), or None when the turn
  produced no verification evidence. The detector keeps a high-water mark: a number above it
  is an ADVANCE (the mark rises, the flat streak goes back to 0); a number at or below it, or
  None, is FLAT (the streak grows, and a write landing during the streak is remembered).
  `no_net_progress_cut` turns that into a stop on either of two axes:
    long stall  the same failure has held for `verify_state_streak` turns AND the verifier has
                been flat for `verify_state_stall_turns` turns, or the same failure has come
                back `verify_state_recurrence_hard` times (both read the detector's
                `same_diagnostic_streak`: consecutive sightings of one signature);
    write axis  the verifier has been flat for `no_verifier_progress_limit` turns and a write
                landed during that flat stretch (busy editing, going nowhere).
  Edits are activity, not progress; only the verifier moving counts.
- `remediation_delivered(info) -> bool`: did the fix the agent just delivered reach the
  workspace? Asked only when the current diagnostic is a failure whose streak has reached
  `STALL_DELIVERED_FIX_AFTER` and advanced this turn, and no other warning has already fired on
  this turn (with `repair_aware` off, a blind repeated-failure trip takes the turn). It is asked
  again on every such turn, not once per failure. True means the fix reached the workspace and
  the same failure still came back: the detector raises `delivered_fix_not_landing`, a turn
  earlier than the plain same-failure nudge, and outranks that nudge. It works with or without
  `repair_aware`.

A callback must be a function or None; anything else is refused when the configuration is
built (`check_callback`), not halfway through a run. A callback that answers with the wrong type
raises `TypeError` naming the callback and the value: a host bug stops the run loudly.

Left out: deciding what to do about a delivered-but-useless fix (the host's call) and the pace
governor (`cafe/governor.py`, `governor_pace_decision`; `cafe/pacing.py` runs it in the loop).

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cafe.loop import ToolResult

__all__ = [
    "VERIFY_STATE_STREAK_DEFAULT",
    "VERIFY_STATE_STALL_TURNS_DEFAULT",
    "VERIFY_STATE_RECURRENCE_HARD_DEFAULT",
    "NO_VERIFIER_PROGRESS_LIMIT_DEFAULT",
    "STALL_DELIVERED_FIX_AFTER",
    "CALLBACK_NAMES",
    "ProgressState",
    "RemediationInfo",
    "check_callback",
    "read_progress_value",
    "fold_progress",
    "no_net_progress_cut",
    "remediation_due",
    "ask_remediation",
]

# --- constants ------------------------------------------------------------------------------

# The cut thresholds, all from the reference (seed 003, "progress_signal", The cut):
# long stall = same failure for 3 turns and a verifier flat for 12, or the same failure 4 times;
# write-axis cut = verifier flat for 3 turns with a write landing meanwhile.
VERIFY_STATE_STREAK_DEFAULT = 3
VERIFY_STATE_STALL_TURNS_DEFAULT = 12
VERIFY_STATE_RECURRENCE_HARD_DEFAULT = 4
NO_VERIFIER_PROGRESS_LIMIT_DEFAULT = 3

# remediation_delivered is asked once the same failure has been seen twice, a turn ahead of the
# blind repeated-failure nudge at 3 (seed 003, "When it fires").
STALL_DELIVERED_FIX_AFTER = 2

# The two host callbacks, by the names the stall configuration accepts.
CALLBACK_NAMES: frozenset[str] = frozenset({"progress_signal", "remediation_delivered"})


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProgressState:
    """The detector's memory of `progress_signal`.

    `high_water` is the best verify-state seen (None before the first number); `flat_streak`
    counts turns since it last rose; `wrote_while_flat` says a write landed during that streak;
    `advanced` says whether the latest turn was an advance.
    """

    high_water: float | None = None
    flat_streak: int = 0
    wrote_while_flat: bool = False
    advanced: bool = False


@dataclass(frozen=True)
class RemediationInfo:
    """What `remediation_delivered` is called with."""

    prev_dispatch: tuple[ToolResult, ...]  # the previous turn's tool results (where the fix was)
    session_id: str
    signature: str                          # the current failure's signature


# --- small pure helpers ---------------------------------------------------------------------


def check_callback(name: str, value: Any) -> None:
    """Refuse a host callback that is neither a function nor None, saying what was given."""
    if name not in CALLBACK_NAMES:
        raise ValueError(f"{name!r} is not a host callback; the callbacks are {sorted(CALLBACK_NAMES)}.")
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be a function (or None to leave it off), not "
                        f"{type(value).__name__} {value!r}. Pass e.g. `{name}=lambda view: ...`.")


def read_progress_value(value: Any) -> float | None:
    """Check what `progress_signal` returned: a finite number, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TypeError(f"progress_signal returned {value!r}; it must return a finite number "
                        "(e.g. the count of passing tests) or None when the turn verified nothing.")
    return float(value)


def fold_progress(state: ProgressState, value: float | None, *, wrote: bool) -> ProgressState:
    """One turn of `progress_signal`: advance above the high-water mark, flat otherwise."""
    if value is not None and (state.high_water is None or value > state.high_water):
        return ProgressState(high_water=value, flat_streak=0, wrote_while_flat=False, advanced=True)
    return replace(state, flat_streak=state.flat_streak + 1,
                   wrote_while_flat=state.wrote_while_flat or wrote, advanced=False)


def no_net_progress_cut(
    progress: ProgressState,
    same_diagnostic_streak: int,
    *,
    verify_state_streak: int = VERIFY_STATE_STREAK_DEFAULT,
    verify_state_stall_turns: int = VERIFY_STATE_STALL_TURNS_DEFAULT,
    verify_state_recurrence_hard: int = VERIFY_STATE_RECURRENCE_HARD_DEFAULT,
    no_verifier_progress_limit: int = NO_VERIFIER_PROGRESS_LIMIT_DEFAULT,
) -> str | None:
    """Why the run should stop for lack of net progress, or None to let it go on."""
    if progress.flat_streak >= no_verifier_progress_limit and progress.wrote_while_flat:
        return (f"write axis: the verifier has not advanced for {progress.flat_streak} turns "
                "while edits kept landing")
    if same_diagnostic_streak >= verify_state_streak and progress.flat_streak >= verify_state_stall_turns:
        return (f"long stall: the same failure for {same_diagnostic_streak} turns and no verifier "
                f"advance for {progress.flat_streak}")
    if same_diagnostic_streak >= verify_state_recurrence_hard:
        return f"long stall: the same failure has come back {same_diagnostic_streak} times"
    return None


def remediation_due(*, failing: bool, streak: int, advanced: bool, warned_this_turn: bool) -> bool:
    """Whether to ask `remediation_delivered` this turn (see the module docstring)."""
    return failing and advanced and streak >= STALL_DELIVERED_FIX_AFTER and not warned_this_turn


def ask_remediation(callback: Callable[[RemediationInfo], Any], info: RemediationInfo) -> bool:
    """Call `remediation_delivered` and insist on a bool."""
    answer = callback(info)
    if not isinstance(answer, bool):
        raise TypeError(f"remediation_delivered returned {answer!r}; it must return True (the fix "
                        "reached the workspace) or False.")
    return answer
