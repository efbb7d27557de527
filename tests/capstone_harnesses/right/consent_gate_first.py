"""Right, by held-out reader Y (7 Dec 2026, their r3): a list of check steps (declined-before
first, then the contract against need read live, then consent), live stock re-read at each
order, a Counter of units sent, spend summed line by line, the stall hook a closure over a list."""

import json
from collections import Counter

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


def make_stall_hook(bound):
    streak = []  # the signatures of the current run of identical failures

    def hook(view):
        for result in view.dispatch:
            if result.ok:
                streak.clear()
                continue
            sig = failure_signature(result)
            if streak and streak[-1] != sig:
                streak.clear()
            streak.append(sig)
            if len(streak) == bound:
                return Stop("stuck", f"{result.name} failed the same way {bound} times running")
        return None

    return hook


def run_restock(env: RestockEnv) -> RunReport:
    accounts, limit = env.world.books()
    ordered = Counter()
    sent, quotes, refused_by_manager = [], {}, set()

    def need_now():
        stock = json.loads(env.world.read_stock())
        return {i: max(0, v["par"] - v["on_hand"]) - ordered[i] for i, v in stock.items()}

    def quote(supplier, item, quantity):
        text = env.world.ask_quote(supplier, item, quantity)
        quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        keys = {(order.supplier, line.item) for line in order.lines}
        big = order.total_cents > limit
        steps = [
            lambda: ["the manager already declined this"] if keys & refused_by_manager else [],
            lambda: order_problems(order, need_now(), quotes, accounts),
        ]
        for step in steps:
            problems = step()
            if problems:
                return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if big and not env.world.ask_manager(order):
            refused_by_manager.update(keys)
            return ToolOutput(False, "Order refused: the manager said no.")
        reply = env.world.place_order(order)
        sent.append(order)
        for line in order.lines:
            ordered[line.item] += line.quantity
        return reply

    clock = TurnClock(1.0)
    governor = PaceGovernor(8 * 1000.0, reading=lambda view: sum(ordered.values()) or None)
    recorder = Recorder(clock=env.clock, trace_id="r3", started_at="2026-01-01T00:00:00+00:00")
    try:
        result, trace = record_loop(
            env.client,
            [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}],
            restock_tools(env.world.read_stock, quote, place),
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=clock,
            observers=[clock.tick],
            after_turn=[make_stall_hook(env.limits.stall_after), governor],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    usage = trace.usage or (0, 0)
    spend = sum(line.cents for o in sent for line in o.lines)
    return RunReport(
        stop, detail, tuple(sent), trace, Costs(len(trace.model_calls), usage[0], usage[1], spend)
    )
