"""What the stall detector remembers between turns, and how one turn's results are folded in.

Session 13. `StallDetector` (`cafe/stall/detector.py`) keeps one `DetectorState`: the current-failure
model (`cafe/stall/failure_state.py`), the failure quoted for the model, the hard cap's count of
failing checks, the blind counters (`cafe/stall/repeats.py`), how often each failure signature has
been seen in the run, and the escalation's counts (`cafe/stall/escalation.py`). `fold_turn` folds
one turn's results into it, purely, so the detector can fold the previous turn at the start of a
turn and preview this turn after it. `TurnSnapshot` is one row of the detector's timeline.

Every failing output is scrubbed (`cafe.stall.verify.scrub_output`) before it is clipped into the
quoted snippet and the hand-back's, so the endpoint's key never reaches a nudge, a stop detail, a
hand-back or a trace.

Left out: when anything trips, and what the loop is told (`cafe/stall/detector.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from cafe.loop.turns import ToolResult
from cafe.stall.escalation import Escalation
from cafe.stall.evidence import failure_snippet, handback_snippet
from cafe.stall.failure_state import FailureState, TurnClass, classify_turn, fold_diagnostic
from cafe.stall.repeats import RepeatCounters
from cafe.stall.verify import scrub_output

__all__ = ["TurnSnapshot", "DetectorState", "fold_turn", "reset_action"]


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnSnapshot:
    """The detector's state as it stood after `observe` on one turn: what a notebook tabulates."""

    turn: int
    folded: TurnClass  # the class of the PREVIOUS turn's results, folded on this turn
    failure_state: FailureState
    pattern: str | None  # the first pattern that tripped on this turn
    # The blind counters after the last call proposed this turn (kept whether or not the blind
    # patterns may trip), and the trips in a row the escalation had counted.
    same_error: int = 0
    same_observation: int = 0
    consecutive_trips: int = 0


@dataclass(frozen=True)
class DetectorState:
    """Everything the detector remembers between turns."""

    failure_state: FailureState = FailureState()
    snippet: str = ""  # the latest failure as quoted to the model (key masked, clipped)
    handback: str = ""  # the same failure as the hand-back carries it (key masked, head and tail)
    failing_verify_turns: int = 0  # the hard cap's counter
    repeats: RepeatCounters = RepeatCounters()  # the blind counters, cleared by `reset_action`
    # Every failure signature seen this run and how often, never reset: a failure that comes
    # back between others still counts (session 14's hard recurrence reads it).
    signature_counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    escalation: Escalation = Escalation()

    def signature_count(self) -> int:
        """How often the current failure's signature has been seen (0 when nothing fails)."""
        failure = self.failure_state
        if failure.last_diagnostic_class != "fail" or not failure.last_diagnostic_signature:
            return 0
        return self.signature_counts.get(failure.last_diagnostic_signature, 0)


# --- the fold ------------------------------------------------------------------------------


def fold_turn(
    state: DetectorState, dispatch: Sequence[ToolResult]
) -> tuple[DetectorState, TurnClass, bool]:
    """Fold one turn's results into the state. Returns the new state, the turn's class, and
    whether a fresh sighting of the same failure pushed the streak up ("advanced"): an edit turn
    holds it, a new failure resets it, a pass clears it, and none of those advance."""
    kind, deciding = classify_turn(dispatch)
    failure = fold_diagnostic(state.failure_state, dispatch)
    advanced = failure.same_diagnostic_streak > state.failure_state.same_diagnostic_streak
    state = replace(state, failure_state=failure)
    if kind == "fail" and deciding is not None:
        signature = failure.last_diagnostic_signature or ""
        counts = {**state.signature_counts, signature: state.signature_counts.get(signature, 0) + 1}
        scrubbed = scrub_output(deciding.output)
        state = replace(
            state,
            snippet=failure_snippet(scrubbed),
            handback=handback_snippet(scrubbed),
            signature_counts=MappingProxyType(counts),
            failing_verify_turns=state.failing_verify_turns + 1,  # a `fail` turn is a failed check
        )
    elif kind == "pass":
        state = replace(state, failing_verify_turns=0)
    return state, kind, advanced


def reset_action(state: DetectorState) -> DetectorState:
    """A new action started: clear the blind counters. The failure state is kept on purpose: a
    different attempt at the same bug does not make the bug go away."""
    return replace(state, repeats=RepeatCounters())
