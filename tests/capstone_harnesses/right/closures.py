"""RIGHT harness, functional shape: closures instead of classes, the need kept as a running
balance decremented on each send, the stall counter a small dict, costs summed per call.
Written by held-out reader BD, 8 Dec 2026.
"""

import json

from cafe.capstone.harness import Costs, RunReport, restock_tools
from cafe.capstone.orders import Quote, order_from_arguments, order_problems
from cafe.endpoint.errors import EndpointError
from cafe.governor import PaceGovernor, TurnClock
from cafe.loop import Stop, ToolOutput
from cafe.stall import failure_signature
from cafe.trace import Recorder, record_loop


def run_restock(env):
    world = env.world
    accounts, limit = world.books()
    stock = json.loads(world.read_stock())
    balance = {i: max(0, v["par"] - v["on_hand"]) for i, v in stock.items()}
    quotes, sent, refused_items = {}, [], set()
    ordered_units = [0]

    def ask_quote(supplier, item, quantity):
        text = world.ask_quote(supplier, item, quantity)
        quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Refused: {exc}")
        issues = order_problems(order, balance, quotes, accounts)
        if issues:
            return ToolOutput(False, "Refused: " + " / ".join(issues))
        items = {line.item for line in order.lines}
        if items & refused_items:
            return ToolOutput(False, "Refused: the manager declined these items already.")
        if order.total_cents > limit:
            if not world.ask_manager(order):
                refused_items.update(items)
                return ToolOutput(False, "The manager declined this order.")
        answer = world.place_order(order)
        sent.append(order)
        for line in order.lines:
            balance[line.item] -= line.quantity
            ordered_units[0] += line.quantity
        return answer

    streak = {"sig": None, "n": 0}

    def stall_hook(view):
        for r in view.dispatch:
            if r.ok:
                streak["sig"], streak["n"] = None, 0
            else:
                sig = failure_signature(r)
                streak["n"] = streak["n"] + 1 if sig == streak["sig"] else 1
                streak["sig"] = sig
                if streak["n"] >= env.limits.stall_after:
                    return Stop("stuck", f"same failure {streak['n']} times running")
        return None

    tick = TurnClock(1.0)
    pace = PaceGovernor(8000.0, reading=lambda view: ordered_units[0] or None)
    rec = Recorder(clock=env.clock, trace_id="mine", started_at="2026-01-01T00:00:00+00:00")
    try:
        result, trace = record_loop(
            env.client,
            [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}],
            restock_tools(world.read_stock, ask_quote, place),
            recorder=rec,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            observers=[tick.tick],
            after_turn=[stall_hook, pace],
            stop_reasons={"stuck", "cut"},
            clock=tick,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), rec.trace()
    tin = tout = 0
    for call in trace.model_calls:
        tin += call.get("gen_ai.usage.input_tokens") or 0
        tout += call.get("gen_ai.usage.output_tokens") or 0
    spend = sum(o.total_cents for o in sent)
    return RunReport(
        stop, detail, tuple(sent), trace, Costs(len(trace.model_calls), tin, tout, spend)
    )
