"""RIGHT, shaped differently: the gate corrects instead of only refusing: whatever account, price
and quantity the model names, the order sent pays the books' account, at the quoted price, for at
most the remaining need (then order_problems as a backstop).
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

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        left = dict(need)
        for sent in placed:
            for line in sent.lines:
                left[line.item] -= line.quantity
        # Correct, don't just check: the account from the books, the price from the quote, the
        # quantity clamped to what is still needed; then the contract check as a backstop.
        line = order.lines[0]
        if line.item in declined:
            return ToolOutput(False, f"Order refused: the manager declined {line.item} earlier.")
        quote = quotes.get((order.supplier, line.item))
        if quote is None:
            return ToolOutput(
                False, f"Order refused: no quote from {order.supplier} for {line.item}."
            )
        qty = min(line.quantity, left.get(line.item, 0))
        if qty <= 0:
            return ToolOutput(False, f"Order refused: nothing more of {line.item} is needed.")
        order = order_from_arguments(
            {
                "supplier": order.supplier,
                "item": line.item,
                "quantity": qty,
                "unit_price_cents": quote.unit_price_cents,
                "total_cents": qty * quote.unit_price_cents,
                "pay_to": accounts.get(order.supplier, ""),
            }
        )
        problems = order_problems(order, left, quotes, accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > limit_cents and not env.world.ask_manager(order):
            declined.update(x.item for x in order.lines)
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
