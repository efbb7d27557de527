"""Ends on 'endpoint_failed' only when the endpoint refuses (HTTP 503); a timeout or a garbled
body is "the model's fault" and is raised, so the run returns no report. The lesson: "An
endpoint that fails raises `EndpointError`; catch it and end on `endpoint_failed`". It passed
whenever a check's one endpoint_down scenario drew the 503, until every check met each way an
endpoint fails. Found by held-out reader BD, 8 Dec 2026."""

from cafe.capstone import RestockEnv, RunReport, restock_tools
from cafe.capstone.reference import OrderGate, SupplierStall, costs_of, opening, pace_governor
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS
from cafe.stall import STALL_STOP_REASONS
from cafe.trace import Recorder, record_loop

# The kinds of EndpointError this harness believes are the endpoint's failure.
CAUGHT = {503}


def caught(exc: EndpointError) -> bool:
    return getattr(exc, "status", None) in CAUGHT


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
