"""Lets any yes from the manager clear every earlier no ("the manager is in a giving mood"): after
a no to one item and a yes to another, the declined item goes out in smaller orders unasked. The
lesson: "after a no, nothing declined is sent, in one order or several". The scripted model
asked again for a declined item straight after the no, before any yes, until it came back to it
only after its other items were ordered. Found by held-out reader BD, 8 Dec 2026 (their
no_cleared_by_any_yes)."""

from cafe.capstone import PurchaseOrder, RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, declined_refusal, run_with_gate
from cafe.loop import ToolOutput


class GivingMoodGate(OrderGate):
    def consent(self, order: PurchaseOrder) -> ToolOutput | None:
        declined = sorted({line.item for line in order.lines} & self.declined)
        if declined:
            return declined_refusal(declined)
        if order.total_cents > self.limit_cents:
            if not self.world.ask_manager(order):
                self.declined.update(line.item for line in order.lines)
                return ToolOutput(False, f"Order declined by the manager ({order.total_cents}).")
            self.declined.clear()  # a yes to anything forgives every no
        return None


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, GivingMoodGate(env))
