"""No stall stop: a supplier that fails the same way is asked again until the call cap."""

from cafe.capstone import RestockEnv, RunReport, restock_tools
from cafe.capstone.reference import OrderGate, costs_of, opening
from cafe.endpoint.errors import EndpointError
from cafe.trace import Recorder, record_loop


def run_restock(env: RestockEnv) -> RunReport:
    gate = OrderGate(env)
    tools = restock_tools(env.world.read_stock, gate.ask_quote, gate.place)
    recorder = Recorder(clock=env.clock)
    try:
        result, trace = record_loop(
            env.client,
            opening(env),
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=env.clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    return RunReport(stop, detail, tuple(gate.placed), trace, costs_of(trace, gate.placed))
