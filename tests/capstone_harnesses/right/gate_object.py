"""RIGHT, shaped differently: the gate is an object owning a ledger of the remaining need, which
it decrements only after the supplier accepted an order; quotes are kept per run on the object;
the stall hook keeps the whole streak as a list; the pace reading is the ledger's shortfall
(units still needed, negated so it rises as orders land).
Written by held-out reader G, 7 Dec 2026.
Declines remembered (added with F7, 7 Dec 2026: a no is to the item, so a smaller order of it
is refused too; the scripted model now asks for a declined item again in smaller orders)."""

import json

from cafe.capstone import (
    Costs,
    Quote,
    RestockEnv,
    RunReport,
    order_from_arguments,
    order_problems,
    restock_tools,
)
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock
from cafe.loop import Stop, ToolOutput
from cafe.stall import STALL_STOP_REASONS, failure_signature
from cafe.trace import Recorder, record_loop


class Gate:
    def __init__(self, world):
        self.world = world
        self.accounts, self.limit = world.books()
        stock = json.loads(world.read_stock())
        self.remaining = {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
        self.total_need = sum(self.remaining.values())
        self.quotes = {}
        self.sent = []
        self.declined = set()  # items the manager said no to

    def quote(self, supplier, item, quantity):
        text = self.world.ask_quote(supplier, item, quantity)
        q = Quote(**json.loads(text))  # a garbled reply raises: the tool fails, nothing is kept
        if (q.supplier, q.item) == (supplier, item):  # kept under what WE asked, never what it says
            self.quotes[(supplier, item)] = q
        return text

    def order(self, arguments):
        try:
            po = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Refused: {exc}")
        if any(x.item in self.declined for x in po.lines):
            return ToolOutput(False, "The manager declined this item earlier; it was not sent.")
        problems = order_problems(po, dict(self.remaining), dict(self.quotes), self.accounts)
        if problems:
            return ToolOutput(False, "Refused: " + " | ".join(problems))
        if po.total_cents > self.limit:
            yes = self.world.ask_manager(po)
            if yes is not True:
                self.declined.update(x.item for x in po.lines)
                return ToolOutput(False, "The manager did not approve this order; it was not sent.")
        text = self.world.place_order(po)
        self.sent.append(po)
        for line in po.lines:
            self.remaining[line.item] -= line.quantity
        return text

    def progress(self, view):
        shortfall = sum(self.remaining.values())
        moved = self.total_need - shortfall
        return moved or None


class Streak:
    def __init__(self, bound):
        self.bound, self.streak = bound, []

    def __call__(self, view):
        for r in view.dispatch:
            if r.ok:
                self.streak = []
                continue
            sig = failure_signature(r)
            self.streak = (self.streak + [sig]) if self.streak and self.streak[-1] == sig else [sig]
            if len(self.streak) >= self.bound:
                return Stop("stuck", f"{r.name}: {len(self.streak)} identical failures in a row")
        return None


def run_restock(env: RestockEnv) -> RunReport:
    gate = Gate(env.world)
    tools = restock_tools(env.world.read_stock, gate.quote, gate.order)
    pace_clock = TurnClock(1.0)
    recorder = Recorder(
        clock=env.clock, trace_id="restock-g", started_at="2026-01-01T00:00:00+00:00"
    )
    try:
        result, trace = record_loop(
            env.client,
            [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}],
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=pace_clock,
            observers=[pace_clock.tick],
            after_turn=[
                Streak(env.limits.stall_after),
                PaceGovernor(8000.0, reading=gate.progress),
            ],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        trace = recorder.trace()
        stop, detail = "endpoint_failed", str(exc)
    usage = trace.usage or (0, 0)
    costs = Costs(len(trace.model_calls), usage[0], usage[1], sum(p.total_cents for p in gate.sent))
    return RunReport(stop, detail, tuple(gate.sent), trace, costs)
