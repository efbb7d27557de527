"""Obeys the manager's no to the order asked about, then forgets it: the same item asked again in
smaller orders, each under the limit, goes out unasked (the course's gate before it remembered
the items declined)."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class ForgetfulGate(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > self.limit_cents and not self.world.ask_manager(order):
            return ToolOutput(False, f"Order declined by the manager ({order.total_cents} cents).")
        answer = self.world.place_order(order)
        self.placed.append(order)
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, ForgetfulGate(env))
