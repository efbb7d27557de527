"""Running a harness on one scenario, offline and within a time limit, and replaying its trace.

Session 16, the capstone. `run_scenario` builds the scenario's world, wraps its model so that
every call is counted and a runaway harness cannot call it for ever (past `HARD_CALL_FACTOR`
times the cap the model only says it has stopped), runs the harness on a thread it waits for at
most `time_limit` seconds (then the world halts: every stub raises `GraderHalt`), and, when the
report holds a trace, runs the harness again against `cafe.trace.replay_client` of that trace on
a fresh copy of the world. It returns the `RunEvidence` the properties are judged on.
"""

from __future__ import annotations

import threading
from typing import Any

from cafe.capstone.harness import Harness, RestockEnv
from cafe.capstone.model import RestockModel
from cafe.capstone.properties import RunEvidence
from cafe.capstone.scenarios import Scenario, build_world
from cafe.capstone.world import GraderHalt, RestockWorld
from cafe.endpoint.client.script import Script
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.trace import Trace, replay_client

__all__ = ["HARD_CALL_FACTOR", "TIME_LIMIT_S", "TickClock", "run_scenario"]

# Course choices: a run gets 5 s of wall time (a scripted run takes milliseconds), and a harness
# with no cap meets a model that stops answering at four times the cap.
TIME_LIMIT_S = 5.0
HARD_CALL_FACTOR = 4


class TickClock:
    """A clock that moves one millisecond each time it is read: runs repeat exactly."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


class _GuardedModel:
    """The scenario's model behind the grader's guard: halts with the world, and past the hard
    limit answers only that it has stopped (still counted, still charged)."""

    def __init__(self, model: RestockModel, world: RestockWorld, hard_limit: int):
        self.model, self.world, self.hard_limit = model, world, hard_limit

    def __call__(self, request: dict[str, Any]) -> Any:
        if self.world.halted:
            raise GraderHalt("the grader stopped this run: it ran past its time limit")
        if len(self.model.usage) >= self.hard_limit:
            self.model.usage.append((1, 1))
            return {"content": "(stopped)", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
        return self.model(request)


def _in_time(harness: Harness, env: RestockEnv, seconds: float) -> tuple[Any, str]:
    """(what the harness returned, "") or (None, why it did not)."""
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
    if worker.is_alive():
        env.world.halted = True
        return None, f"the harness did not return within {seconds:g} s"
    if "error" in box:
        return None, box["error"]
    return box.get("report"), ""


def run_scenario(
    harness: Harness, scenario: Scenario, time_limit: float = TIME_LIMIT_S
) -> RunEvidence:
    """Run `harness` on `scenario`, then replay its trace; what the grader saw of both."""
    world, model, limits = build_world(scenario)
    client = ScriptedClient(
        Script(_GuardedModel(model, world, HARD_CALL_FACTOR * limits.max_model_calls))
    )
    report, error = _in_time(harness, RestockEnv(client, world, limits, TickClock()), time_limit)
    run = RunEvidence(world, limits, len(client.calls), tuple(model.usage), report, error)
    trace = getattr(report, "trace", None)
    if error or not isinstance(trace, Trace):
        return run
    again, _, _ = build_world(scenario)
    try:
        replayer = replay_client(trace)
    except Exception as exc:  # a trace the replay cannot read is a finding, not a crash
        return _with_replay(run, again, None, f"{type(exc).__name__}: {exc}", 0)
    replayed, replay_error = _in_time(
        harness, RestockEnv(replayer, again, limits, TickClock()), time_limit
    )
    return _with_replay(run, again, replayed, replay_error, replayer.unused)


def _with_replay(
    run: RunEvidence, world: RestockWorld, report: Any, error: str, unused: int
) -> RunEvidence:
    return RunEvidence(
        run.world,
        run.limits,
        run.calls,
        run.usage,
        run.report,
        run.error,
        world,
        report,
        error,
        unused,
    )
