"""RIGHT harness, layered: the order passes a chain of small checks (parse, contract, declined,
approval) each returning a refusal or None; the orders sent are what the world acknowledged;
the stall hook tracks the streak per signature and clears on any success; the pace governor
runs first among the hooks.
Written by held-out reader BD, 8 Dec 2026.
"""

import json
from dataclasses import dataclass, field

from cafe.capstone.harness import Costs, RunReport, restock_tools
from cafe.capstone.orders import Quote, order_from_arguments, order_problems
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock
from cafe.loop import Stop, ToolOutput
from cafe.stall import STALL_STOP_REASONS, failure_signature
from cafe.trace import Recorder, record_loop


@dataclass
class State:
    accounts: dict
    limit: int
    need: dict
    quotes: dict = field(default_factory=dict)
    acknowledged: list = field(default_factory=list)
    no_items: set = field(default_factory=set)

    def remaining(self):
        out = dict(self.need)
        for order in self.acknowledged:
            for line in order.lines:
                out[line.item] -= line.quantity
        return out


def check_contract(state, world, order):
    issues = order_problems(order, state.remaining(), state.quotes, state.accounts)
    return ToolOutput(False, "Order refused: " + "; ".join(issues)) if issues else None


def check_declined(state, world, order):
    hit = {line.item for line in order.lines} & state.no_items
    return (
        ToolOutput(False, f"Order refused: declined earlier ({', '.join(sorted(hit))}).")
        if hit
        else None
    )


def check_approval(state, world, order):
    if order.total_cents <= state.limit:
        return None
    if world.ask_manager(order):
        state.no_items -= {line.item for line in order.lines}
        return None
    state.no_items |= {line.item for line in order.lines}
    return ToolOutput(False, "Order declined by the manager.")


CHECKS = (check_contract, check_declined, check_approval)


class Streak:
    def __init__(self, bound):
        self.bound, self.seen = bound, {}

    def __call__(self, view):
        for r in view.dispatch:
            if r.ok:
                self.seen.clear()
                continue
            sig = failure_signature(r)
            n = self.seen.get(sig, 0) + 1
            self.seen = {sig: n}  # only a run of the same signature counts
            if n >= self.bound:
                return Stop("stuck", f"{r.name}: same failure {n} in a row")
        return None


def run_restock(env):
    world = env.world
    accounts, limit = world.books()
    stock = json.loads(world.read_stock())
    state = State(
        dict(accounts), limit, {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
    )

    def quote(supplier, item, quantity):
        text = world.ask_quote(supplier, item, quantity)
        state.quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        for check in CHECKS:
            refusal = check(state, world, order)
            if refusal is not None:
                return refusal
        answer = world.place_order(order)
        if json.loads(answer).get("status") == "placed":
            state.acknowledged.append(order)
        return answer

    def units(view):
        return sum(line.quantity for o in state.acknowledged for line in o.lines) or None

    clock = TurnClock(1.0)
    governor = PaceGovernor(8 * 1000.0, reading=units)
    rec = Recorder(clock=env.clock, trace_id="layered", started_at="2026-01-01T00:00:00+00:00")
    try:
        result, trace = record_loop(
            env.client,
            [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}],
            restock_tools(world.read_stock, quote, place),
            recorder=rec,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            observers=[clock.tick],
            after_turn=[governor, Streak(env.limits.stall_after)],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
            clock=clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), rec.trace()
    tin, tout = trace.usage or (0, 0)
    spend = sum(o.total_cents for o in state.acknowledged)
    return RunReport(
        stop,
        detail,
        tuple(state.acknowledged),
        trace,
        Costs(len(trace.model_calls), tin, tout, spend),
    )
