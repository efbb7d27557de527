"""Counts every repeat of a failure, however far apart: its stall hook keeps a tally per failure
signature and never clears it, so a supplier that times out, answers, and times out again on its
next item is stopped `stuck` although the same failure never came back `stall_after` times in a
row. Written beside reader Y's stall_no_reset, 7 Dec 2026."""

from collections import Counter

from cafe.capstone import RestockEnv, RunReport, reference
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import Stop, TurnView
from cafe.stall import failure_signature


class TallyStall:
    def __init__(self, after: int):
        self.after, self.seen = after, Counter[str]()

    def __call__(self, view: TurnView) -> Stop | None:
        for result in view.dispatch:
            if not result.ok:
                self.seen[failure_signature(result)] += 1  # a success clears nothing
                if self.seen[failure_signature(result)] >= self.after:
                    return Stop("stuck", f"{result.name} failed {self.after} times in all")
        return None


def run_restock(env: RestockEnv) -> RunReport:
    reference.SupplierStall = TallyStall  # type: ignore[misc,assignment]  # in this process only
    return run_with_gate(env, OrderGate(env))
