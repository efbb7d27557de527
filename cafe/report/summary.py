"""The shift report: many runs in, one account of how they ended and what they cost.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
Session 07 made every run end on a named stop reason; one run at a time, that is a log line. This
module adds the view a team reads after a shift:

- `RunRecord`: one run as the report sees it (stop reason, attempts, tokens, model, time, the
  checks that failed, where its trace is), built from a repair result by `record_from_result`;
- `Price`: what a model's tokens cost, always passed in by the caller, never assumed;
- `count_stop_reasons`: every run under exactly one named stop reason, with no "other" bucket;
- `run_cost` / `cost_by_stop_reason`: what each run cost, and where the shift's money went;
- `summarize`: the `ShiftSummary` (stop reasons, attempts to pass, tokens and cost per accepted
  ticket, the slowest and costliest runs, failures by check), whose counts are checked to add up;
- `render_text`: the summary as plain text for a terminal.

Bad input is reported in words, in `ShiftSummary.notes`: an empty shift, runs whose endpoint
reported no token usage, models missing from the price table. An unnamed stop reason is the one
thing refused outright (ValueError), because counting it anywhere would break the promise.

What it leaves out: the figures and the HTML page (`cafe.report.figures`), the running of a shift
(`cafe.report.shift`), reading runs back from trace files (`cafe.report.traces`), the learner's banked
checkpoints (`cafe.report.banked`), sorting exhausted runs into
failure classes (session 10) and choosing a cheaper model (session 11).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, get_args

from cafe.repair.reask import CAP_DEFAULT, STOP_REASONS, RepairResult, StopReason

__all__ = [
    "STOP_ORDER",
    "TOP_DEFAULT",
    "PER_TOKENS",
    "RunRecord",
    "Price",
    "ShiftSummary",
    "record_from_result",
    "count_stop_reasons",
    "run_cost",
    "cost_by_stop_reason",
    "summarize",
    "render_text",
]

# The stop reasons in the order a report lists them: the repair loop's own closed set (session 07).
STOP_ORDER: tuple[str, ...] = get_args(StopReason)
assert frozenset(STOP_ORDER) == STOP_REASONS
# How many slowest and costliest runs a report names: enough to open, few enough to read.
TOP_DEFAULT = 3
# Providers quote token prices per million tokens, so a `Price` does too.
PER_TOKENS = 1_000_000
# The attempts-to-pass bin of a run that did not pass, as session 07's `attempts_to_pass` names it.
_UNPASSED = MappingProxyType(
    {"retries_exhausted": "exhausted", "policy_violation": "blocked", "needs_consent": "confirm"}
)


def _frozen(mapping: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class RunRecord:
    """One run, as the report counts it.

    `input_tokens`/`output_tokens` are None when the endpoint reported no usage (a run that never
    reached the model has 0 of each). `seconds` is None when nobody timed it; `trace` is the path
    of the run's trace file, or None. `failures` counts the failed checks by name, over every
    attempt and the policy pre-check.
    """

    run_id: str
    stop_reason: StopReason
    attempts: int
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float | None = None
    failures: Mapping[str, int] = field(default_factory=dict)
    trace: str | None = None

    def __post_init__(self) -> None:
        if self.stop_reason not in STOP_REASONS:
            raise ValueError(
                f"run {self.run_id!r} ends on {self.stop_reason!r}, which is not a stop reason "
                f"({', '.join(STOP_ORDER)}); a report has no 'other' bucket, so name how it ended."
            )
        if (
            isinstance(self.attempts, bool)
            or not isinstance(self.attempts, int)
            or self.attempts < 0
        ):
            raise ValueError(
                f"run {self.run_id!r}: attempts is {self.attempts!r}; give a whole number, 0 or more."
            )
        if self.stop_reason == "passed" and self.attempts < 1:
            raise ValueError(
                f"run {self.run_id!r} passed with no attempt; a passed run drafted at least once."
            )
        if (self.input_tokens is None) != (self.output_tokens is None):
            raise ValueError(
                f"run {self.run_id!r}: give both token counts or neither (None: not reported)."
            )
        if self.seconds is not None and not (math.isfinite(self.seconds) and self.seconds >= 0):
            raise ValueError(
                f"run {self.run_id!r}: seconds is {self.seconds!r}; give a time of 0 or more, or None."
            )
        object.__setattr__(self, "failures", _frozen(self.failures))

    @property
    def usage_reported(self) -> bool:
        return self.input_tokens is not None

    @property
    def tokens(self) -> int | None:
        return None if self.input_tokens is None else self.input_tokens + (self.output_tokens or 0)


@dataclass(frozen=True)
class Price:
    """What one model's tokens cost, per million, in `currency`. Pass your provider's own figures."""

    input_per_million: float
    output_per_million: float
    currency: str = "USD"

    def __post_init__(self) -> None:
        for name in ("input_per_million", "output_per_million"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise ValueError(
                    f"Price.{name} is {value!r}; give the price per million tokens, 0 or more."
                )


def record_from_result(
    result: RepairResult,
    *,
    run_id: str,
    model: str,
    seconds: float | None = None,
    trace: str | None = None,
) -> RunRecord:
    """The report's view of one `cafe.repair.repair_ticket` result."""
    if not isinstance(result, RepairResult):
        raise TypeError(
            f"record_from_result() takes a cafe.repair.RepairResult, not {type(result).__name__}."
        )
    checks = Counter(f.check for attempt in result.attempts for f in attempt.failures)
    checks.update(f.check for f in result.blocked_by)
    if (
        not result.attempts
    ):  # stopped before any draft (refused, or sent back): nothing sent, nothing billed
        tokens: tuple[int | None, int | None] = (0, 0)
    elif result.usage is None:
        tokens = (None, None)
    else:
        tokens = (result.usage.prompt_tokens, result.usage.completion_tokens)
    return RunRecord(
        run_id,
        result.stop_reason,
        len(result.attempts),
        model,
        *tokens,
        seconds=seconds,
        failures=dict(sorted(checks.items())),
        trace=trace,
    )


def count_stop_reasons(runs: Iterable[Any]) -> dict[str, int]:
    """How many runs ended on each stop reason: every named reason listed (zeros too), in order.

    Anything with a `stop_reason` will do. A reason outside the closed set is refused by name:
    counting it under "other" would hide exactly the run a team most needs to see.
    """
    counts = {reason: 0 for reason in STOP_ORDER}
    for run in runs:
        reason = getattr(run, "stop_reason", None)
        if reason not in counts:
            raise ValueError(
                f"a run ends on {reason!r}, which is not one of {', '.join(STOP_ORDER)}; "
                "name every ending before counting it."
            )
        counts[reason] += 1
    return counts


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


def cost_by_stop_reason(runs: Iterable[RunRecord], prices: Mapping[str, Price]) -> dict[str, float]:
    """What the priced runs cost, by how they ended: every named reason listed, zeros too.

    A run whose cost is unknown (no usage reported, or no price for its model) adds nothing here;
    `summarize` names those runs, so the total is read as a floor.
    """
    totals = {reason: 0.0 for reason in STOP_ORDER}
    for run in runs:
        cost = run_cost(run, prices)
        if cost is not None:
            totals[run.stop_reason] += cost
    return totals


def _attempt_bins(runs: Sequence[RunRecord], cap: int) -> dict[str, int]:
    """Runs by the attempt that passed ("1" .. the highest seen or `cap`), "exhausted", "blocked"
    or "confirm" (sent back to the customer), the bins of `cafe.repair.attempts_to_pass`."""
    highest = max([cap, *(run.attempts for run in runs if run.stop_reason == "passed")])
    bins = {
        **{str(n): 0 for n in range(1, highest + 1)},
        **{name: 0 for name in _UNPASSED.values()},
    }
    for run in runs:
        bins[str(run.attempts) if run.stop_reason == "passed" else _UNPASSED[run.stop_reason]] += 1
    return bins


@dataclass(frozen=True)
class ShiftSummary:
    """The numbers of one shift. Built by `summarize`; the counts are checked to add up to `runs`.

    Token totals cover only the runs that reported usage (`unreported` lists the others), and cost
    only the runs that could be priced (`unpriced`), so each is a floor when those lists are not
    empty; `notes` says so in words.
    """

    runs: int
    stop_reasons: Mapping[str, int]
    attempts_to_pass: Mapping[str, int]
    input_tokens: int
    output_tokens: int
    unreported: tuple[str, ...]
    cost: float | None
    currency: str | None
    cost_by_reason: Mapping[str, float]
    unpriced: tuple[str, ...]
    failures_by_check: Mapping[str, int]
    slowest: tuple[RunRecord, ...]
    costliest: tuple[tuple[RunRecord, float], ...]
    notes: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("stop_reasons", "attempts_to_pass"):
            counted = sum(getattr(self, name).values())
            if counted != self.runs:
                raise ValueError(
                    f"{name} counts {counted} runs but the shift has {self.runs}; every run "
                    "is counted under exactly one name."
                )
        for name in ("stop_reasons", "attempts_to_pass", "cost_by_reason", "failures_by_check"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @property
    def accepted(self) -> int:
        """Tickets that reached the kitchen: the runs that passed."""
        return self.stop_reasons["passed"]

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
        f"{len(unreported)} run{'s' if many else ''} reported no token usage ({shown}): token and cost "
        f"totals leave {'them' if many else 'it'} out, so read those totals as a floor."
    ]


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
    runs = list(runs)
    wrong = next((run for run in runs if not isinstance(run, RunRecord)), None)
    if wrong is not None:
        raise TypeError(
            f"summarize() takes RunRecords, not {type(wrong).__name__}; "
            "convert repair results with record_from_result(result, run_id=..., model=...)."
        )
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ValueError(
            f"top is {top!r}; give how many slowest and costliest runs to name (0 or more)."
        )
    costs = [
        run_cost(run, prices or {}) for run in runs
    ]  # by position: two files may reuse a run id
    unreported = tuple(run.run_id for run in runs if not run.usage_reported)
    priced = [(run, cost) for run, cost in zip(runs, costs) if cost is not None]
    said = (
        []
        if runs
        else ["This shift has no runs: there is nothing to count yet, and nothing went wrong."]
    )
    told = [*notes, *said] + _usage_note(unreported) + _cost_notes(runs, prices)
    if runs and not any(run.stop_reason == "passed" for run in runs):
        told.append(
            "No run passed, so no ticket was accepted: the per-ticket figures are undefined."
        )
    timed = sorted(
        (run for run in runs if run.seconds is not None), key=lambda run: -(run.seconds or 0.0)
    )
    failures = Counter[str]()
    for run in runs:
        failures.update(run.failures)
    return ShiftSummary(
        runs=len(runs),
        stop_reasons=count_stop_reasons(runs),
        attempts_to_pass=_attempt_bins(runs, cap),
        input_tokens=sum(run.input_tokens or 0 for run in runs),
        output_tokens=sum(run.output_tokens or 0 for run in runs),
        unreported=unreported,
        cost=sum(cost for _, cost in priced) if prices is not None else None,
        currency=next(iter(prices.values())).currency if prices else None,
        cost_by_reason=cost_by_stop_reason(runs, prices) if prices is not None else {},
        unpriced=tuple(run.run_id for run, cost in zip(runs, costs) if cost is None),
        failures_by_check=dict(failures.most_common()),
        slowest=tuple(timed[:top]),
        costliest=tuple(sorted(priced, key=lambda pair: -pair[1])[:top]),
        notes=tuple(told),
    )


def _money(amount: float | None, currency: str | None) -> str:
    return "-" if amount is None else f"{amount:.4f} {currency or ''}".rstrip()


def _per(value: float | None, unit: str) -> str:
    return "undefined (no accepted ticket)" if value is None else f"{value:,.0f} {unit}"


def _where(run: RunRecord) -> str:
    return f"trace {run.trace}" if run.trace else "no trace recorded"


def render_text(summary: ShiftSummary) -> str:
    """The summary as a few plain lines for a terminal."""
    width = max(len(reason) for reason in STOP_ORDER)
    lines = [
        f"Shift report: {summary.runs} run{'s' if summary.runs != 1 else ''}, "
        f"{summary.accepted} ticket{'s' if summary.accepted != 1 else ''} accepted",
        "",
        "How the runs ended:",
    ]
    for reason, count in summary.stop_reasons.items():
        lines.append(f"  {reason:<{width}}  {count:>5}")
    lines.append(f"  {'(total)':<{width}}  {sum(summary.stop_reasons.values()):>5}")
    lines += [
        "",
        "Attempts to pass: "
        + ", ".join(f"{key}: {n}" for key, n in summary.attempts_to_pass.items()),
    ]
    lines.append(
        f"Tokens: {summary.tokens:,} ({summary.input_tokens:,} in, {summary.output_tokens:,} out); "
        f"per accepted ticket: {_per(summary.tokens_per_accepted, 'tokens')}"
    )
    if summary.cost is not None:
        per = summary.cost_per_accepted
        lines.append(
            f"Cost: {_money(summary.cost, summary.currency)}; per accepted ticket: "
            + (
                _money(per, summary.currency)
                if per is not None
                else "undefined (no accepted ticket)"
            )
        )
        lines.append(
            "Cost by ending: "
            + ", ".join(
                f"{reason} {_money(cost, summary.currency)}"
                for reason, cost in summary.cost_by_reason.items()
            )
        )
    if summary.failures_by_check:
        lines.append(
            "Failed checks: "
            + ", ".join(f"{check} {n}" for check, n in summary.failures_by_check.items())
        )
    if summary.slowest:
        lines += ["Slowest runs:"] + [
            f"  {run.run_id}  {run.seconds:.2f} s  {run.stop_reason}  ({_where(run)})"
            for run in summary.slowest
        ]
    if summary.costliest:
        lines += ["Costliest runs:"] + [
            f"  {run.run_id}  {_money(cost, summary.currency)}  {run.stop_reason}  ({_where(run)})"
            for run, cost in summary.costliest
        ]
    lines += [f"Note: {note}" for note in summary.notes]
    return "\n".join(lines)
