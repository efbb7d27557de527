"""WRONG (costs): on an endpoint failure, reports its orders but no spend (nothing 'was
billed' yet). Written beside held-out reader CA's costs_endpoint_reset, 8 Dec 2026."""

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

WINDOW = 8


class Stall:
    def __init__(self, after):
        self.after, self.last, self.count = after, None, 0

    def __call__(self, view):
        for result in view.dispatch:
            if result.ok:
                self.last, self.count = None, 0  # RESET
                continue
            sig = failure_signature(result)  # SIG
            self.count = self.count + 1 if sig == self.last else 1
            self.last = sig
            if self.count >= self.after:  # STALLCMP
                return Stop("stuck", f"{result.name} failed the same way {self.count} times")
        return None


def run_restock(env: RestockEnv) -> RunReport:
    placed, quotes, declined = [], {}, set()
    accounts, limit_cents = env.world.books()
    stock = json.loads(env.world.read_stock())
    need = {item: max(0, v["par"] - v["on_hand"]) for item, v in stock.items()}

    def ask_quote(supplier, item, quantity):
        answer = env.world.ask_quote(supplier, item, quantity)
        quotes[(supplier, item)] = Quote(**json.loads(answer))
        return answer

    def remaining():
        left = dict(need)
        for sent in placed:
            for line in sent.lines:
                left[line.item] -= line.quantity
        return left

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        # PRECHECK
        if any(line.item in declined for line in order.lines):
            return ToolOutput(False, "Order refused: the manager declined this item earlier.")
        problems = order_problems(order, remaining(), quotes, accounts)  # PROBLEMS
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > limit_cents:  # OVERLIMIT
            if not env.world.ask_manager(order):
                declined.update(line.item for line in order.lines)
                return ToolOutput(False, "Order declined by the manager.")
            # YES
        answer = env.world.place_order(order)
        placed.append(order)
        return answer

    tools = restock_tools(env.world.read_stock, ask_quote, place)
    messages = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    clock = TurnClock(1.0)

    def units(view):
        return sum(line.quantity for o in placed for line in o.lines) or None  # READING

    governor = PaceGovernor(WINDOW * 1000.0, reading=units)
    failed = False
    try:
        result, trace = record_loop(
            env.client,
            messages,
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,  # CAP
            observers=[clock.tick],
            after_turn=[Stall(env.limits.stall_after), governor],  # HOOKS
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
            clock=clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
        failed = True
    tin, tout = trace.usage or (0, 0)  # TOKENS
    calls = len(trace.model_calls)  # CALLS
    spend = 0 if failed else sum(o.total_cents for o in placed)  # SPEND
    return RunReport(stop, detail, tuple(placed), trace, Costs(calls, tin, tout, spend))  # REPORT
