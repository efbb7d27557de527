"""RIGHT: no run_loop at all; a hand-written loop on the recording client, the gate as a class
that repairs nothing and refuses with reasons, stall and pace counted inline."""

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
from cafe.endpoint.client.chat import chat
from cafe.endpoint.errors import EndpointError
from cafe.loop import ToolOutput
from cafe.loop.dispatch import assistant_message, decode_calls, dispatch_call
from cafe.loop.tools import tool_schemas
from cafe.stall import failure_signature
from cafe.trace import Recorder

PACE = 8


def run_restock(env: RestockEnv) -> RunReport:
    accounts, limit = env.world.books()
    stock = json.loads(env.world.read_stock())
    need = {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
    quotes, sent, no_items = {}, [], set()

    def quote(supplier, item, quantity):
        text = env.world.ask_quote(supplier, item, quantity)
        quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        if {line.item for line in order.lines} & no_items:
            return ToolOutput(False, "Order refused: the manager declined this item in this run.")
        left = {
            k: v - sum(line.quantity for o in sent for line in o.lines if line.item == k)
            for k, v in need.items()
        }
        problems = order_problems(order, left, quotes, accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > limit and not env.world.ask_manager(order):
            no_items.update(line.item for line in order.lines)
            return ToolOutput(False, "Order declined by the manager.")
        answer = env.world.place_order(order)
        sent.append(order)
        return answer

    tools = restock_tools(env.world.read_stock, quote, place)
    by_name = {t.name: t for t in tools}
    schemas = tool_schemas(tools)
    recorder = Recorder(clock=env.clock, trace_id="hand", started_at="2026-12-08T00:00:00+00:00")
    client = recorder.client(env.client)
    run = recorder.open("run", "restock hand loop", {})
    transcript = [{"role": "system", "content": env.brief}, {"role": "user", "content": "Restock."}]
    last_sig, same, idle, sent_before = None, 0, 0, 0
    stop, detail = "max_turns", f"all {env.limits.max_model_calls} model calls used"
    try:
        for turn in range(1, env.limits.max_model_calls + 1):
            reply = (
                chat(client, model=env.model, messages=transcript, tools=schemas).choices[0].message
            )
            calls, bad = decode_calls(reply, turn)
            transcript.append(assistant_message(reply.content, calls))
            if not calls:
                stop, detail = "done", reply.content or ""
                break
            bad_by_id = {r.call_id: r for r in bad}
            results = [bad_by_id.get(c.id) or dispatch_call(c, by_name) for c in calls]
            for r in results:
                transcript.append({"role": "tool", "tool_call_id": r.call_id, "content": r.output})
            stuck = None
            for r in results:
                if r.ok:
                    last_sig, same = None, 0
                    continue
                sig = failure_signature(r)
                same = same + 1 if sig == last_sig else 1
                last_sig = sig
                if same >= env.limits.stall_after:
                    stuck = f"{r.name} failed the same way {same} times"
                    break
            if stuck:
                stop, detail = "stuck", stuck
                break
            idle = 0 if len(sent) != sent_before else idle + 1
            sent_before = len(sent)
            if idle >= PACE:
                stop, detail = "cut", f"{idle} turns without an order"
                break
    except EndpointError as exc:
        recorder.close_all({"error.type": type(exc).__name__}, exc)
        stop, detail = "endpoint_failed", str(exc)
    else:
        recorder.close(run, {"cafe.stop.reason": stop})
    trace = recorder.trace()
    tin, tout = trace.usage or (0, 0)
    return RunReport(
        stop,
        detail,
        tuple(sent),
        trace,
        Costs(len(trace.model_calls), tin, tout, sum(o.total_cents for o in sent)),
    )
