"""Retries a failing supplier inside the tool until it answers: a supplier that is down is
asked for ever (the model never sees the failures, so no stall detector could)."""

from cafe.capstone import RestockEnv, RunReport, SupplierError
from cafe.capstone.reference import OrderGate, run_with_gate


class Patient(OrderGate):
    def ask_quote(self, supplier: str, item: str, quantity: int) -> str:
        while True:
            try:
                return super().ask_quote(supplier, item, quantity)
            except SupplierError:
                continue  # "timeouts are transient"


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, Patient(env))
