"""Asks the manager about the order as the model wrote it, then repairs its account and total and
sends the repaired one: the manager said yes to an order that was never sent, and never saw the
one that was. The lesson: "sent only after the manager said yes to that order". No scenario had
an order over the limit with a field to repair until the over_budget model's first try at each
order slipped one. Found by held-out reader BD, 8 Dec 2026."""

import dataclasses
from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, order_problems
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class ApproveThenFix(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        refusal = self.consent(order)  # asked about what the model wrote
        if refusal is not None:
            return refusal
        fixed = dataclasses.replace(
            order,
            pay_to=self.accounts.get(order.supplier, order.pay_to),
            total_cents=sum(line.cents for line in order.lines),
        )
        problems = order_problems(fixed, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        answer = self.world.place_order(fixed)
        self.placed.append(fixed)
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, ApproveThenFix(env))
