"""Ends on 'endpoint_failed' when the endpoint refuses or falls silent, but takes a garbled body
for a bug of its own and raises it: one of the three ways an endpoint fails is left out. Written
beside reader BD's endpoint_503_only, 8 Dec 2026: it passed whenever a check's one endpoint_down
scenario drew a refusal or a timeout."""

from cafe.capstone import RestockEnv, RunReport, restock_tools
from cafe.capstone.reference import OrderGate, SupplierStall, costs_of, opening, pace_governor
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS
from cafe.stall import STALL_STOP_REASONS
from cafe.trace import Recorder, record_loop


def caught(exc: EndpointError) -> bool:
    return getattr(exc, "kind", None) != "bad_body"  # "a web page is our bug, not theirs"


def run_restock(env: RestockEnv) -> RunReport:
    gate = OrderGate(env)
    tools = restock_tools(env.world.read_stock, gate.ask_quote, gate.place)
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    clock, governor = pace_governor(gate)
    try:
        result, trace = record_loop(
            env.client,
            opening(env),
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            observers=[clock.tick],
            after_turn=[SupplierStall(env.limits.stall_after), governor],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
            clock=clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        if not caught(exc):
            raise
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    return RunReport(stop, detail, tuple(gate.placed), trace, costs_of(trace, gate.placed))
