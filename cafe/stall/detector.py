"""Stall detection that reads the evidence: is the agent still fighting the SAME failure?

Session 13. Counting repeats (`cafe/stall/repeats.py`) cannot tell an agent re-running a red test
unchanged from one that edits, re-tests and gets closer each time: both "do the same thing
again". `StallDetector` keeps the current-failure model instead (`cafe/stall/failure_state.py`,
keyed on failure signatures from `cafe/stall/evidence.py`) and plugs it into `cafe.loop.run_loop`
(see `run_with_stall`):

- `observe` (an observer, start of turn) folds the PREVIOUS turn's results, so the state is a
  turn behind the agent: with `stuck_same_diagnostic_after = 3`, an agent re-running one failing
  test trips on turn 4, when turn 3's result is folded.
- `reverify` (first after-turn hook, no lag) is the post-edit re-verify mandate: an edit on a
  live failure with no re-test after it makes the loop run the verify entrypoint now.
- `consult_checks` (second after-turn hook) shows this turn's results to the plug-in checks.
- `handback` attaches `current_failure` to the result (repair-aware): cleared on `done`.

With `repair_aware` on, `stuck_same_diagnostic` trips when a fresh failure pushes the streak up
to the threshold, and at no other time (once per stuck episode), quoting the failing evidence;
the blind patterns stay quiet so the two never fire for one thing. With it off (the default)
every knob is inert and the detector is the blind one. Each trip is a `Nudge` until
`MAX_STALL_WARNINGS` have been sent; the next stops the run as `stuck`, as does the hard cap.

Plug-in checks (`cafe/stall/checks.py`) let a later session add facts without editing this
module: an explicit, ordered list handed to the detector, asked at two seams (`_trip` says where).

Left out: the host facts that plug in here and the pace governor (session 14, `cafe/governor/facts.py`,
`cafe/governor/pace.py`), verification tiers and monitors (session 15).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any, Literal, get_args

from cafe.loop.agent import (
    DEFAULT_MAX_TURNS,
    DEFAULT_MAX_VERIFY_ATTEMPTS,
    Nudge,
    Observer,
    RunResult,
    Stop,
    TurnView,
    Verify,
    run_loop,
)
from cafe.loop.tools import Tool
from cafe.stall.checks import StallCheck, StallReading, Trip
from cafe.stall.evidence import failure_signature, failure_snippet  # noqa: F401 (failure_signature: see pacing)
from cafe.stall.failure_state import (
    CurrentFailure,
    FailureState,
    TurnClass,
    classify_turn,
    clear_current_failure,
    fold_diagnostic,
)
from cafe.stall.repeats import RepeatCounters, RepeatPattern, count_repeats, repeat_trip

__all__ = [
    "StallPattern",
    "STALL_PATTERNS",
    "STALL_KNOB_DEFAULTS",
    "MAX_STALL_WARNINGS",
    "StallConfig",
    "stall_config",
    "StallWarning",
    "TurnSnapshot",
    "DetectorState",
    "reset_action",
    "StallDetector",
    "StallRun",
    "run_with_stall",
]

# --- constants ------------------------------------------------------------------------------

# The patterns this detector raises itself, declared once (plug-in checks declare their own):
#   stuck_same_diagnostic      repair-aware: the same failure signature for N evidence turns
#   no_net_progress_hard_cap   repair-aware + guard: too many failing verification turns overall
#   repeated_error, repeated_same_observation   the blind counters (`cafe/stall/repeats.py`)
StallPattern = Literal["stuck_same_diagnostic", "no_net_progress_hard_cap", RepeatPattern]
STALL_PATTERNS: frozenset[str] = frozenset(get_args(StallPattern))

# Course choice: one warning is sent back to the model; the next trip in the same run stops it
# as `stuck`. A model that ignored one grounded warning rarely heeds a second.
MAX_STALL_WARNINGS = 1


# --- configuration --------------------------------------------------------------------------


@dataclass(frozen=True)
class StallConfig:
    """The detector's knobs, with the defaults of the design this session follows: off unless
    `repair_aware` is set, and with it off every other knob is inert. Build it with
    `stall_config(...)` to get the flat/nested merge."""

    repair_aware: bool = False
    stuck_same_diagnostic_after: int = 3
    post_edit_reverify: bool = True
    no_net_progress_extend_guard: bool = False
    no_net_progress_extend_after: int = 3
    no_net_progress_hard_cap_after: int = 16
    reserved_terminal_verify: bool = False
    reserved_terminal_verify_iterations: int = 2

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(spec.default, bool):
                if not isinstance(value, bool):
                    raise TypeError(f"{spec.name} must be true or false, not {value!r}.")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"{spec.name} must be a whole number of at least 1, not {value!r}."
                )


# Every knob and its default, read from `StallConfig` itself so the two can never disagree.
STALL_KNOB_DEFAULTS: Mapping[str, bool | int] = MappingProxyType(
    {f.name: f.default for f in fields(StallConfig)}
)


def stall_config(stall_diagnostics: Mapping[str, Any] | None = None, **flat: Any) -> StallConfig:
    """Build a `StallConfig` from a `stall_diagnostics` mapping (and/or keyword arguments).

    Knobs may sit flat on the mapping or nested under `repair_diagnostics`; when a knob is in
    both places the flat one wins, so a host can override one knob without copying a shared
    block. Keyword arguments are flat too and win over everything. Unknown keys are refused.
    """
    given = dict(stall_diagnostics or {})
    nested = given.pop("repair_diagnostics", None) or {}
    if not isinstance(nested, Mapping):
        raise TypeError(
            f"repair_diagnostics must be a mapping of knobs, not {type(nested).__name__}."
        )
    merged = {**nested, **given, **flat}  # later wins: nested < flat mapping < keyword arguments
    unknown = set(merged) - set(STALL_KNOB_DEFAULTS)
    if unknown:
        raise ValueError(
            f"Unknown stall_diagnostics key(s) {sorted(unknown)}; the knobs are "
            f"{sorted(STALL_KNOB_DEFAULTS)}. Host facts plug in as checks: "
            "StallDetector(config, checks=...)."
        )
    return StallConfig(**merged)


# --- the detector ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StallWarning:
    """One trip: the turn it was seen on, its pattern, and what the model (or the host) was told."""

    turn: int
    pattern: str
    message: str
    stopped: bool  # True when this trip ended the run instead of nudging


@dataclass(frozen=True)
class TurnSnapshot:
    """The failure state as it stood after `observe` on one turn: what a notebook tabulates."""

    turn: int
    folded: TurnClass  # the class of the PREVIOUS turn's results, folded on this turn
    failure_state: FailureState
    pattern: str | None
    # The blind counter after the same fold: how many turns in a row the same action was answered
    # the same way (0 before any action). Kept whether or not the blind patterns may trip.
    same_action_repeats: int = 0


@dataclass(frozen=True)
class DetectorState:
    """Everything the detector remembers between turns."""

    failure_state: FailureState = FailureState()
    snippet: str = ""
    warnings_sent: int = 0
    failing_verify_turns: int = 0  # the hard cap's counter
    repeats: RepeatCounters = RepeatCounters()  # the blind counters, cleared by `reset_action`


def reset_action(state: DetectorState) -> DetectorState:
    """A new action started: clear the blind counters. The failure state is kept on purpose: a
    different attempt at the same bug does not make the bug go away."""
    return replace(state, repeats=RepeatCounters())


def _stuck_message(state: FailureState, snippet: str) -> str:
    return (
        f"[stall] The same failure has now come back {state.same_diagnostic_streak} times, and the "
        f"edits in between did not change it. The failing evidence still reads: `{snippet}`. "
        "Retrying harder will not help: re-read the failing check, question your assumption "
        "about the cause, and try a different fix."
    )


class StallDetector:
    """The current-failure model wired into the loop. One detector per run; `checks` are the
    plug-in checks, consulted in list order (the first trip wins)."""

    def __init__(
        self,
        config: StallConfig | None = None,
        *,
        checks: Sequence[StallCheck] = (),
        session_id: str = "session",
    ):
        self.config = config or StallConfig()
        self.checks = tuple(checks)
        self.session_id = session_id
        self.state = DetectorState()
        self.warnings: list[StallWarning] = []
        self.timeline: list[TurnSnapshot] = []

    def observe(self, view: TurnView) -> Nudge | Stop | None:
        """(Observer.) Fold the previous turn's results and decide whether this turn trips."""
        before = self.state
        kind, deciding = classify_turn(view.prev_dispatch)
        failure = fold_diagnostic(before.failure_state, view.prev_dispatch)
        # "The streak advanced": a fresh sighting of the same failure pushed it up on this fold.
        # An edit turn holds it, a new failure resets it, a pass clears it: none of those advance.
        advanced = failure.same_diagnostic_streak > before.failure_state.same_diagnostic_streak
        state = replace(
            before,
            failure_state=failure,
            snippet=failure_snippet(deciding.output)
            if kind == "fail" and deciding
            else before.snippet,
            repeats=count_repeats(before.repeats, view.prev_dispatch, failed=kind == "fail"),
        )
        if kind == "fail" and any(r.kind == "verify" and not r.ok for r in view.prev_dispatch):
            state = replace(state, failing_verify_turns=state.failing_verify_turns + 1)
        elif kind == "pass":
            state = replace(state, failing_verify_turns=0)
        self.state = state
        trip = self._trip(StallReading(view, failure, advanced, state.snippet, self.session_id))
        self.timeline.append(
            TurnSnapshot(view.turn, kind, failure, trip and trip.pattern, state.repeats.longest)
        )
        return self._register(view.turn, trip)

    def _trip(self, reading: StallReading) -> Trip | None:
        """The one pattern this turn trips, if any. In order: the hard cap (repair-aware with the
        guard on), which stops the run; the blind patterns, only with `repair_aware` off; the
        plug-in checks' `on_fold`; `stuck_same_diagnostic`, on the turn the streak advances to
        the threshold."""
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
        blind = None if cfg.repair_aware else repeat_trip(state.repeats)
        if blind is not None:
            return Trip(*blind)
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

    def _register(self, turn: int, trip: Trip | None) -> Nudge | Stop | None:
        if trip is None:
            return None
        stop = trip.stop or self.state.warnings_sent >= MAX_STALL_WARNINGS
        self.warnings.append(StallWarning(turn, trip.pattern, trip.message, stop))
        if stop:
            return Stop("stuck", f"{trip.pattern}: {trip.message}")
        self.state = replace(self.state, warnings_sent=self.state.warnings_sent + 1)
        return Nudge(trip.message, source=trip.pattern)

    def reverify(self, view: TurnView) -> Verify | None:
        """(After-turn hook, no lag.) The post-edit re-verify mandate and the reserved terminal check."""
        cfg = self.config
        if not cfg.repair_aware or not view.can_verify:
            return None
        last_edit = max(
            (i for i, r in enumerate(view.dispatch) if r.kind == "mutate" and r.ok), default=None
        )
        if last_edit is None:  # an edit from an earlier turn may still be unchecked
            unchecked = self.state.failure_state.reverify_owed and not any(
                r.kind == "verify" for r in view.dispatch
            )
        else:
            unchecked = not any(r.kind == "verify" for r in view.dispatch[last_edit:])
        if cfg.post_edit_reverify and last_edit is not None and unchecked:
            if self.state.failure_state.last_diagnostic_class == "fail" or any(
                not r.ok for r in view.dispatch[:last_edit]
            ):
                return Verify("post-edit re-verify: an edit landed on a failing check")
        if (
            cfg.reserved_terminal_verify
            and view.max_turns - view.turn < cfg.reserved_terminal_verify_iterations
            and unchecked
        ):
            return Verify("reserved terminal verify: the turn budget is nearly spent")
        return None

    def consult_checks(self, view: TurnView) -> Nudge | Stop | None:
        """(After-turn hook, no lag.) Show this turn's results to the plug-in checks' `on_results`."""
        state = self.state
        reading = StallReading(view, state.failure_state, False, state.snippet, self.session_id)
        return self._register(view.turn, self._ask_checks("on_results", reading))

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
        """Attach the hand-back to a finished run: `current_failure` unless the run succeeded."""
        last = result.turns[-1].dispatch if result.turns else ()
        failure = fold_diagnostic(
            self.state.failure_state, last
        )  # the final turn was never folded (the lag)
        kind, deciding = classify_turn(last)
        snippet = (
            failure_snippet(deciding.output) if kind == "fail" and deciding else self.state.snippet
        )
        if result.stop_reason == "done":
            failure = clear_current_failure(failure)
        self.state = replace(self.state, failure_state=failure, snippet=snippet)
        current = None
        if (
            self.config.repair_aware
            and failure.last_diagnostic_class == "fail"
            and failure.last_diagnostic_signature
        ):
            current = CurrentFailure(
                "fail", failure.last_diagnostic_signature, snippet, failure.same_diagnostic_streak
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


# --- the main function ----------------------------------------------------------------------


def run_with_stall(
    client: Any,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool],
    *,
    config: StallConfig | None = None,
    checks: Sequence[StallCheck] = (),
    verify: Tool | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_verify_attempts: int = DEFAULT_MAX_VERIFY_ATTEMPTS,
    model: str | None = None,
    session_id: str = "session",
    observers: Sequence[Observer] = (),
    after_turn: Sequence[Observer] = (),
    clock: Callable[[], float] = time.monotonic,
    detector: StallDetector | None = None,
) -> StallRun:
    """`run_loop` with a `StallDetector` plugged in, returning the run and its hand-back.

    The detector's observer runs first; after each turn its `reverify` runs first and its
    `consult_checks` second, so any `after_turn` hooks you add (a pace governor) see the forced
    verification and the checks' verdicts. Pass `config`, `checks` and `session_id`, or a ready
    `detector` (then those three are its own).
    """
    if detector is not None and (config is not None or checks):
        raise ValueError(
            "Pass either a detector or its config and checks, not both: "
            "StallDetector(config, checks=...) holds them."
        )
    detector = detector or StallDetector(config, checks=checks, session_id=session_id)
    result = run_loop(
        client,
        messages,
        tools,
        model=model,
        max_turns=max_turns,
        observers=[detector.observe, *observers],
        after_turn=[detector.reverify, detector.consult_checks, *after_turn],
        verify=verify,
        max_verify_attempts=max_verify_attempts,
        clock=clock,
    )
    return detector.handback(result)
