"""RIGHT, shaped differently: the stall bound is enforced at the tool itself (the quote wrapper
refuses to ask a supplier again once the same failure came back stall_after times in a row, and
raises a flag) and the after-turn hook only turns the flag into a `stuck` stop; the gate is
written as a pipeline of checks returning the first refusal; the need is recomputed from the
orders sent each time.
Written by held-out reader G, 7 Dec 2026.
Declines remembered (added with F7, 7 Dec 2026: a no is to the item, so a smaller order of it
is refused too; the scripted model now asks for a declined item again in smaller orders)."""

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
from cafe.loop import Stop, ToolOutput, ToolResult
from cafe.stall import STALL_STOP_REASONS, failure_signature
from cafe.trace import Recorder, record_loop


def run_restock(env: RestockEnv) -> RunReport:
    accounts, limit = env.world.books()
    stock = json.loads(env.world.read_stock())
    par_need = {i: max(0, s["par"] - s["on_hand"]) for i, s in stock.items()}
    sent, quotes, declined = [], {}, set()
    stall = {"last": None, "count": 0, "hit": None}

    def note(ok, sig=None):
        if ok:
            stall["last"], stall["count"] = None, 0
            return
        stall["count"] = stall["count"] + 1 if sig == stall["last"] else 1
        stall["last"] = sig
        if stall["count"] >= env.limits.stall_after:
            stall["hit"] = f"the same failure {stall['count']} times in a row"

    def ask_quote(supplier, item, quantity):
        if stall["hit"]:
            return ToolOutput(False, "Not asked: this run is stalled.")
        text = None
        try:
            text = env.world.ask_quote(supplier, item, quantity)
            q = Quote(**json.loads(text))
        except Exception as exc:
            said = text if text is not None else f"{type(exc).__name__}: {exc}"
            fake = ToolResult("-", "ask_quote", {}, False, said, "observe", False)
            note(False, failure_signature(fake))
            raise
        quotes[(supplier, item)] = q
        note(True)
        return text

    def left():
        need = dict(par_need)
        for o in sent:
            for line in o.lines:
                need[line.item] -= line.quantity
        return need

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, str(exc))
        if any(x.item in declined for x in order.lines):
            return ToolOutput(False, "Declined by the manager earlier: not sent.")
        for problem in order_problems(order, left(), quotes, accounts):
            return ToolOutput(False, "Refused: " + problem)
        needs_yes = order.total_cents > limit
        if needs_yes and not env.world.ask_manager(order):
            declined.update(x.item for x in order.lines)
            return ToolOutput(False, "Declined by the manager.")
        reply = env.world.place_order(order)
        sent.append(order)
        return reply

    def stall_hook(view):
        if stall["hit"]:
            return Stop("stuck", stall["hit"])
        return None

    def units(view):
        n = sum(line.quantity for o in sent for line in o.lines)
        return n if n else None

    turns = TurnClock(1.0)
    recorder = Recorder(
        clock=env.clock, trace_id="restock-2", started_at="2026-01-01T00:00:00+00:00"
    )
    messages = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
    try:
        result, trace = record_loop(
            env.client,
            messages,
            restock_tools(env.world.read_stock, ask_quote, place),
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=turns,
            observers=[turns.tick],
            after_turn=[stall_hook, PaceGovernor(8000.0, reading=units)],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    tin, tout = trace.usage or (0, 0)
    return RunReport(
        stop,
        detail,
        tuple(sent),
        trace,
        Costs(len(trace.model_calls), tin, tout, sum(o.total_cents for o in sent)),
    )
