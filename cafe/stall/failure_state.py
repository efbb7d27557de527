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
again at 1 (the error moved: that is progress); a clean verification on a turn without edits
clears it. A successful edit on a live failure keeps the state, bumps the epoch and owes a
re-verify: "the write worked" is not "the bug is fixed".

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
    "fold_diagnostic",
    "clear_current_failure",
    "CurrentFailure",
]

# --- constants ------------------------------------------------------------------------------

DiagnosticClass = Literal["pass", "fail"]
# How one turn's results read as evidence (`classify_turn`):
#   fail   some result failed (the FIRST failing one is the turn's diagnostic)
#   edit   nothing failed and a workspace-changing call succeeded
#   pass   nothing failed, nothing was edited, and a verification passed
#   quiet  none of those: no results, or only reads (reading a file proves nothing about the bug)
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


def classify_turn(dispatch: Sequence[ToolResult]) -> tuple[TurnClass, ToolResult | None]:
    """A turn's class and its deciding result. The FIRST failing result wins, so an edit's own
    success cannot hide a failed re-test later in the same turn."""
    failing = next((r for r in dispatch if not r.ok), None)
    if failing is not None:
        return "fail", failing
    edit = next((r for r in dispatch if r.kind == "mutate"), None)
    if edit is not None:
        return "edit", edit
    check = next((r for r in dispatch if r.kind == "verify"), None)
    if check is not None:
        return "pass", check
    return "quiet", None


def fold_diagnostic(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Fold one turn's results into the failure state. Pure: returns a new state."""
    kind, deciding = classify_turn(dispatch)
    epoch = state.write_epoch + sum(1 for r in dispatch if r.kind == "mutate" and r.ok)
    if kind == "fail":
        assert deciding is not None
        signature = failure_signature(deciding)
        same = (
            state.last_diagnostic_class == "fail" and state.last_diagnostic_signature == signature
        )
        checked = any(r.kind == "verify" for r in dispatch)
        return FailureState(
            "fail",
            signature,
            epoch,
            state.same_diagnostic_streak + 1 if same else 1,
            edit_since_failure=False,
            reverify_owed=state.reverify_owed and not checked,
        )
    if kind == "edit":
        live = state.last_diagnostic_class == "fail"
        return replace(
            state,
            write_epoch=epoch,
            edit_since_failure=state.edit_since_failure or live,
            reverify_owed=state.reverify_owed or live,
        )
    if kind == "pass":
        return FailureState("pass", None, epoch, 0, edit_since_failure=False, reverify_owed=False)
    if kind == "quiet":
        return state
    raise ValueError(f"classify_turn returned {kind!r}, which is not a TurnClass")


def clear_current_failure(state: FailureState) -> FailureState:
    """The state after a successful finish: nothing failing, nothing owed, epoch kept."""
    return FailureState(write_epoch=state.write_epoch)


@dataclass(frozen=True)
class CurrentFailure:
    """What is still failing when a run ends without success: the hand-back block."""

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
