"""Compares the spending limit in whole euros (`total // 100 > limit // 100`), so an order 1 to 99
cents over the limit goes out without the manager being asked. The lesson: "an order over the
spending limit is sent only after the manager said yes to that order". No scenario drew a total
under a euro over the limit until over_budget's third item was priced 1 to 12 cents over it.
Found by held-out reader BD, 8 Dec 2026."""

from cafe.capstone import PurchaseOrder, RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, declined_refusal, run_with_gate
from cafe.loop import ToolOutput


class EuroGate(OrderGate):
    def consent(self, order: PurchaseOrder) -> ToolOutput | None:
        declined = sorted({line.item for line in order.lines} & self.declined)
        if declined:
            return declined_refusal(declined)
        over = order.total_cents // 100 > self.limit_cents // 100  # "the manager thinks in euros"
        if over and not self.world.ask_manager(order):
            self.declined.update(line.item for line in order.lines)
            return ToolOutput(False, f"Order declined by the manager ({order.total_cents} cents).")
        return None


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, EuroGate(env))
