"""Error analysis: every run that did not pass, sorted into exactly one failure class.

Session 10 (`sessions/s10-failure-taxonomy/lesson.md`, notebook
`notebooks/s10-failure-taxonomy.ipynb`). Session 07's loop ends each run on a stop reason, and
its attempt log says what each draft failed. This module reads those logs for a whole shift:

- `Run`: one order of a shift and how it ended, a `RepairResult` or the endpoint failure that
  stopped it (`run_shift` catches an `EndpointError` per order, so one dead request does not
  lose the shift);
- `CLASS_TESTS`: one test per class in `FAILURE_CLASSES`, and the tests overlap on purpose;
  `classify` returns the first class, in that order, whose test holds, so no run has two;
- `code`: the failure that gave a run its class (the check held throughout, the one that came
  back, ...), so runs can be piled by class and check;
- `sort_runs`: the `Taxonomy` of a shift, whose counts are checked to add up to its runs, with
  examples per class and the piles biggest first; `first_fix` names the pile to work on first;
- `run_from_trace`: a run read back from a session 08 trace, so `classify` takes a `Trace` too.

A failure is identified by its check and the span it quotes (`failure_key`): "missing_field
'table'" on attempt 1 and attempt 3 is the same failure. What it leaves out: why a failure
happens (reading the examples is the analyst's job), what a class costs (session 11), and a
model judging free text (session 12). The notebook's your-turn checkers are `cafe.exercises.s10`.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

from cafe.consent import OrderSpec
from cafe.endpoint.errors import EndpointError
from cafe.repair.reask import Attempt, Generator, RepairResult, repair_ticket
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import Failure
from cafe.trace.spans import CHECK_LINES, ERROR_TYPE, OUTPUT_MESSAGES, Span, Trace

__all__ = [
    "FailureClass",
    "FAILURE_CLASSES",
    "SETUP_PROBLEMS",
    "EXAMPLES_PER_CLASS",
    "Runner",
    "FailureKey",
    "failure_key",
    "attempt_keys",
    "holds_throughout",
    "comes_back",
    "changes",
    "Run",
    "CLASS_TESTS",
    "class_tests",
    "classify",
    "code",
    "Taxonomy",
    "sort_runs",
    "first_fix",
    "run_shift",
    "run_from_trace",
]

# The five classes, declared in precedence order: when several tests hold, the earliest wins.
#   transport    the endpoint failed; nothing the run recorded says anything about the model
#   blocked      policy refused the request before any draft (the request was the defect)
#   systematic   one failure on every attempt: the same cause, every time
#   alternating  a failure went away and came back: one fix undid another
#   drifting     the failures changed and never came back: a moving target
FailureClass = Literal["transport", "blocked", "systematic", "alternating", "drifting"]
FAILURE_CLASSES: tuple[str, ...] = get_args(FailureClass)

# Endpoint problems (`cafe.endpoint.problems.PROBLEM_KINDS`) that mean the settings are wrong, not
# that one request failed: a refused key, an unknown model, a base URL that is a web page. Every
# order would fail the same way, so `run_shift` stops and lets the error say how to fix it.
SETUP_PROBLEMS: frozenset[str] = frozenset({"key_refused", "not_found", "web_page"})

# How many example runs a taxonomy keeps per class: enough to read, few enough to read them all.
EXAMPLES_PER_CLASS = 3

# A runner takes an order and a generator and returns how the run ended (`repair_ticket` is one).
Runner = Callable[[OrderSpec, Generator], RepairResult]
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


@dataclass(frozen=True)
class Run:
    """One order of a shift and how its run ended: a `result`, or the `transport` problem kind
    (`cafe.endpoint.problems.PROBLEM_KINDS`) of the endpoint failure that stopped it. `spec` is
    None only for a bare `RepairResult` handed to `classify`, whose order was not recorded."""

    spec: OrderSpec | None
    result: RepairResult | None = None
    transport: str | None = None
    detail: str = ""  # the endpoint's message, when `transport` is set

    def __post_init__(self) -> None:
        if (self.result is None) == (self.transport is None):
            raise ValueError(
                "A Run holds a result or a transport failure, exactly one: pass "
                "Run(spec, result=...) or Run(spec, transport='timeout')."
            )

    @property
    def passed(self) -> bool:
        return self.result is not None and self.result.stop_reason == "passed"


def _attempts(run: Run) -> list[frozenset[FailureKey]]:
    if run.result is None or run.result.stop_reason != "retries_exhausted":
        return []
    return attempt_keys(run.result)


# The test for each class, in `FAILURE_CLASSES` order. They overlap on purpose: a run whose table
# is missing on every attempt while its other failures come and go passes three of them.
# `classify` takes the first that holds, which is what keeps the classes apart.
CLASS_TESTS: Mapping[str, Callable[[Run], bool]] = MappingProxyType(
    {
        "transport": lambda run: run.transport is not None,
        "blocked": lambda run: (
            run.result is not None and run.result.stop_reason == "policy_violation"
        ),
        "systematic": lambda run: bool(holds_throughout(_attempts(run))),
        "alternating": lambda run: bool(comes_back(_attempts(run))),
        "drifting": lambda run: changes(_attempts(run)),
    }
)
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


def class_tests(run: Run | RepairResult) -> tuple[str, ...]:
    """Every class whose test holds for the run, in precedence order (often more than one)."""
    run = _as_run(run)
    return tuple(name for name, test in CLASS_TESTS.items() if test(run))


def classify(run: Run | RepairResult) -> str:
    """The run's one failure class: the first of `FAILURE_CLASSES` whose test holds.

    A passed run has no failure class (ValueError). So has an exhausted run none of whose tests
    hold, which `repair_ticket` never makes: every attempt of an exhausted run failed something.
    """
    run = _as_run(run)
    if run.passed:
        raise ValueError(
            "This run passed, so it has no failure class; classify the runs that did not "
            "pass (sort_runs skips passed runs for you)."
        )
    held = class_tests(run)
    if not held:
        raise ValueError(
            "No class test holds for this run: an exhausted run needs at least one attempt, "
            "and every attempt must have failed a check (as repair_ticket's runs do)."
        )
    return held[0]


def code(run: Run | RepairResult) -> str:
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


@dataclass(frozen=True)
class Taxonomy:
    """A shift sorted: how many runs, how many passed, how many of the rest fell in each class.

    `counts` lists every class in `FAILURE_CLASSES` (zeros included); `piles` are (class, check,
    runs), biggest first; `examples` keeps up to `EXAMPLES_PER_CLASS` runs per class. Building
    one checks that the classes add up to the runs that did not pass.
    """

    runs: int
    passed: int
    counts: Mapping[str, int]
    piles: tuple[tuple[str, str, int], ...]
    examples: Mapping[str, tuple[Run, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if tuple(self.counts) != FAILURE_CLASSES:
            raise ValueError(
                f"counts must list every class in order, {FAILURE_CLASSES}; got {tuple(self.counts)}."
            )
        if self.passed + sum(self.counts.values()) != self.runs:
            raise ValueError(
                f"The counts do not add up: {self.passed} passed + {sum(self.counts.values())} "
                f"classified != {self.runs} runs. Every run must be in exactly one place."
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
        return self.runs - self.passed

    def shares(self) -> dict[str, float]:
        """Each class's share of the runs that did not pass (all zeros when every run passed)."""
        return {name: (n / self.failed if self.failed else 0.0) for name, n in self.counts.items()}


def sort_runs(runs: Iterable[Run]) -> Taxonomy:
    """Sort a shift's runs: passed ones counted, every other one in exactly one class."""
    runs = list(runs)
    counts = dict.fromkeys(FAILURE_CLASSES, 0)
    piles: Counter[tuple[str, str]] = Counter()
    examples: dict[str, list[Run]] = {name: [] for name in FAILURE_CLASSES}
    for run in runs:
        if not isinstance(run, Run):
            raise TypeError(
                f"sort_runs() takes cafe.taxonomy.Run records (run_shift makes them), "
                f"not {type(run).__name__}."
            )
        if run.passed:
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
    )


def first_fix(taxonomy: Taxonomy) -> tuple[str, str, int] | None:
    """The biggest pile a change to the harness or its endpoint could shrink: (class, check, runs).

    Blocked runs are left out: there the policy did its job, and the fix, if any, is at the front
    of house. None when no other run failed.
    """
    return next((pile for pile in taxonomy.piles if pile[0] != "blocked"), None)


def run_shift(
    orders: Iterable[OrderSpec],
    generate: Generator,
    *,
    runner: Runner = repair_ticket,
    on_run: Callable[[Run], None] | None = None,
) -> tuple[Run, ...]:
    """Run every order through `runner` (default `repair_ticket`) with the same generator.

    An `EndpointError` ends that order's run as a transport failure and the shift goes on, unless
    its kind is in `SETUP_PROBLEMS`; that, and any other error (a missing setting, a bug), stops
    the shift. `on_run` is called after each order.
    """
    runs = []
    for spec in orders:
        try:
            result = runner(spec, generate)
        except EndpointError as exc:
            if exc.kind in SETUP_PROBLEMS:
                raise
            run = Run(spec, transport=exc.kind, detail=str(exc))
        else:
            if not isinstance(result, RepairResult):
                raise TypeError(
                    f"The runner returned {type(result).__name__}; it must return a RepairResult."
                )
            run = Run(spec, result=result)
        runs.append(run)
        if on_run is not None:
            on_run(run)
    return tuple(runs)


# --- runs read back from session 08's traces ----------------------------------------------------


def _failure(line: str) -> Failure:
    """A `Failure` from the line `Failure.line()` wrote: "check: 'span'. Fix: fix"."""
    check, _, rest = line.partition(": ")
    for found in re.finditer(r"\. Fix: ", rest):
        try:
            span = ast.literal_eval(rest[: found.start()])
        except (ValueError, SyntaxError):
            continue
        if isinstance(span, str):
            return Failure(check, span, rest[found.end() :])
    raise ValueError(f"{line!r} is not a failure line as cafe.schema.Failure.line() writes one.")


def _checked(trace: Trace, parent: Span, name: str) -> tuple[Failure, ...]:
    spans = [s for s in trace.children(parent) if s.kind == "check" and s.name == name]
    return tuple(_failure(line) for s in spans for line in s.get(CHECK_LINES, []))


def run_from_trace(trace: Trace) -> Run:
    """The `Run` a session 08 trace of the re-ask records (`cafe.trace.record_repair`).

    Failures come back from each check span's lines; a passed run's ticket from its last draft.
    A run cut short by an endpoint error becomes a transport run of kind "other" (a trace keeps
    the error's type, not its kind). Drafts' text, prompt sizes and usage are not rebuilt.
    """
    root = trace.root
    table, items = root.get("cafe.order.table"), root.get("cafe.order.items")
    spec = OrderSpec(table, tuple(items)) if isinstance(table, int) and items else None
    if trace.stop_reason is None:
        if root.get(ERROR_TYPE) not in ("EndpointError", "RequestRejected"):
            raise ValueError(
                f"This trace's run ended on {root.get(ERROR_TYPE)!r}, not a stop reason or an "
                "endpoint failure; it is not a finished repair_ticket run."
            )
        return Run(spec, transport="other", detail=f"the trace ends on {root.get(ERROR_TYPE)}")
    attempt_spans = sorted(trace.of_kind("attempt"), key=lambda s: s.start_s)
    attempts = tuple(
        Attempt(n, "", _checked(trace, span, "check ticket"), 0, None)
        for n, span in enumerate(attempt_spans, start=1)
    )
    ticket = None
    if trace.stop_reason == "passed":
        calls = (
            [s for s in trace.children(attempt_spans[-1]) if s.kind == "model_call"]
            if attempt_spans
            else []
        )
        parts = [
            p
            for m in (calls[-1].get(OUTPUT_MESSAGES) or [] if calls else [])
            for p in m.get("parts", [])
        ]
        ticket = parse_draft("".join(str(p.get("content", "")) for p in parts)).ticket
        if ticket is None:
            raise ValueError("This trace says the run passed, but its last draft is not a ticket.")
    return Run(
        spec,
        result=RepairResult(
            trace.stop_reason,
            ticket,
            attempts,  # type: ignore[arg-type]
            blocked_by=_checked(trace, root, "check policy"),
        ),
    )
