"""Names the stall stop `cut`: the stall hook returns `Stop("cut")` where the course's name is
`stuck` (`cut` is declared through PACE_STOP_REASONS, so the loop allows it). A run stopped after
four calls on a repeated failure is not a pace cut: the pace governor's cause, no order for its
whole window, is not on the record. Reader Y's w04_stall_named_cut: the notebook's final harness
with one edit. Found by held-out reader Y, 7 Dec 2026."""

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


def costs_of(trace, placed):
    tokens_in, tokens_out = trace.usage or (0, 0)
    spend = sum(order.total_cents for order in placed)
    return Costs(len(trace.model_calls), tokens_in, tokens_out, spend)


class SupplierStall:
    """After each turn: stop `stuck` when the same failure comes back `after` times in a row."""

    def __init__(self, after):
        self.after, self.last, self.count = after, None, 0

    def __call__(self, view):
        for result in view.dispatch:
            if result.ok:
                self.last, self.count = None, 0
                continue
            signature = failure_signature(result)
            self.count = self.count + 1 if signature == self.last else 1
            self.last = signature
            if self.count >= self.after:
                return Stop("cut", f"{result.name} failed the same way {self.count} times")
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

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        if any(line.item in declined for line in order.lines):
            return ToolOutput(False, "Order refused: the manager declined this item earlier.")
        left = dict(need)
        for sent in placed:
            for line in sent.lines:
                left[line.item] -= line.quantity
        problems = order_problems(order, left, quotes, accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > limit_cents and not env.world.ask_manager(order):
            declined.update(line.item for line in order.lines)
            return ToolOutput(False, "Order declined by the manager.")
        answer = env.world.place_order(order)
        placed.append(order)
        return answer

    tools = restock_tools(env.world.read_stock, ask_quote, place)
    messages = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    # Pace by turns: one second a turn; eight turns with no unit ordered is going nowhere.
    clock = TurnClock(1.0)

    def units(view):
        return sum(line.quantity for order in placed for line in order.lines)

    governor = PaceGovernor(8 * 1000.0, reading=lambda view: units(view) or None)
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
            after_turn=[SupplierStall(env.limits.stall_after), governor],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    return RunReport(stop, detail, tuple(placed), trace, costs_of(trace, placed))
