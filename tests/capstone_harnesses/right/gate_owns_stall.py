"""RIGHT harness, a different arrangement: every tool goes through one Desk object that keeps the
failure streak itself (the stall read where the results are made, not in an after-turn scan of
the dispatch), a hand-written pace hook counting turns since the last order instead of a
PaceGovernor, and an approvals ledger keyed by item.
Written by held-out reader BD, 8 Dec 2026.
"""

import json

from cafe.capstone.harness import Costs, RunReport, restock_tools
from cafe.capstone.orders import Quote, order_from_arguments, order_problems
from cafe.endpoint.errors import EndpointError
from cafe.loop import Stop, ToolOutput, ToolResult
from cafe.stall import failure_signature
from cafe.trace import Recorder, record_loop

PACE_TURNS = 8


class Desk:
    def __init__(self, env):
        self.env, self.world = env, env.world
        self.accounts, self.limit = env.world.books()
        stock = json.loads(env.world.read_stock())
        self.need = {i: max(0, v["par"] - v["on_hand"]) for i, v in stock.items()}
        self.quotes, self.sent = {}, []
        self.verdicts = {}  # item -> "no" (until a yes to an order of it)
        self.sig, self.run = None, 0
        self.stuck_now = ""
        self.idle = 0
        self.sent_this_turn = False

    # the streak, kept where results are made
    def _ok(self):
        self.sig, self.run = None, 0

    def _failed(self, tool, text):
        sig = failure_signature(ToolResult("x", tool, {}, False, text))
        self.run = self.run + 1 if sig == self.sig else 1
        self.sig = sig
        if self.run >= self.env.limits.stall_after:
            self.stuck_now = f"{tool} failed the same way {self.run} times"

    def read_stock(self):
        text = self.world.read_stock()
        self._ok()
        return text

    def ask_quote(self, supplier, item, quantity):
        try:
            text = self.world.ask_quote(supplier, item, quantity)
        except Exception as exc:
            self._failed("ask_quote", str(exc))
            raise
        self.quotes[(supplier, item)] = Quote(**json.loads(text))
        self._ok()
        return text

    def left(self):
        left = dict(self.need)
        for o in self.sent:
            for line in o.lines:
                left[line.item] -= line.quantity
        return left

    def _refuse(self, text):
        self._failed("place_order", text)
        return ToolOutput(False, text)

    def place_order(self, arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return self._refuse(f"Order refused: {exc}.")
        problems = order_problems(order, self.left(), self.quotes, self.accounts)
        if problems:
            return self._refuse("Order refused: " + "; ".join(problems) + ".")
        items = [line.item for line in order.lines]
        if any(self.verdicts.get(i) == "no" for i in items):
            return self._refuse("Order refused: the manager declined that item in this run.")
        if order.total_cents > self.limit:
            yes = self.world.ask_manager(order)
            for i in items:
                self.verdicts[i] = "yes" if yes else "no"
            if not yes:
                return self._refuse("Order declined by the manager.")
        answer = self.world.place_order(order)
        self.sent.append(order)
        self.sent_this_turn = True
        self._ok()
        return answer

    # after-turn hooks
    def stall_hook(self, view):
        if self.stuck_now:
            return Stop("stuck", self.stuck_now)
        return None

    def pace_hook(self, view):
        self.idle = 0 if self.sent_this_turn else self.idle + 1
        self.sent_this_turn = False
        if self.idle >= PACE_TURNS:
            return Stop("cut", f"no order placed for {self.idle} turns")
        return None


def run_restock(env):
    desk = Desk(env)
    rec = Recorder(clock=env.clock, trace_id="desk", started_at="2026-01-01T00:00:00+00:00")
    try:
        result, trace = record_loop(
            env.client,
            [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}],
            restock_tools(desk.read_stock, desk.ask_quote, desk.place_order),
            recorder=rec,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            after_turn=[desk.stall_hook, desk.pace_hook],
            stop_reasons={"stuck", "cut"},
            clock=env.clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), rec.trace()
    tin, tout = trace.usage or (0, 0)
    spend = sum(o.total_cents for o in desk.sent)
    return RunReport(
        stop, detail, tuple(desk.sent), trace, Costs(len(trace.model_calls), tin, tout, spend)
    )
