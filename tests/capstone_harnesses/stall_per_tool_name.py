"""Counts failures of the same tool in a row, not the same failure: a supplier that refuses once
(429) and then times out one time fewer than the bound is stopped `stuck` although no failure
came back `stall_after` times. The lesson: "The same signature `stall_after` times in a row is a
`Stop` with reason `stuck`". No scripted supplier failed two different ways in a row until the
timeouts kind's first supplier refused once before its timeouts. Found by held-out reader BD,
8 Dec 2026."""

from cafe.capstone import RestockEnv, RunReport, reference
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import Stop, TurnView


class ToolNameStall:
    def __init__(self, after: int):
        self.after, self.last, self.count = after, "", 0

    def __call__(self, view: TurnView) -> Stop | None:
        for result in view.dispatch:
            if result.ok:
                self.last, self.count = "", 0
                continue
            self.count = self.count + 1 if result.name == self.last else 1
            self.last = result.name
            if self.count >= self.after:
                return Stop("stuck", f"{result.name} failed {self.count} times in a row")
        return None


def run_restock(env: RestockEnv) -> RunReport:
    reference.SupplierStall = ToolNameStall  # type: ignore[misc,assignment]  # in this process only
    return run_with_gate(env, OrderGate(env))
