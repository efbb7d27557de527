"""One order of a shift as error analysis reads it, from a live shift or read back from a trace.

Session 10 (`sessions/s10-failure-taxonomy/lesson.md`, notebook
`notebooks/s10-failure-taxonomy.ipynb`). An order of a shift ends in one of three ways, and a
`Run` holds exactly one of them:

- `result`: the repair loop ran and ended on a stop reason (`cafe.repair.RepairResult`);
- `transport`: the endpoint failed before the loop could end (the problem kind of the
  `EndpointError`, from `cafe.endpoint.client.problems.PROBLEM_KINDS`), so the shift went on without it;
- `sent_back`: front of house sent the order back to the customer before any draft
  (`cafe.repair.SentBack`), so the loop never ran.

`run_from_trace` rebuilds a `Run` from a session 08 trace of the re-ask, so a shift recorded
earlier can be sorted too. What it leaves out: sorting the runs (`cafe.taxonomy.classes`,
`cafe.taxonomy.sorting`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from cafe.consent import OrderSpec
from cafe.repair.front import SentBack
from cafe.repair.reask import STOP_REASONS, Attempt, RepairResult, StopReason
from cafe.report.records import STOP_ORDER
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import Failure, Ticket
from cafe.trace.spans import CHECK_LINES, ERROR_TYPE, OUTPUT_MESSAGES, Span, Trace

__all__ = ["Run", "run_from_trace"]

# The stop reason an earlier version of the course's loop gave an order it sent back itself; front
# of house sends such an order back before the loop now, so a trace ending on it is refused by name.
_RETIRED = "needs_consent"


@dataclass(frozen=True)
class Run:
    """One order of a shift and how it ended: a `result`, the `transport` problem kind of the
    endpoint failure that stopped it, or the `sent_back` question front of house asked instead.
    Exactly one is set. `spec` is None only for a bare `RepairResult` handed to `classify`, whose
    order was not recorded."""

    spec: OrderSpec | None
    result: RepairResult | None = None
    transport: str | None = None
    detail: str = ""  # the endpoint's message, when `transport` is set
    sent_back: SentBack | None = None

    def __post_init__(self) -> None:
        held = [self.result is not None, self.transport is not None, self.sent_back is not None]
        if sum(held) != 1:
            raise ValueError(
                "A Run holds exactly one of a result, a transport failure or an order sent back: "
                "pass Run(spec, result=...), Run(spec, transport='timeout') or "
                "Run(spec, sent_back=front_of_house(spec))."
            )

    @property
    def passed(self) -> bool:
        return self.result is not None and self.result.stop_reason == "passed"


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


def _stop_reason(trace: Trace) -> StopReason:
    """The trace's stop reason, one of the loop's three; ValueError naming anything else."""
    reason = trace.stop_reason
    for known in STOP_ORDER:
        if reason == known:
            return known
    retired = (
        " An earlier version of the course ended an order it sent back to the customer there; "
        "run the shift again, and front of house sends that order back before any run."
        if reason == _RETIRED
        else ""
    )
    raise ValueError(
        f"This trace's run ended on {reason!r}, which is not one of the repair loop's stop "
        f"reasons ({', '.join(sorted(STOP_REASONS))}).{retired}"
    )


def _last_ticket(trace: Trace, attempt_spans: list[Span]) -> Ticket:
    """The ticket a passed run's last draft holds, read from its last model call's output."""
    calls = (
        [s for s in trace.children(attempt_spans[-1]) if s.kind == "model_call"]
        if attempt_spans
        else []
    )
    messages = calls[-1].get(OUTPUT_MESSAGES) or [] if calls else []
    parts = [part for message in messages for part in message.get("parts", [])]
    ticket = parse_draft("".join(str(part.get("content", "")) for part in parts)).ticket
    if ticket is None:
        raise ValueError("This trace says the run passed, but its last draft is not a ticket.")
    return ticket


def run_from_trace(trace: Trace) -> Run:
    """The `Run` a session 08 trace of the re-ask records (`cafe.trace.record_repair`).

    Failures come back from each check span's lines; a passed run's ticket from its last draft.
    A run cut short by an endpoint error becomes a transport run of kind "other" (a trace keeps
    the error's type, not its kind). Drafts' text, prompt sizes and usage are not rebuilt. An
    order sent back before any draft has no trace: the loop never ran.
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
    reason = _stop_reason(trace)
    attempt_spans = sorted(trace.of_kind("attempt"), key=lambda s: s.start_s)
    attempts = tuple(
        Attempt(n, "", _checked(trace, span, "check ticket"), 0, None)
        for n, span in enumerate(attempt_spans, start=1)
    )
    ticket = _last_ticket(trace, attempt_spans) if reason == "passed" else None
    blocked_by = _checked(trace, root, "check policy")
    return Run(spec, result=RepairResult(reason, ticket, attempts, blocked_by=blocked_by))
