"""RIGHT, shaped differently: the harness is a class; the gate is a method that asks the manager
about every order (not only those over the limit), keeps the remaining need as a running counter
instead of recomputing it, and the stall stop keeps a (signature, count) pair in a dict; its
refusal says the manager 'said no', not 'declined'.
Written by held-out reader N, 7 Dec 2026."""

import json

from cafe.capstone import (
    Costs,
    Quote,
    RestockEnv,
    RunReport,
    order_from_arguments,
    order_problems,
    restock_tools,
)
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock
from cafe.loop import Stop, ToolOutput
from cafe.stall import STALL_STOP_REASONS, failure_signature
from cafe.trace import Recorder, record_loop


class Restock:
    def __init__(self, env):
        self.env = env
        self.sent = []
        self.quotes = {}
        self.accounts, self.limit = env.world.books()
        stock = json.loads(env.world.read_stock())
        self.remaining = {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
        self.streak = {"sig": None, "n": 0}

    # tools -------------------------------------------------------------
    def quote(self, supplier, item, quantity):
        text = self.env.world.ask_quote(supplier, item, quantity)
        self.quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def order(self, arguments):
        try:
            po = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"refused: {exc}")
        problems = order_problems(po, dict(self.remaining), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "refused: " + "; ".join(problems))
        if not self.env.world.ask_manager(po):  # every order, whatever its size
            return ToolOutput(False, "refused: the manager said no to this order")
        reply = self.env.world.place_order(po)
        self.sent.append(po)
        for line in po.lines:
            self.remaining[line.item] -= line.quantity
        return reply

    # hooks -------------------------------------------------------------
    def stall(self, view):
        for r in view.dispatch:
            if r.ok:
                self.streak = {"sig": None, "n": 0}
                continue
            sig = failure_signature(r)
            n = self.streak["n"] + 1 if sig == self.streak["sig"] else 1
            self.streak = {"sig": sig, "n": n}
            if n >= self.env.limits.stall_after:
                return Stop("stuck", f"{r.name}: same failure {n} times in a row")
        return None

    def units(self):
        return sum(line.quantity for po in self.sent for line in po.lines)

    # run ---------------------------------------------------------------
    def __call__(self):
        env = self.env
        tools = restock_tools(env.world.read_stock, self.quote, self.order)
        msgs = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
        rec = Recorder(
            clock=env.clock, trace_id="restock-cls", started_at="2026-01-01T00:00:00+00:00"
        )
        tclock = TurnClock(1.0)
        gov = PaceGovernor(8000.0, reading=lambda view: self.units() or None)
        try:
            result, trace = record_loop(
                env.client,
                msgs,
                tools,
                recorder=rec,
                model=env.model,
                max_turns=env.limits.max_model_calls,
                clock=tclock,
                observers=[tclock.tick],
                after_turn=[self.stall, gov],
                stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
            )
            stop, detail = result.stop_reason, result.detail
        except EndpointError as exc:
            stop, detail, trace = "endpoint_failed", str(exc), rec.trace()
        tin, tout = trace.usage or (0, 0)
        costs = Costs(len(trace.model_calls), tin, tout, sum(po.total_cents for po in self.sent))
        return RunReport(stop, detail, tuple(self.sent), trace, costs)


def run_restock(env: RestockEnv) -> RunReport:
    return Restock(env)()
