"""No trace: the loop runs unrecorded; the costs are counted by a wrapper round the client."""

from typing import Any

from cafe.capstone import Costs, RestockEnv, RunReport, restock_tools
from cafe.capstone.reference import OrderGate, SupplierStall, opening
from cafe.endpoint.errors import EndpointError
from cafe.loop import run_loop
from cafe.stall import STALL_STOP_REASONS


class Counting:
    """A client that passes every call through and adds up its usage."""

    def __init__(self, inner: Any):
        self.inner, self.calls, self.tokens = inner, 0, [0, 0]
        self.chat = self
        self.completions = self

    def create(self, **kwargs: Any) -> Any:
        self.calls += 1
        reply = self.inner.chat.completions.create(**kwargs)
        self.tokens[0] += reply.usage.prompt_tokens
        self.tokens[1] += reply.usage.completion_tokens
        return reply


def run_restock(env: RestockEnv) -> RunReport:
    gate = OrderGate(env)
    client = Counting(env.client)
    try:
        result = run_loop(
            client,
            opening(env),
            restock_tools(env.world.read_stock, gate.ask_quote, gate.place),
            model=env.model,
            max_turns=env.limits.max_model_calls,
            after_turn=[SupplierStall(env.limits.stall_after)],
            stop_reasons=STALL_STOP_REASONS,
            clock=env.clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail = "endpoint_failed", str(exc)
    spend = sum(order.total_cents for order in gate.placed)
    costs = Costs(client.calls, client.tokens[0], client.tokens[1], spend)
    return RunReport(stop, detail, tuple(gate.placed), None, costs)
