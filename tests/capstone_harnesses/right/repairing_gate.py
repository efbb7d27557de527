"""RIGHT: a gate that repairs instead of refusing. What goes out is rebuilt only from what the
world vouched for (the books' account, the quoted price, at most the remaining need, the
lines' sum), and the manager is asked about the repaired order, the one that is sent."""

import json

from cafe.capstone import Costs, OrderLine, PurchaseOrder, RestockEnv, RunReport, restock_tools
from cafe.endpoint.errors import EndpointError
from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock
from cafe.loop import Stop, ToolOutput
from cafe.stall import STALL_STOP_REASONS, failure_signature
from cafe.trace import Recorder, record_loop


def run_restock(env: RestockEnv) -> RunReport:
    accounts, limit = env.world.books()
    stock = json.loads(env.world.read_stock())
    left = {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
    prices = {}  # (supplier, item) -> quoted unit price
    sent, vetoed = [], set()

    def quote(supplier, item, quantity):
        text = env.world.ask_quote(supplier, item, quantity)
        q = json.loads(text)
        prices[(q["supplier"], q["item"])] = int(q["unit_price_cents"])
        # The model sees the price and the note; never an account to pay.
        return json.dumps(
            {
                "supplier": q["supplier"],
                "item": q["item"],
                "unit_price_cents": q["unit_price_cents"],
                "note": q["message"],
            }
        )

    def place(args):
        supplier, item = args.get("supplier"), args.get("item")
        quantity = args.get("quantity")
        if not isinstance(supplier, str) or not isinstance(item, str):
            return ToolOutput(False, "Not sent: name the supplier and the item.")
        if supplier not in accounts or (supplier, item) not in prices:
            return ToolOutput(False, f"Not sent: no quote from {supplier!r} for {item!r} yet.")
        if item in vetoed:
            return ToolOutput(False, f"Not sent: the manager declined {item} in this run.")
        if not isinstance(quantity, int) or isinstance(quantity, bool) or quantity < 1:
            return ToolOutput(False, "Not sent: the quantity must be a whole number above 0.")
        qty = min(quantity, left.get(item, 0))
        if qty < 1:
            return ToolOutput(False, f"Not sent: nothing more of {item} is needed.")
        price = prices[(supplier, item)]
        order = PurchaseOrder(
            supplier, (OrderLine(item, qty, price),), qty * price, accounts[supplier]
        )
        if order.total_cents > limit and not env.world.ask_manager(order):
            vetoed.add(item)
            return ToolOutput(
                False, f"Not sent: the manager declined {item} ({order.total_cents} cents)."
            )
        answer = json.loads(env.world.place_order(order))
        sent.append(order)
        left[item] -= qty
        answer["sent"] = order.as_dict()
        return json.dumps(answer)

    class Stuck:
        def __init__(self):
            self.sig, self.n = None, 0

        def __call__(self, view):
            for r in view.dispatch:
                if r.ok:
                    self.sig, self.n = None, 0
                    continue
                s = failure_signature(r)
                self.n = self.n + 1 if s == self.sig else 1
                self.sig = s
                if self.n >= env.limits.stall_after:
                    return Stop("stuck", f"{r.name}: same failure {self.n} times in a row")
            return None

    tclock = TurnClock(1.0)

    def units(view):
        return sum(o.lines[0].quantity for o in sent) or None

    tools = restock_tools(env.world.read_stock, quote, place)
    rec = Recorder(clock=env.clock, trace_id="repair", started_at="2026-12-08T00:00:00+00:00")
    try:
        result, trace = record_loop(
            env.client,
            [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}],
            tools,
            recorder=rec,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            observers=[tclock.tick],
            after_turn=[Stuck(), PaceGovernor(8000.0, reading=units)],
            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,
            clock=tclock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), rec.trace()
    tin, tout = trace.usage or (0, 0)
    return RunReport(
        stop,
        detail,
        tuple(sent),
        trace,
        Costs(len(trace.model_calls), tin, tout, sum(o.total_cents for o in sent)),
    )
