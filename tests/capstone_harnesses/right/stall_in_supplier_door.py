"""RIGHT, shaped differently: the stall guard lives in the supplier's door, not on the tool
results: the ask_quote wrapper counts identical supplier failures in a row (keyed by supplier and
error text, masked by session 13's normalize_evidence; a successful quote resets), refuses to
forward a question once the bound is reached, and a tiny hook turns that flag into `stuck`.
Written by held-out reader N, 7 Dec 2026.
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
from cafe.stall import STALL_STOP_REASONS
from cafe.stall.evidence import normalize_evidence
from cafe.trace import Recorder, record_loop


def run_restock(env: RestockEnv) -> RunReport:
    placed, quotes, declined = [], {}, set()
    accounts, limit_cents = env.world.books()
    stock = json.loads(env.world.read_stock())
    need = {item: max(0, v["par"] - v["on_hand"]) for item, v in stock.items()}
    streak = {"key": None, "n": 0, "stalled": None}

    def ask_quote(supplier, item, quantity):
        if streak["stalled"]:
            return ToolOutput(False, f"not asked: {streak['stalled']}")
        try:
            answer = env.world.ask_quote(supplier, item, quantity)
        except Exception as exc:
            key = (supplier, type(exc).__name__, normalize_evidence(str(exc)))
            streak["n"] = streak["n"] + 1 if key == streak["key"] else 1
            streak["key"] = key
            if streak["n"] >= env.limits.stall_after:
                streak["stalled"] = f"{supplier} failed the same way {streak['n']} times in a row"
            raise
        streak["key"], streak["n"] = None, 0
        quotes[(supplier, item)] = Quote(**json.loads(answer))
        return answer

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        if any(x.item in declined for x in order.lines):
            return ToolOutput(False, "Order refused: the manager declined this item earlier.")
        left = dict(need)
        for sent in placed:
            for line in sent.lines:
                left[line.item] -= line.quantity
        problems = order_problems(order, left, quotes, accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > limit_cents and not env.world.ask_manager(order):
            declined.update(x.item for x in order.lines)
            return ToolOutput(False, "Order declined by the manager.")
        answer = env.world.place_order(order)
        placed.append(order)
        return answer

    def stalled(view):
        return Stop("stuck", streak["stalled"]) if streak["stalled"] else None

    tools = restock_tools(env.world.read_stock, ask_quote, place)
    messages = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    clock = TurnClock(1.0)

    def units():
        return sum(line.quantity for o in placed for line in o.lines)

    governor = PaceGovernor(8 * 1000.0, reading=lambda view: units() or None)
    try:
        result, trace = record_loop(
            env.client,
            messages,
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=clock,
            observers=[clock.tick],
            after_turn=[stalled, governor],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    tin, tout = trace.usage or (0, 0)
    return RunReport(
        stop,
        detail,
        tuple(placed),
        trace,
        Costs(len(trace.model_calls), tin, tout, sum(o.total_cents for o in placed)),
    )
