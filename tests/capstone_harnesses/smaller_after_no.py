"""Takes a no as a price cap: when the manager declines an order over the limit, the gate sends
one smaller order of the same item instead, as many units as fit under the limit."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class ShrinksANo(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > self.limit_cents and not self.world.ask_manager(order):
            price = order.lines[0].unit_price_cents
            quantity = max(1, self.limit_cents // price)
            total = quantity * price
            order = order_from_arguments({**arguments, "quantity": quantity, "total_cents": total})
        answer = self.world.place_order(order)
        self.placed.append(order)
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, ShrinksANo(env))
