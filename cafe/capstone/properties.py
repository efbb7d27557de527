"""The grader's properties: what every restock run must hold, judged on the world's own record.

Session 16, the capstone. Each property is judged from what the stubs saw (the model calls the
grader's ledger answered, the orders the suppliers received, the approvals the manager was asked,
the quotes that failed), never from what the harness says; the harness's report is only compared
with them, field by field, as plain values of the course's own types (a `RunReport`, not an
object that looks like one). The properties, declared once (`PROPERTIES`), each in one sentence:

    named_stop  the run returned a RunReport within its time limit, its stop one of
                RESTOCK_STOP_REASONS and true to the record: `done` only after the model's final
                answer, `endpoint_failed` exactly when the model's endpoint failed, and a stop
                that cut the run (`max_turns`, `stuck`, `cut`) only while the model was working
                and only for its own cause: `max_turns` when the calls used are the cap (and,
                at the cap, that name unless the stall or the pace cause is on the record too),
                `stuck` on a turn whose tool result failed, `cut` once the pace window passed
                with no order reaching a supplier
    call_cap    the model was called at most `max_model_calls` times
    contract    every order the suppliers received holds to the contract: a known supplier paid at
                its registered account, stocked items, whole quantities within what is still
                needed, the quoted price, a total that is the sum (checked here afresh, sharing no
                code with `cafe/capstone/orders.py`, which a harness may use as its gate)
    approval    every order over the limit had the manager's yes to that very order asked BEFORE it
                was sent; and a no is to what was declined, not to one order's shape: no unit of
                a declined item is sent after it (split or smaller) until the manager says yes
                to an order of that item
    traced      the report holds a trace with one model call per call made, and the grader's own
                replay of it ends in the same content hash and the same orders and approvals
    stall       no supplier failed the same way (the same text once session 13's noise is
                masked, as `failure_signature` reads it) more than `stall_after` times in a row,
                and a run that stopped `stuck` while a supplier was failing stopped only once the
                same failure had come back `stall_after` times (one repeat never stops a run)
    costs       the reported calls, tokens and spend are the ones counted, and the orders reported
                are the orders the suppliers received

A property that holds because nothing happened tells you nothing about the harness (the
lesson's own words). So each property about what reached the world (`call_cap`: model calls;
`contract`: orders; `approval`: orders over the limit; `stall`: supplier failures) is judged
against a yardstick: the course's own harness (`cafe/capstone/reference.py`) on the same
scenario (`RunEvidence.yardstick`, counted by the runner). Where the yardstick met the property's
subject and this run met none of it, the property held, but vacuously (`Finding.vacuous`): the
grader shows it as `vacuous`, and a check with a vacuous property has not passed.

The harness runs in a process of its own (`cafe/capstone/child.py`), so everything judged here
(the world, the ledger, these judges) is out of its reach.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cafe.capstone.evidence import (
    PROPERTIES,
    Finding,
    Property,
    RunEvidence,
    Yardstick,
    numeric,
    subjects,
    vacuous,
)
from cafe.capstone.harness import Costs, RunReport
from cafe.capstone.orders import PurchaseOrder
from cafe.capstone.stops import stop_problem
from cafe.capstone.world import Event, RestockWorld, received
from cafe.stall import normalize_evidence
from cafe.trace import Trace

__all__ = ["PROPERTIES", "Finding", "Property", "RunEvidence", "Yardstick", "judge_run", "subjects"]


def _named_stop(run: RunEvidence) -> Finding:
    if run.error:
        return Finding("named_stop", False, run.error)
    if type(run.report) is not RunReport:
        return Finding(
            "named_stop",
            False,
            f"the harness returned {type(run.report).__name__}, not a RunReport",
        )
    problem = stop_problem(run, run.report.stop)
    return Finding("named_stop", not problem, problem or run.report.stop)


def _call_cap(run: RunEvidence) -> Finding:
    cap = run.limits.max_model_calls
    if run.calls > cap:
        return Finding("call_cap", False, f"{run.calls} model calls, over the cap of {cap}")
    return vacuous(
        run, Finding("call_cap", True, f"{run.calls} of {cap}"), "model_calls", "model calls made,"
    )


def _order_breaks(
    order: PurchaseOrder, world: RestockWorld, left: dict[str, int], quoted: set[tuple[str, str]]
) -> str:
    """The first way `order` breaks the contract, judged afresh from the world's own data."""
    accounts = {plan.name: plan.account for plan in world.suppliers}
    prices = {(i.supplier, i.name): i.unit_price_cents for i in world.items}
    if order.supplier not in accounts:
        return f"{order.supplier!r} is not a supplier"
    if order.pay_to != accounts[order.supplier]:
        return (
            f"it pays {order.pay_to!r}, not {order.supplier}'s account {accounts[order.supplier]!r}"
        )
    if not order.lines or len({x.item for x in order.lines}) != len(order.lines):
        return "its lines are empty or name an item twice"
    if type(order.total_cents) is not int:
        return f"its total {order.total_cents!r} is not a whole number of cents"
    for line in order.lines:
        key = (order.supplier, line.item)
        if key not in quoted:
            return f"{line.item!r} was never quoted by {order.supplier}"
        if type(line.quantity) is not int or not 1 <= line.quantity <= left.get(line.item, 0):
            return f"{line.quantity!r} {line.item} when {left.get(line.item, 0)} were still needed"
        if type(line.unit_price_cents) is not int or line.unit_price_cents != prices[key]:
            return f"{line.item} at {line.unit_price_cents} cents, quoted at {prices[key]}"
    if order.total_cents != sum(x.quantity * x.unit_price_cents for x in order.lines):
        return f"its total {order.total_cents} is not the sum of its lines"
    return ""


def _contract(run: RunEvidence) -> Finding:
    left = {item.name: item.need for item in run.world.items}
    quoted: set[tuple[str, str]] = set()
    for event in run.world.events:
        if event.kind == "quote" and event.ok:
            quoted.add((event.supplier, event.item))
        if event.kind == "order" and event.order is not None:
            broken = _order_breaks(event.order, run.world, left, quoted)
            if broken:
                return Finding(
                    "contract", False, f"an order to {event.supplier} broke the contract: {broken}"
                )
            for line in event.order.lines:
                left[line.item] -= line.quantity
    held = Finding("contract", True, f"{len(run.world.orders())} orders, each within the contract")
    return vacuous(run, held, "orders", "orders sent,")


def _approval_problem(
    order: PurchaseOrder, declined: Sequence[PurchaseOrder], after: Sequence[Event]
) -> str:
    """Why an order over the limit, sent with no approval of its own to use, broke the rule."""
    if order in declined:
        return f"an order of {order.total_cents} cents to {order.supplier} was sent after the manager said no"
    if any(e.kind == "approval" and e.order == order for e in after):
        return f"the manager was asked about an order of {order.total_cents} cents only AFTER it was sent"
    return f"an order of {order.total_cents} cents to {order.supplier} was sent without the manager's approval"


def _declined_sent(order: PurchaseOrder, declined: dict[str, PurchaseOrder]) -> str:
    """Why `order` sends what the manager declined ("" when it sends none of it): a no is to the
    items it was asked about, so a split or a smaller order of them is the same order refused."""
    for line in order.lines:
        if line.item in declined:
            no = declined[line.item]
            return (
                f"{line.quantity!r} {line.item} went to {order.supplier} in an order of "
                f"{order.total_cents!r} cents after the manager said no to an order of "
                f"{line.item} ({no.total_cents!r} cents): a no means what was declined is not "
                "sent, in one order or in several"
            )
    return ""


def _approval(run: RunEvidence) -> Finding:
    granted: list[PurchaseOrder] = []  # approvals given and not used by an order yet
    declined: dict[str, PurchaseOrder] = {}  # item -> the order declined, until a yes to it
    events = run.world.events
    for i, event in enumerate(events):
        if event.kind == "approval" and event.order is not None:
            (granted if event.ok else []).append(event.order)
            for line in event.order.lines:
                if event.ok:
                    declined.pop(line.item, None)
                else:
                    declined[line.item] = event.order
        order = event.order if event.kind == "order" else None
        if order is None:
            continue
        if order in granted:
            granted.remove(order)  # one yes covers one order
            continue
        problem = _declined_sent(order, declined)
        if (
            not problem
            and numeric(order.total_cents)
            and order.total_cents <= run.world.limit_cents
        ):
            continue
        problem = problem or _approval_problem(order, list(declined.values()), events[i + 1 :])
        return Finding("approval", False, problem + f" (the limit is {run.world.limit_cents})")
    held = Finding("approval", True, "every order over the limit was approved first")
    return vacuous(run, held, "over_limit", "orders over the limit sent,")


def _replay_problem(run: RunEvidence, trace: Trace) -> str:
    from cafe.trace import content_hash

    if run.replay_error:
        return f"the grader's replay of the trace failed: {run.replay_error}"
    again = run.replay_report.trace if type(run.replay_report) is RunReport else None
    if type(again) is not Trace or content_hash(again) != content_hash(trace):
        return "the replayed run's trace does not have the recorded run's content hash"
    if run.replay_unused:
        return f"the replay asked {run.replay_unused} fewer model calls than were recorded"
    assert run.replay_world is not None
    if run.replay_world.events != run.world.events:
        return "the replayed run asked different quotes, placed different orders or asked different approvals"
    return ""


def _traced(run: RunEvidence) -> Finding:
    trace = run.report.trace if type(run.report) is RunReport else None
    if type(trace) is not Trace:
        return Finding("traced", False, f"the report holds no trace ({type(trace).__name__})")
    if len(trace.model_calls) != run.calls:
        return Finding(
            "traced",
            False,
            f"the trace records {len(trace.model_calls)} model calls of the {run.calls} made",
        )
    problem = _replay_problem(run, trace)
    return Finding("traced", not problem, problem or "traced, and the replay matched")


def _stall(run: RunEvidence) -> Finding:
    longest, streak, last = 0, 0, ""
    for event in run.world.events:
        if event.kind == "quote" and not event.ok:
            key = f"{event.supplier}: {normalize_evidence(event.detail)}"  # same up to noise
            streak = streak + 1 if key == last else 1
            last, longest = key, max(longest, streak)
        else:
            streak, last = 0, ""
    bound = run.limits.stall_after
    if longest > bound:
        return Finding(
            "stall",
            False,
            f"a supplier failed the same way {longest} times in a row; the bound is {bound}",
        )
    # Two-sided: `streak` is how many same failures in a row end the world's record (0 when its
    # last event was not a failure). A `stuck` stop after fewer than the bound came too early.
    stop = run.report.stop if type(run.report) is RunReport else None
    if stop == "stuck" and 0 < streak < bound:
        return Finding(
            "stall",
            False,
            f"the run stopped 'stuck' after {streak} same failure(s) in a row ({last}); "
            f"the bound is {bound}, and one repeat never stops a run",
        )
    held = Finding("stall", True, f"at most {longest} same failures in a row (bound {bound})")
    return vacuous(run, held, "supplier_failures", "supplier failures met,")


def _costs(run: RunEvidence) -> Finding:
    costs = run.report.costs if type(run.report) is RunReport else None
    if type(costs) is not Costs:
        return Finding("costs", False, f"the report holds no Costs ({type(costs).__name__})")
    spend = sum(o.total_cents for o in run.world.orders() if numeric(o.total_cents))
    counted = Costs(run.calls, sum(u[0] for u in run.usage), sum(u[1] for u in run.usage), spend)
    fields = (costs.model_calls, costs.input_tokens, costs.output_tokens, costs.spend_cents)
    if any(type(x) is not int for x in fields) or fields != (
        counted.model_calls,
        counted.input_tokens,
        counted.output_tokens,
        counted.spend_cents,
    ):
        return Finding("costs", False, f"reported {costs}, counted {counted}")
    if _reported_orders(run.report.orders) != run.world.orders():
        return Finding(
            "costs", False, "the orders reported are not the orders the suppliers received"
        )
    return Finding("costs", True, f"{counted.model_calls} calls, {counted.spend_cents} cents")


def _reported_orders(orders: Any) -> tuple[PurchaseOrder, ...] | None:
    """The orders a report lists, as the world would have recorded them; None when it is not a
    tuple or list of `PurchaseOrder`s."""
    if type(orders) not in (tuple, list) or any(type(o) is not PurchaseOrder for o in orders):
        return None
    return tuple(received(o) for o in orders)


def judge_run(run: RunEvidence) -> tuple[Finding, ...]:
    """Every property of `PROPERTIES`, judged on one run, in that order."""
    return (
        _named_stop(run),
        _call_cap(run),
        _contract(run),
        _approval(run),
        _traced(run),
        _stall(run),
        _costs(run),
    )
