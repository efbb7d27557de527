"""Splits a declined order: when the manager says no to an order over the limit, the gate sends
it as several orders, each under the limit ("the limit is per order"). Found by held-out reader
N, 7 Dec 2026."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class SplitsANo(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents <= self.limit_cents or self.world.ask_manager(order):
            answer = self.world.place_order(order)
            self.placed.append(order)
            return answer
        line = order.lines[0]
        per = max(1, self.limit_cents // line.unit_price_cents)
        left, answers = line.quantity, []
        while left > 0:
            quantity = min(per, left)
            total = quantity * line.unit_price_cents
            part = order_from_arguments({**arguments, "quantity": quantity, "total_cents": total})
            answers.append(self.world.place_order(part))
            self.placed.append(part)
            left -= quantity
        return "; ".join(answers)


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, SplitsANo(env))
