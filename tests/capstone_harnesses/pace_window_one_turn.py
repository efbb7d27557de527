"""Paces by one turn: the pace governor's window is a single turn, so every run is cut before the
model has read the stock and asked for a quote, and nothing is ever ordered. Every property held
on every seed, because nothing happened. Found by held-out reader N, 7 Dec 2026. Since reader Y
(7 Dec 2026) its `cut` also fails `named_stop`: no pace window passed, so the cause is not on the
record."""

from cafe.capstone import RestockEnv, RunReport, restock_tools
from cafe.capstone.reference import OrderGate, SupplierStall, costs_of, opening
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock
from cafe.stall import STALL_STOP_REASONS
from cafe.trace import Recorder, record_loop


def run_restock(env: RestockEnv) -> RunReport:
    gate = OrderGate(env)
    tools = restock_tools(env.world.read_stock, gate.ask_quote, gate.place)
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    clock = TurnClock(1.0)
    governor = PaceGovernor(1 * 1000.0, reading=lambda view: gate.units() or None)  # one turn
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
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    return RunReport(stop, detail, tuple(gate.placed), trace, costs_of(trace, gate.placed))
