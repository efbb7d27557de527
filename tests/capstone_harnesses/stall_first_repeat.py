"""Stops `stuck` on the first repeat: its stall hook is given a bound of 2, not `stall_after`, so
a supplier that times out twice and would then answer is never asked again (the lesson's "Stop
on the first repeat" misconception). Found by held-out reader G, 7 Dec 2026."""

from dataclasses import replace

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, run_with_gate


def run_restock(env: RestockEnv) -> RunReport:
    hasty = replace(env, limits=replace(env.limits, stall_after=2))  # one repeat is "stuck"
    return run_with_gate(hasty, OrderGate(env))
