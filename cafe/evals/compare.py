"""Comparing two pass rates honestly: the difference, its 95% interval, and a verdict it allows.

Session 02 gives each rate its Wilson interval (`cafe.evals.checks.wilson_interval`). A claim
such as "curated retries rescue more orders than naive ones" is about the *difference* of two
rates, and two overlapping intervals neither prove nor rule it out. This module adds:

- `difference_interval`: Newcombe's interval for `p_b - p_a` (his "method 10", built from the two
  Wilson intervals; it keeps close to its stated 95% even at ten or twenty orders, where the
  textbook normal interval does not);
- `orders_needed`: about how many orders per arm would make an interval that narrow exclude zero,
  if the rates stayed where they are;
- `judge`: one of three verdicts and the sentence that goes with it. The interval decides, never
  the two point estimates.

What it leaves out: paired designs (the same order through both arms, McNemar's test), and
several comparisons at once (each comparison here is one 95% statement). `cafe.evals.experiment`
runs the course's comparisons with it. Lesson: sessions/s02-evals/lesson.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from cafe.evals.checks import Z_95, wilson_interval

__all__ = ["VERDICTS", "Verdict", "Comparison", "difference_interval", "orders_needed", "judge"]

# The three verdicts, declared once; `judge` returns exactly one of them.
Verdict = Literal["shows the claim", "shows the opposite", "not enough orders to tell"]
VERDICTS: tuple[Verdict, ...] = (
    "shows the claim",
    "shows the opposite",
    "not enough orders to tell",
)


def difference_interval(
    a_won: int, a_n: int, b_won: int, b_n: int, z: float = Z_95
) -> tuple[float, float]:
    """Newcombe's (hybrid score) interval for the difference of rates `b_won/b_n - a_won/a_n`."""
    a_low, a_high = wilson_interval(a_won, a_n, z)
    b_low, b_high = wilson_interval(b_won, b_n, z)
    p_a, p_b = a_won / a_n, b_won / b_n
    low = (p_b - p_a) - math.sqrt((p_b - b_low) ** 2 + (a_high - p_a) ** 2)
    high = (p_b - p_a) + math.sqrt((b_high - p_b) ** 2 + (p_a - a_low) ** 2)
    return max(-1.0, low), min(1.0, high)


def orders_needed(p_a: float, p_b: float, z: float = Z_95) -> int | None:
    """About how many orders per arm an interval needs to exclude zero if the rates are `p_a` and
    `p_b` (the normal approximation); None when they are equal, since no number of orders would."""
    gap = abs(p_b - p_a)
    if gap == 0:
        return None
    spread = p_a * (1 - p_a) + p_b * (1 - p_b)
    return max(1, math.ceil(z * z * max(spread, 1e-9) / (gap * gap)))


@dataclass(frozen=True)
class Comparison:
    """Arm `b` against arm `a`: the observed difference of rates, its 95% interval, the verdict,
    and, when the verdict is "not enough orders to tell", about how many more orders per arm."""

    a: str
    b: str
    difference: float
    low: float
    high: float
    verdict: Verdict
    more_orders: int | None

    def sentence(self) -> str:
        """The verdict in one line, with the interval that decided it."""
        span = f"{self.b} - {self.a} = {self.difference:+.0%} (95% interval {self.low:+.0%} to {self.high:+.0%})"
        if self.verdict != "not enough orders to tell":
            return f"{span}: {self.verdict}."
        if self.more_orders is None:
            return f"{span}: {self.verdict}; the two rates are equal so far, so no count of orders can be named."
        more = f"{self.more_orders} more order{'s' if self.more_orders != 1 else ''}"
        return f"{span}: {self.verdict}; about {more} per arm might, if the rates hold."


def judge(a: str, a_won: int, a_n: int, b: str, b_won: int, b_n: int) -> Comparison:
    """The verdict on the claim "arm `b` passes more often than arm `a`": shown when the whole
    interval is above zero, the opposite when it is below, otherwise not enough orders to tell."""
    low, high = difference_interval(a_won, a_n, b_won, b_n)
    p_a, p_b = a_won / a_n, b_won / b_n
    more: int | None = None
    if low > 0:
        verdict: Verdict = "shows the claim"
    elif high < 0:
        verdict = "shows the opposite"
    else:
        verdict = "not enough orders to tell"
        needed = orders_needed(p_a, p_b)
        more = None if needed is None else max(1, needed - min(a_n, b_n))
    return Comparison(a, b, p_b - p_a, low, high, verdict, more)
