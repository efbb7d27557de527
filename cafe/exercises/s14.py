"""The checker for session 14's your-turn: write the pace decision yourself.

The notebook (notebooks/s14-host-facts.ipynb, section 4) asks the learner for
`my_pace_decision(policy, obs)`: plain dicts in, a dict out, the same contract as
`cafe.governor.governor_pace_decision`. `check_pace_decision` runs that function over a grid of
policies and observations and lists where it disagrees with the governor; `cafe.course.compare`
shows the list. Lesson: sessions/s14-host-facts/lesson.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from cafe.governor import governor_pace_decision

__all__ = ["check_pace_decision"]


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
