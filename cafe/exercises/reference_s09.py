"""Session 09's references, written apart from `cafe.report.summary`, and the inputs to try them on.

`check_summarize` and `check_cost_by_ending` (`cafe.exercises.s09`) compare the learner's function
with these on generated shifts (`cafe.exercises.generated`); `tests/test_exercise_references.py`
holds them to the library's `count_endings` and `cost_by_ending` on the same inputs, so a bug on
either side fails a test instead of a learner's grade. The endings are pinned here, as the lesson
lists them, rather than read from the library.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

__all__ = ["ENDINGS", "ODD_ENDINGS", "endings_counted", "cost_split", "shifts", "priced_shifts"]
__all__ += ["odd_priced_shifts", "RUN_SHAPES"]

# How an order of a shift ends, in the order the lesson's report lists them.
ENDINGS = ("passed", "retries_exhausted", "policy_violation", "sent_back")
# Endings no report may count: near misses in case and spacing, the retired and the foreign.
ODD_ENDINGS = (
    "Passed",
    "passed ",
    " sent_back",
    "PASSED",
    "timeout",
    "needs_consent",
    "done",
    "other",
    "",
    None,
)
_PER_MILLION = 1_000_000


def endings_counted(runs: Iterable[Any]) -> dict[str, int]:
    """Every ending with its count (zeros too); ValueError for a run with any other ending."""
    runs = list(runs)
    for run in runs:
        if getattr(run, "ending", None) not in ENDINGS:
            raise ValueError(f"no such ending: {getattr(run, 'ending', None)!r}")
    return {ending: sum(1 for run in runs if run.ending == ending) for ending in ENDINGS}


def _cost(run: Any, prices: Mapping[str, Any]) -> float:
    """What one run cost, or 0 when it is unknown (no usage, or no price for its model)."""
    price = prices.get(run.model)
    if price is None or run.input_tokens is None or run.output_tokens is None:
        return 0.0
    spent = (
        run.input_tokens * price.input_per_million + run.output_tokens * price.output_per_million
    )
    return spent / _PER_MILLION


def cost_split(runs: Iterable[Any], prices: Mapping[str, Any]) -> dict[str, float]:
    """The shift's known cost by ending, every ending listed; every digit kept (`math.fsum`).
    A run no ending names is refused, as the count refuses it: its cost has no row to go in."""
    parts: dict[str, list[float]] = {ending: [] for ending in ENDINGS}
    for run in runs:
        if run.ending not in parts:
            raise ValueError(f"no such ending: {run.ending!r}")
        parts[run.ending].append(_cost(run, prices))
    return {ending: math.fsum(costs) for ending, costs in parts.items()}


# --- generated inputs --------------------------------------------------------------------------


# "It must work on anything with an `ending`": every shape the text names, and the common others,
# mixed in one generated shift: RunRecords (a dataclass), namespaces, namedtuples, `__slots__`
# objects (no `__dict__`, so `vars(run)` fails) and a plain dataclass.
_RunTuple = namedtuple("_RunTuple", "run_id ending attempts model input_tokens output_tokens")


class _SlottedRun:
    """A run with `__slots__`: it has an `ending` and nothing else a dict would give."""

    __slots__ = ("run_id", "ending", "attempts", "model", "input_tokens", "output_tokens")
    run_id: Any
    ending: Any

    def __init__(self, *fields: Any) -> None:
        for name, value in zip(self.__slots__, fields, strict=True):
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"SlottedRun(run_id={self.run_id!r}, ending={self.ending!r})"


@dataclass(frozen=True)
class _PlainRun:
    run_id: str
    ending: Any
    attempts: int
    model: str
    input_tokens: int | None
    output_tokens: int | None


def _namespace_run(*fields: Any) -> SimpleNamespace:
    return SimpleNamespace(**dict(zip(_RunTuple._fields, fields, strict=True)))


RUN_SHAPES = (_namespace_run, _RunTuple, _SlottedRun, _PlainRun)


def shifts(*records: Any) -> Any:
    """Shifts of `records` (RunRecord-like constructors, each run built by any one of them, so
    one shift mixes their shapes), with now and then a run whose ending no report names (a
    SimpleNamespace with that `ending`), anywhere in the shift."""
    from hypothesis import strategies as st

    def built(record: Any, ending: str, n: int) -> Any:
        attempts = 0 if ending in ("sent_back", "policy_violation") else 1
        return record(f"r{n}", ending, attempts, "m", 0, 0)

    named = st.builds(built, st.sampled_from(records), st.sampled_from(ENDINGS), st.integers(0, 99))
    # the notebook's contract is "anything with an `ending`": a run with no such attribute at
    # all is outside it (None, an ending that names nothing, is inside it and refused)
    odd = st.sampled_from(ODD_ENDINGS).map(lambda ending: SimpleNamespace(ending=ending))
    return st.lists(st.one_of(named, named, named, odd), max_size=8)


def priced_shifts(record: Any, price: Any) -> Any:
    """(runs, prices): runs of priced, unpriced and mis-spelt models, usage reported, half
    reported or not, 0 tokens each way and counts in the millions; prices either way dearer."""
    from hypothesis import strategies as st

    tokens = st.one_of(st.none(), st.just(0), st.integers(0, 5000), st.integers(0, 3_000_000))

    def run(n: int, ending: str, model: str, used: Any) -> Any:
        attempts = {"passed": 1, "retries_exhausted": 3}.get(ending, 0)
        pair = (None, None) if used is None else used
        if (pair[0] is None) != (pair[1] is None):
            # usage half reported: a run the notebook allows ("None when not reported", each
            # count), which a RunRecord refuses to hold; its cost is unknown, so it adds nothing
            return SimpleNamespace(
                ending=ending, model=model, input_tokens=pair[0], output_tokens=pair[1]
            )
        return record(f"r{n}", ending, attempts, model, *pair)

    counted = tokens.filter(lambda t: t is not None)
    usage = st.one_of(
        st.none(),
        st.tuples(counted, counted),
        st.tuples(counted, st.none()) | st.tuples(st.none(), counted),
    )
    runs = st.lists(
        st.builds(
            run,
            st.integers(0, 99),
            st.sampled_from(ENDINGS),
            st.sampled_from(("m", "strong", "unpriced", "M", "m ")),
            usage,
        ),
        max_size=6,
    )
    money = st.one_of(
        st.just(0.0), st.floats(0.01, 100, allow_nan=False).map(lambda x: round(x, 2))
    )
    table = st.dictionaries(
        st.sampled_from(("m", "strong")), st.builds(price, money, money), max_size=2
    )
    return st.tuples(runs, table)


# Unnamed endings for the cost split, the plainest first (a shrunk counterexample shows it).
_ODD_FOR_COST = ("timeout", "needs_consent", "done", "other", "Passed", " sent_back", "", None)


def odd_priced_shifts(record: Any, price: Any) -> Any:
    """(runs, prices) as `priced_shifts` draws them, with one run no ending names put anywhere
    in the shift, its cost known and more than 0: its model ("house") is priced and both counts
    are reported. Leaving it out would drop that money from the split. (An unnamed ending on a
    run of unknown cost is not drawn: it adds nothing either way, and the course's
    `cost_by_ending` skips it.)"""
    from hypothesis import strategies as st

    def with_odd(shift: Any, ending: Any, used: Any, rates: Any, at: int) -> Any:
        runs, table = shift
        odd = SimpleNamespace(
            ending=ending, model="house", input_tokens=used[0], output_tokens=used[1]
        )
        at %= len(runs) + 1
        return [*runs[:at], odd, *runs[at:]], {**table, "house": price(*rates)}

    count = st.integers(1, 5000) | st.integers(5000, 3_000_000)
    rate = st.floats(0.01, 100, allow_nan=False).map(lambda x: round(x, 2))
    return st.builds(
        with_odd,
        priced_shifts(record, price),
        st.sampled_from(_ODD_FOR_COST),
        st.tuples(count, count),
        st.tuples(rate, rate),
        st.integers(0, 6),
    )
