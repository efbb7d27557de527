"""Asks the model for one more answer after the loop stopped on `max_turns`, for a summary in
the report: a call outside the loop is outside its budget. Found by held-out reader G, 7 Dec
2026."""

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import OrderGate, opening, run_with_gate
from cafe.endpoint.client.chat import chat


def run_restock(env: RestockEnv) -> RunReport:
    report = run_with_gate(env, OrderGate(env))
    if report.stop != "max_turns":
        return report
    ask = opening(env) + [{"role": "user", "content": "Summarise why you stopped."}]
    reply = chat(env.client, model=env.model, messages=ask)  # the cap's one call too many
    detail = f"{report.detail}; the model says: {reply.choices[0].message.content}"
    return RunReport(report.stop, detail, report.orders, report.trace, report.costs)
