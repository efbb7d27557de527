"""The course's reference restock harness: session 01's loop, with the course's pieces plugged in.

Session 16, the capstone. One way to hold every guarantee `cafe/capstone/harness.py` lists, each
from the session that taught it:

- the loop and its turn budget (01): one model call a turn, so `max_turns` is the call cap;
- the contract and the allow-list (04, 05): `OrderGate` reads every order the model asks for
  against the kitchen's remaining need, the quotes received and the café's own books, and only
  then sends it; a supplier's message can ask for anything, and nothing it asks for gets through
  (containment, 06: the gate does not need to detect an injection to stop what it asks);
- the manager's approval, asked BEFORE an order over the limit is sent, and a "no" obeyed (05):
  a no is to the items declined, so no later order of them goes out, split or smaller;
- a refusal told to the model as a failed tool result, so it may try again (07);
- the trace (08): `record_loop` records the run, which the grader replays;
- the stall (13): `SupplierStall` stops the run when the same failure (session 13's
  `failure_signature`) comes back `stall_after` times in a row, and not on one repeat;
- the pace (14): a `PaceGovernor` on a `TurnClock` cuts a run that is busy but going nowhere,
  no order placed for `PACE_WINDOW_TURNS` turns (its reading is the units ordered so far);
- the costs (09, 11): counted off the trace, the spend off the orders the gate sent.

Left out: the run monitors (15): a restock run has no work tree to verify.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cafe.capstone.harness import Costs, RestockEnv, RunReport, restock_tools
from cafe.capstone.orders import PurchaseOrder, Quote, order_from_arguments, order_problems
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock
from cafe.loop import Stop, ToolOutput, TurnView
from cafe.stall import STALL_STOP_REASONS, failure_signature
from cafe.trace import Recorder, Trace, record_loop

__all__ = [
    "PACE_WINDOW_TURNS",
    "OrderGate",
    "SupplierStall",
    "costs_of",
    "declined_refusal",
    "opening",
    "pace_governor",
    "run_restock",
    "run_with_gate",
]

# Course choice: the longest honest stretch without an order is a few supplier timeouts, a quote
# and a re-sent order (about six turns); eight turns with no order placed is a run going nowhere.
PACE_WINDOW_TURNS = 8


def declined_refusal(items: list[str]) -> ToolOutput:
    """The refusal of an order that holds items the manager declined earlier in the run."""
    named = ", ".join(items)
    return ToolOutput(
        False,
        f"Order refused: the manager declined {named} earlier in this run; a no stands for "
        "smaller or split orders too, so none of it is sent.",
    )


class OrderGate:
    """The only way an order reaches a supplier: checked against the contract, approved first
    when it is over the limit, and counted against the need once sent. It remembers the items
    the manager declined (`declined`) and refuses any later order of them."""

    def __init__(self, env: RestockEnv):
        self.world = env.world
        self.accounts, self.limit_cents = env.world.books()
        stock = json.loads(env.world.read_stock())
        self.need = {item: max(0, v["par"] - v["on_hand"]) for item, v in stock.items()}
        self.quotes: dict[tuple[str, str], Quote] = {}
        self.placed: list[PurchaseOrder] = []
        self.declined: set[str] = set()  # items the manager said no to in this run

    def ask_quote(self, supplier: str, item: str, quantity: int) -> str:
        """Ask the supplier, and keep the quote: its price is what an order may pay."""
        answer = self.world.ask_quote(supplier, item, quantity)
        fields = json.loads(answer)
        self.quotes[(supplier, item)] = Quote(**fields)
        return answer

    def units(self) -> int:
        """How many units the orders sent so far hold: the run's progress."""
        return sum(line.quantity for order in self.placed for line in order.lines)

    def remaining(self) -> dict[str, int]:
        left = dict(self.need)
        for order in self.placed:
            for line in order.lines:
                left[line.item] = left.get(line.item, 0) - line.quantity
        return left

    def consent(self, order: PurchaseOrder) -> ToolOutput | None:
        """None when `order` may go; else its refusal. An order holding an item the manager
        declined earlier in the run is refused unasked; one over the limit goes only with the
        manager's yes, asked first, and a no is remembered for every item it held."""
        declined = sorted({line.item for line in order.lines} & self.declined)
        if declined:
            return declined_refusal(declined)
        if order.total_cents > self.limit_cents and not self.world.ask_manager(order):
            self.declined.update(line.item for line in order.lines)
            return ToolOutput(False, f"Order declined by the manager ({order.total_cents} cents).")
        return None

    def place(self, arguments: Mapping[str, Any]) -> str | ToolOutput:
        """Check, approve if needed, then send; a refusal is a failed result the model reads."""
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        problems = order_problems(order, self.remaining(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        refusal = self.consent(order)
        if refusal is not None:
            return refusal
        answer = self.world.place_order(order)
        self.placed.append(order)
        return answer


class SupplierStall:
    """An after-turn hook: stop `stuck` when the same failure comes back `after` times in a row."""

    def __init__(self, after: int):
        self.after = after
        self.last: str | None = None
        self.count = 0

    def __call__(self, view: TurnView) -> Stop | None:
        for result in view.dispatch:
            if result.ok:
                self.last, self.count = None, 0
                continue
            signature = failure_signature(result)
            self.count = self.count + 1 if signature == self.last else 1
            self.last = signature
            if self.count >= self.after:
                return Stop("stuck", f"{result.name} failed the same way {self.count} times")
        return None


def pace_governor(gate: OrderGate) -> tuple[TurnClock, PaceGovernor]:
    """A clock that charges one second a turn, and a governor reading the units ordered (None
    before the first order, so that nothing counts as progress until an order is sent)."""
    clock = TurnClock(1.0)
    window_ms = PACE_WINDOW_TURNS * 1000.0
    return clock, PaceGovernor(window_ms, reading=lambda view: gate.units() or None)


def costs_of(trace: Trace, placed: list[PurchaseOrder]) -> Costs:
    """The run's costs read off its trace (calls, tokens) and the orders sent (money)."""
    tokens_in, tokens_out = trace.usage or (0, 0)
    spend = sum(order.total_cents for order in placed)
    return Costs(len(trace.model_calls), tokens_in, tokens_out, spend)


def opening(env: RestockEnv) -> list[dict[str, str]]:
    """The run's first messages: the brief, then the request."""
    return [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]


def run_restock(env: RestockEnv) -> RunReport:
    """One restock run, holding every guarantee; see the module docstring for the pieces."""
    return run_with_gate(env, OrderGate(env))


def run_with_gate(env: RestockEnv, gate: OrderGate) -> RunReport:
    """The run itself, with `gate` as the only way to a supplier (`run_restock` passes an
    `OrderGate`; a variant of the gate is how the tests build harnesses that get it wrong)."""
    tools = restock_tools(env.world.read_stock, gate.ask_quote, gate.place)
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    messages = opening(env)
    clock, governor = pace_governor(gate)
    try:
        result, trace = record_loop(
            env.client,
            messages,
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
