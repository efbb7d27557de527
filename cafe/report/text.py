"""The shift report as plain text: a few lines a terminal (or the toy) can print.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
`cafe.report.summary` computes a `ShiftSummary`; `render_text` writes it out: how the orders
ended (every ending, zeros too, and the total), the attempts to pass, tokens and cost per
accepted ticket, cost by ending, the failed checks, the slowest and costliest runs with their
traces, and every note the summary holds. The same summary is drawn as figures and one HTML page
by `cafe.report.figures`.
"""

from __future__ import annotations

from collections.abc import Mapping

from cafe.endpoint.secrets.redaction import redact
from cafe.report.records import ENDINGS, RunRecord
from cafe.report.summary import ShiftSummary

__all__ = ["render_text"]

# The undefined per-ticket figure, said the same way everywhere.
_UNDEFINED = "undefined (no accepted ticket)"


def _money(amount: float | None, currency: str | None) -> str:
    return "-" if amount is None else f"{amount:.4f} {currency or ''}".rstrip()


def _per(value: float | None, unit: str) -> str:
    return _UNDEFINED if value is None else f"{value:,.0f} {unit}"


def _where(run: RunRecord) -> str:
    return f"trace {run.trace}" if run.trace else "no trace recorded"


def _endings(summary: ShiftSummary) -> list[str]:
    width = max(len(ending) for ending in ENDINGS)
    lines = [f"  {ending:<{width}}  {count:>5}" for ending, count in summary.endings.items()]
    return [*lines, f"  {'(total)':<{width}}  {sum(summary.endings.values()):>5}"]


# The attempts-to-pass bins of an order with no ticket (`cafe.report.summary`), as a manager reads them.
_UNPASSED_WORDS: Mapping[str, str] = {
    "exhausted": "cap reached",
    "blocked": "refused",
    "sent back": "sent back",
}


def _attempts_line(bins: Mapping[str, int]) -> str:
    """Orders by the attempt that passed, then those that never did, each bin in plain words:
    "passed on attempt 1: 4 orders, on attempt 2: 3, ...; no ticket: cap reached 6, ..."."""
    passed = [(key, n) for key, n in bins.items() if key.isdigit()]
    others = [(key, n) for key, n in bins.items() if not key.isdigit()]
    on = ", ".join(
        f"{'passed on attempt ' if i == 0 else 'on attempt '}{key}: {n}"
        for i, (key, n) in enumerate(passed)
    )
    rest = ", ".join(f"{_UNPASSED_WORDS.get(key, key)} {n}" for key, n in others)
    return f"Attempts to pass (orders): {on}; no ticket: {rest}"


def _spending(summary: ShiftSummary) -> list[str]:
    lines = [
        _attempts_line(summary.attempts_to_pass),
        f"Tokens: {summary.tokens:,} ({summary.input_tokens:,} in, {summary.output_tokens:,} out); "
        f"per accepted ticket: {_per(summary.tokens_per_accepted, 'tokens')}",
    ]
    if summary.cost is None:
        return lines
    per = summary.cost_per_accepted
    each = _UNDEFINED if per is None else _money(per, summary.currency)
    lines.append(f"Cost: {_money(summary.cost, summary.currency)}; per accepted ticket: {each}")
    by_ending = ", ".join(
        f"{ending} {_money(cost, summary.currency)}"
        for ending, cost in summary.cost_by_ending.items()
    )
    return [*lines, f"Cost by ending: {by_ending}"]


def _runs(summary: ShiftSummary) -> list[str]:
    lines = []
    if summary.failures_by_check:
        lines.append(
            "Failed checks: "
            + ", ".join(f"{check} {n}" for check, n in summary.failures_by_check.items())
        )
    if summary.slowest:
        lines += ["Slowest runs:"] + [
            f"  {run.run_id}  {run.seconds:.2f} s  {run.ending}  ({_where(run)})"
            for run in summary.slowest
        ]
    if summary.costliest:
        lines += ["Costliest runs:"] + [
            f"  {run.run_id}  {_money(cost, summary.currency)}  {run.ending}  ({_where(run)})"
            for run, cost in summary.costliest
        ]
    return lines


def render_text(summary: ShiftSummary) -> str:
    """The summary as a few plain lines for a terminal, with any secret in them masked."""
    head = (
        f"Shift report: {summary.runs} order{'s' if summary.runs != 1 else ''}, "
        f"{summary.accepted} ticket{'s' if summary.accepted != 1 else ''} accepted"
    )
    lines = [head, "", "How the orders ended:", *_endings(summary), ""]
    lines += _spending(summary) + _runs(summary)
    lines += [f"Note: {note}" for note in summary.notes]
    # Trace paths and notes come from the caller: one named with the key must not print it.
    return redact("\n".join(lines))
