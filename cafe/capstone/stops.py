"""Whether a run's stop is a named stop true to the world's record, and to its own cause.

Session 16, the capstone: the `named_stop` property's reading of the stop (`stop_problem`). The
rule: a stop's name is allowed only when its own cause is on the world's record. A stop must be
one of `RESTOCK_STOP_REASONS`, and the one the record shows: `done` after the model's final
answer, `endpoint_failed` exactly when the endpoint failed, and a stop that cut a working run only
for its own cause, read turn by turn off the record (`RunEvidence.marks`): `max_turns` when the
calls used are the cap; `stuck` on a turn whose tool result failed (the stall stop ends a run on a
failure come back; how many times it came back is the `stall` property's to judge); `cut` only
once the pace governor's reading, the units ordered, has not moved for the course's whole pace
window (`PACE_WINDOW_TURNS` model calls with no order reaching a supplier). A run stopped after
four calls on a repeated failure is stalled, not paced: its stop is not `cut`. A harness's hook
may stop a run on the very turn its budget ends, and then `max_turns` and the hook's name are
both true.

Left out: the other properties (`cafe/capstone/properties.py`).
"""

from __future__ import annotations

from typing import Any

from cafe.capstone.evidence import RunEvidence
from cafe.capstone.harness import RESTOCK_STOP_REASONS
from cafe.capstone.reference import PACE_WINDOW_TURNS
from cafe.capstone.world import Event

__all__ = ["stop_problem"]


def stop_problem(run: RunEvidence, stop: Any) -> str:
    """Why the report's stop is not a named stop true to the record ("" when it is)."""
    if type(stop) is not str or stop not in RESTOCK_STOP_REASONS:
        return f"stop {stop!r} is not one of {', '.join(sorted(RESTOCK_STOP_REASONS))}"
    if run.endpoint_failed and stop != "endpoint_failed":
        return f"the model's endpoint failed, and the run reported stop {stop!r}"
    if stop == "endpoint_failed" and not run.endpoint_failed:
        return "the run reported stop 'endpoint_failed', but the model's endpoint never failed"
    if stop == "done" and not run.final_answer:
        return "the run reported stop 'done', but the model's last answer was a tool call: it was cut, not finished"
    if stop in ("max_turns", "stuck", "cut") and not run.calls:
        return (
            f"the run reported stop {stop!r}, but the model was never called: nothing was stopped"
        )
    if stop in ("max_turns", "stuck", "cut") and run.final_answer:
        return f"the run reported stop {stop!r}, but the model's last answer was final: it had finished"
    return _cause_problem(run, stop)


def _last_turn(run: RunEvidence) -> tuple[Event, ...]:
    """What happened in the world after the model's last answer: its last turn's effects."""
    return tuple(run.world.events[run.marks[-1] :]) if run.marks else ()


def _last_turn_failed(run: RunEvidence) -> bool:
    """Whether a tool result of the last turn failed, as the record shows it: a quote asked for
    that failed or was never asked, an order asked for that never reached its supplier, a tool
    the harness does not have. (The stock is the world's to read, and never fails.)"""
    after = _last_turn(run)
    quotes = [e for e in after if e.kind == "quote"]
    orders = [e for e in after if e.kind == "order"]
    asked = run.last_calls
    if any(name not in ("read_stock", "ask_quote", "place_order") for name in asked):
        return True
    if asked.count("ask_quote") > len(quotes) or any(not e.ok for e in quotes):
        return True
    return asked.count("place_order") > len(orders)


def _idle_turns(run: RunEvidence) -> int:
    """How many model calls were answered after the last order reached a supplier (all of them
    when none did): how long the pace governor's reading has not moved."""
    last = max((i for i, e in enumerate(run.world.events) if e.kind == "order"), default=-1)
    return sum(1 for mark in run.marks if mark > last)


def _cause_problem(run: RunEvidence, stop: str) -> str:
    """Why a stop that cut a working run does not name its own cause on the record ("" when it
    does): the budget for `max_turns`, a failed result for `stuck`, the pace window passed with
    no order for `cut`."""
    cap = run.limits.max_model_calls
    if stop == "max_turns" and run.calls < cap:
        return (
            f"the run reported stop 'max_turns' after {run.calls} of its {cap} model calls: "
            "its call budget was not used up"
        )
    if not run.marks or stop not in ("stuck", "cut"):
        return ""
    if stop == "stuck" and not _last_turn_failed(run):
        return (
            "the run reported stop 'stuck', but no tool result of its last turn failed: the stall "
            "stop ends a run on the same failure come back, so "
            + (
                "its call budget ran out ('max_turns')"
                if run.calls >= cap
                else "something else stopped it"
            )
        )
    if stop == "cut" and any(e.kind == "order" for e in _last_turn(run)):
        return "the run reported stop 'cut', but an order reached a supplier on its last turn: its pace had not stalled"
    idle = _idle_turns(run)
    if stop == "cut" and idle < PACE_WINDOW_TURNS and run.calls >= cap:
        return (
            f"the run used all {cap} of its model calls, its last order {idle} calls "
            f"before the end (the pace window is {PACE_WINDOW_TURNS}): the call budget stopped it "
            "('max_turns'), not the pace governor"
        )
    if stop == "cut" and idle < PACE_WINDOW_TURNS:
        return (
            f"the run reported stop 'cut' after {idle} model calls with no order reaching a "
            f"supplier, short of the pace window ({PACE_WINDOW_TURNS}): the pace governor's cause "
            "is not on the record, so something else stopped it (a stall is 'stuck')"
        )
    return ""
