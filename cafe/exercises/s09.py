"""Session 09's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s09-shift-report.ipynb`) asks for two functions:

1. `summarize(runs)`: how many orders ended each way. Every one of `cafe.report.ENDINGS` appears
   (zeros too), nothing else does, the counts add up to the runs, and a run that ends any other
   way is refused with a ValueError instead of going into an "other" bucket. It must work on
   anything with an `ending`. The course's answer is `cafe.report.count_endings`;
   `check_summarize` runs it both ways: counting runs that exist, and refusing one that cannot
   be counted (an unnamed ending, and `needs_consent`, a stop reason the loop no longer has).
2. `cost_by_ending(runs, prices)`: what the shift cost, split by how the orders ended, counting
   only the runs whose cost is known. The course's answer is `cafe.report.cost_by_ending`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from cafe.report.records import ENDINGS, Price, RunRecord
from cafe.report.summary import cost_by_ending, count_endings

__all__ = ["check_summarize", "check_cost_by_ending"]

_PRICES = {"m": Price(input_per_million=2.0, output_per_million=10.0)}

# Small shifts whose counts are easy to see; every list differs from the others in some count,
# and the mixed one holds every ending a report knows (an order sent back by front of house too).
_SHIFTS: dict[str, list[RunRecord]] = {
    "a mixed shift": [
        RunRecord("a", "passed", 1, "m", 100, 10),
        RunRecord("b", "retries_exhausted", 3, "m", 300, 30),
        RunRecord("c", "passed", 2, "m", 200, 20),
        RunRecord("d", "policy_violation", 0, "m", 0, 0),
        RunRecord("e", "retries_exhausted", 3, "m", None, None),
        RunRecord("f", "sent_back", 0, "m", 0, 0, failures={"unsafe": 1}),
    ],
    "an empty shift": [],
    "a shift where nothing passed": [
        RunRecord("x", "policy_violation", 0, "m", 0, 0),
        RunRecord("y", "policy_violation", 0, "m", 0, 0),
    ],
}


def _call(fn: Callable[..., Any], label: str, *args: Any) -> tuple[Any, list[str]]:
    try:
        return fn(*args), []
    except NotImplementedError:
        raise
    except Exception as exc:  # the learner's bug is a problem to show, not a crash
        return None, [f"{label}: raised {type(exc).__name__}: {exc}"]


def _counts_problems(label: str, got: Any, runs: Sequence[Any]) -> list[str]:
    if not isinstance(got, dict):
        return [f"{label}: returned {type(got).__name__}; return a dict of ending -> count"]
    problems = []
    extra, missing = set(got) - set(ENDINGS), [r for r in ENDINGS if r not in got]
    if extra:
        problems.append(
            f"{label}: keys {sorted(map(str, extra))} are not endings; a report has no 'other' bucket"
        )
    if missing:
        problems.append(
            f"{label}: {', '.join(missing)} missing; list every ending, with 0 when none ended so"
        )
    counted = sum(v for v in got.values() if isinstance(v, int))
    if counted != len(runs):
        problems.append(f"{label}: the counts add up to {counted}, but there are {len(runs)} runs")
    wanted = count_endings(runs)
    wrong = [r for r in ENDINGS if r in got and got[r] != wanted[r]]
    if wrong and not problems:
        problems.append(
            f"{label}: {', '.join(f'{r} is {got[r]}' for r in wrong)}; count each run once, by its ending"
        )
    return problems


def _refused(fn: Callable[..., Any], ending: str, why: str) -> list[str]:
    """The mixed shift plus one run ending on `ending`, which must be refused with ValueError."""
    odd = [*_SHIFTS["a mixed shift"], SimpleNamespace(ending=ending)]
    try:
        got = fn(odd)
    except NotImplementedError:
        raise
    except ValueError:
        return []
    except Exception as exc:
        return [
            f"a run ending on {ending!r}: raised {type(exc).__name__}; raise ValueError naming it"
        ]
    return [f"a run ending on {ending!r} was counted ({got!r}); refuse it with ValueError, {why}"]


def check_summarize(fn: Callable[[Sequence[Any]], dict[str, int]]) -> list[str]:
    """Problems with a `summarize(runs)`; an empty list means it passes. Checked both ways: the
    counts of real shifts must add up, and an unnamed ending must be refused, not counted."""
    problems: list[str] = []
    for label, runs in _SHIFTS.items():
        got, raised = _call(fn, label, list(runs))
        problems += raised or _counts_problems(label, got, runs)
    problems += _refused(
        fn, "timeout", "since an ending with no name cannot be counted under any name"
    )
    problems += _refused(
        fn,
        "needs_consent",
        "since it is not an ending (an order sent back by front of house ends 'sent_back')",
    )
    return problems


def check_cost_by_ending(
    fn: Callable[[Sequence[RunRecord], dict[str, Price]], dict[str, float]],
) -> list[str]:
    """Problems with a `cost_by_ending(runs, prices)`; an empty list means it passes."""
    problems: list[str] = []
    cases = dict(
        _SHIFTS,
        **{
            "a run of a model with no price": [
                *_SHIFTS["a mixed shift"],
                RunRecord("z", "passed", 1, "unpriced", 50, 5),
            ]
        },
    )
    for label, runs in cases.items():
        got, raised = _call(fn, label, list(runs), dict(_PRICES))
        if raised:
            problems += raised
            continue
        if not isinstance(got, dict) or set(got) != set(ENDINGS):
            problems.append(f"{label}: return a dict with exactly the endings as keys, got {got!r}")
            continue
        wanted = cost_by_ending(runs, _PRICES)
        for reason in ENDINGS:
            if not isinstance(got[reason], (int, float)) or not math.isclose(
                got[reason], wanted[reason], abs_tol=1e-12
            ):
                problems.append(
                    f"{label}: {reason} cost {got[reason]!r}, expected {wanted[reason]:.6f} "
                    "(tokens times the price per million, over a million; unknown costs add nothing)"
                )
    return problems
