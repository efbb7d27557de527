"""Session 09's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s09-shift-report.ipynb`) asks for two functions:

1. `summarize(runs)`: how many orders ended each way. Every one of `cafe.report.ENDINGS` appears
   (zeros too), nothing else does, the counts add up to the runs, and a run that ends any other
   way is refused with a ValueError instead of going into an "other" bucket. It must work on
   anything with an `ending`. The course's answer is `cafe.report.count_endings`;
   `check_summarize` runs it both ways: counting shifts that exist, and refusing a run that
   cannot be counted wherever it sits in the shift (an unnamed ending, `needs_consent`, a stop
   reason the loop no longer has, session 01's `done`, an ending of None) with a ValueError that
   names the ending. A run with no `ending` attribute at all is outside the notebook's contract
   ("anything with an `ending`"), so no case or generated shift holds one.
2. `cost_by_ending(runs, prices)`: what the shift cost, split by how the orders ended, counting
   only the runs whose cost is known, each run at its own model's price, every digit kept, each
   cost a float (the notebook banks the split as JSON). Step 6 lists every ending "as in step 4",
   and the report has no "other" bucket: a run no ending names whose cost is known is refused (by
   any error: step 6 does not say which), never left out, or its money vanishes from the split.
   The course's answer is `cafe.report.cost_by_ending`.

Rejections are worded with `cafe.exercises.feedback`: the case, what came back, what was
expected, and the idea it bears on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Number
from types import SimpleNamespace
from typing import Any

from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s09 import (
    ENDINGS,
    RUN_SHAPES,
    cost_split,
    endings_counted,
    odd_priced_shifts,
    priced_shifts,
    shifts,
)
from cafe.report import summary
from cafe.report.records import Price, RunRecord

__all__ = ["check_summarize", "check_cost_by_ending"]

_PRICES = {"m": Price(input_per_million=2.0, output_per_million=10.0)}
# Two models at two prices, output dearer than input: a run is charged at its own model's price.
_TWO_PRICES = {"m": Price(2.0, 10.0), "strong": Price(15.0, 60.0)}

# Small shifts whose counts are easy to see; every list differs from the others in some count,
# and the mixed one holds every ending a report knows (an order sent back by front of house too).
_MIXED = [
    RunRecord("a", "passed", 1, "m", 100, 10),
    RunRecord("b", "retries_exhausted", 3, "m", 300, 30),
    RunRecord("c", "passed", 2, "m", 200, 20),
    RunRecord("d", "policy_violation", 0, "m", 0, 0),
    RunRecord("e", "retries_exhausted", 3, "m", None, None),
    RunRecord("f", "sent_back", 0, "m", 0, 0, failures={"unsafe": 1}),
]
_SHIFTS: dict[str, list[RunRecord]] = {
    "a mixed shift": _MIXED,
    "an empty shift": [],
    "a shift where nothing passed": [
        RunRecord("x", "policy_violation", 0, "m", 0, 0),
        RunRecord("y", "policy_violation", 0, "m", 0, 0),
    ],
    "a shift of sent-back orders and one pass": [
        RunRecord("s1", "sent_back", 0, "m", 0, 0),
        RunRecord("s2", "sent_back", 0, "m", 0, 0),
        RunRecord("s3", "passed", 3, "m", 900, 90),
    ],
}

# Runs no report can count, each placed somewhere else in the mixed shift: first, in the middle,
# last. (label, the odd run, where it goes, why it cannot be counted.)
_UNCOUNTABLE: tuple[tuple[str, Any, int, str], ...] = (
    ("a run ending on 'timeout', last", SimpleNamespace(ending="timeout"), 6, "no such ending"),
    (
        "a run ending on 'needs_consent', first",
        SimpleNamespace(ending="needs_consent"),
        0,
        "an order sent back by front of house ends 'sent_back'",
    ),
    (
        "session 01's loop run ('done') in the middle",
        SimpleNamespace(ending="done"),
        3,
        "'done' is the agent loop's stop, not an ending of a shift",
    ),
    ("a run whose ending is None, first", SimpleNamespace(ending=None), 0, "it has no ending"),
)

# Shifts whose costs do not come out round, for the cost split. (label, runs, prices.)
_COST_CASES: tuple[tuple[str, list[RunRecord], dict[str, Price]], ...] = (
    *((label, runs, _PRICES) for label, runs in _SHIFTS.items()),
    (
        "a run of a model with no price",
        [*_MIXED, RunRecord("z", "passed", 1, "unpriced", 50, 5)],
        _PRICES,
    ),
    (
        "two models at two prices, the dearer one first",
        [
            RunRecord("s1", "passed", 1, "strong", 1234, 567),
            RunRecord("m1", "retries_exhausted", 3, "m", 4321, 765),
            RunRecord("m2", "passed", 2, "m", 2500, 333),
        ],
        _TWO_PRICES,
    ),
    (
        "replies cut off: 500 tokens sent and none back, then 1 and none",
        [
            RunRecord("q", "retries_exhausted", 1, "m", 500, 0),
            RunRecord("r", "passed", 1, "m", 120, 40),
            RunRecord("t", "retries_exhausted", 1, "strong", 1, 0),
        ],
        _TWO_PRICES,
    ),
)

_COUNT_IDEA = "one row per named ending, zeros too, each run counted once by its ending"
_REFUSE_IDEA = "a run no ending names is refused with ValueError, never counted or skipped"
_GENERATED_IDEA = (
    "every named ending counted, zeros too; an ending spelt any other way (case, spaces) "
    "is refused with a ValueError that names it"
)
_COST_IDEA = (
    "each run's tokens at its own model's price per million, every digit kept; "
    "an unknown cost adds nothing"
)
_COST_REFUSE_IDEA = (
    "a run no ending names is refused, as in step 4: never left out of the split (its cost "
    "would vanish), put in a row of its own, or tidied into a named ending"
)


def _counts_problem(label: str, got: Any, runs: Sequence[Any]) -> str | None:
    """The first thing wrong with `got` as the counts of `runs`, or None."""
    if isinstance(got, Raised):
        return got.problem(label)
    if not isinstance(got, dict):
        return wrong_type(label, got, "a dict of ending -> count")
    wanted = endings_counted(runs)
    if got != wanted:
        return mismatch(label, got, wanted, _COUNT_IDEA)
    return None


def _names(ending: Any, message: str) -> bool:
    """Whether a refusal's message names the ending (None and a blank ending have no name)."""
    if not isinstance(ending, str) or not ending.strip():
        return True
    return repr(ending) in message or ending in message


@dataclass(frozen=True)
class _Unnamed:
    """A refusal that does not say which ending it refused, as an answer of its own."""

    message: str
    ending: Any

    def __repr__(self) -> str:
        return f"ValueError({self.message!r}), which does not name {self.ending!r}"


def _naming(fn: Callable[..., Any]) -> Callable[[Sequence[Any]], Any]:
    """`fn`, with a ValueError that names none of the shift's unknown endings turned into an
    answer of its own: the notebook asks for "a `ValueError` that names the ending"."""

    def run(runs: Sequence[Any]) -> Any:
        try:
            return fn(runs)
        except ValueError as exc:
            odd = [run.ending for run in runs if run.ending not in ENDINGS]
            if odd and not any(_names(ending, str(exc)) for ending in odd):
                return _Unnamed(str(exc), odd[0])
            raise

    return run


def _refusal_problem(fn: Callable[..., Any], label: str, odd: Any, at: int, why: str) -> str | None:
    """The mixed shift with `odd` inserted at `at` must be refused with ValueError (or a subclass
    of it, which a learner may well define) that names the ending."""
    runs = [*_MIXED[:at], odd, *_MIXED[at:]]
    try:
        got = fn(runs)
    except NotImplementedError:
        raise
    except ValueError as exc:
        if _names(odd.ending, str(exc)):
            return None
        idea = f"refuse it with a ValueError that names the ending: {why}"
        return f"{label}: {_Unnamed(str(exc), odd.ending)!r}\n  ({idea})"
    except Exception as exc:  # the learner's choice of error is a problem to show
        return f"{label}: raised {type(exc).__name__}; raise ValueError naming the ending ({why})"
    return mismatch(label, got, Described("ValueError"), f"{_REFUSE_IDEA} ({why})")


# "It must work on anything with an `ending`": RunRecords and every other shape, in one shift.
_RUN_SHAPES = (RunRecord, *RUN_SHAPES)


def check_summarize(fn: Callable[[Sequence[Any]], dict[str, int]]) -> list[str]:
    """Problems with a `summarize(runs)`; an empty list means it passes. Checked both ways: the
    counts of real shifts must add up, and an unnamed ending must be refused, not counted."""
    if is_library(fn, summary.count_endings, trial=(list(_MIXED),)):
        return [library_answer("count_endings")]
    problems: list[str] = []
    for label, runs in _SHIFTS.items():
        problem = _counts_problem(label, call(fn, list(runs)), runs)
        if problem:
            problems.append(problem)
    for label, odd, at, why in _UNCOUNTABLE:
        problem = _refusal_problem(fn, label, odd, at, why)
        if problem:
            problems.append(problem)
    if not problems:
        found = first_difference(
            _naming(fn), endings_counted, built_once(shifts, *_RUN_SHAPES), idea=_GENERATED_IDEA
        )
        if found:
            problems.append(counterexample(found.given, found.returned, found.expected, found.idea))
    return problems


def _cost_problem(label: str, got: Any, wanted: dict[str, float]) -> str | None:
    """The first thing wrong with `got` as the cost split `wanted`, or None."""
    if isinstance(got, Raised):
        return got.problem(label)
    if not isinstance(got, dict) or set(got) != set(ENDINGS):
        return wrong_type(label, got, "a dict with exactly the endings as keys")
    for ending in ENDINGS:
        cost = got[ending]
        if isinstance(cost, bool) or not isinstance(cost, Number):
            return wrong_type(f"{label}, {ending}", cost, "a cost as a number (a float)")
        if not isinstance(cost, (int, float)):
            # a Decimal or a Fraction may be the right amount: say it is the type that differs
            return (
                f"{label}, {ending}: returned {cost!r}, a {type(cost).__name__}; return each cost "
                "as a float, as a Price's figures are (the notebook banks your split as JSON "
                "numbers, which hold no such type)"
            )
        if not _close(cost, wanted[ending]):
            return mismatch(f"{label}, {ending}", cost, wanted[ending], _COST_IDEA)
    return None


def _close(cost: Any, wanted: float) -> bool:
    return (
        not isinstance(cost, bool)
        and isinstance(cost, (int, float))
        and math.isclose(cost, wanted, rel_tol=1e-9, abs_tol=1e-12)
    )


def _same_split(got: Any, wanted: Any) -> bool:
    """Two cost splits agree: the same endings, each cost equal to every digit that matters."""
    return (
        isinstance(got, dict)
        and set(got) == set(wanted)
        and all(_close(got[ending], wanted[ending]) for ending in wanted)
    )


def check_cost_by_ending(
    fn: Callable[[Sequence[RunRecord], dict[str, Price]], dict[str, float]],
) -> list[str]:
    """Problems with a `cost_by_ending(runs, prices)`; an empty list means it passes."""
    if is_library(fn, summary.cost_by_ending, trial=(list(_MIXED), dict(_PRICES))):
        return [library_answer("cost_by_ending")]
    problems: list[str] = []
    for label, runs, prices in _COST_CASES:
        got = call(fn, list(runs), dict(prices))
        problem = _cost_problem(label, got, cost_split(runs, prices))
        if problem:
            problems.append(problem)
    if not problems:
        shifts_priced = built_once(priced_shifts, RunRecord, Price)
        found = first_difference(
            fn, cost_split, shifts_priced, idea=_COST_IDEA, same=_same_split, unpack=True
        )
        if not found:
            # every shift drawn here holds an unnamed ending: a split that leaves it out shows
            # on the first, so a few dozen shifts cover the eight spellings
            odd = built_once(odd_priced_shifts, RunRecord, Price)
            found = first_difference(
                _refusing(fn),
                cost_split,
                odd,
                idea=_COST_REFUSE_IDEA,
                same=_same_split,
                unpack=True,
                examples=60,
            )
        if found:
            problems.append(counterexample(found.given, found.returned, found.expected, found.idea))
    return problems


def _refusing(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, with any error it raises on a shift that holds an unnamed ending read as a refusal
    (a ValueError): step 6 does not say how to refuse, and a KeyError on the missing row refuses
    as well as a ValueError does."""

    def run(runs: Sequence[Any], prices: Any) -> Any:
        try:
            return fn(runs, prices)
        except Exception as exc:
            if any(run.ending not in ENDINGS for run in runs):
                raise ValueError(f"refused: {exc!r}") from exc
            raise

    return run
