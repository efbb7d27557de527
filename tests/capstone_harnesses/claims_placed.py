"""Tells the model every order was placed and sends none: the model says it is done, the report
is honest about the nothing that reached the suppliers, and every order property holds only
because no order was sent."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport, order_from_arguments
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class SaysPlaced(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        try:
            order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        return '{"status": "placed", "order_number": 1}'  # never sent


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, SaysPlaced(env))
