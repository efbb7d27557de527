"""The pace governor's decision: a timeout that looks at progress before it looks at the clock.

Session 14 (host-supplied facts). Session 13 taught the loop to notice a stall from the
evidence it can see itself: the same failure signature coming back turn after turn. This session
adds the facts only the host can supply, and the one decision built on them:

- `PacePolicy` (two caps), `PaceObservation` (a snapshot of the run: budget, elapsed time,
  whether it progressed, ...) and `PaceDecision`: three frozen records that check their own
  values when built.
- `decide_pace(policy, obs)`: a pure function from the two records to one of four decisions:
  `proceed`, `extend` (silently move the deadline, carrying `new_budget_ms`), `pace_check`
  (tell the agent to wrap up) or `cut` (stop, with one of five named reasons). It never reads
  a clock; the caller passes the time in.
- `governor_pace_decision(policy, obs)`: the same decision with plain dicts in and a dict out,
  the shape a host (or the notebook) writes by hand. It converts at the edge
  (`PacePolicy.from_mapping`, `PaceObservation.from_mapping`, `PaceDecision.as_dict`).
- `decision_table`, to print the decision over a list of observations. The notebook's your-turn
  checker lives apart, in `cafe/exercises/s14.py`.

Left out: everything with state. The clock, the armed deadline, the two counters and the
evidence since the last checkpoint belong to the host; `cafe/governor/pacing.py` keeps them for
`cafe.loop.run_loop` (`PaceGovernor`), so this module imports nothing from the loop. The other
two host facts, `progress_signal` and `remediation_delivered`, feed the stall detector
(`cafe/governor/facts.py`). Also left out: deciding *what* the agent should do after a `pace_check` or a
`cut` (the host's call), verification tiers and the progress monitor (session 15), and any
notion of cost (session 11).

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Literal, get_args

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
    "PacePolicy",
    "PaceObservation",
    "PaceDecision",
    "decide_pace",
    "governor_pace_decision",
    "decision_table",
]

# --- constants ------------------------------------------------------------------------------

# The published contract of the pace decision sets both defaults: at most six silent extensions
# per run, at most two wrap-up nudges before the run is cut.
EXTEND_MAX_DEFAULT = 6
PACE_CHECK_MAX_DEFAULT = 2

# The four decisions, declared once. `extend` is the only one that carries `new_budget_ms`.
Decision = Literal["proceed", "extend", "pace_check", "cut"]
DECISIONS: frozenset[str] = frozenset(get_args(Decision))

# The five cut reasons, in the order the contract lists them. The order is also the order the
# checks run in, so when an observation meets two cut conditions it gets the earlier reason.
CutReason = Literal[
    "no_progress_at_checkpoint",  # the checkpoint came and nothing had moved
    "no_verifier_progress",  # files changed, the verifier's failure signature did not
    "env_blame_without_infra",  # the agent blamed the environment; the host saw no infra fault
    "extend_budget_exhausted",  # still inside the estimate, but extend_max extensions are spent
    "pace_check_budget_exhausted",  # past the estimate, and pace_check_max nudges are spent
]
CUT_REASONS: tuple[str, ...] = get_args(CutReason)

# The reasons the two non-cut, non-proceed decisions carry (the contract's own words, so a host
# written against it reads the same strings).
EXTEND_REASON = "progress_within_estimate"
PACE_CHECK_REASON = "over_estimate_while_progressing"

# Which reasons go with which decision. `proceed` carries no reason at all. Read-only.
REASONS_BY_DECISION: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "proceed": frozenset(),
        "extend": frozenset({EXTEND_REASON}),
        "pace_check": frozenset({PACE_CHECK_REASON}),
        "cut": frozenset(CUT_REASONS),
    }
)

# The keys each dict may carry, as the contract names them. A missing key, or None, reads as
# the default (0 or False for the observation).
POLICY_KEYS = ("extend_max", "pace_check_max")
_MS_KEYS = ("elapsed_ms", "armed_budget_ms", "expected_total_ms", "checkpoint_ms")
_FLAG_KEYS = ("made_progress", "verifier_signature_unchanged", "done", "env_blame_without_infra")
_COUNT_KEYS = ("extends_used", "pace_checks_used")
OBSERVATION_KEYS = _MS_KEYS + _FLAG_KEYS + _COUNT_KEYS


# --- small pure helpers: checking one value -------------------------------------------------


def _check_keys(value: Any, name: str, known: tuple[str, ...]) -> Mapping[str, Any]:
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


def _check_ms(value: Any, key: str) -> None:
    """An ms value: an int or a finite float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"observation[{key!r}] must be a number of milliseconds (int or float, e.g. 30_000), "
            f"got {type(value).__name__} {value!r}"
        )
    if not math.isfinite(value):
        raise ValueError(
            f"observation[{key!r}] must be a finite number of milliseconds, got {value!r}"
        )


def _check_count(value: Any, key: str, name: str) -> None:
    """A counter or a cap: an int, 0 or more (True and 1.0 are refused: they hide mistakes)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}[{key!r}] must be a whole number (an int such as 2), got {value!r}")
    if value < 0:
        raise ValueError(
            f"{name}[{key!r}] must be 0 or more, got {value}; a count cannot go below zero"
        )


def _check_flag(value: Any, key: str) -> None:
    """A yes/no fact: True or False exactly (1 and "yes" are refused)."""
    if not isinstance(value, bool):
        raise TypeError(
            f"observation[{key!r}] must be True or False, got {type(value).__name__} {value!r}"
        )


def _positive_or(value: float, fallback: float) -> float:
    """The value when it is above zero, else the fallback (the armed budget)."""
    return value if value > 0 else fallback


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PacePolicy:
    """The two caps: how many silent extensions, and how many wrap-up nudges, one run may get."""

    extend_max: int = EXTEND_MAX_DEFAULT
    pace_check_max: int = PACE_CHECK_MAX_DEFAULT

    def __post_init__(self) -> None:
        for key in POLICY_KEYS:
            _check_count(getattr(self, key), key, "policy")

    @classmethod
    def from_mapping(cls, policy: Mapping[str, Any]) -> PacePolicy:
        """A policy from a dict with any of `POLICY_KEYS`; a missing key or None is the default."""
        given = _check_keys(policy, "policy", POLICY_KEYS)
        return cls(**{key: value for key, value in given.items() if value is not None})


@dataclass(frozen=True)
class PaceObservation:
    """A snapshot of the run, as the host sees it at one moment. Missing facts are 0 or False.

    `checkpoint_ms` and `expected_total_ms` fall back to `armed_budget_ms` when not positive
    (`decide_pace` applies that rule; the record keeps what it was given).
    """

    elapsed_ms: float = 0
    armed_budget_ms: float = 0
    expected_total_ms: float = 0
    checkpoint_ms: float = 0
    made_progress: bool = False
    verifier_signature_unchanged: bool = False
    done: bool = False
    env_blame_without_infra: bool = False
    extends_used: int = 0
    pace_checks_used: int = 0

    def __post_init__(self) -> None:
        # Every value is checked here, so a bad one fails on every call, not only on the calls
        # that happen to reach the branch that reads it.
        for key in _MS_KEYS:
            _check_ms(getattr(self, key), key)
        if self.elapsed_ms < 0:
            raise ValueError(
                f"observation['elapsed_ms'] must be 0 or more, got {self.elapsed_ms}; "
                "pass the time since the run started"
            )
        for key in _FLAG_KEYS:
            _check_flag(getattr(self, key), key)
        for key in _COUNT_KEYS:
            _check_count(getattr(self, key), key, "observation")

    @classmethod
    def from_mapping(cls, obs: Mapping[str, Any]) -> PaceObservation:
        """An observation from a dict with any of `OBSERVATION_KEYS`; missing or None reads as 0/False."""
        given = _check_keys(obs, "observation", OBSERVATION_KEYS)
        return cls(**{key: value for key, value in given.items() if value is not None})

    def as_dict(self) -> dict[str, Any]:
        """Every field, as a new dict in the shape `governor_pace_decision` takes."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class PaceDecision:
    """One decision: `action`, its `reason` (None only for proceed), and `new_budget_ms` (extend only)."""

    action: Decision
    reason: str | None = None
    new_budget_ms: float | None = None

    def __post_init__(self) -> None:
        if self.action not in DECISIONS:
            raise ValueError(
                f"PaceDecision action {self.action!r} is not one of {sorted(DECISIONS)}"
            )
        allowed = REASONS_BY_DECISION[self.action]
        if (self.reason is None) != (not allowed) or (allowed and self.reason not in allowed):
            want = f"one of {sorted(allowed)}" if allowed else "None"
            raise ValueError(
                f"PaceDecision {self.action!r} needs reason {want}, got {self.reason!r}"
            )
        if (self.new_budget_ms is not None) != (self.action == "extend"):
            raise ValueError(
                f"PaceDecision {self.action!r}: new_budget_ms goes with extend and only with extend, "
                f"got {self.new_budget_ms!r}"
            )

    def as_dict(self) -> dict[str, Any]:
        """A new dict with only the keys this decision carries, e.g. {"action": "proceed"}."""
        out: dict[str, Any] = {"action": self.action}
        if self.new_budget_ms is not None:
            out["new_budget_ms"] = self.new_budget_ms
        if self.reason is not None:
            out["reason"] = self.reason
        return out


# --- the decision ---------------------------------------------------------------------------


def decide_pace(policy: PacePolicy, obs: PaceObservation) -> PaceDecision:
    """Decide what a run's clock should do now: proceed, extend, pace_check or cut.

    Pure: no clock, no state, and the records are frozen. `checkpoint_ms` and
    `expected_total_ms` fall back to `armed_budget_ms` when not positive.
    """
    armed, elapsed = obs.armed_budget_ms, obs.elapsed_ms
    checkpoint = _positive_or(obs.checkpoint_ms, armed)
    expected_total = _positive_or(obs.expected_total_ms, armed)

    # Nothing to govern: no budget armed, the run already finished, or the checkpoint is ahead.
    if armed <= 0 or obs.done or elapsed < checkpoint:
        return PaceDecision("proceed")

    # At or past the checkpoint. The three evidence cuts come first, in the contract's order.
    if not obs.made_progress:
        return PaceDecision("cut", "no_progress_at_checkpoint")
    if obs.verifier_signature_unchanged:  # writes landed, the verifier did not move: not progress
        return PaceDecision("cut", "no_verifier_progress")
    if obs.env_blame_without_infra:
        return PaceDecision("cut", "env_blame_without_infra")

    # Progressing. "Past the estimate" means a whole checkpoint beyond the expected total.
    if elapsed < expected_total + checkpoint:
        if obs.extends_used >= policy.extend_max:
            return PaceDecision("cut", "extend_budget_exhausted")
        return PaceDecision("extend", EXTEND_REASON, new_budget_ms=elapsed + checkpoint)
    if obs.pace_checks_used >= policy.pace_check_max:
        return PaceDecision("cut", "pace_check_budget_exhausted")
    return PaceDecision("pace_check", PACE_CHECK_REASON)


def governor_pace_decision(policy: Mapping[str, Any], obs: Mapping[str, Any]) -> dict[str, Any]:
    """`decide_pace` for plain dicts: the policy and observation as dicts, the decision as a new dict.

    `policy` may carry `extend_max` (default 6) and `pace_check_max` (default 2). `obs` may carry
    any of `OBSERVATION_KEYS`; a missing key reads as 0 or False. Returns `{"action": "proceed"}`,
    `{"action": "extend", "new_budget_ms": ..., "reason": "progress_within_estimate"}`,
    `{"action": "pace_check", "reason": "over_estimate_while_progressing"}` or
    `{"action": "cut", "reason": <one of CUT_REASONS>}`. Neither argument is changed.
    """
    return decide_pace(PacePolicy.from_mapping(policy), PaceObservation.from_mapping(obs)).as_dict()


# --- the table ------------------------------------------------------------------------------


def decision_table(
    observations: list[Mapping[str, Any]], policy: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One row per observation: the observation's values beside the governor's decision.

    Handy for printing: every row has the same keys (missing inputs shown as None).
    """
    caps = PacePolicy.from_mapping(policy or {})
    rows = []
    for obs in observations:
        decision = decide_pace(caps, PaceObservation.from_mapping(obs))
        row = {key: obs.get(key) for key in OBSERVATION_KEYS}
        row.update(
            action=decision.action, reason=decision.reason, new_budget_ms=decision.new_budget_ms
        )
        rows.append(row)
    return rows
