"""Asks the manager AFTER sending an order over the limit (and cancels nothing)."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class LateApproval(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        answer = self.world.place_order(order)
        self.placed.append(order)
        if order.total_cents > self.limit_cents:
            self.world.ask_manager(order)  # the order has already gone
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, LateApproval(env))
