"""A whole shift sorted: every run that did not pass in exactly one class, the piles, the first fix.

Session 10 (`sessions/s10-failure-taxonomy/lesson.md`, notebook
`notebooks/s10-failure-taxonomy.ipynb`). `cafe.taxonomy.classes` gives one run its class; this
module does it for a shift:

- `run_shift`: every order past front of house (`cafe.repair.front_of_house`) and through a
  runner (`repair_ticket` by default), catching an `EndpointError` per order, so one dead
  request does not lose the shift;
- `sort_runs`: the `Taxonomy` of a shift: passed runs and orders sent back counted apart, every
  other run in exactly one class, checked to add up, with examples per class and the piles
  biggest first;
- `first_fix`: the pile to work on first.

Orders sent back to the customer are counted like passes, beside the classes rather than in one:
the loop never ran on them, so they say nothing about the harness or the model, and the fix for
them, if any, is the customer's answer. The notebook's your-turn checkers are
`cafe.exercises.s10`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from cafe.consent import OrderSpec
from cafe.endpoint.errors import SETUP_PROBLEMS, EndpointError
from cafe.repair.front import front_of_house
from cafe.repair.reask import Generator, RepairResult, repair_ticket
from cafe.taxonomy.classes import FAILURE_CLASSES, FailureClass, classify, code
from cafe.taxonomy.runs import Run
from cafe.world.menu import Menu, load_menu

__all__ = [
    "EXAMPLES_PER_CLASS",
    "Runner",
    "Taxonomy",
    "sort_runs",
    "first_fix",
    "run_shift",
]


# How many example runs a taxonomy keeps per class: enough to read, few enough to read them all.
EXAMPLES_PER_CLASS = 3

# A runner takes an order and a generator and returns how the run ended (`repair_ticket` is one).
Runner = Callable[[OrderSpec, Generator], RepairResult]


@dataclass(frozen=True)
class Taxonomy:
    """A shift sorted: how many runs, how many passed, how many were sent back to the customer
    before any draft, and how many of the rest fell in each class.

    `counts` lists every class in `FAILURE_CLASSES` (zeros included); `piles` are (class, check,
    runs), biggest first; `examples` keeps up to `EXAMPLES_PER_CLASS` runs per class. Building
    one checks that passed + sent back + the classes add up to the runs.
    """

    runs: int
    passed: int
    counts: Mapping[str, int]
    piles: tuple[tuple[str, str, int], ...]
    examples: Mapping[str, tuple[Run, ...]] = field(default_factory=dict)
    sent_back: int = 0

    def __post_init__(self) -> None:
        if tuple(self.counts) != FAILURE_CLASSES:
            raise ValueError(
                f"counts must list every class in order, {FAILURE_CLASSES}; got {tuple(self.counts)}."
            )
        classified = sum(self.counts.values())
        if self.passed + self.sent_back + classified != self.runs:
            raise ValueError(
                f"The counts do not add up: {self.passed} passed + {self.sent_back} sent back + "
                f"{classified} classified != {self.runs} runs. Every run must be in exactly one place."
            )
        for name in FAILURE_CLASSES:
            if sum(n for kind, _, n in self.piles if kind == name) != self.counts[name]:
                raise ValueError(
                    f"The {name} piles do not add up to its count, {self.counts[name]}."
                )
        object.__setattr__(self, "counts", MappingProxyType(dict(self.counts)))
        object.__setattr__(self, "examples", MappingProxyType(dict(self.examples)))

    @property
    def failed(self) -> int:
        """The runs that went through the loop and did not pass: the ones the classes sort."""
        return self.runs - self.passed - self.sent_back

    def shares(self) -> dict[str, float]:
        """Each class's share of the runs that failed (all zeros when none did)."""
        return {name: (n / self.failed if self.failed else 0.0) for name, n in self.counts.items()}


def _checked_runs(runs: Iterable[Run]) -> list[Run]:
    runs = list(runs)
    for run in runs:
        if not isinstance(run, Run):
            raise TypeError(
                f"sort_runs() takes cafe.taxonomy.Run records (run_shift makes them), "
                f"not {type(run).__name__}."
            )
    return runs


def sort_runs(runs: Iterable[Run]) -> Taxonomy:
    """Sort a shift's runs: passed ones and orders sent back counted, every other one in one class."""
    runs = _checked_runs(runs)
    counts: dict[str, int] = dict.fromkeys(FAILURE_CLASSES, 0)
    piles: Counter[tuple[FailureClass, str]] = Counter()
    examples: dict[str, list[Run]] = {name: [] for name in FAILURE_CLASSES}
    for run in runs:
        if run.passed or run.sent_back is not None:
            continue
        kind = classify(run)
        counts[kind] += 1
        piles[kind, code(run)] += 1
        if len(examples[kind]) < EXAMPLES_PER_CLASS:
            examples[kind].append(run)
    rank = {name: i for i, name in enumerate(FAILURE_CLASSES)}
    ordered = sorted(piles.items(), key=lambda item: (-item[1], rank[item[0][0]], item[0][1]))
    return Taxonomy(
        len(runs),
        sum(run.passed for run in runs),
        counts,
        tuple((kind, check, n) for (kind, check), n in ordered),
        {name: tuple(found) for name, found in examples.items()},
        sent_back=sum(run.sent_back is not None for run in runs),
    )


def first_fix(taxonomy: Taxonomy) -> tuple[str, str, int] | None:
    """The biggest pile a change to the harness or its endpoint could shrink: (class, check, runs).

    Blocked runs are left out: there the policy did its job, and the fix, if any, is at the front
    of house. None when no other run failed.
    """
    return next((pile for pile in taxonomy.piles if pile[0] != "blocked"), None)


def _run_one(spec: OrderSpec, generate: Generator, runner: Runner) -> Run:
    """One order through `runner`, an endpoint failure kept as a transport run."""
    try:
        result = runner(spec, generate)
    except EndpointError as exc:
        if exc.kind in SETUP_PROBLEMS:
            raise
        return Run(spec, transport=exc.kind, detail=str(exc))
    if not isinstance(result, RepairResult):
        raise TypeError(
            f"The runner returned {type(result).__name__}; it must return a RepairResult."
        )
    return Run(spec, result=result)


def run_shift(
    orders: Iterable[OrderSpec],
    generate: Generator,
    *,
    runner: Runner = repair_ticket,
    menu: Menu | None = None,
    on_run: Callable[[Run], None] | None = None,
) -> tuple[Run, ...]:
    """Every order past front of house, then through `runner` (default `repair_ticket`).

    An order front of house sends back (`cafe.repair.front_of_house`) becomes a sent-back run and
    never reaches the runner. An `EndpointError` ends that order's run as a transport failure and
    the shift goes on, unless its kind is in `SETUP_PROBLEMS`; that, and any other error (a
    missing setting, a bug), stops the shift. `on_run` is called after each order.
    """
    menu = load_menu() if menu is None else menu
    runs = []
    for spec in orders:
        sent = front_of_house(spec, menu)
        run = Run(spec, sent_back=sent) if sent is not None else _run_one(spec, generate, runner)
        runs.append(run)
        if on_run is not None:
            on_run(run)
    return tuple(runs)
