"""Right, by held-out reader Y (7 Dec 2026, their r1): the run as a class; the gate a method that
refuses in a fixed order (shape, declined-before, contract, consent); a deque-based stall
window; declines remembered."""

import json
from collections import deque

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


class RestockRun:
    def __init__(self, env):
        self.env = env
        self.sent = []
        self.quotes = {}
        self.declined = set()  # (supplier, item) the manager said no to: never sent afterwards
        self.accounts, self.limit = env.world.books()
        stock = json.loads(env.world.read_stock())
        self.need = {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
        self.recent = deque(maxlen=env.limits.stall_after)

    # --- the three tools -------------------------------------------------
    def ask_quote(self, supplier, item, quantity):
        text = self.env.world.ask_quote(supplier, item, quantity)
        self.quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def remaining(self):
        left = dict(self.need)
        for order in self.sent:
            for line in order.lines:
                left[line.item] = left.get(line.item, 0) - line.quantity
        return left

    def place(self, arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Refused: {exc}.")
        items = {(order.supplier, line.item) for line in order.lines}
        if items & self.declined:
            return ToolOutput(False, "Refused: the manager declined this item from this supplier.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Refused: " + "; ".join(problems) + ".")
        if order.total_cents > self.limit:
            if not self.env.world.ask_manager(order):
                self.declined |= items
                return ToolOutput(False, "Refused: the manager declined this order.")
        text = self.env.world.place_order(order)
        self.sent.append(order)
        return text

    # --- after-turn hooks ------------------------------------------------
    def stall(self, view):
        for result in view.dispatch:
            if result.ok:
                self.recent.clear()
                continue
            self.recent.append(failure_signature(result))
            if len(self.recent) == self.recent.maxlen and len(set(self.recent)) == 1:
                return Stop(
                    "stuck", f"{result.name}: the same failure {len(self.recent)} times in a row"
                )
        return None

    def units(self, view):
        return sum(line.quantity for order in self.sent for line in order.lines) or None

    # --- the run ---------------------------------------------------------
    def run(self):
        env = self.env
        recorder = Recorder(
            clock=env.clock, trace_id="restock-r1", started_at="2026-01-01T00:00:00+00:00"
        )
        turn_clock = TurnClock(1.0)
        governor = PaceGovernor(8000.0, reading=self.units)
        messages = [
            {"role": "system", "content": env.brief},
            {"role": "user", "content": "Restock."},
        ]
        tools = restock_tools(env.world.read_stock, self.ask_quote, self.place)
        try:
            result, trace = record_loop(
                env.client,
                messages,
                tools,
                recorder=recorder,
                model=env.model,
                max_turns=env.limits.max_model_calls,
                clock=turn_clock,
                observers=[turn_clock.tick],
                after_turn=[self.stall, governor],
                stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
            )
            stop, detail = result.stop_reason, result.detail
        except EndpointError as exc:
            stop, detail, trace = (
                "endpoint_failed",
                f"model endpoint failed: {exc}",
                recorder.trace(),
            )
        tin, tout = trace.usage or (0, 0)
        costs = Costs(len(trace.model_calls), tin, tout, sum(o.total_cents for o in self.sent))
        return RunReport(stop, detail, tuple(self.sent), trace, costs)


def run_restock(env: RestockEnv) -> RunReport:
    return RestockRun(env).run()
