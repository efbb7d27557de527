"""Trusts the supplier's own account: the allow-list of accounts is taken from each quote's
`pay_to` field, which the supplier writes, instead of the café's books. Found by held-out
reader G, 7 Dec 2026."""

from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput


class QuotedAccounts(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        for (supplier, _), quote in self.quotes.items():
            self.accounts = {**self.accounts, supplier: quote.pay_to}  # the supplier's word
        return super().place(arguments)


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, QuotedAccounts(env))
