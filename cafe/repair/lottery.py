"""The lottery table: what plain resampling buys, and why real retries buy less.

Session 07 (`sessions/s07-repair-loop/lesson.md`, "Asking again is drawing again"). If every draft
passes on its own with probability p, and draws are independent, n attempts pass with probability
1 - (1 - p)^n. This module adds:

- `pass_within_cap(p, n)`: that formula;
- `simulate_independent(...)`: the same number by drawing drafts with a seeded `random.Random`,
  so the table can be checked rather than believed;
- `pass_within_cap_sticky(p, n, stickiness)` and `simulate_sticky(...)`: correlated failures,
  where a retry repeats the previous failure with probability `stickiness` (a prompt that
  confused the model once tends to confuse it the same way again). Any stickiness above zero
  lands below the independent table;
- `lottery_table(...)`: the lesson's four rows, worked out both ways.

What it leaves out: feedback. These are resampling numbers for a retry that carries nothing new;
`cafe.repair.retry_messages` in `curated` mode is the part that can beat them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = [
    "LOTTERY_ROWS",
    "TRIALS_DEFAULT",
    "LotteryRow",
    "pass_within_cap",
    "pass_within_cap_sticky",
    "simulate_independent",
    "simulate_sticky",
    "lottery_table",
]

# The rows of the lesson's lottery table: (per-draft pass rate p, attempts n). Three attempts is the
# repair loop's default cap; ten shows that a bigger cap barely helps a rare pass. By the formula
# they come to 0.875, 0.578, 0.143 and 0.401.
LOTTERY_ROWS: tuple[tuple[float, int], ...] = ((0.50, 3), (0.25, 3), (0.05, 3), (0.05, 10))

# Simulated runs per row: the standard error is then at most 0.0016, so the simulated rate
# lands within about 0.005 of the formula (well under a second in all).
TRIALS_DEFAULT = 100_000


def _check(p: float, n: int, stickiness: float = 0.0) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p is {p!r}; a per-draft pass rate is a probability from 0 to 1.")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n is {n!r}; give a whole number of attempts, 1 or more.")
    if not 0.0 <= stickiness <= 1.0:
        raise ValueError(
            f"stickiness is {stickiness!r}; it is a probability from 0 (independent) to 1."
        )


def pass_within_cap(p: float, n: int) -> float:
    """Chance that at least one of n independent drafts passes: 1 - (1 - p)^n."""
    _check(p, n)
    return 1.0 - (1.0 - p) ** n


def pass_within_cap_sticky(p: float, n: int, stickiness: float) -> float:
    """The same chance when each retry repeats the last failure with probability `stickiness`.

    The first draft passes with p. After a failure, a retry fails again outright with probability
    `stickiness`, and otherwise is a fresh draw (pass with p). So each retry passes with
    (1 - stickiness) * p, and the total is 1 - (1 - p) * (1 - (1 - stickiness) * p)^(n - 1).
    """
    _check(p, n, stickiness)
    return 1.0 - (1.0 - p) * (1.0 - (1.0 - stickiness) * p) ** (n - 1)


def simulate_independent(p: float, n: int, trials: int, rng: random.Random) -> float:
    """Fraction of `trials` simulated runs where one of n independent drafts passed."""
    return simulate_sticky(p, n, 0.0, trials, rng)


def simulate_sticky(p: float, n: int, stickiness: float, trials: int, rng: random.Random) -> float:
    """Fraction of simulated runs that passed within n attempts under sticky failures."""
    _check(p, n, stickiness)
    if not isinstance(rng, random.Random):
        raise TypeError("Pass rng=random.Random(seed), so the simulation repeats exactly.")
    if trials < 1:
        raise ValueError(f"trials is {trials!r}; simulate at least one run.")
    passed = 0
    for _ in range(trials):
        for attempt in range(n):
            if attempt > 0 and rng.random() < stickiness:
                continue  # the same defect again: this retry fails without a fresh draw
            if rng.random() < p:
                passed += 1
                break
    return passed / trials


@dataclass(frozen=True)
class LotteryRow:
    """One row of the table: the formula, the independent simulation, and a sticky simulation."""

    p: float
    n: int
    formula: float
    simulated: float
    sticky: float


def lottery_table(
    seed: int = 7,
    trials: int = TRIALS_DEFAULT,
    stickiness: float = 0.5,
    rows: tuple[tuple[float, int], ...] = LOTTERY_ROWS,
) -> list[LotteryRow]:
    """The lesson's rows, each worked out by formula, by independent simulation, and with stickiness."""
    rng = random.Random(seed)
    return [
        LotteryRow(
            p,
            n,
            pass_within_cap(p, n),
            simulate_independent(p, n, trials, rng),
            simulate_sticky(p, n, stickiness, trials, rng),
        )
        for p, n in rows
    ]
