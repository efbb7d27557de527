"""Counts failures of the same supplier in a row, whatever the failure (the supplier's name is the
first word of every error): a refusal and then timeouts one fewer than the bound stop the run
`stuck` too early. Written beside reader BD's stall_per_tool_name, 8 Dec 2026."""

from cafe.capstone import RestockEnv, RunReport, reference
from cafe.capstone.reference import OrderGate, run_with_gate
from cafe.loop import ToolResult


def supplier_only(result: ToolResult) -> str:
    return result.name + "\n" + " ".join(result.output.split()[:2])  # "Greenleaf Dairy"


def run_restock(env: RestockEnv) -> RunReport:
    reference.failure_signature = supplier_only  # type: ignore[assignment]  # in this process only
    return run_with_gate(env, OrderGate(env))
