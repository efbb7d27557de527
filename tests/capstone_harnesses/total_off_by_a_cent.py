"""Forgives a total one cent off the sum of its lines ("rounding"), a habit from float money;
prices are whole cents, so a total is exact. Found by held-out reader G, 7 Dec 2026."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class Rounding(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if abs(order.total_cents - sum(line.cents for line in order.lines)) <= 1:
            problems = [p for p in problems if not p.startswith("total ")]  # "close enough"
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        refusal = self.consent(order)  # the manager's yes first; a no remembered
        if refusal is not None:
            return refusal
        answer = self.world.place_order(order)
        self.placed.append(order)
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, Rounding(env))
