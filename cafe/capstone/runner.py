"""Running a harness on one scenario, in its own process and within a time limit, and replaying it.

Session 16, the capstone. `run_scenario` builds the scenario's world and the model here, in the
grader's process, and runs the harness in the harness's own process (`cafe/capstone/child.py`),
answering each request it sends through its doors; past `time_limit` seconds that process is
killed. When the report holds a trace, the harness runs again against `cafe.trace.replay_client`
of that trace on a fresh copy of the world. It returns the `RunEvidence` the properties are
judged on.

Everything the properties read stays in this process, out of the harness's reach:

- the world and its record (`RestockWorld.events`), the suppliers' plans and the manager's
  ceiling: the harness sends requests, and gets back answers as plain values;
- the grader's count of the model in `_Ledger` (`_ClientLedger` for the learner's own model,
  `--live`): calls, their tokens, whether the last answer was final, whether the endpoint failed,
  how far the world's record had got at each call and which tools the last answer asked for;
- the yardstick (`yardstick`): the course's own harness run here, in the grader's process, on
  the same scenario with the same scripted model, and what it met, so that a property that held
  only because nothing happened is told apart (`cafe/capstone/properties.py`);
- the report, rebuilt from plain values in the course's own types (`cafe/capstone/wire.py`).

A harness that edits, patches or monkeypatches anything in its own process changes only its own
copy; the grader's modules, judges and record are never in that process to be changed.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from cafe.capstone.child import HarnessFile, HarnessProcess, TickClock, client_facts
from cafe.capstone.harness import Harness, Limits
from cafe.capstone.model import RestockModel
from cafe.capstone.properties import RunEvidence, Yardstick, subjects
from cafe.capstone.scenarios import Scenario, build_world
from cafe.capstone.wire import error_to_wire, order_from_wire, report_from_wire
from cafe.capstone.world import GraderHalt, RestockWorld
from cafe.endpoint.client.chat import translate_error
from cafe.endpoint.client.diagnosis import endpoint_errors
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.script import Script
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.trace import Trace, replay_client

__all__ = ["HARD_CALL_FACTOR", "TIME_LIMIT_S", "TickClock", "run_scenario", "yardstick"]

# Course choices: a run gets 5 s of wall time (a scripted run takes milliseconds), and a harness
# with no cap meets a model that stops answering at four times the cap.
TIME_LIMIT_S = 5.0
HARD_CALL_FACTOR = 4
# The world's operations a harness may ask for, and what each takes.
_DOORS = ("read_stock", "ask_quote", "place_order", "ask_manager", "books")


class _ClientLedger:
    """A live client behind the grader's count (`--live`): the same record as `_Ledger` keeps,
    read off each completion; past the hard limit the run halts rather than spend more."""

    def __init__(self, client: ChatClient, world: RestockWorld, hard_limit: int):
        self.client, self.world, self.hard_limit = client, world, hard_limit
        self.calls = 0
        self.usage: list[tuple[int, int]] = []
        self.final = False
        self.endpoint_failed = False
        self.marks: list[int] = []
        self.last_calls: tuple[str, ...] = ()

    def create(self, **kwargs: Any) -> Any:
        if self.world.halted or self.calls >= self.hard_limit:
            self.world.halted = True
            raise GraderHalt("the grader stopped this run: too many model calls")
        self.calls += 1
        self.marks.append(len(self.world.events))
        self.last_calls = ()
        try:
            completion = self.client.chat.completions.create(**kwargs)
        except Exception as exc:
            self.endpoint_failed, self.final = True, False
            if isinstance(exc, endpoint_errors()):  # said as the chat door says it, to cross
                raise translate_error(exc, self.client) from None
            raise
        usage = getattr(completion, "usage", None)
        self.usage.append(
            (int(usage.prompt_tokens), int(usage.completion_tokens)) if usage else (0, 0)
        )
        message = completion.choices[0].message if completion.choices else None
        self.final = not getattr(message, "tool_calls", None)
        self.last_calls = tuple(
            str(getattr(getattr(call, "function", None), "name", ""))
            for call in getattr(message, "tool_calls", None) or ()
        )
        return completion


class _Ledger:
    """The grader's own count of the scripted model: calls, tokens, the last answer, the endpoint."""

    def __init__(self, model: RestockModel, hard_limit: int, world: RestockWorld):
        self.model, self.hard_limit, self.world = model, hard_limit, world
        self.calls = 0
        self.usage: list[tuple[int, int]] = []
        self.final = False  # was the last answer a final one (no tool call)?
        self.endpoint_failed = False
        self.marks: list[int] = []  # how many world events there were at each call
        self.last_calls: tuple[str, ...] = ()  # the tools the last answer asked for
        self.client = ScriptedClient(Script(self._answer))

    def _answer(self, request: dict[str, Any]) -> Any:
        """The scenario's model behind the grader's count: past the hard limit it answers only
        that it has stopped (still counted, still charged)."""
        self.calls += 1
        self.marks.append(len(self.world.events))
        self.last_calls = ()
        if self.calls > self.hard_limit:
            self.usage.append((1, 1))
            self.final = True
            return {"content": "(stopped)", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
        try:
            reply = self.model(request)
        except Exception:
            self.endpoint_failed, self.final = True, False
            raise
        self.usage.append(self.model.usage[-1])
        self.final = not reply.get("tool_calls")
        self.last_calls = tuple(str(call.get("name", "")) for call in reply.get("tool_calls") or ())
        return reply

    def create(self, **kwargs: Any) -> Any:
        return self.client.chat.completions.create(**kwargs)


def _server(world: RestockWorld, create: Any) -> Any:
    """What answers the harness's requests for one run: the world's doors and the model."""

    def serve(message: dict[str, Any]) -> dict[str, Any]:
        try:
            if message.get("op") == "model":
                kwargs = message.get("kwargs")
                if not isinstance(kwargs, dict):
                    raise TypeError("create() takes keyword arguments")
                return {"value": create(**kwargs).model_dump(mode="json")}
            name, args = message.get("name"), message.get("args")
            if message.get("op") != "door" or name not in _DOORS or not isinstance(args, list):
                raise TypeError(f"there is no door {name!r}")
            if name in ("place_order", "ask_manager"):
                args = [order_from_wire(a) for a in args]
            return {"value": getattr(world, name)(*args)}
        except BaseException as exc:  # every failure goes back to the harness to be raised there
            return error_to_wire(exc)

    return serve


def _facts(limits: Limits, model: str, client: Any) -> dict[str, Any]:
    return {
        "limits": [limits.max_model_calls, limits.stall_after],
        "model": model,
        "client": client_facts(client),
    }


def run_scenario(
    harness: Harness | HarnessFile | HarnessProcess,
    scenario: Scenario,
    time_limit: float = TIME_LIMIT_S,
    *,
    live: tuple[ChatClient, str] | None = None,
) -> RunEvidence:
    """Run `harness` on `scenario`, then replay its trace; what the grader saw of both. With
    `live` (a client and its model's name) the model is that one, not the scenario's script.
    `harness` may be a running `HarnessProcess` (as `check` passes, one for all its runs);
    otherwise a process is started for this scenario alone."""
    if not isinstance(harness, HarnessProcess):
        with HarnessProcess(harness) as child:
            return run_scenario(child, scenario, time_limit, live=live)
    world, model, limits = build_world(scenario)
    hard_limit = HARD_CALL_FACTOR * limits.max_model_calls
    ledger: _Ledger | _ClientLedger
    if live is None:
        ledger, name = _Ledger(model, hard_limit, world), "scripted-restock"
        facts = _facts(limits, name, ledger.client)
    else:
        ledger, name = _ClientLedger(live[0], world, hard_limit), live[1]
        facts = _facts(limits, name, live[0])
    sent, error = harness.run(facts, _server(world, ledger.create), time_limit)
    world.halted = True  # nothing adds to this record from here on
    report = report_from_wire(sent) if not error else None
    run = RunEvidence(
        world,
        limits,
        ledger.calls,
        tuple(ledger.usage),
        report,
        error,
        final_answer=ledger.final,
        endpoint_failed=ledger.endpoint_failed,
        marks=tuple(ledger.marks),
        last_calls=ledger.last_calls,
        yardstick=yardstick(scenario) if live is None else None,
    )
    trace = getattr(report, "trace", None)
    if error or type(trace) is not Trace:
        return run
    return _replayed(harness, scenario, run, trace, name, time_limit)


@lru_cache(maxsize=256)
def yardstick(scenario: Scenario) -> Yardstick | None:
    """What the course's own harness meets on `scenario` (its model calls, orders, orders over
    the limit, supplier failures), run here on a world of its own; None if it could not run.
    The same every time, so it is kept (a check's shrinking asks again for the same scenarios)."""
    from cafe.capstone.harness import RestockEnv
    from cafe.capstone.reference import run_restock

    world, model, limits = build_world(scenario)
    ledger = _Ledger(model, HARD_CALL_FACTOR * limits.max_model_calls, world)
    try:
        run_restock(RestockEnv(ledger.client, world.doors(), limits, TickClock()))
    except Exception:  # the yardstick is missing, never the verdict: nothing is vacuous then
        return None
    return subjects(world, ledger.calls)


def _replayed(
    harness: HarnessProcess,
    scenario: Scenario,
    run: RunEvidence,
    trace: Trace,
    name: str,
    time_limit: float,
) -> RunEvidence:
    """`run` with the replay of its trace: the harness again, on a fresh copy of the world."""
    again, _, _ = build_world(scenario)
    try:
        replayer = replay_client(trace)
    except Exception as exc:  # a trace the replay cannot read is a finding, not a crash
        return replace(run, replay_world=again, replay_error=f"{type(exc).__name__}: {exc}")
    serve = _server(again, replayer.chat.completions.create)
    sent, replay_error = harness.run(_facts(run.limits, name, replayer), serve, time_limit)
    again.halted = True
    return replace(
        run,
        replay_world=again,
        replay_report=report_from_wire(sent) if not replay_error else None,
        replay_error=replay_error,
        replay_unused=replayer.unused,
    )
