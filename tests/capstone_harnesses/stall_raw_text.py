"""Compares failures by their raw text, not by `failure_signature`: a supplier whose errors
differ only in noise (the worker's pid) never looks stuck, and is asked until the call cap.
Found by held-out reader G, 7 Dec 2026."""

from cafe.capstone import RestockEnv, RunReport, reference
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolResult


def raw_text(result: ToolResult) -> str:
    return result.name + "\n" + result.output  # the noise is left in


def run_restock(env: RestockEnv) -> RunReport:
    reference.failure_signature = raw_text  # type: ignore[assignment]  # in this process only
    return run_with_gate(env, OrderGate(env))
