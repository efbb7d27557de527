"""One order of a shift as the report sees it: how it ended, what it spent, and where its trace is.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
Session 07 ends every run of the repair loop on one of three stop reasons, and front of house
sends some orders back to the customer before the loop runs at all. A report counts orders, so
it needs one closed set that covers both. This module adds:

- `Ending` / `ENDINGS`: how an order of a shift ended: the loop's three stop reasons, read from
  `cafe.repair.StopReason` (never copied), then front of house's `sent_back`;
- `RunRecord`: one order as the report counts it (its ending, attempts, tokens, model, time, the
  checks that failed, where its trace is);
- `record_from_result` (a `repair_ticket` result) and `record_from_sent_back` (front of house's
  `SentBack`): the two ways a record is made;
- `Price`: what a model's tokens cost, always passed in by the caller, never assumed.

What it leaves out: counting and pricing the records (`cafe.report.summary`) and reading them
back from trace files (`cafe.report.traces`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

from cafe.endpoint.secrets.redaction import redact
from cafe.repair.front import SentBack
from cafe.repair.reask import STOP_REASONS, RepairResult, StopReason

__all__ = [
    "Ending",
    "ENDINGS",
    "STOP_ORDER",
    "SENT_BACK",
    "RunRecord",
    "Price",
    "record_from_result",
    "record_from_sent_back",
]

# How an order of a shift ended, in the order a report lists them. The first three are the repair
# loop's stop reasons (session 07). `sent_back` is front of house's: the customer was asked to
# confirm a change before any draft, so the loop never ran and there is no stop reason to name.
Ending = Literal[StopReason, "sent_back"]
ENDINGS: tuple[Ending, ...] = get_args(Ending)
# The loop's own endings, the stop reasons, in report order; and front of house's one.
STOP_ORDER: tuple[StopReason, ...] = get_args(StopReason)
SENT_BACK: Ending = "sent_back"
assert frozenset(STOP_ORDER) == STOP_REASONS and ENDINGS == (*STOP_ORDER, SENT_BACK)


def _frozen(mapping: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class RunRecord:
    """One order of a shift, as the report counts it.

    `ending` is one of `ENDINGS`. `input_tokens`/`output_tokens` are None when the endpoint
    reported no usage, or did not for every call: a part is not the run's usage (an order that
    never reached the model has 0 of each). `seconds` is None
    when nobody timed it; `trace` is the path of the run's trace file, or None. `failures` counts
    the failed checks by name, over every attempt and the checks made before any draft.
    """

    run_id: str
    ending: Ending
    attempts: int
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float | None = None
    failures: Mapping[str, int] = field(default_factory=dict)
    trace: str | None = None

    def __post_init__(self) -> None:
        if self.ending not in ENDINGS:
            raise ValueError(
                f"run {self.run_id!r} ends on {self.ending!r}, which is not an ending "
                f"({', '.join(ENDINGS)}); a report has no 'other' bucket, so name how it ended."
            )
        if (
            isinstance(self.attempts, bool)
            or not isinstance(self.attempts, int)
            or self.attempts < 0
        ):
            raise ValueError(
                f"run {self.run_id!r}: attempts is {self.attempts!r}; give a whole number, 0 or more."
            )
        if self.ending == "passed" and self.attempts < 1:
            raise ValueError(
                f"run {self.run_id!r} passed with no attempt; a passed run drafted at least once."
            )
        if self.ending == SENT_BACK and self.attempts:
            raise ValueError(
                f"run {self.run_id!r} was sent back with {self.attempts} attempts; front of house "
                "sends an order back before any draft, so it has 0."
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
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


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
    """The report's view of one `cafe.repair.repair_ticket` result: it ends on its stop reason."""
    if not isinstance(result, RepairResult):
        raise TypeError(
            f"record_from_result() takes a cafe.repair.RepairResult, not {type(result).__name__}."
        )
    checks = Counter(f.check for attempt in result.attempts for f in attempt.failures)
    checks.update(f.check for f in result.blocked_by)
    tokens_in: int | None
    tokens_out: int | None
    if not result.attempts:  # refused before any draft: nothing sent, nothing billed
        tokens_in, tokens_out = 0, 0
    elif result.usage is None or any(a.usage is None for a in result.attempts):
        tokens_in, tokens_out = None, None  # a sum over the attempts that reported is too small
    else:
        tokens_in, tokens_out = result.usage.prompt_tokens, result.usage.completion_tokens
    return RunRecord(
        run_id,
        result.stop_reason,
        len(result.attempts),
        model,
        tokens_in,
        tokens_out,
        seconds=seconds,
        failures=dict(sorted(checks.items())),
        trace=None if trace is None else redact(trace),  # a folder named with the key
    )


def record_from_sent_back(
    sent: SentBack, *, run_id: str, model: str, seconds: float | None = None
) -> RunRecord:
    """The report's view of an order front of house sent back: `sent_back`, no draft, no tokens.

    Its failures are the conflicts that sent it back (one `unsafe` per item the customer's own
    allergies rule out); it has no trace, because no run of the loop happened to record.
    """
    if not isinstance(sent, SentBack):
        raise TypeError(
            f"record_from_sent_back() takes a cafe.repair.SentBack, not {type(sent).__name__}."
        )
    checks = Counter(f.check for f in sent.conflicts)
    return RunRecord(
        run_id, SENT_BACK, 0, model, 0, 0, seconds=seconds, failures=dict(sorted(checks.items()))
    )
