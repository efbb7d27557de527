"""A shift: many orders through the repair loop, each run kept as a record the report can count.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
Session 07's `repair_ticket` handles one order. This module adds:

- `SHIFT_ORDERS`: twenty orders with a known mix (everyday orders, orders naming an 86'd item,
  orders holding an item the customer's allergy rules out, and requests refused as they stand),
  so that every ending a report knows (`cafe.report.ENDINGS`) turns up in one shift;
- `run_shift`: every order past front of house (`cafe.repair.front_of_house`) and, unless it was
  sent back to the customer, through `repair_ticket`, timing each model call with a clock you
  pass, and returning one `cafe.report.RunRecord` per order;
- `scripted_drafter`: session 07's `FeedbackModel` as a generator, scripted even in live mode;
- `ticking`: a stand-in clock for offline runs, so the slowest runs are the same every time;
- `NotReached`: an order whose run stopped on an endpoint problem (a timeout, a dropped
  connection): `run_shift` hands it to `on_failure` and goes on, so one slow reply costs one order,
  not the shift. It has no ending: the loop never finished, so the report leaves it out and says so;
- `PRACTICE_PRICES`: an invented price table to practise with (not any provider's prices);
- `synthetic_runs`: a large made-up shift, for measuring how the report scales.

With `trace_dir`, each run of the loop is also recorded with session 08's
`cafe.trace.record_repair` and written to its own trace file, which the report links to (an
order sent back has no run to record, so no trace). What it leaves out: replaying those
runs (session 08), and choosing which model to send an order to (session 11).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.errors import SETUP_PROBLEMS, EndpointError
from cafe.endpoint.settings.config import OFFLINE_MODEL
from cafe.repair.feedback import RetryMode
from cafe.repair.front import SentBack, front_of_house
from cafe.repair.reask import (
    CAP_DEFAULT,
    Generator,
    RepairResult,
    make_model_generator,
    repair_ticket,
)
from cafe.report.records import (
    ENDINGS,
    SENT_BACK,
    Ending,
    Price,
    RunRecord,
    record_from_result,
    record_from_sent_back,
)
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.record import Recorder, record_repair, write_trace
from cafe.world.menu import Menu

__all__ = [
    "SHIFT_ORDERS",
    "PRACTICE_PRICES",
    "scripted_drafter",
    "ticking",
    "NotReached",
    "run_shift",
    "synthetic_runs",
]

# The lunchtime shift: session 07's ten everyday orders, then ten that no draft can turn into a
# ticket as written, in three kinds, each stopped its own way: by the loop's cap, by front of
# house, by the loop's policy pre-check. Invented for teaching, like every order in the course.
SHIFT_ORDERS: tuple[OrderSpec, ...] = PRACTICE_ORDERS + (
    # The cheese omelette is 86'd today (cafe/data/menu.json): drafts fail until the cap ends the run.
    OrderSpec(2, ("cheese omelette", "americano"), request="The cheese omelette and an americano."),
    OrderSpec(6, ("cheese omelette",), request="Cheese omelette, please."),
    OrderSpec(10, ("latte", "cheese omelette"), request="A latte and the cheese omelette."),
    OrderSpec(16, ("cheese omelette", "fruit salad"), request="Cheese omelette and a fruit salad."),
    # One item contains the allergy the customer declared; the other item is safe. Front of house
    # sends it back before any draft: the customer confirms a change first (`changes_to_confirm`).
    OrderSpec(
        17,
        ("oat latte", "croissant"),
        ("milk",),
        request="Oat latte and a croissant. I can't have milk.",
    ),
    OrderSpec(
        19,
        ("green tea", "banana bread"),
        ("nuts",),
        request="Green tea and banana bread; nut allergy.",
    ),
    OrderSpec(
        20,
        ("americano", "granola bowl"),
        ("milk",),
        request="Americano and a granola bowl, no dairy please.",
    ),
    # Every item contains the declared allergen, or the allergy is one the menu cannot check:
    # refused by the policy pre-check, before any draft.
    OrderSpec(21, ("latte",), ("milk",), request="A latte. I'm allergic to milk."),
    OrderSpec(
        22,
        ("croissant", "banana bread"),
        ("gluten",),
        request="A croissant and banana bread. I'm coeliac.",
    ),
    OrderSpec(23, ("espresso",), ("sesame",), request="An espresso. Sesame allergy."),
)

# Invented round figures for practice, per million tokens, priced for the offline model's name.
# They are not any provider's price: put your own provider's list in the table you pass.
PRACTICE_PRICES: Mapping[str, Price] = MappingProxyType(
    {"cafe-scripted": Price(input_per_million=3.0, output_per_million=15.0)}
)

Clock = Callable[[], float]


@dataclass(frozen=True)
class NotReached:
    """An order whose run stopped on an endpoint problem: no ending, so no row of the report.

    `kind` is the `EndpointError`'s kind ("timeout", "connection", ...), `reason` its first line
    (already free of the key); `trace` the file recording the run up to the failure, when kept.
    """

    run_id: str
    table: int
    kind: str
    reason: str
    trace: str | None = None

    def note(self) -> str:
        """One sentence for the report's notes."""
        return (
            f"{self.run_id} (table {self.table}): the endpoint failed ({self.kind}); "
            "left out of the report's counts."
        )


def scripted_drafter(seed: int = 7) -> Generator:
    """Session 07's `FeedbackModel` behind a model generator, offline in every mode.

    `cafe.make_client(script=...)` reaches your endpoint under `COURSE_MODE=live`; a story that
    must read the same for everyone builds its scripted client directly, as this does.
    """
    return make_model_generator(ScriptedClient(FeedbackModel(seed)), OFFLINE_MODEL)


def ticking(step: float = 0.5) -> Clock:
    """A clock that moves on `step` seconds each time it is read: a model call then "takes" one step.

    Offline the scripted model answers at once, so a real clock would rank the runs by noise.
    """
    now = [0.0]

    def clock() -> float:
        now[0] += step
        return now[0]

    return clock


class _Timed:
    """Wraps a generator; adds up the seconds its calls took, as `clock` measures them.

    `model` is the name a trace files the generator's calls under when no recorded client is behind it,
    and `client` the generator's own (if it has one), so the trace names the endpoint it served from.
    """

    def __init__(self, generate: Generator, clock: Clock, model: str):
        self.generate, self.clock, self.model, self.seconds = generate, clock, model, 0.0
        self.client = getattr(generate, "client", None)

    def __call__(self, messages: list[dict[str, str]]) -> Any:
        start = self.clock()
        try:
            return self.generate(messages)
        finally:
            self.seconds += self.clock() - start


def _traced(order: OrderSpec, timed: _Timed, path: Path, **options: Any) -> RepairResult:
    """`record_repair` (session 08) for one order, its trace written to `path`; a run that an
    endpoint problem stopped is written too (its spans closed with `error.type`) before the error
    goes on."""
    recorder = Recorder(trace_id=path.stem)
    try:
        result, trace = record_repair(order, timed, recorder=recorder, **options)
    except EndpointError:
        write_trace(recorder.trace(), path)
        raise
    write_trace(trace, path)
    return result


def _one_order(
    order: OrderSpec, timed: _Timed, path: Path | None, **options: Any
) -> RepairResult | SentBack:
    """Front of house, then the loop (recorded to `path` when given) unless the order went back."""
    sent = front_of_house(order, options.get("menu"))
    if sent is not None:
        return sent
    if path is None:
        return repair_ticket(order, timed, **options)
    return _traced(order, timed, path, **options)


def _record(
    outcome: RepairResult | SentBack, run_id: str, model: str, seconds: float, path: Path | None
) -> RunRecord:
    """The report's record of one order that ended: sent back, or a run of the loop."""
    if isinstance(outcome, SentBack):
        return record_from_sent_back(outcome, run_id=run_id, model=model, seconds=seconds)
    trace = None if path is None else str(path)
    return record_from_result(outcome, run_id=run_id, model=model, seconds=seconds, trace=trace)


def run_shift(
    orders: Sequence[OrderSpec],
    generate: Generator,
    *,
    model: str,
    clock: Clock = time.perf_counter,
    cap: int = CAP_DEFAULT,
    mode: RetryMode = "curated",
    menu: Menu | None = None,
    trace_dir: str | Path | None = None,
    on_run: Callable[[RunRecord], None] | None = None,
    on_failure: Callable[[NotReached], None] | None = None,
) -> tuple[RunRecord, ...]:
    """Each order past front of house, then through `repair_ticket` with `generate`; one record per
    order, named `run-01`, ... An order front of house sends back is recorded as `sent_back`.

    With `trace_dir`, each run of the loop is recorded (`cafe.trace.record_repair`) to
    `trace_dir/run-NN.jsonl` and its record links there. `on_run` is called with each record as
    it is made (for progress).

    An `EndpointError` stops only its own order when `on_failure` is given: the order is handed to
    it as a `NotReached` (no record: the run has no ending) and the shift goes on. A kind in
    `SETUP_PROBLEMS`, and any error without `on_failure`, stops the shift, as any other error does.
    """
    if isinstance(orders, OrderSpec) or not all(isinstance(order, OrderSpec) for order in orders):
        raise TypeError("run_shift() takes a list of cafe.consent.OrderSpec, e.g. SHIFT_ORDERS.")
    folder = None if trace_dir is None else Path(trace_dir)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    records = []
    for number, order in enumerate(orders, start=1):
        run_id, timed = f"run-{number:02d}", _Timed(generate, clock, model)
        path = None if folder is None else folder / f"{run_id}.jsonl"
        try:
            outcome = _one_order(order, timed, path, cap=cap, mode=mode, menu=menu)
        except EndpointError as exc:
            if on_failure is None or exc.kind in SETUP_PROBLEMS:
                raise
            reason = str(exc).strip().split("\n", 1)[0]
            trace = None if path is None or not path.exists() else str(path)
            on_failure(NotReached(run_id, order.table, exc.kind, reason, trace))
            continue
        record = _record(outcome, run_id, model, round(timed.seconds, 6), path)
        records.append(record)
        if on_run is not None:
            on_run(record)
    return tuple(records)


# How often each ending turns up in `synthetic_runs`: mostly passes, some exhausted, a few stopped
# before any draft (refused, or sent back to the customer). Invented, like the runs themselves.
_SYNTHETIC_MIX: Mapping[Ending, int] = MappingProxyType(
    {"passed": 6, "retries_exhausted": 3, "policy_violation": 1, SENT_BACK: 1}
)
assert tuple(_SYNTHETIC_MIX) == ENDINGS
# The endings that stop an order before any draft; each is stopped by one failed check.
_STOPPED_BEFORE_DRAFT = ("policy_violation", SENT_BACK)


def synthetic_runs(
    count: int, *, seed: int = 9, model: str = "cafe-scripted"
) -> tuple[RunRecord, ...]:
    """`count` made-up runs with a plausible spread of endings, tokens and times (for benchmarks)."""
    rng = random.Random(seed)
    checks = ("missing_field", "sold_out", "unsafe", "out_of_scope", "off_menu")
    runs = []
    for number in range(1, count + 1):
        ending = rng.choices(ENDINGS, weights=list(_SYNTHETIC_MIX.values()))[0]
        attempts = {"passed": rng.randint(1, CAP_DEFAULT), "retries_exhausted": CAP_DEFAULT}.get(
            ending, 0
        )
        failed = attempts - (ending == "passed") + (ending in _STOPPED_BEFORE_DRAFT)
        runs.append(
            RunRecord(
                f"run-{number:05d}",
                ending,
                attempts,
                model,
                420 * attempts,
                25 * attempts,
                seconds=round(rng.uniform(0.4, 1.6) * attempts, 3),
                failures={rng.choice(checks): failed} if failed else {},
            )
        )
    return tuple(runs)
