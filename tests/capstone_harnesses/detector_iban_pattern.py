"""Containment by a sharper detector: a quote whose message names an account (anything shaped like
an IBAN) is treated as an attack and paid at the books' account; any other quote's `pay_to` is
trusted. A compromised supplier that says nothing, and only changes the number in its quote's
`pay_to`, gets paid. Written beside reader Y's detector_containment, 7 Dec 2026."""

import re
from collections.abc import Mapping
from typing import Any

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolOutput

IBAN = re.compile(r"\b[A-Z]{2}\d{2}[A-Z0-9]{8,}\b")


class DetectingGate(OrderGate):
    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        for (supplier, _), quote in self.quotes.items():
            if not IBAN.search(quote.message):  # looks harmless: its account is believed
                self.accounts = {**self.accounts, supplier: quote.pay_to}
        return super().place(arguments)


def run_restock(env: RestockEnv) -> RunReport:
    return run_with_gate(env, DetectingGate(env))
