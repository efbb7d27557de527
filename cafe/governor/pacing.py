"""Pacing a running loop: the host side that feeds the pace decision from `run_loop`.

Session 14 (host-supplied facts). `cafe/governor/pace.py` holds the pace decision (`decide_pace` on
frozen records, `governor_pace_decision` on dicts), and it is pure: it never reads a clock and
keeps no state, so something else has to. This module is that host side for our own loop,
`cafe.loop.run_loop`, and adds:

- `PaceGovernor`: an after-turn hook. It owns the armed deadline, the counters
  (`extends_used`, `pace_checks_used`) and the evidence gathered since the last checkpoint.
  Once the deadline passes it builds a `PaceObservation`, asks `decide_pace`, and acts:
  re-arms the deadline on `extend`, sends `PACE_CHECK_NOTE` on `pace_check`, stops on `cut`.
- The host's reading of the verifier, the same kind of reading `progress_signal` gives the stall
  detector (`cafe/governor/facts.py`): `verify_state_of` (clean or broken) and `passing_tests` (the
  workbench's pytest count). The governor turns it into the observation's `made_progress` and
  `verifier_signature_unchanged` flags, with session 13's `failure_signature` as "the same".
- `wall_timeout`, the fixed timeout the governor replaces (kept for comparison), and
  `TurnClock`, a fake clock that charges a fixed number of seconds per turn, so governed runs
  are deterministic.

Left out: the decision table itself (`cafe/governor/pace.py`); the stall detector's host facts
(`cafe/governor/facts.py`); what the host does about a `pace_check` beyond sending the note, or after a
`cut` (the host's call); a real wall clock (`run_loop` reads whatever clock it is given);
verification tiers and the progress monitor (session 15).

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.governor.pace import PaceDecision, PaceObservation, PacePolicy, decide_pace
from cafe.loop.clock import checked_elapsed
from cafe.loop.turns import Nudge, Stop, ToolResult, TurnView
from cafe.stall.evidence import failure_signature

__all__ = [
    "PaceStopReason",
    "PACE_STOP_REASONS",
    "PACE_CHECK_NOTE",
    "VerifyReading",
    "verify_state_of",
    "passing_tests",
    "TurnClock",
    "PaceTurn",
    "wall_timeout",
    "PaceGovernor",
]

# --- constants ------------------------------------------------------------------------------

# The one reason a pace governor (or the fixed timeout it replaces) stops a run with: the run was
# cut on a budget or pace policy. Hand it to `run_loop(stop_reasons=...)` with the hook.
PaceStopReason = Literal["cut"]
PACE_STOP_REASONS: frozenset[str] = frozenset(get_args(PaceStopReason))

# What the agent is told on a pace check. The course's own wording: the pace decision's contract
# leaves the text to the host, and so the note lives here, not beside the pure decision.
PACE_CHECK_NOTE = (
    "[harness] You are past the time this task was expected to take. You are still making "
    "progress, so keep going, but narrow down: finish the one change that gets the checks "
    "passing, run them, and stop."
)

# A host's verify-state reading for one turn: a number (passing tests, or 1/0 for clean/broken),
# or None when the turn produced no verification at all. Same contract as `progress_signal`.
VerifyReading = Callable[[TurnView], float | None]

# pytest's summary line, e.g. "1 failed, 3 passed in 0.02s": the count before "passed".
_PASSED = re.compile(r"\b(\d+) passed\b")


# --- helpers: settings and readings ---------------------------------------------------------


def _positive(value: Any, name: str, example: str) -> None:
    """A setting that must be a positive, finite number (wrong type: TypeError; else ValueError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be {example}, got {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be above zero and finite, got {value!r}")


def verify_state_of(view: TurnView) -> float | None:
    """The plainest reading: 1.0 if a verification passed this turn, 0.0 if it ran and failed,
    None if nothing was verified. A host with a test count should pass its own reading instead."""
    checks = [result for result in view.dispatch if result.kind == "verify"]
    if not checks:
        return None
    return 1.0 if any(result.ok for result in checks) else 0.0


def passing_tests(view: TurnView) -> float | None:
    """A host reading for a pytest verify tool (the workbench's `run_tests`): how many tests
    passed this turn, 0 when pytest ran and none did, None when nothing was verified."""
    checks = [result for result in view.dispatch if result.kind == "verify"]
    if not checks:
        return None
    counts = [int(m.group(1)) if (m := _PASSED.search(r.output)) else 0 for r in checks]
    return float(max(counts))


class TurnClock:
    """A fake clock for pace experiments: each turn costs `seconds_per_turn`, nothing else moves it.

    Pass it as `run_loop(clock=...)` and its `tick` as the first observer, so the time moves once,
    at the start of each turn: turn n then ends at n * seconds_per_turn.
    """

    def __init__(self, seconds_per_turn: float) -> None:
        _positive(seconds_per_turn, "TurnClock: seconds_per_turn", "a number of seconds, e.g. 10.0")
        self.seconds_per_turn = seconds_per_turn
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def tick(self, view: TurnView) -> None:
        """An observer: advance the clock by one turn, say nothing."""
        self.now += self.seconds_per_turn


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaceTurn:
    """One turn as the governor saw it. `decision` is None on turns before the deadline."""

    turn: int
    elapsed_ms: float
    deadline_ms: float  # the deadline armed when the turn ended (before acting on the decision)
    wrote: bool  # a workspace write landed this turn
    reading: float | None  # the host's verify-state reading this turn
    observation: PaceObservation | None  # what was passed to decide_pace, if it was asked
    decision: PaceDecision | None


# --- the baseline, then the governor --------------------------------------------------------


def wall_timeout(budget_ms: float) -> Callable[[TurnView], Stop | None]:
    """The baseline this session replaces: an after-turn hook that cuts once `budget_ms` is up,
    whatever the run has been doing. One per run: an elapsed time that is not a finite number,
    or that is below the last one it saw, raises `ClockError` (a limit it cannot measure is not
    a limit that passed)."""
    last = 0.0

    def timeout(view: TurnView) -> Stop | None:
        nonlocal last
        last = checked_elapsed(view.elapsed, last, "wall_timeout")
        if last * 1000 >= budget_ms:
            return Stop("cut", f"fixed timeout: {budget_ms:.0f} ms used up")
        return None

    return timeout


class PaceGovernor:
    """The host side of `decide_pace`, as an after-turn hook for `cafe.loop.run_loop`.

    It keeps what the pure decision cannot: the armed deadline, `extends_used`,
    `pace_checks_used`, the best verify-state seen, and the evidence since the last checkpoint.
    Time comes from the loop (`view.elapsed`, measured with the loop's injected clock), so a fake
    clock makes a governed run deterministic. Each turn it records the evidence; once the armed
    deadline has passed (where a plain timeout would fire) it asks the governor and acts:

    - `extend`: re-arm the deadline at `new_budget_ms`; the agent is not told.
    - `pace_check`: send `PACE_CHECK_NOTE` and re-arm one checkpoint later (a course choice:
      the note needs a turn or two to work before the next decision).
    - `cut`: stop the run with stop reason `cut`, the governor's reason in the detail.
    - `proceed`: nothing.

    Evidence per checkpoint window (host choices, spelled out):

    - `made_progress`: a write landed, or verify-state rose above its best.
    - `verifier_signature_unchanged`: a write landed, yet verify-state did not rise and the last
      verification's signature (`cafe.stall.failure_signature`, session 13) is the one it was at
      the previous checkpoint. Edits that leave the verifier saying the same thing are not
      progress. An edit that changes the failure does count as movement here, which is why the
      stall detector's `progress_signal` is still needed for an agent whose every edit produces
      a new wrong answer.
      With `extension_allowed` (pass a `StallDetector`'s method of that name), the flag is also
      set whenever the detector's no-net-progress guard says the same failure has held too long.
    - `done`: a verification passed this turn.

    `policy` is a `PacePolicy`, or a dict of its caps (read with `PacePolicy.from_mapping`);
    `observation` and each `PaceTurn` hold the records the decision saw and gave. One governor per
    run; its stop reason is `cut` (`PACE_STOP_REASONS`). An elapsed time that is not a finite
    number, or that is below the last one it saw, raises `ClockError`: a deadline it cannot
    measure is not a deadline that passed.
    """

    stop_reasons: frozenset[str] = PACE_STOP_REASONS

    def __init__(
        self,
        budget_ms: float,
        *,
        checkpoint_ms: float | None = None,
        expected_total_ms: float | None = None,
        policy: PacePolicy | Mapping[str, Any] | None = None,
        reading: VerifyReading = verify_state_of,
        env_blame: Callable[[TurnView], bool] | None = None,
        signature: Callable[[ToolResult], str] = failure_signature,
        extension_allowed: Callable[[], bool] | None = None,
    ) -> None:
        for name, value in (
            ("budget_ms", budget_ms),
            ("checkpoint_ms", checkpoint_ms),
            ("expected_total_ms", expected_total_ms),
        ):
            if value is not None:
                _positive(value, f"PaceGovernor: {name}", "a number of milliseconds, e.g. 30_000")
        # A dict is read (and checked) here, so a bad policy fails now, not mid-run.
        self.policy = (
            policy if isinstance(policy, PacePolicy) else PacePolicy.from_mapping(policy or {})
        )
        self.budget_ms = budget_ms
        self.checkpoint_ms = checkpoint_ms or budget_ms
        self.expected_total_ms = expected_total_ms or budget_ms
        self.reading, self.env_blame = reading, env_blame
        self.signature = signature
        self.extension_allowed = extension_allowed
        self.deadline_ms: float = budget_ms
        self.extends_used = 0
        self.pace_checks_used = 0
        self.best: float | None = None  # high-water mark of verify-state over the whole run
        self.turns: list[PaceTurn] = []
        self.last_elapsed = 0.0  # seconds, the latest `view.elapsed` (checked: cafe/loop/clock.py)
        self.latest_signature: str | None = None  # the last verification's signature
        self.checkpoint_signature: str | None = None  # ... as it was at the previous checkpoint
        self._window = {"wrote": False, "rose": False, "blamed": False}

    def observation(self, elapsed_ms: float, *, done: bool) -> PaceObservation:
        """The observation the governor would be given now, built from the current window."""
        window = self._window
        moved = window["rose"] or self.latest_signature != self.checkpoint_signature
        # The stall detector's no-net-progress guard (`StallDetector.extension_allowed`) knows the
        # same failure has held for several turns: then the signature has not moved, whatever
        # this window shows, and the run must not be extended.
        held = self.extension_allowed is not None and not self.extension_allowed()
        return PaceObservation(
            elapsed_ms=elapsed_ms,
            armed_budget_ms=self.deadline_ms,
            expected_total_ms=self.expected_total_ms,
            checkpoint_ms=self.checkpoint_ms,
            made_progress=window["wrote"] or window["rose"],
            verifier_signature_unchanged=(window["wrote"] and not moved) or held,
            env_blame_without_infra=window["blamed"],
            done=done,
            extends_used=self.extends_used,
            pace_checks_used=self.pace_checks_used,
        )

    def __call__(self, view: TurnView) -> Nudge | Stop | None:
        self.last_elapsed = checked_elapsed(view.elapsed, self.last_elapsed, "PaceGovernor")
        elapsed_ms = self.last_elapsed * 1000
        wrote = any(r.kind == "mutate" and r.ok for r in view.dispatch)
        reading = self.reading(view)
        if reading is not None and (self.best is None or reading > self.best):
            self.best, self._window["rose"] = reading, True
        self._window["wrote"] |= wrote
        self._window["blamed"] |= bool(self.env_blame and self.env_blame(view))
        checks = [r for r in view.dispatch if r.kind == "verify"]
        if checks:
            self.latest_signature = self.signature(checks[-1])
        done = any(r.ok for r in checks)

        obs = decision = None
        if elapsed_ms >= self.deadline_ms:
            obs = self.observation(elapsed_ms, done=done)
            decision = decide_pace(self.policy, obs)
        self.turns.append(
            PaceTurn(view.turn, elapsed_ms, self.deadline_ms, wrote, reading, obs, decision)
        )
        if decision is None or decision.action == "proceed":
            return None
        if decision.action == "cut":
            return Stop("cut", f"pace governor: {decision.reason} at {elapsed_ms:.0f} ms")
        # a new checkpoint window starts
        self._window = {"wrote": False, "rose": False, "blamed": False}
        self.checkpoint_signature = self.latest_signature
        if decision.action == "extend":
            assert decision.new_budget_ms is not None  # PaceDecision guarantees it on extend
            self.extends_used += 1
            self.deadline_ms = decision.new_budget_ms
            return None
        if decision.action == "pace_check":
            self.pace_checks_used += 1
            self.deadline_ms = elapsed_ms + self.checkpoint_ms
            return Nudge(PACE_CHECK_NOTE, source="pace_check")
        raise AssertionError(f"unhandled decision {decision!r}")  # DECISIONS is closed
