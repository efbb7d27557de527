"""Error analysis: the five failure classes, the test for each, and the one class a run gets.

Session 10 (`sessions/s10-failure-taxonomy/lesson.md`, notebook
`notebooks/s10-failure-taxonomy.ipynb`). Session 07's loop ends each run on a stop reason, and
its attempt log says what each draft failed. This module reads one run's log:

- `failure_key`: a failure's identity across attempts, its check and the span it quotes
  ("missing_field 'table'" on attempt 1 and attempt 3 is the same failure), and the three
  questions asked of a run's keys (`holds_throughout`, `comes_back`, `changes`);
- `CLASS_TESTS`: one test per class in `FAILURE_CLASSES`, and the tests overlap on purpose;
  `classify` returns the first class, in that order, whose test holds, so no run has two;
- `code`: the failure that gave a run its class (the check held throughout, the one that came
  back, ...), so runs can be piled by class and check.

A run that passed has no failure class, and neither has an order front of house sent back before
any draft: the loop never ran, so there is no log to read. `classify` refuses both by name, and
`cafe.taxonomy.sorting.sort_runs` counts them apart. What it leaves out: a shift's runs sorted and
counted (`cafe.taxonomy.sorting`), why a failure happens (reading the examples is the analyst's
job), what a class costs (session 11), and a model judging free text (session 12).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Literal, get_args

from cafe.repair.reask import RepairResult
from cafe.schema.ticket import Failure
from cafe.taxonomy.runs import Run, run_from_trace
from cafe.trace.spans import Trace

__all__ = [
    "FailureClass",
    "FAILURE_CLASSES",
    "FailureKey",
    "failure_key",
    "attempt_keys",
    "holds_throughout",
    "comes_back",
    "changes",
    "CLASS_TESTS",
    "class_tests",
    "classify",
    "code",
]

# The five classes, declared in precedence order: when several tests hold, the earliest wins.
#   transport    the endpoint failed; nothing the run recorded says anything about the model
#   blocked      policy refused the request before any draft (the request was the defect)
#   systematic   one failure on every attempt: the same cause, every time
#   alternating  a failure went away and came back: one fix undid another
#   drifting     the failures changed and never came back: a moving target
FailureClass = Literal["transport", "blocked", "systematic", "alternating", "drifting"]
FAILURE_CLASSES: tuple[FailureClass, ...] = get_args(FailureClass)

# A failure's identity across attempts: its check and the span it quotes.
FailureKey = tuple[str, str]


def failure_key(failure: Failure) -> FailureKey:
    """(check, span): two attempts fail "the same failure" when these agree."""
    return failure.check, failure.span


def attempt_keys(result: RepairResult) -> list[frozenset[FailureKey]]:
    """The failures of each attempt, as sets of keys, in attempt order."""
    return [frozenset(failure_key(f) for f in attempt.failures) for attempt in result.attempts]


def holds_throughout(keys: Sequence[frozenset[FailureKey]]) -> frozenset[FailureKey]:
    """The failures present on every attempt (empty when there is none, or no attempt)."""
    return frozenset.intersection(*keys) if keys else frozenset()


def comes_back(keys: Sequence[frozenset[FailureKey]]) -> list[FailureKey]:
    """Failures that were present, then absent on a later attempt, then present again; the one
    seen first comes first (ties in key order)."""
    back = []
    seen = sorted(
        set().union(*keys), key=lambda key: (next(i for i, a in enumerate(keys) if key in a), key)
    )
    for key in seen:
        present = [key in attempt for attempt in keys]
        first, last = present.index(True), len(present) - 1 - present[::-1].index(True)
        if not all(present[first : last + 1]):
            back.append(key)
    return back


def changes(keys: Sequence[frozenset[FailureKey]]) -> bool:
    """Whether any attempt failed differently from the attempt before it."""
    return any(before != after for before, after in zip(keys, keys[1:]))


def _attempts(run: Run) -> list[frozenset[FailureKey]]:
    if run.result is None or run.result.stop_reason != "retries_exhausted":
        return []
    return attempt_keys(run.result)


# The test for each class, in `FAILURE_CLASSES` order. They overlap on purpose: a run whose table
# is missing on every attempt while its other failures come and go passes three of them.
# `classify` takes the first that holds, which is what keeps the classes apart.
_TESTS: dict[FailureClass, Callable[[Run], bool]] = {
    "transport": lambda run: run.transport is not None,
    "blocked": lambda run: run.result is not None and run.result.stop_reason == "policy_violation",
    "systematic": lambda run: bool(holds_throughout(_attempts(run))),
    "alternating": lambda run: bool(comes_back(_attempts(run))),
    "drifting": lambda run: changes(_attempts(run)),
}
CLASS_TESTS: Mapping[FailureClass, Callable[[Run], bool]] = MappingProxyType(_TESTS)
assert tuple(CLASS_TESTS) == FAILURE_CLASSES


def _as_run(run: Run | RepairResult | Trace) -> Run:
    if isinstance(run, RepairResult):  # a bare result: its order is not needed to classify it
        return Run(None, result=run)
    if isinstance(run, Trace):
        return run_from_trace(run)
    if not isinstance(run, Run):
        raise TypeError(
            f"classify() takes a cafe.taxonomy.Run, a cafe.repair.RepairResult or a "
            f"cafe.trace.spans.Trace, not {type(run).__name__}."
        )
    return run


def class_tests(run: Run | RepairResult | Trace) -> tuple[FailureClass, ...]:
    """Every class whose test holds for the run, in precedence order (often more than one)."""
    run = _as_run(run)
    return tuple(name for name, test in CLASS_TESTS.items() if test(run))


def classify(run: Run | RepairResult | Trace) -> FailureClass:
    """The run's one failure class: the first of `FAILURE_CLASSES` whose test holds.

    A passed run has no failure class (ValueError), and neither has an order front of house sent
    back before any draft: `sort_runs` counts both apart. So has an exhausted run none of whose
    tests hold, which `repair_ticket` never makes: every attempt of an exhausted run failed
    something.
    """
    run = _as_run(run)
    if run.passed:
        raise ValueError(
            "This run passed, so it has no failure class; classify the runs that did not "
            "pass (sort_runs skips passed runs for you)."
        )
    if run.sent_back is not None:
        raise ValueError(
            "This order was sent back to the customer before any draft (front of house), so the "
            "loop never ran and there is no failure to classify; sort_runs counts it apart."
        )
    held = class_tests(run)
    if not held:
        raise ValueError(
            "No class test holds for this run: an exhausted run needs at least one attempt, "
            "and every attempt must have failed a check (as repair_ticket's runs do)."
        )
    return held[0]


def code(run: Run | RepairResult | Trace) -> str:
    """The check behind a run's class: the one held throughout, the first one that came back, the
    one the last attempt failed; the first check that blocked it; or the transport problem kind."""
    run = _as_run(run)
    kind = classify(run)
    if kind == "transport":
        return str(run.transport)
    assert run.result is not None
    if kind == "blocked":
        return run.result.blocked_by[0].check
    keys = attempt_keys(run.result)
    if kind == "systematic":
        first = [failure_key(f) for f in run.result.attempts[0].failures]
        return next(key for key in first if key in holds_throughout(keys))[0]
    if kind == "alternating":
        return comes_back(keys)[0][0]
    return run.result.attempts[-1].failures[0].check
