"""The current-failure model: which failure is live, how often it has come back, what is owed.

Session 13. The stall detector (`cafe/stall/detector.py`) needs to know more than "the agent did the same
thing again": it needs to know whether the agent is still fighting the same FAILURE. This module
is that memory, as six fields and one pure fold over each turn's tool results:

    last_diagnostic_class      "pass" or "fail": what the latest evidence said
    last_diagnostic_signature  SHA-256 of the normalised failing output (`cafe.stall.evidence`)
    write_epoch                bumped by every successful workspace-changing call
    same_diagnostic_streak     how many evidence turns in a row showed this same signature
    edit_since_failure         an edit has landed since the failure was last seen
    reverify_owed              that edit has not been checked yet

The streak is keyed on the SIGNATURE, not on edits: the same signature adds one, even with edits
in between (an edit that leaves the same error changed nothing); a different signature starts
again at 1 (the error moved: that is progress); a clean verification with no edit after it clears
it. A successful edit on a live failure keeps the state, bumps the epoch and owes a re-verify:
"the write worked" is not "the bug is fixed".

A turn's results are read in the order they ran. Only a check (a `verify` result) is evidence
about the bug: a failing read or a refused write is evidence about that tool, so it neither
replaces the live failure nor touches its streak. The turn's successful edits cut it into
stretches, and the latest stretch that ran a check speaks for the turn, so a fix that a later
check in the same turn saw pass leaves nothing owed. The one rule for clearing: a failure is
cleared only by a verification pass with no edit after it in the same turn. An edit after the
turn's last check is unchecked, so it owes a re-verify, even after a green check: a pass
followed by an edit is an `edit` turn, which keeps the failure rather than clearing it.

Left out: when to warn or stop, and how the fold is wired into the loop (`cafe/stall/detector.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature

__all__ = [
    "DiagnosticClass",
    "TurnClass",
    "FailureState",
    "classify_turn",
    "edited_after_last_check",
    "fold_diagnostic",
    "clear_current_failure",
    "CurrentFailure",
]

# --- constants ------------------------------------------------------------------------------

DiagnosticClass = Literal["pass", "fail"]
# How one turn's results read as evidence (`classify_turn`), the latest checked stretch deciding:
#   fail   a check in that stretch failed (the FIRST failing one is the turn's diagnostic)
#   pass   that stretch ran checks, every one passed, and no edit ran after the turn's last check
#   edit   no check failed, and a workspace-changing call succeeded with no check after it (no
#          check ran, or the checks passed and then an edit landed: the edit is unchecked)
#   quiet  none of those: no results, only reads, or only failing tools that are not checks
#          (reading a file proves nothing about the bug; a refused write is about the write)
TurnClass = Literal["fail", "edit", "pass", "quiet"]


# --- the current-failure model --------------------------------------------------------------


@dataclass(frozen=True)
class FailureState:
    """The six fields of the current-failure model (see the module docstring)."""

    last_diagnostic_class: DiagnosticClass | None = None
    last_diagnostic_signature: str | None = None
    write_epoch: int = 0
    same_diagnostic_streak: int = 0
    edit_since_failure: bool = False
    reverify_owed: bool = False


def _is_edit(result: ToolResult) -> bool:
    return result.kind == "mutate" and result.ok


def _latest_checks(dispatch: Sequence[ToolResult]) -> list[ToolResult]:
    """The checks of the turn's latest stretch that ran any (successful edits end a stretch)."""
    latest: list[ToolResult] = []
    stretch: list[ToolResult] = []
    for result in dispatch:
        if _is_edit(result) and stretch:
            latest, stretch = stretch, []
        elif result.kind == "verify":
            stretch.append(result)
    return stretch or latest


def edited_after_last_check(dispatch: Sequence[ToolResult]) -> bool:
    """True when a successful edit ran after the turn's last check (or with no check at all)."""
    unchecked = False
    for result in dispatch:
        if result.kind == "verify":
            unchecked = False
        elif _is_edit(result):
            unchecked = True
    return unchecked


def classify_turn(dispatch: Sequence[ToolResult]) -> tuple[TurnClass, ToolResult | None]:
    """A turn's class and its deciding result, reading the results in the order they ran. In the
    latest stretch that ran checks the FIRST failing check wins, so an edit's own success cannot
    hide a failed re-test, and a pass seen after the edit is the edit verified. A pass is a
    `pass` only with no edit after the turn's last check; otherwise the unchecked edit decides
    (an `edit` turn), so a green check cannot vouch for an edit made after it."""
    checks = _latest_checks(dispatch)
    failing = next((r for r in checks if not r.ok), None)
    if failing is not None:
        return "fail", failing
    unchecked = edited_after_last_check(dispatch)
    if checks and not unchecked:
        return "pass", checks[0]
    if unchecked:  # the first edit after the turn's last check (any edit, when none ran)
        last_check = max((n for n, r in enumerate(dispatch) if r.kind == "verify"), default=-1)
        return "edit", next(r for r in dispatch[last_check + 1 :] if _is_edit(r))
    return "quiet", None


def fold_diagnostic(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Fold one turn's results into the failure state. Pure: returns a new state."""
    kind, deciding = classify_turn(dispatch)
    epoch = state.write_epoch + sum(1 for r in dispatch if _is_edit(r))
    if kind == "fail":
        assert deciding is not None
        signature = failure_signature(deciding)
        same = (
            state.last_diagnostic_class == "fail" and state.last_diagnostic_signature == signature
        )
        unchecked = edited_after_last_check(dispatch)  # an edit on top of the failure just seen
        return FailureState(
            "fail",
            signature,
            epoch,
            state.same_diagnostic_streak + 1 if same else 1,
            edit_since_failure=unchecked,
            reverify_owed=unchecked,
        )
    if kind == "edit":
        live = state.last_diagnostic_class == "fail"
        return replace(
            state,
            write_epoch=epoch,
            edit_since_failure=state.edit_since_failure or live,
            reverify_owed=state.reverify_owed or live,
        )
    if kind == "pass":  # a check with no edit after it: the only way a failure is cleared
        return FailureState("pass", None, epoch, 0, edit_since_failure=False, reverify_owed=False)
    if kind == "quiet":
        return state
    raise ValueError(f"classify_turn returned {kind!r}, which is not a TurnClass")


def clear_current_failure(state: FailureState) -> FailureState:
    """The state after a successful finish: nothing failing, nothing owed, epoch kept."""
    return FailureState(write_epoch=state.write_epoch)


@dataclass(frozen=True)
class CurrentFailure:
    """What is still failing when a run ends without success: the hand-back block. Its `snippet`
    is the failing output's head and tail (`cafe.stall.evidence.handback_snippet`), longer than
    the few lines a nudge quotes."""

    diagnostic_class: DiagnosticClass
    signature: str
    snippet: str
    same_diagnostic_streak: int

    def as_dict(self) -> dict[str, Any]:
        """The block as JSON: {"class", "signature", "snippet", "same_diagnostic_streak"}."""
        return {
            "class": self.diagnostic_class,
            "signature": self.signature,
            "snippet": self.snippet,
            "same_diagnostic_streak": self.same_diagnostic_streak,
        }
