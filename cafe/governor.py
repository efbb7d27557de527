"""The pace governor: a timeout that looks at progress before it looks at the clock.

Session 14 (host-supplied facts). Session 13 taught the loop to notice a stall from the
evidence it can see itself: the same failure signature coming back turn after turn. This session
adds the facts only the host can supply, and the one decision built on them:

- `governor_pace_decision(policy, obs)`: a pure function. Given two caps (the policy) and a
  snapshot of the run (the observation: budget, elapsed time, whether the run progressed, ...)
  it returns one of four decisions: `proceed`, `extend` (silently move the deadline, carrying
  `new_budget_ms`), `pace_check` (tell the agent to wrap up) or `cut` (stop, with one of five
  named reasons). It never reads a clock; the caller passes the time in.
- `PaceGovernor`: the host side, as an after-turn hook for `cafe.loop.run_loop`. It owns the
  counters (`extends_used`, `pace_checks_used`), the armed deadline and the evidence gathered
  since the last checkpoint; once the deadline passes it asks `governor_pace_decision` and acts:
  re-arms the deadline on `extend`, sends a wrap-up note on `pace_check`, stops on `cut`.
- `wall_timeout`, the fixed timeout it replaces (kept for comparison), and `TurnClock`, a fake
  clock that charges a fixed number of seconds per turn, so governed runs are deterministic.

The other two host facts, `progress_signal` ("did the verifier advance this turn?") and
`remediation_delivered` ("did the fix we sent actually land?"), feed the stall detector
(`cafe/facts.py`, `cafe/stall.py`). The governor reads the same kind of host reading (for the
workbench, `passing_tests`) and turns it into the observation's `made_progress` and
`verifier_signature_unchanged` flags.

Left out: deciding *what* the agent should do after a `pace_check` or a `cut` (the host's call),
verification tiers and the progress monitor (session 15), and any notion of cost (session 11).

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Optional, get_args

if TYPE_CHECKING:  # only for the hints: the decision itself needs nothing from the loop
    from cafe.loop import Nudge, Stop, ToolResult, TurnView

__all__ = [
    "Decision",
    "CutReason",
    "DECISIONS",
    "CUT_REASONS",
    "EXTEND_REASON",
    "PACE_CHECK_REASON",
    "REASONS_BY_DECISION",
    "EXTEND_MAX_DEFAULT",
    "PACE_CHECK_MAX_DEFAULT",
    "POLICY_KEYS",
    "OBSERVATION_KEYS",
    "governor_pace_decision",
    "decision_table",
    "check_pace_decision",
    "PACE_CHECK_NOTE",
    "VerifyReading",
    "verify_state_of",
    "passing_tests",
    "TurnClock",
    "PaceTurn",
    "PaceGovernor",
    "wall_timeout",
]

# --- constants ------------------------------------------------------------------------------

# Both defaults are the reference's (seed 003, "governor_pace_decision", Policy): at most six
# silent extensions per run, at most two wrap-up nudges before the run is cut.
EXTEND_MAX_DEFAULT = 6
PACE_CHECK_MAX_DEFAULT = 2

# The four decisions, declared once. `extend` is the only one that carries `new_budget_ms`.
Decision = Literal["proceed", "extend", "pace_check", "cut"]
DECISIONS: frozenset[str] = frozenset(get_args(Decision))

# The five cut reasons, in the order the seed lists them. The order is also the order the checks
# run in, so when an observation meets two cut conditions it gets the earlier reason.
CutReason = Literal[
    "no_progress_at_checkpoint",  # the checkpoint came and nothing had moved
    "no_verifier_progress",  # files changed, the verifier's failure signature did not
    "env_blame_without_infra",  # the agent blamed the environment; the host saw no infra fault
    "extend_budget_exhausted",  # still inside the estimate, but extend_max extensions are spent
    "pace_check_budget_exhausted",  # past the estimate, and pace_check_max nudges are spent
]
CUT_REASONS: tuple[str, ...] = get_args(CutReason)

# The reasons the two non-cut, non-proceed decisions carry (the reference implementation's words).
EXTEND_REASON = "progress_within_estimate"
PACE_CHECK_REASON = "over_estimate_while_progressing"

# Which reasons go with which decision. `proceed` carries no reason at all.
REASONS_BY_DECISION: Mapping[str, frozenset[str]] = {
    "proceed": frozenset(),
    "extend": frozenset({EXTEND_REASON}),
    "pace_check": frozenset({PACE_CHECK_REASON}),
    "cut": frozenset(CUT_REASONS),
}

# What the agent is told on a pace check (course wording; the reference leaves the text to the host).
PACE_CHECK_NOTE = (
    "[harness] You are past the time this task was expected to take. You are still making "
    "progress, so keep going, but narrow down: finish the one change that gets the checks "
    "passing, run them, and stop."
)

# The keys each input may carry (seed 003). A missing key, or None, reads as 0 / False.
POLICY_KEYS = ("extend_max", "pace_check_max")
_MS_KEYS = ("elapsed_ms", "armed_budget_ms", "expected_total_ms", "checkpoint_ms")
_FLAG_KEYS = ("made_progress", "verifier_signature_unchanged", "done", "env_blame_without_infra")
_COUNT_KEYS = ("extends_used", "pace_checks_used")
OBSERVATION_KEYS = _MS_KEYS + _FLAG_KEYS + _COUNT_KEYS


# --- reading the inputs ---------------------------------------------------------------------


def _check_mapping(value: Any, name: str, known: tuple[str, ...]) -> Mapping[str, Any]:
    """Reject a non-dict, and any key the governor does not read (a typo would read as 0)."""
    if not isinstance(value, Mapping):
        raise TypeError(
            f"governor_pace_decision: {name} must be a dict, got {type(value).__name__} "
            f"({value!r}); pass e.g. {{{known[0]!r}: ...}}"
        )
    for key in value:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(
                f"governor_pace_decision: unknown {name} key {key!r}; {hint}"
                f"the {name} keys are {', '.join(known)}"
            )
    return value


def _number(obs: Mapping[str, Any], key: str) -> float:
    """An ms value: an int or a finite float; missing or None reads as 0."""
    value = obs.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"observation[{key!r}] must be a number of milliseconds, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"observation[{key!r}] must be finite, got {value!r}")
    return value


def _count(source: Mapping[str, Any], key: str, name: str, default: int = 0) -> int:
    """A counter or a cap: a non-negative int; missing or None reads as the default."""
    value = source.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}[{key!r}] must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{name}[{key!r}] must be 0 or more, got {value}")
    return value


def _flag(obs: Mapping[str, Any], key: str) -> bool:
    """A yes/no fact: True or False exactly (1 and "yes" are refused); missing reads as False."""
    value = obs.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise TypeError(f"observation[{key!r}] must be True or False, got {value!r}")
    return value


def _positive(value: Any, name: str, example: str) -> None:
    """A setting that must be a positive, finite number (wrong type: TypeError; else ValueError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be {example}, got {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be above zero and finite, got {value!r}")


def _positive_or(value: float, fallback: float) -> float:
    """The value when it is above zero, else the fallback (the armed budget)."""
    return value if value > 0 else fallback


# --- the decision ---------------------------------------------------------------------------


def governor_pace_decision(policy: Mapping[str, Any], obs: Mapping[str, Any]) -> dict[str, Any]:
    """Decide what a run's clock should do now: proceed, extend, pace_check or cut.

    `policy` may carry `extend_max` (default 6) and `pace_check_max` (default 2). `obs` may carry
    any of `OBSERVATION_KEYS`; a missing key reads as 0 or False, and `checkpoint_ms` and
    `expected_total_ms` fall back to `armed_budget_ms` when missing or not positive.

    Returns a new dict: `{"action": "proceed"}`, `{"action": "extend", "new_budget_ms": ...,
    "reason": "progress_within_estimate"}`, `{"action": "pace_check", "reason":
    "over_estimate_while_progressing"}` or `{"action": "cut", "reason": <one of CUT_REASONS>}`.
    Pure: no clock, no state, and neither argument is changed.
    """
    policy = _check_mapping(policy, "policy", POLICY_KEYS)
    obs = _check_mapping(obs, "observation", OBSERVATION_KEYS)
    # Read (and so validate) every input up front, so a bad value fails on every call,
    # not only on the calls that happen to reach the branch that reads it.
    extend_max = _count(policy, "extend_max", "policy", EXTEND_MAX_DEFAULT)
    pace_check_max = _count(policy, "pace_check_max", "policy", PACE_CHECK_MAX_DEFAULT)
    armed, elapsed = _number(obs, "armed_budget_ms"), _number(obs, "elapsed_ms")
    if elapsed < 0:
        raise ValueError(f"observation['elapsed_ms'] must be 0 or more, got {elapsed}")
    checkpoint = _positive_or(_number(obs, "checkpoint_ms"), armed)
    expected_total = _positive_or(_number(obs, "expected_total_ms"), armed)
    made_progress, done = _flag(obs, "made_progress"), _flag(obs, "done")
    signature_unchanged = _flag(obs, "verifier_signature_unchanged")
    env_blame = _flag(obs, "env_blame_without_infra")
    extends_used = _count(obs, "extends_used", "observation")
    pace_checks_used = _count(obs, "pace_checks_used", "observation")

    # Nothing to govern: no budget armed, the run already finished, or the checkpoint is ahead.
    if armed <= 0 or done or elapsed < checkpoint:
        return {"action": "proceed"}

    # At or past the checkpoint. The three evidence cuts come first, in the seed's order.
    if not made_progress:
        return {"action": "cut", "reason": "no_progress_at_checkpoint"}
    if signature_unchanged:  # writes landed, the verifier did not move: not progress
        return {"action": "cut", "reason": "no_verifier_progress"}
    if env_blame:
        return {"action": "cut", "reason": "env_blame_without_infra"}

    # Progressing. "Past the estimate" means a whole checkpoint beyond the expected total.
    if elapsed < expected_total + checkpoint:
        if extends_used >= extend_max:
            return {"action": "cut", "reason": "extend_budget_exhausted"}
        return {"action": "extend", "new_budget_ms": elapsed + checkpoint, "reason": EXTEND_REASON}
    if pace_checks_used >= pace_check_max:
        return {"action": "cut", "reason": "pace_check_budget_exhausted"}
    return {"action": "pace_check", "reason": PACE_CHECK_REASON}


# --- the table, and the check for the notebook's "your turn" ---------------------------------


def decision_table(
    observations: list[Mapping[str, Any]], policy: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One row per observation: the observation's values beside the governor's decision.

    Handy for printing: every row has the same keys (missing inputs shown as None).
    """
    rows = []
    for obs in observations:
        decision = governor_pace_decision(policy or {}, obs)
        row = {key: obs.get(key) for key in OBSERVATION_KEYS}
        row.update(action=decision["action"], reason=decision.get("reason"),
                   new_budget_ms=decision.get("new_budget_ms"))
        rows.append(row)
    return rows


def _check_grid() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(policy, observation) pairs reaching every row of the table and both sides of each boundary.

    None means "leave the key out", so the missing-key and fallback rules are exercised too.
    """
    axes = {
        "armed_budget_ms": (None, 20_000),
        "elapsed_ms": (None, 19_999, 20_000, 39_999, 40_000, 55_000),
        "checkpoint_ms": (None, 0, 10_000),
        "expected_total_ms": (None, -1, 30_000),
        "made_progress": (None, True),
        "verifier_signature_unchanged": (False, True),
        "done": (None, True),
        "env_blame_without_infra": (False, True),
        "extends_used": (None, 5, 6),
        "pace_checks_used": (1, 2),
    }
    policies = ({}, {"extend_max": 5, "pace_check_max": 1})
    pairs = []
    for policy, values in itertools.product(policies, itertools.product(*axes.values())):
        obs = {key: value for key, value in zip(axes, values) if value is not None}
        pairs.append((dict(policy), obs))
    return pairs


def check_pace_decision(
    fn: Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]], *, limit: int = 5
) -> list[str]:
    """Run `fn` over a grid of policies and observations; list where it disagrees with the governor.

    An empty list means it agrees everywhere. A stub's NotImplementedError is let through, so
    `cafe.course.compare` can say "not attempted yet" instead of failing.
    """
    problems: list[str] = []
    disagreements = 0
    for policy, obs in _check_grid():
        expected = governor_pace_decision(policy, obs)
        got = fn(dict(policy), dict(obs))
        if got != expected:
            disagreements += 1
            if len(problems) < limit:
                problems.append(f"policy {policy}, observation {obs}: expected {expected}, got {got!r}")
    if disagreements > limit:
        problems.append(f"... and {disagreements - limit} more disagreements")
    return problems


# --- the host side: feeding the governor from a running loop --------------------------------

# A host's verify-state reading for one turn: a number (passing tests, or 1/0 for clean/broken),
# or None when the turn produced no verification at all. Same contract as `progress_signal`.
VerifyReading = Callable[["TurnView"], Optional[float]]


def verify_state_of(view: TurnView) -> float | None:
    """The plainest reading: 1.0 if a verification passed this turn, 0.0 if it ran and failed,
    None if nothing was verified. A host with a test count should pass its own reading instead."""
    checks = [result for result in view.dispatch if result.kind == "verify"]
    if not checks:
        return None
    return 1.0 if any(result.ok for result in checks) else 0.0


# pytest's summary line, e.g. "1 failed, 3 passed in 0.02s": the count before "passed".
_PASSED = re.compile(r"\b(\d+) passed\b")


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


@dataclass(frozen=True)
class PaceTurn:
    """One turn as the governor saw it. `decision` is None on turns before the deadline."""

    turn: int
    elapsed_ms: float
    deadline_ms: float  # the deadline armed when the turn ended (before acting on the decision)
    wrote: bool  # a workspace write landed this turn
    reading: float | None  # the host's verify-state reading this turn
    observation: Mapping[str, Any] | None  # what was passed to governor_pace_decision, if asked
    decision: Mapping[str, Any] | None


class PaceGovernor:
    """The host side of `governor_pace_decision`, as an after-turn hook for `cafe.loop.run_loop`.

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

    One governor per run.
    """

    def __init__(
        self,
        budget_ms: float,
        *,
        checkpoint_ms: float | None = None,
        expected_total_ms: float | None = None,
        policy: Mapping[str, Any] | None = None,
        reading: VerifyReading = verify_state_of,
        env_blame: Callable[[TurnView], bool] | None = None,
        signature: Callable[[ToolResult], str] | None = None,
        extension_allowed: Callable[[], bool] | None = None,
    ) -> None:
        for name, value in (("budget_ms", budget_ms), ("checkpoint_ms", checkpoint_ms),
                            ("expected_total_ms", expected_total_ms)):
            if value is not None:
                _positive(value, f"PaceGovernor: {name}", "a number of milliseconds, e.g. 30_000")
        self.policy = dict(_check_mapping(policy or {}, "policy", POLICY_KEYS))
        governor_pace_decision(self.policy, {})  # validates the caps now, not mid-run
        self.budget_ms = budget_ms
        self.checkpoint_ms = checkpoint_ms or budget_ms
        self.expected_total_ms = expected_total_ms or budget_ms
        self.reading, self.env_blame = reading, env_blame
        self.signature = signature  # None: cafe.stall.failure_signature, looked up on first use
        self.extension_allowed = extension_allowed
        self.deadline_ms: float = budget_ms
        self.extends_used = 0
        self.pace_checks_used = 0
        self.best: float | None = None  # high-water mark of verify-state over the whole run
        self.turns: list[PaceTurn] = []
        self.latest_signature: str | None = None  # the last verification's signature
        self.checkpoint_signature: str | None = None  # ... as it was at the previous checkpoint
        self._window = {"wrote": False, "rose": False, "blamed": False}

    def observation(self, elapsed_ms: float, *, done: bool) -> dict[str, Any]:
        """The observation the governor would be given now, built from the current window."""
        window = self._window
        moved = window["rose"] or self.latest_signature != self.checkpoint_signature
        # The stall detector's no-net-progress guard (`StallDetector.extension_allowed`) knows the
        # same failure has held for several turns: then the signature has not moved, whatever
        # this window shows, and the run must not be extended.
        held = self.extension_allowed is not None and not self.extension_allowed()
        return {
            "elapsed_ms": elapsed_ms,
            "armed_budget_ms": self.deadline_ms,
            "expected_total_ms": self.expected_total_ms,
            "checkpoint_ms": self.checkpoint_ms,
            "made_progress": window["wrote"] or window["rose"],
            "verifier_signature_unchanged": (window["wrote"] and not moved) or held,
            "env_blame_without_infra": window["blamed"],
            "done": done,
            "extends_used": self.extends_used,
            "pace_checks_used": self.pace_checks_used,
        }

    def __call__(self, view: TurnView) -> Nudge | Stop | None:
        from cafe.loop import Nudge, Stop  # imported here so `cafe.governor` loads without the loop

        elapsed_ms = view.elapsed * 1000
        wrote = any(r.kind == "mutate" and r.ok for r in view.dispatch)
        reading = self.reading(view)
        if reading is not None and (self.best is None or reading > self.best):
            self.best, self._window["rose"] = reading, True
        self._window["wrote"] |= wrote
        self._window["blamed"] |= bool(self.env_blame and self.env_blame(view))
        checks = [r for r in view.dispatch if r.kind == "verify"]
        if checks:
            self.latest_signature = self._signature_of(checks[-1])
        done = any(r.ok for r in checks)

        obs = decision = None
        if elapsed_ms >= self.deadline_ms:
            obs = self.observation(elapsed_ms, done=done)
            decision = governor_pace_decision(self.policy, obs)
        self.turns.append(PaceTurn(view.turn, elapsed_ms, self.deadline_ms, wrote, reading, obs, decision))
        if decision is None or decision["action"] == "proceed":
            return None
        if decision["action"] == "cut":
            return Stop("cut", f"pace governor: {decision['reason']} at {elapsed_ms:.0f} ms")
        # a new checkpoint window starts
        self._window = {"wrote": False, "rose": False, "blamed": False}
        self.checkpoint_signature = self.latest_signature
        if decision["action"] == "extend":
            self.extends_used += 1
            self.deadline_ms = decision["new_budget_ms"]
            return None
        if decision["action"] == "pace_check":
            self.pace_checks_used += 1
            self.deadline_ms = elapsed_ms + self.checkpoint_ms
            return Nudge(PACE_CHECK_NOTE, source="pace_check")
        raise AssertionError(f"unhandled decision {decision!r}")  # DECISIONS is closed

    def _signature_of(self, result: ToolResult) -> str:
        if self.signature is None:
            from cafe.stall import failure_signature  # session 13's definition of "the same"

            self.signature = failure_signature
        return self.signature(result)


def wall_timeout(budget_ms: float) -> Callable[[TurnView], Stop | None]:
    """The baseline this session replaces: an after-turn hook that cuts once `budget_ms` is up,
    whatever the run has been doing."""

    def timeout(view: TurnView) -> Stop | None:
        from cafe.loop import Stop

        if view.elapsed * 1000 >= budget_ms:
            return Stop("cut", f"fixed timeout: {budget_ms:.0f} ms used up")
        return None

    return timeout
