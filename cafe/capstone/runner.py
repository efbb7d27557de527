"""Running a harness on one scenario, offline and within a time limit, and replaying its trace.

Session 16, the capstone. `run_scenario` builds the scenario's world and runs the harness on a
thread it waits for at most `time_limit` seconds (then the world halts: every stub raises
`GraderHalt`), and, when the report holds a trace, runs the harness again against
`cafe.trace.replay_client` of that trace on a fresh copy of the world. It returns the
`RunEvidence` the properties are judged on.

The harness runs in the grader's own process, so the evidence is kept where it cannot reach it:

- it is handed the world's doors (`WorldDoors`), never the world, and a `ModelDoor`, never the
  scripted client: the record of what happened, the suppliers' plans and the model's ledger stay
  with the grader (an order is copied into plain values as it passes a door);
- the grader counts the model's calls, their tokens, whether the last answer was final and
  whether the endpoint failed, in its own `_Ledger` (`_ClientLedger` for the learner's own model,
  `--live`), which no door leads to;
- once the harness returns (or its time is up) the world halts, so a thread it left running
  cannot add to the record while it is judged;
- the grader's own modules are fingerprinted before the run and compared after it
  (`cafe.capstone.integrity`): a harness that patched them is found, the patch undone, and its
  run judged as tampered.

A harness that reads the grader's frames or closures on purpose could still reach the record;
running it in a separate process would close that door too, and this grader does not.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from cafe.capstone.harness import Harness, RestockEnv, RunReport
from cafe.capstone.integrity import fingerprint, restore
from cafe.capstone.model import RestockModel
from cafe.capstone.properties import RunEvidence
from cafe.capstone.scenarios import Scenario, build_world
from cafe.capstone.world import GraderHalt, RestockWorld
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.script import Script
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.trace import Trace, replay_client

__all__ = ["HARD_CALL_FACTOR", "TIME_LIMIT_S", "ModelDoor", "TickClock", "run_scenario"]

# Course choices: a run gets 5 s of wall time (a scripted run takes milliseconds), and a harness
# with no cap meets a model that stops answering at four times the cap.
TIME_LIMIT_S = 5.0
HARD_CALL_FACTOR = 4
# What a client may say about itself that the course's chat door and trace read.
_CLIENT_FACTS = ("base_url", "provider", "timeout", "reply_cap", "api_key")


class TickClock:
    """A clock that moves one millisecond each time it is read: runs repeat exactly."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


class _Namespace:
    """`client.chat` or `client.chat.completions`: one fixed attribute, nothing behind it."""

    __slots__ = ("completions", "create")

    def __init__(self, **fields: Any):
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"the model's door cannot be changed ({name})")


class ModelDoor:
    """The model as a harness is handed it: `chat.completions.create` and the client's plain
    facts (base URL, provider, timeout, reply cap), with no way back to the client behind it."""

    __slots__ = ("chat",) + _CLIENT_FACTS
    chat: Any  # a `_Namespace` holding `completions`, which holds `create`

    def __init__(self, client: ChatClient):
        def create(*args: Any, **kwargs: Any) -> Any:
            return client.chat.completions.create(*args, **kwargs)

        object.__setattr__(self, "chat", _Namespace(completions=_Namespace(create=create)))
        for name in _CLIENT_FACTS:
            value = getattr(client, name, None)
            if value is None or type(value) in (str, int, float):
                object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"env.client.{name} cannot be replaced")


class _ClientLedger:
    """A live client behind the grader's count (`--live`): the same record as `_Ledger` keeps,
    read off each completion; past the hard limit the run halts rather than spend more."""

    chat: Any  # a `_Namespace` holding `completions`, which holds `create`

    def __init__(self, client: ChatClient, world: RestockWorld, hard_limit: int):
        self.client, self.world, self.hard_limit = client, world, hard_limit
        self.calls = 0
        self.usage: list[tuple[int, int]] = []
        self.final = False
        self.endpoint_failed = False
        self.chat = _Namespace(completions=_Namespace(create=self._create))
        for name in _CLIENT_FACTS:
            setattr(self, name, getattr(client, name, None))

    def _create(self, *args: Any, **kwargs: Any) -> Any:
        if self.world.halted or self.calls >= self.hard_limit:
            self.world.halted = True
            raise GraderHalt("the grader stopped this run: too many model calls")
        self.calls += 1
        try:
            completion = self.client.chat.completions.create(*args, **kwargs)
        except Exception:
            self.endpoint_failed, self.final = True, False
            raise
        usage = getattr(completion, "usage", None)
        self.usage.append(
            (int(usage.prompt_tokens), int(usage.completion_tokens)) if usage else (0, 0)
        )
        message = completion.choices[0].message if completion.choices else None
        self.final = not getattr(message, "tool_calls", None)
        return completion


class _Ledger:
    """The grader's own count of the model: calls, tokens, the last answer, the endpoint."""

    def __init__(self, model: RestockModel, world: RestockWorld, hard_limit: int):
        self.model, self.world, self.hard_limit = model, world, hard_limit
        self.calls = 0
        self.usage: list[tuple[int, int]] = []
        self.final = False  # was the last answer a final one (no tool call)?
        self.endpoint_failed = False

    def __call__(self, request: dict[str, Any]) -> Any:
        """The scenario's model behind the grader's guard: halts with the world, and past the
        hard limit answers only that it has stopped (still counted, still charged)."""
        if self.world.halted:
            raise GraderHalt("the grader stopped this run: it ran past its time limit")
        self.calls += 1
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
        return reply


def _in_time(harness: Harness, env: RestockEnv, world: RestockWorld, seconds: float) -> Any:
    """(what the harness returned, "") or (None, why it did not). The world halts either way."""
    box: dict[str, Any] = {}

    def job() -> None:
        try:
            box["report"] = harness(env)
        except GraderHalt:
            box["error"] = "halted"
        except BaseException as exc:  # the grader reports any failure of the harness as a finding
            box["error"] = f"the harness raised {type(exc).__name__}: {exc}"

    worker = threading.Thread(target=job, name="capstone-harness", daemon=True)
    worker.start()
    worker.join(seconds)
    world.halted = True  # nothing the harness left running adds to the record from here on
    if worker.is_alive():
        return None, f"the harness did not return within {seconds:g} s"
    if "error" in box:
        return None, box["error"]
    return box.get("report"), ""


def _guarded(harness: Harness, env: RestockEnv, world: RestockWorld, seconds: float) -> Any:
    """`_in_time`, with the grader's modules fingerprinted around it: (report, error, tampered)."""
    before = fingerprint()
    report, error = _in_time(harness, env, world, seconds)
    tampered = restore(before)
    return report, error, tampered


def run_scenario(
    harness: Harness,
    scenario: Scenario,
    time_limit: float = TIME_LIMIT_S,
    *,
    live: tuple[ChatClient, str] | None = None,
) -> RunEvidence:
    """Run `harness` on `scenario`, then replay its trace; what the grader saw of both. With
    `live` (a client and its model's name) the model is that one, not the scenario's script."""
    world, model, limits = build_world(scenario)
    hard_limit = HARD_CALL_FACTOR * limits.max_model_calls
    ledger: _Ledger | _ClientLedger
    if live is None:
        ledger = _Ledger(model, world, hard_limit)
        door, name = ModelDoor(ScriptedClient(Script(ledger))), "scripted-restock"
    else:
        ledger = _ClientLedger(live[0], world, hard_limit)
        door, name = ModelDoor(ledger), live[1]
    env = RestockEnv(door, world.doors(), limits, TickClock(), model=name)
    report, error, tampered = _guarded(harness, env, world, time_limit)
    run = RunEvidence(
        world,
        limits,
        ledger.calls,
        tuple(ledger.usage),
        report,
        error,
        final_answer=ledger.final,
        endpoint_failed=ledger.endpoint_failed,
        tampered=tampered,
    )
    trace = report.trace if type(report) is RunReport else None
    if error or tampered or type(trace) is not Trace:
        return run
    again, _, _ = build_world(scenario)
    try:
        replayer = replay_client(trace)
    except Exception as exc:  # a trace the replay cannot read is a finding, not a crash
        return replace(run, replay_world=again, replay_error=f"{type(exc).__name__}: {exc}")
    replay_env = RestockEnv(ModelDoor(replayer), again.doors(), limits, TickClock(), model=name)
    replayed, replay_error, tampered = _guarded(harness, replay_env, again, time_limit)
    return replace(
        run,
        replay_world=again,
        replay_report=replayed,
        replay_error=replay_error,
        replay_unused=replayer.unused,
        tampered=tampered,
    )
