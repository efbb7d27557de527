"""The pace governor's decision: a timeout that looks at progress before it looks at the clock.

Session 14 (host-supplied facts). Session 13 taught the loop to notice a stall from the
evidence it can see itself: the same failure signature coming back turn after turn. This session
adds the facts only the host can supply, and the one decision built on them:

- `governor_pace_decision(policy, obs)`: a pure function. Given two caps (the policy) and a
  snapshot of the run (the observation: budget, elapsed time, whether the run progressed, ...)
  it returns one of four decisions: `proceed`, `extend` (silently move the deadline, carrying
  `new_budget_ms`), `pace_check` (tell the agent to wrap up) or `cut` (stop, with one of five
  named reasons). It never reads a clock; the caller passes the time in.
- `decision_table`, to print the decision over a list of observations, and
  `check_pace_decision`, which runs a learner's version over a grid that reaches every row of
  the table and both sides of each boundary (the notebook's "your turn").

Left out: everything with state. The clock, the armed deadline, the two counters and the
evidence since the last checkpoint belong to the host; `cafe/pacing.py` keeps them for
`cafe.loop.run_loop` (`PaceGovernor`), so this module imports nothing from the loop. The other
two host facts, `progress_signal` and `remediation_delivered`, feed the stall detector
(`cafe/facts.py`). Also left out: deciding *what* the agent should do after a `pace_check` or a
`cut` (the host's call), verification tiers and the progress monitor (session 15), and any
notion of cost (session 11).

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

import difflib
import itertools
import math
from collections.abc import Callable, Mapping
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
    "governor_pace_decision",
    "decision_table",
    "check_pace_decision",
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
