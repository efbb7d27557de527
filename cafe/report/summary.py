"""The shift report's numbers: many orders in, one account of how they ended and what they cost.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
Session 07 made every run end on a named stop reason; one run at a time, that is a log line. This
module adds the view a team reads after a shift, over the `RunRecord`s of `cafe.report.records`:

- `count_endings`: every order under exactly one of `ENDINGS`, with no "other" bucket;
- `run_cost` / `cost_by_ending`: what each order cost, and where the shift's money went;
- `summarize`: the `ShiftSummary` (endings, attempts to pass, tokens and cost per accepted
  ticket, the slowest and costliest runs, failures by check), whose counts are checked to add up.

Bad input is reported in words, in `ShiftSummary.notes`: an empty shift, runs whose endpoint
reported no token usage, models missing from the price table. An unnamed ending is the one thing
refused outright (ValueError), because counting it anywhere would break the promise.

What it leaves out: the records themselves (`cafe.report.records`), the summary as text
(`cafe.report.text`) and as figures (`cafe.report.figures`), the running of a shift
(`cafe.report.shift`), reading runs back from trace files (`cafe.report.traces`), the learner's
banked checkpoints (`cafe.report.banked`), sorting exhausted runs into failure classes (session 10)
and choosing a cheaper model (session 11).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from cafe.repair.reask import CAP_DEFAULT
from cafe.report.records import ENDINGS, SENT_BACK, Ending, Price, RunRecord

__all__ = [
    "TOP_DEFAULT",
    "PER_TOKENS",
    "ShiftSummary",
    "count_endings",
    "run_cost",
    "cost_by_ending",
    "summarize",
]

# How many slowest and costliest runs a report names: enough to open, few enough to read.
TOP_DEFAULT = 3
# Providers quote token prices per million tokens, so a `Price` does too.
PER_TOKENS = 1_000_000
# The attempts-to-pass bin of an order that did not pass: session 07's `attempts_to_pass` names the
# loop's two ("exhausted", "blocked"); an order front of house sent back has its own.
_UNPASSED: Mapping[Ending, str] = MappingProxyType(
    {"retries_exhausted": "exhausted", "policy_violation": "blocked", SENT_BACK: "sent back"}
)
assert set(_UNPASSED) | {"passed"} == set(ENDINGS)


def count_endings(runs: Iterable[Any]) -> dict[str, int]:
    """How many orders ended each way: every one of `ENDINGS` listed (zeros too), in order.

    Anything with an `ending` will do. An ending outside the closed set is refused by name:
    counting it under "other" would hide exactly the run a team most needs to see.
    """
    counts: dict[str, int] = {ending: 0 for ending in ENDINGS}
    for run in runs:
        counts[_named_ending(run)] += 1
    return counts


def _named_ending(run: Any) -> str:
    """The run's ending, when it is one of `ENDINGS`; any other is refused by name."""
    ending = getattr(run, "ending", None)
    if ending not in ENDINGS:
        raise ValueError(
            f"a run ends on {ending!r}, which is not one of {', '.join(ENDINGS)}; "
            "name every ending before counting it."
        )
    return str(ending)


def run_cost(run: RunRecord, prices: Mapping[str, Price]) -> float | None:
    """What the run's tokens cost at `prices[run.model]`; None when usage or the price is unknown."""
    if run.input_tokens == 0 and run.output_tokens == 0:
        return 0.0  # nothing was sent (refused, or sent back to the customer): free, whatever the price
    price = prices.get(run.model)
    if price is None or run.input_tokens is None or run.output_tokens is None:
        return None
    return (
        run.input_tokens * price.input_per_million + run.output_tokens * price.output_per_million
    ) / PER_TOKENS


def cost_by_ending(runs: Iterable[RunRecord], prices: Mapping[str, Price]) -> dict[str, float]:
    """What the priced orders cost, by how they ended: every one of `ENDINGS` listed, zeros too.

    A run whose cost is unknown (no usage reported, or no price for its model) adds nothing here;
    `summarize` names those runs, so the total is read as a floor. A run whose ending is not one
    of `ENDINGS` is refused by name, as `count_endings` refuses it, whether or not it has a cost.
    """
    totals: dict[str, float] = {ending: 0.0 for ending in ENDINGS}
    for run in runs:
        ending = _named_ending(run)
        cost = run_cost(run, prices)
        if cost is not None:
            totals[ending] += cost
    return totals


def _attempt_bins(runs: Sequence[RunRecord], cap: int) -> dict[str, int]:
    """Orders by the attempt that passed ("1" .. the highest seen or `cap`), then "exhausted",
    "blocked" (the bins of `cafe.repair.attempts_to_pass`) and "sent back"."""
    highest = max([cap, *(run.attempts for run in runs if run.ending == "passed")])
    bins = {
        **{str(n): 0 for n in range(1, highest + 1)},
        **{name: 0 for name in _UNPASSED.values()},
    }
    for run in runs:
        bins[str(run.attempts) if run.ending == "passed" else _UNPASSED[run.ending]] += 1
    return bins


@dataclass(frozen=True)
class ShiftSummary:
    """The numbers of one shift. Built by `summarize`; the counts are checked to add up to `runs`.

    Token totals cover only the runs that reported usage in full, both counts for every model
    call (`unreported` lists the others, part-reported runs too), and cost
    only the runs that could be priced (`unpriced`), so each is a floor when those lists are not
    empty; `notes` says so in words.
    """

    runs: int
    endings: Mapping[str, int]
    attempts_to_pass: Mapping[str, int]
    input_tokens: int
    output_tokens: int
    unreported: tuple[str, ...]
    cost: float | None
    currency: str | None
    cost_by_ending: Mapping[str, float]
    unpriced: tuple[str, ...]
    failures_by_check: Mapping[str, int]
    slowest: tuple[RunRecord, ...]
    costliest: tuple[tuple[RunRecord, float], ...]
    notes: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("endings", "attempts_to_pass"):
            counted = sum(getattr(self, name).values())
            if counted != self.runs:
                raise ValueError(
                    f"{name} counts {counted} runs but the shift has {self.runs}; every run "
                    "is counted under exactly one name."
                )
        for name in ("endings", "attempts_to_pass", "cost_by_ending", "failures_by_check"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @property
    def accepted(self) -> int:
        """Tickets that reached the kitchen: the runs that passed."""
        return self.endings["passed"]

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def tokens_per_accepted(self) -> float | None:
        """Every token the shift spent (wasted runs included), over the tickets it produced."""
        return self.tokens / self.accepted if self.accepted else None

    @property
    def cost_per_accepted(self) -> float | None:
        return self.cost / self.accepted if self.accepted and self.cost is not None else None


def _cost_notes(runs: Sequence[RunRecord], prices: Mapping[str, Price] | None) -> list[str]:
    if prices is None:
        return ["No price table was given, so no cost is shown: pass prices={model: Price(...)}."]
    notes = []
    missing = Counter(run.model for run in runs if run.model not in prices and run.tokens != 0)
    for model, count in sorted(missing.items()):
        notes.append(
            f"No price for model {model!r}: its {count} run{'s are' if count != 1 else ' is'} "
            "left out of the cost."
        )
    currencies = sorted({price.currency for price in prices.values()})
    if len(currencies) > 1:
        raise ValueError(
            f"The price table mixes currencies ({', '.join(currencies)}); give every price in one."
        )
    return notes


def _usage_note(unreported: Sequence[str]) -> list[str]:
    if not unreported:
        return []
    shown = ", ".join(unreported[:5]) + (", ..." if len(unreported) > 5 else "")
    many = len(unreported) != 1
    return [
        f"{len(unreported)} run{'s' if many else ''} reported no token usage, or not for every "
        f"model call ({shown}): token and cost totals leave {'them' if many else 'it'} out, so "
        "read those totals as a floor."
    ]


def _notes(
    runs: Sequence[RunRecord],
    prices: Mapping[str, Price] | None,
    unreported: Sequence[str],
    given: Sequence[str],
) -> tuple[str, ...]:
    """Everything the report could not count, in words: the caller's notes first."""
    told = [*given]
    if not runs:
        told.append(
            "This shift has no runs: there is nothing to count yet, and nothing went wrong."
        )
    told += _usage_note(unreported) + _cost_notes(runs, prices)
    if runs and not any(run.ending == "passed" for run in runs):
        told.append(
            "No run passed, so no ticket was accepted: the per-ticket figures are undefined."
        )
    return tuple(told)


def _checked(runs: Sequence[RunRecord], top: int) -> list[RunRecord]:
    runs = list(runs)
    wrong = next((run for run in runs if not isinstance(run, RunRecord)), None)
    if wrong is not None:
        raise TypeError(
            f"summarize() takes RunRecords, not {type(wrong).__name__}; convert repair results "
            "with record_from_result(result, run_id=..., model=...)."
        )
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ValueError(
            f"top is {top!r}; give how many slowest and costliest runs to name (0 or more)."
        )
    return runs


def summarize(
    runs: Sequence[RunRecord],
    prices: Mapping[str, Price] | None = None,
    *,
    cap: int = CAP_DEFAULT,
    top: int = TOP_DEFAULT,
    notes: Sequence[str] = (),
) -> ShiftSummary:
    """The shift report's numbers for `runs`. `prices` maps a model's name to its `Price`.

    `notes` are sentences to show with the report, such as the traces `read_shift` left out.
    """
    runs = _checked(runs, top)
    costs = [run_cost(run, prices or {}) for run in runs]  # by position: ids may repeat
    unreported = tuple(run.run_id for run in runs if not run.usage_reported)
    priced = [(run, cost) for run, cost in zip(runs, costs) if cost is not None]
    timed = sorted(
        (run for run in runs if run.seconds is not None), key=lambda r: -(r.seconds or 0)
    )
    failures = Counter[str]()
    for run in runs:
        failures.update(run.failures)
    return ShiftSummary(
        runs=len(runs),
        endings=count_endings(runs),
        attempts_to_pass=_attempt_bins(runs, cap),
        input_tokens=sum(run.input_tokens or 0 for run in runs),
        output_tokens=sum(run.output_tokens or 0 for run in runs),
        unreported=unreported,
        cost=sum(cost for _, cost in priced) if prices is not None else None,
        currency=next(iter(prices.values())).currency if prices else None,
        cost_by_ending=cost_by_ending(runs, prices) if prices is not None else {},
        unpriced=tuple(run.run_id for run, cost in zip(runs, costs) if cost is None),
        failures_by_check=dict(failures.most_common()),
        slowest=tuple(timed[:top]),
        costliest=tuple(sorted(priced, key=lambda pair: -pair[1])[:top]),
        notes=_notes(runs, prices, unreported, notes),
    )
