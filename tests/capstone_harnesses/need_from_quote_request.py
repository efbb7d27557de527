"""Takes the need from the model: an item's need is the quantity the model asked the supplier to
quote ("it read the stock, so it knows"), not the stock's own par less on hand. Passed every seed
while the scripted model never asked a quote for more than was needed. Found by held-out reader
N, 7 Dec 2026."""

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, run_with_gate


class NeedFromTheModel(OrderGate):
    def ask_quote(self, supplier: str, item: str, quantity: int) -> str:
        answer = super().ask_quote(supplier, item, quantity)
        self.need[item] = quantity  # what the model asked for, taken as the need
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, NeedFromTheModel(env))
