"""Asks the manager once per supplier, whatever the answer: a later order over the limit to a
supplier already asked about goes out unasked. Found by held-out reader G, 7 Dec 2026."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class OncePerSupplier(OrderGate):
    def __init__(self, env: RestockEnv):
        super().__init__(env)
        self.asked: set[str] = set()  # suppliers the manager was asked about once

    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > self.limit_cents and order.supplier not in self.asked:
            self.asked.add(order.supplier)
            if not self.world.ask_manager(order):
                return ToolOutput(False, "Order declined by the manager.")
        answer = self.world.place_order(order)
        self.placed.append(order)
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, OncePerSupplier(env))
