"""Has no stall detector: it reads the suppliers' plans off the world instead, to skip one that
is down (and, when the plans are out of reach, asks it again and again like any other)."""

from cafe.capstone import RestockEnv, RunReport, SupplierError, restock_tools
from cafe.capstone.reference import OrderGate, costs_of, opening
from cafe.endpoint.errors import EndpointError
from cafe.trace import Recorder, record_loop


class Peeking(OrderGate):
    def ask_quote(self, supplier: str, item: str, quantity: int) -> str:
        plans = getattr(self.world, "suppliers", ())
        if any(plan.name == supplier and plan.down for plan in plans):
            raise SupplierError(f"{supplier} is down (skipped)")
        return super().ask_quote(supplier, item, quantity)


def run_restock(env: RestockEnv) -> RunReport:
    gate = Peeking(env)
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
