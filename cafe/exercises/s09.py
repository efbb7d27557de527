"""Session 09's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s09-shift-report.ipynb`) asks for two functions:

1. `summarize(runs)`: how many runs ended on each stop reason. Every named reason appears (zeros
   too), nothing else does, the counts add up to the runs, and a run that ends on a reason
   outside the set is refused with a ValueError instead of going into an "other" bucket. It must
   work on anything with a `stop_reason` (run records, session 08's traces). The course's
   answer is `cafe.report.count_stop_reasons`; `check_summarize` runs it both ways: counting
   runs that exist, and refusing one that cannot be counted.
2. `cost_by_reason(runs, prices)`: what the shift cost, split by how the runs ended, counting
   only the runs whose cost is known. The course's answer is `cafe.report.cost_by_stop_reason`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from cafe.report.summary import (
    STOP_ORDER,
    Price,
    RunRecord,
    cost_by_stop_reason,
    count_stop_reasons,
)
from cafe.trace.spans import STOP_REASON, Span, Trace

__all__ = ["check_summarize", "check_cost_by_reason"]

_PRICES = {"m": Price(input_per_million=2.0, output_per_million=10.0)}

# Small shifts whose counts are easy to see; every list differs from the others in some count,
# and the mixed one holds every ending of the repair loop (`needs_consent` too).
_SHIFTS: dict[str, list[RunRecord]] = {
    "a mixed shift": [
        RunRecord("a", "passed", 1, "m", 100, 10),
        RunRecord("b", "retries_exhausted", 3, "m", 300, 30),
        RunRecord("c", "passed", 2, "m", 200, 20),
        RunRecord("d", "policy_violation", 0, "m", 0, 0),
        RunRecord("e", "retries_exhausted", 3, "m", None, None),
        RunRecord("f", "needs_consent", 0, "m", 0, 0),
    ],
    "an empty shift": [],
    "a shift where nothing passed": [
        RunRecord("x", "policy_violation", 0, "m", 0, 0),
        RunRecord("y", "policy_violation", 0, "m", 0, 0),
    ],
}


def _trace(trace_id: str, reason: str) -> Trace:
    """A one-span trace of a run that ended on `reason`, as session 08 records it."""
    return Trace(
        trace_id,
        "2026-11-30T12:00:00+00:00",
        (Span("s1", None, "run", "invoke_agent cafe.repair", 0.0, 1.0, {STOP_REASON: reason}),),
    )


def _call(fn: Callable[..., Any], label: str, *args: Any) -> tuple[Any, list[str]]:
    try:
        return fn(*args), []
    except NotImplementedError:
        raise
    except Exception as exc:  # the learner's bug is a problem to show, not a crash
        return None, [f"{label}: raised {type(exc).__name__}: {exc}"]


def _counts_problems(label: str, got: Any, runs: Sequence[Any]) -> list[str]:
    if not isinstance(got, dict):
        return [f"{label}: returned {type(got).__name__}; return a dict of stop reason -> count"]
    problems = []
    extra, missing = set(got) - set(STOP_ORDER), [r for r in STOP_ORDER if r not in got]
    if extra:
        problems.append(
            f"{label}: keys {sorted(map(str, extra))} are not stop reasons; a report has no 'other' bucket"
        )
    if missing:
        problems.append(
            f"{label}: {', '.join(missing)} missing; list every named reason, with 0 when none ended so"
        )
    counted = sum(v for v in got.values() if isinstance(v, int))
    if counted != len(runs):
        problems.append(f"{label}: the counts add up to {counted}, but there are {len(runs)} runs")
    wanted = count_stop_reasons(runs)
    wrong = [r for r in STOP_ORDER if r in got and got[r] != wanted[r]]
    if wrong and not problems:
        problems.append(
            f"{label}: {', '.join(f'{r} is {got[r]}' for r in wrong)}; count each run once, by its stop_reason"
        )
    return problems


def check_summarize(fn: Callable[[Sequence[Any]], dict[str, int]]) -> list[str]:
    """Problems with a `summarize(runs)`; an empty list means it passes. Checked both ways: the
    counts of real shifts must add up, and an unnamed ending must be refused, not counted."""
    problems: list[str] = []
    for label, runs in _SHIFTS.items():
        got, raised = _call(fn, label, list(runs))
        problems += raised or _counts_problems(label, got, runs)
    traces = [
        _trace(f"t{i}", reason) for i, reason in enumerate(("passed", "passed", "policy_violation"))
    ]
    got, raised = _call(fn, "three traces", traces)
    problems += raised or _counts_problems(
        "three session 08 traces (anything with a stop_reason)", got, traces
    )
    odd = list(_SHIFTS["a mixed shift"]) + [SimpleNamespace(stop_reason="timeout")]
    try:
        got = fn(odd)
    except NotImplementedError:
        raise
    except ValueError:
        pass
    except Exception as exc:
        problems.append(
            f"a run ending on 'timeout': raised {type(exc).__name__}; raise ValueError naming the reason"
        )
    else:
        problems.append(
            f"a run ending on 'timeout' was counted ({got!r}); refuse it with ValueError, since "
            "an ending with no name cannot be counted under any name"
        )
    return problems


def check_cost_by_reason(
    fn: Callable[[Sequence[RunRecord], dict[str, Price]], dict[str, float]],
) -> list[str]:
    """Problems with a `cost_by_reason(runs, prices)`; an empty list means it passes."""
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
        if not isinstance(got, dict) or set(got) != set(STOP_ORDER):
            problems.append(
                f"{label}: return a dict with exactly the stop reasons as keys, got {got!r}"
            )
            continue
        wanted = cost_by_stop_reason(runs, _PRICES)
        for reason in STOP_ORDER:
            if not isinstance(got[reason], (int, float)) or not math.isclose(
                got[reason], wanted[reason], abs_tol=1e-12
            ):
                problems.append(
                    f"{label}: {reason} cost {got[reason]!r}, expected {wanted[reason]:.6f} "
                    "(tokens times the price per million, over a million; unknown costs add nothing)"
                )
    return problems
