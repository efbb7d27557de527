"""No stall stop: a supplier that fails the same way is asked again until the call cap."""

from cafe.capstone import RestockEnv, RunReport, restock_tools
from cafe.capstone.reference import OrderGate, costs_of, opening
from cafe.trace import Recorder, record_loop


def run_restock(env: RestockEnv) -> RunReport:
    gate = OrderGate(env)
    tools = restock_tools(env.world.read_stock, gate.ask_quote, gate.place)
    result, trace = record_loop(
        env.client,
        opening(env),
        tools,
        recorder=Recorder(clock=env.clock),
        model=env.model,
        max_turns=env.limits.max_model_calls,
        clock=env.clock,
    )
    return RunReport(
        result.stop_reason, result.detail, tuple(gate.placed), trace, costs_of(trace, gate.placed)
    )
