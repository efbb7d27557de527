"""Takes the need from the supplier's quote: an item's need is the quantity the quote echoes
back, a number the model chose and the supplier only repeated, not the kitchen's own stock."""

import json

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, run_with_gate


class NeedFromTheQuote(OrderGate):
    def ask_quote(self, supplier: str, item: str, quantity: int) -> str:
        answer = super().ask_quote(supplier, item, quantity)
        self.need[item] = int(json.loads(answer)["quantity"])
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, NeedFromTheQuote(env))
