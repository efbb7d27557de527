"""RIGHT: the stall and the pace are read off a ledger the tool wrappers keep of what reached
the world (no failure_signature hook, no PaceGovernor); costs counted by a client wrapper."""

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
from cafe.loop import Stop, ToolOutput
from cafe.stall import normalize_evidence
from cafe.trace import Recorder, record_loop

IDLE_TURNS = 8


class Ledger:
    """What happened at the world's doors, kept by the wrappers."""

    def __init__(self, env):
        self.env = env
        self.accounts, self.limit = env.world.books()
        stock = json.loads(env.world.read_stock())
        self.need = {k: max(0, v["par"] - v["on_hand"]) for k, v in stock.items()}
        self.quotes, self.sent, self.refused_items = {}, [], set()
        self.streak_key, self.streak = None, 0  # same supplier failure in a row, world-wide
        self.stalled = None

    def _event(self, failure_key=None):
        if failure_key is None:
            self.streak_key, self.streak = None, 0
            return
        self.streak = self.streak + 1 if failure_key == self.streak_key else 1
        self.streak_key = failure_key
        if self.streak >= self.env.limits.stall_after:
            self.stalled = f"{failure_key} ({self.streak} times in a row)"

    def quote(self, supplier, item, quantity):
        if self.stalled:
            raise RuntimeError(f"not asked: the run is stuck on {self.stalled}")
        try:
            text = self.env.world.ask_quote(supplier, item, quantity)
        except Exception as exc:
            self._event(f"{supplier}: {normalize_evidence(str(exc))}")
            raise
        self._event()
        self.quotes[(supplier, item)] = Quote(**json.loads(text))
        return text

    def left(self):
        left = dict(self.need)
        for order in self.sent:
            for line in order.lines:
                left[line.item] -= line.quantity
        return left

    def order(self, arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Refused: {exc}")
        blocked = sorted({line.item for line in order.lines} & self.refused_items)
        if blocked:
            return ToolOutput(
                False, f"Refused: the manager declined {', '.join(blocked)} in this run."
            )
        problems = order_problems(order, self.left(), self.quotes, self.accounts)
        if problems:
            return ToolOutput(False, "Refused: " + "; ".join(problems))
        if order.total_cents > self.limit:
            yes = self.env.world.ask_manager(order)
            self._event()
            if not yes:
                self.refused_items |= {line.item for line in order.lines}
                return ToolOutput(False, "Refused: the manager declined this order.")
        answer = self.env.world.place_order(order)
        self._event()
        self.sent.append(order)
        return answer


class Counted:
    """The model client, counted: every call asked, and the tokens of every answer."""

    def __init__(self, inner):
        self.inner, self.calls, self.tin, self.tout = inner, 0, 0, 0
        self.chat = self
        self.completions = self

    def create(self, **kwargs):
        self.calls += 1
        answer = self.inner.chat.completions.create(**kwargs)
        usage = getattr(answer, "usage", None)
        if usage is not None:
            self.tin += usage.prompt_tokens or 0
            self.tout += usage.completion_tokens or 0
        return answer


def run_restock(env: RestockEnv) -> RunReport:
    ledger = Ledger(env)
    client = Counted(env.client)
    idle = {"turns": 0, "sent": 0}

    def hook(view):
        if ledger.stalled and any(not r.ok for r in view.dispatch):
            return Stop("stuck", ledger.stalled)
        if len(ledger.sent) != idle["sent"]:
            idle["sent"], idle["turns"] = len(ledger.sent), 0
        else:
            idle["turns"] += 1
        if idle["turns"] >= IDLE_TURNS:
            return Stop("cut", f"no order reached a supplier for {idle['turns']} turns")
        return None

    tools = restock_tools(env.world.read_stock, ledger.quote, ledger.order)
    recorder = Recorder(
        clock=env.clock, trace_id="restock-ledger", started_at="2026-12-01T00:00:00+00:00"
    )
    messages = [
        {"role": "system", "content": env.brief},
        {"role": "user", "content": "Restock now."},
    ]
    try:
        result, trace = record_loop(
            client,
            messages,
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            after_turn=[hook],
            stop_reasons={"stuck", "cut"},
            clock=env.clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    spend = sum(o.total_cents for o in ledger.sent)
    return RunReport(
        stop, detail, tuple(ledger.sent), trace, Costs(client.calls, client.tin, client.tout, spend)
    )
