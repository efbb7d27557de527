"""Right, by held-out reader Y (7 Dec 2026, their r2): the allow-list written by hand (no
order_problems), closures with nonlocal state, and a hand-made pace hook (no unit ordered for 8
turns -> cut) instead of PaceGovernor."""

import json

from cafe.capstone import Costs, RestockEnv, RunReport, order_from_arguments, restock_tools
from cafe.endpoint.errors import EndpointError
from cafe.loop import Stop, ToolOutput
from cafe.stall import failure_signature
from cafe.trace import Recorder, record_loop

PACE_WINDOW_TURNS = 8


def run_restock(env: RestockEnv) -> RunReport:
    books, limit = env.world.books()
    stock = json.loads(env.world.read_stock())
    supplier_of = {item: v.get("supplier") for item, v in stock.items()}
    still_needed = {item: max(0, v["par"] - v["on_hand"]) for item, v in stock.items()}
    offered = {}  # (supplier, item) -> (unit price, quoted quantity)
    sent = []
    said_no = set()

    def ask_quote(supplier, item, quantity):
        text = env.world.ask_quote(supplier, item, quantity)
        q = json.loads(text)
        offered[(q["supplier"], q["item"])] = int(q["unit_price_cents"])
        return text

    def allow_list(order):
        wrong = []
        if len(order.lines) != 1:
            wrong.append("one line per order")
        if order.supplier not in books:
            wrong.append(f"{order.supplier} is not a supplier on our books")
        elif order.pay_to != books[order.supplier]:
            wrong.append(f"pay_to must be {order.supplier}'s registered account")
        total = 0
        for line in order.lines:
            if supplier_of.get(line.item) != order.supplier:
                wrong.append(f"{line.item} is not bought from {order.supplier}")
            if (order.supplier, line.item) not in offered:
                wrong.append(f"no quote received for {line.item} from {order.supplier}")
            elif line.unit_price_cents != offered[(order.supplier, line.item)]:
                wrong.append(
                    f"{line.item} must be at the quoted {offered[(order.supplier, line.item)]} cents"
                )
            if line.quantity <= 0:
                wrong.append("quantity must be positive")
            elif line.quantity > still_needed.get(line.item, 0):
                wrong.append(f"{line.item}: only {still_needed.get(line.item, 0)} still needed")
            if (order.supplier, line.item) in said_no:
                wrong.append(f"the manager declined {line.item}")
            total += line.quantity * line.unit_price_cents
        if order.total_cents != total:
            wrong.append(f"total must be {total}")
        return wrong

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Not sent: {exc}.")
        wrong = allow_list(order)
        if wrong:
            return ToolOutput(False, "Not sent: " + "; ".join(wrong) + ".")
        if order.total_cents > limit:
            approved = env.world.ask_manager(order)
            if not approved:
                said_no.update((order.supplier, line.item) for line in order.lines)
                return ToolOutput(False, "Not sent: the manager said no.")
        text = env.world.place_order(order)
        sent.append(order)
        for line in order.lines:
            still_needed[line.item] -= line.quantity
        return text

    stall = {"sig": None, "n": 0}
    pace = {"units": 0, "flat": 0}

    def stall_hook(view):
        for r in view.dispatch:
            if r.ok:
                stall["sig"], stall["n"] = None, 0
            else:
                sig = failure_signature(r)
                stall["n"] = stall["n"] + 1 if sig == stall["sig"] else 1
                stall["sig"] = sig
                if stall["n"] >= env.limits.stall_after:
                    return Stop("stuck", f"{r.name} failed identically {stall['n']} times in a row")
        return None

    def pace_hook(view):
        units = sum(line.quantity for o in sent for line in o.lines)
        if units > pace["units"]:
            pace["units"], pace["flat"] = units, 0
        else:
            pace["flat"] += 1
        if pace["flat"] >= PACE_WINDOW_TURNS:
            return Stop("cut", f"no unit ordered for {pace['flat']} turns")
        return None

    recorder = Recorder(clock=env.clock, trace_id="r2", started_at="2026-01-01T00:00:00+00:00")
    tools = restock_tools(env.world.read_stock, ask_quote, place)
    opening = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
    try:
        result, trace = record_loop(
            env.client,
            opening,
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=env.clock,
            after_turn=[stall_hook, pace_hook],
            stop_reasons={"stuck", "cut"},
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    tokens_in, tokens_out = trace.usage or (0, 0)
    spend = sum(line.quantity * line.unit_price_cents for o in sent for line in o.lines)
    return RunReport(
        stop,
        detail,
        tuple(sent),
        trace,
        Costs(len(trace.model_calls), tokens_in, tokens_out, spend),
    )
