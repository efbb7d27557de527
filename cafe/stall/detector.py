"""Stall detection that reads the evidence: is the agent still fighting the SAME failure?

Session 13. Counting repeats (`cafe/stall/repeats.py`) cannot tell an agent re-running a red test
unchanged from one that edits, re-tests and gets closer each time: both "do the same thing
again". `StallDetector` keeps the current-failure model instead (`cafe/stall/failure_state.py`,
keyed on failure signatures from `cafe/stall/evidence.py`) and plugs it into `cafe.loop.run_loop`
(see `run_with_stall`):

- `observe` (an observer, start of turn) first counts the proposed calls (the blind core), then
  folds the PREVIOUS turn's results, so the failure model is a turn behind the agent: with
  `stuck_same_diagnostic_after = 3`, an agent re-running one failing test trips on turn 4, when
  turn 3's result is folded.
- `reverify` (after-turn hook, no lag) is the post-edit re-verify mandate: an edit on a live
  failure with no re-test after it makes the verify entrypoint (`cafe/stall/verify.py`) run now.
- `consult_checks` (after-turn hook) shows this turn's results to the plug-in checks.
- `handback` attaches `current_failure` to the result (repair-aware): cleared on `done`.

With `repair_aware` on, `stuck_same_diagnostic` trips when a fresh failure pushes the streak up
to the threshold, and at no other time (once per stuck episode), quoting the failing evidence;
the blind patterns stay quiet about checks so the two never fire for one thing (a tool that is
not a check failing again is still `repeated_error`'s, `outside_the_model`). With it off (the default)
every repair knob is inert and the detector is the blind one. Every trip rides the escalation of
`cafe/stall/escalation.py`: the first text of the run is sent, trips in a row stop the run as
`stuck`, a call that trips nothing resets the count; the hard cap stops it at once.

Plug-in checks (`cafe/stall/checks.py`) let a later session add facts without editing this
module: an explicit, ordered list handed to the detector, asked at two seams (`_overlay` says where).
The one stop reason the detector declares is `stuck` (`STALL_STOP_REASONS`).

Left out: the host facts that plug in here and the pace governor (session 14,
`cafe/governor/facts.py`, `cafe/governor/pace.py`), verification tiers and monitors (session 15).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from cafe.loop.turns import HookAnswer, Nudge, RunResult, Stop, TurnView
from cafe.stall.checks import StallCheck, StallReading, Trip
from cafe.stall.config import StallConfig
from cafe.stall.escalation import StallWarning, register_recovery, register_trip
from cafe.stall.failure_state import (
    CurrentFailure,
    FailureState,
    clear_current_failure,
    edited_after_last_check,
    fold_diagnostic,
)
from cafe.stall.memory import DetectorState, TurnSnapshot, fold_turn, reset_action
from cafe.stall.repeats import RepeatPattern, count_call, outside_the_model, repeat_trip
from cafe.stall.verify import VerifyEntrypoint

__all__ = [
    "StallStopReason",
    "STALL_STOP_REASONS",
    "StallPattern",
    "STALL_PATTERNS",
    "StallDetector",
    "StallRun",
]

# --- constants ------------------------------------------------------------------------------

# The one reason the detector stops a run with (the word session 01's repeat guard uses for the
# same judgement): the agent is going nowhere.
StallStopReason = Literal["stuck"]
STALL_STOP_REASONS: frozenset[str] = frozenset(get_args(StallStopReason))

# The patterns this detector raises itself, declared once (plug-in checks declare their own):
#   stuck_same_diagnostic      repair-aware: the same failure signature for N evidence turns
#   no_net_progress_hard_cap   repair-aware + guard: too many failing verification turns overall
#   repeated_error, repeated_same_observation   the blind counters (`cafe/stall/repeats.py`)
StallPattern = Literal["stuck_same_diagnostic", "no_net_progress_hard_cap", RepeatPattern]
STALL_PATTERNS: frozenset[str] = frozenset(get_args(StallPattern))


# --- small pure helpers -------------------------------------------------------------------


def _stuck_message(state: FailureState, snippet: str) -> str:
    return (
        f"[stall] The same failure has now come back {state.same_diagnostic_streak} times, and the "
        f"edits in between did not change it. The failing evidence still reads: `{snippet}`. "
        "Retrying harder will not help: re-read the failing check, question your assumption "
        "about the cause, and try a different fix."
    )


# --- the detector ---------------------------------------------------------------------------


class StallDetector:
    """The current-failure model wired into the loop. One detector per run; `checks` are the
    plug-in checks, consulted in list order (the first trip wins); `verifier` is the run's verify
    entrypoint, through which the post-edit re-verify runs its check (None: no re-verify)."""

    stop_reasons: frozenset[str] = STALL_STOP_REASONS

    def __init__(
        self,
        config: StallConfig | None = None,
        *,
        checks: Sequence[StallCheck] = (),
        session_id: str = "session",
        verifier: VerifyEntrypoint | None = None,
    ):
        self.config = config or StallConfig()
        self.checks = tuple(checks)
        self.session_id = session_id
        self.verifier = verifier
        self.state = DetectorState()
        self.warnings: list[StallWarning] = []
        self.timeline: list[TurnSnapshot] = []
        self._pending: list[Nudge] = []  # texts sent on this turn so far

    def observe(self, view: TurnView) -> HookAnswer | tuple[HookAnswer, ...] | None:
        """(Observer.) Count the proposed calls, fold the previous turn's results, and decide."""
        first = len(self.warnings)
        core_tripped = self._core(view)
        state, kind, advanced = fold_turn(self.state, view.prev_dispatch)
        self.state = state
        reading = StallReading(
            view,
            state.failure_state,
            advanced,
            state.snippet,
            self.session_id,
            state.signature_count(),
        )
        trip = self._overlay(reading, core_tripped)
        if trip is not None:
            self._register(view.turn, trip, immediate=trip.stop)
        tripped = self.warnings[first:]
        self.timeline.append(
            TurnSnapshot(
                view.turn,
                kind,
                state.failure_state,
                tripped[0].pattern if tripped else None,
                state.repeats.same_error,
                state.repeats.same_observation,
                self.state.escalation.consecutive_trips,
            )
        )
        return self._answer()

    def _core(self, view: TurnView) -> bool:
        """The blind core, per proposed call in order; True when one of them tripped."""
        if not view.calls:  # the model answered: a new action starts, and nothing tripped
            self.state = reset_action(self.state)
            self._recover()
            return False
        tripped = False
        for call in view.calls:
            repeats = count_call(self.state.repeats, call, view.prev_dispatch)
            self.state = replace(self.state, repeats=repeats)
            cfg = self.config
            found = repeat_trip(
                repeats,
                call.name,
                repeat_same_error=cfg.repeat_same_error,
                repeat_same_observation=cfg.repeat_same_observation,
            )
            if (
                cfg.repair_aware
                and found
                and not outside_the_model(found[0], call, view.prev_dispatch)
            ):
                found = None  # the failure model owns it
            if found is None:
                self._recover()
            else:
                self._register(view.turn, Trip(*found))
                tripped = True
        return tripped

    def _overlay(self, reading: StallReading, core_tripped: bool) -> Trip | None:
        """The one repair pattern this turn trips, if any. In order: the hard cap (repair-aware
        with the guard on), which stops the run; then, only when the blind core tripped nothing,
        the plug-in checks' `on_fold`, and `stuck_same_diagnostic` on the turn the streak
        advances to the threshold."""
        cfg, state = self.config, self.state
        if (
            cfg.repair_aware
            and cfg.no_net_progress_extend_guard
            and state.failing_verify_turns >= cfg.no_net_progress_hard_cap_after
        ):
            return Trip(
                "no_net_progress_hard_cap",
                f"{state.failing_verify_turns} failing verification turns "
                f"without a clean pass (hard cap {cfg.no_net_progress_hard_cap_after})",
                stop=True,
            )
        if core_tripped:
            return None
        trip = self._ask_checks("on_fold", reading)
        if trip is not None:
            return trip
        failure = reading.failure_state
        if (
            cfg.repair_aware
            and reading.advanced
            and failure.same_diagnostic_streak == cfg.stuck_same_diagnostic_after
        ):
            return Trip("stuck_same_diagnostic", _stuck_message(failure, reading.snippet))
        return None

    def _ask_checks(self, seam: str, reading: StallReading) -> Trip | None:
        for check in self.checks:
            trip = getattr(check, seam)(reading)
            if trip is None:
                continue
            if not isinstance(trip, Trip) or trip.pattern not in check.patterns:
                raise TypeError(
                    f"Stall check {type(check).__name__}.{seam} returned {trip!r}; a check returns "
                    f"None or a Trip whose pattern is one of its patterns {sorted(check.patterns)}."
                )
            return trip
        return None

    def _recover(self) -> None:
        self.state = replace(self.state, escalation=register_recovery(self.state.escalation))

    def _register(self, turn: int, trip: Trip, *, immediate: bool = False) -> None:
        """Record one trip, counted by the escalation; its text is queued if it is sent."""
        escalation, sent = register_trip(self.state.escalation, self.config, immediate=immediate)
        self.state = replace(self.state, escalation=escalation)
        self.warnings.append(
            StallWarning(turn, trip.pattern, trip.message, sent, escalation.consecutive_trips)
        )
        if sent:
            self._pending.append(Nudge(trip.message, source=trip.pattern))

    def _answer(self) -> HookAnswer | tuple[HookAnswer, ...] | None:
        """What this hook tells the loop: a stop when the escalation calls for one, else the
        texts sent this turn (if any)."""
        pending, self._pending = tuple(self._pending), []
        if self.state.escalation.hard_stop and self.warnings:
            last = replace(self.warnings[-1], stopped=True)
            self.warnings[-1] = last
            return Stop("stuck", f"{last.pattern}: {last.message}")
        return pending or None

    def reverify(self, view: TurnView) -> tuple[HookAnswer, ...] | None:
        """(After-turn hook, no lag.) The post-edit re-verify mandate and the reserved terminal check."""
        cfg, verifier = self.config, self.verifier
        if not cfg.repair_aware or verifier is None or not verifier.can_verify:
            return None
        edited = edited_after_last_check(view.dispatch)  # an edit this turn, not checked since
        after = fold_diagnostic(self.state.failure_state, view.dispatch)
        if cfg.post_edit_reverify and edited and after.reverify_owed:
            return verifier.run_check("post-edit re-verify: an edit landed on a failing check")
        unchecked = edited or after.reverify_owed
        if (
            cfg.reserved_terminal_verify
            and view.max_turns - view.turn < cfg.reserved_terminal_verify_iterations
            and unchecked
        ):
            return verifier.run_check("reserved terminal verify: the turn budget is nearly spent")
        return None

    def consult_checks(self, view: TurnView) -> HookAnswer | tuple[HookAnswer, ...] | None:
        """(After-turn hook, no lag.) Show the plug-in checks' `on_results` this turn's results,
        folded into a preview of the state, so what they compare all describes this turn."""
        preview, _, _ = fold_turn(self.state, view.dispatch)
        reading = StallReading(
            view,
            preview.failure_state,
            False,
            preview.snippet,
            self.session_id,
            preview.signature_count(),
        )
        trip = self._ask_checks("on_results", reading)
        if trip is None:
            return None
        if trip.stop or not any(w.turn == view.turn for w in self.warnings):
            self._register(view.turn, trip, immediate=trip.stop)
        else:  # a turn counts one trip at most: this one is recorded and not counted again
            self.warnings.append(
                StallWarning(
                    view.turn,
                    trip.pattern,
                    trip.message,
                    False,
                    self.state.escalation.consecutive_trips,
                )
            )
        return self._answer()

    def extension_allowed(self) -> bool:
        """False once the no-net-progress guard says a budget extension would only feed a stall:
        the same failure has held for `no_net_progress_extend_after` turns."""
        cfg = self.config
        if not (cfg.repair_aware and cfg.no_net_progress_extend_guard):
            return True
        failure = self.state.failure_state
        return not (
            failure.last_diagnostic_class == "fail"
            and failure.same_diagnostic_streak >= cfg.no_net_progress_extend_after
        )

    def handback(self, result: RunResult) -> StallRun:
        """Attach the hand-back to a finished run: `current_failure` unless the run succeeded.
        The final turn was never folded (the lag), so it is folded here first."""
        last = result.turns[-1].dispatch if result.turns else ()
        state, _, _ = fold_turn(self.state, last)
        failure = state.failure_state
        if result.stop_reason == "done":
            failure = clear_current_failure(failure)
        self.state = replace(state, failure_state=failure)
        current = None
        if (
            self.config.repair_aware
            and failure.last_diagnostic_class == "fail"
            and failure.last_diagnostic_signature
        ):
            current = CurrentFailure(
                "fail",
                failure.last_diagnostic_signature,
                state.handback,
                failure.same_diagnostic_streak,
            )
        return StallRun(result, current, tuple(self.warnings), tuple(self.timeline), failure)


@dataclass(frozen=True)
class StallRun:
    """A run and its stall hand-back. `current_failure` is None after a successful finish."""

    result: RunResult
    current_failure: CurrentFailure | None
    warnings: tuple[StallWarning, ...]
    timeline: tuple[TurnSnapshot, ...]
    failure_state: FailureState

    @property
    def stop_reason(self) -> str:
        return self.result.stop_reason
