"""The harness's own process: the harness runs there, the world and the model stay with the grader.

Session 16, the capstone. A harness that ran in the grader's process could reach anything the
grader holds (the world's record through the garbage collector, the judges through
`sys.modules`) and change it. So `HarnessProcess` starts a child process for it, a fork of the
grader where the system has one (Linux, macOS; a fresh interpreter on Windows, which then needs
a harness it can import: a file, `HarnessFile`, or a function of an importable module), and
the child holds only doors:

- `env.world` is a `WorldDoors` whose five functions each send a request down a pipe and wait
  for the grader's answer; the grader's process keeps the world and its record;
- `env.client` is a `ModelDoor` whose `chat.completions.create` does the same; the grader's
  process asks the model, counts the call and sends back the completion;
- the report goes back as plain values (`cafe/capstone/wire.py`), rebuilt on arrival.

Whatever the harness does inside its process (edits, patches, monkeypatches of the grader's
modules there), the grader's verdict is read in the grader's process, from the record kept there.
A harness that runs past its time limit is killed (a timer, so no clock is read here), and the
next run gets a fresh process. One process serves every run of one `check`, so starting one
costs once per check, not per run. What a fork cannot hide: the child starts as a copy of the
grader, so a harness that goes looking can read what the grader knew when it started (the
seed); it can change nothing the grader judges on.
"""

from __future__ import annotations

import gc
import importlib.util
import multiprocessing
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cafe.capstone.harness import BRIEF, Harness, Limits, RestockEnv
from cafe.capstone.wire import (
    from_json,
    order_to_wire,
    raise_from_wire,
    report_to_wire,
    to_json,
)
from cafe.capstone.world import GraderHalt, WorldDoors, received

__all__ = [
    "HarnessFile",
    "HarnessLoadError",
    "HarnessProcess",
    "ModelDoor",
    "TickClock",
    "load_harness",
]

# What a client may say about itself that the course's chat door and trace read.
CLIENT_FACTS = ("base_url", "provider", "timeout", "reply_cap", "api_key")
# The name of every module `load_harness` loads starts with this.
_LOADED = "capstone_harness_"
# The longest message either side reads off the pipe (a long run's request is well under this).
_MAX_MESSAGE = 64 * 1024 * 1024


class HarnessLoadError(ValueError):
    """The harness's file could not be loaded in its process; the message says why."""


@dataclass(frozen=True)
class HarnessFile:
    """A harness named by its file, loaded in the child (`load_harness`):
    its top-level code then runs only in the harness's process."""

    path: Path


def load_harness(path: Path) -> Harness:
    """`run_restock` from the Python file at `path`; ValueError saying what to do when it is not there."""
    if not path.is_file():
        raise ValueError(
            f"there is no harness at {path}; write run_restock(env) in that file (see cafe.capstone)"
        )
    spec = importlib.util.spec_from_file_location(f"{_LOADED}{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path} cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    harness = getattr(module, "run_restock", None)
    if not callable(harness):
        raise ValueError(f"{path} defines no function run_restock(env); define it there")
    return harness


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

    __slots__ = ("chat",) + CLIENT_FACTS
    chat: Any  # a `_Namespace` holding `completions`, which holds `create`

    def __init__(self, create: Callable[..., Any], facts: dict[str, Any]):
        object.__setattr__(self, "chat", _Namespace(completions=_Namespace(create=create)))
        for name in CLIENT_FACTS:
            value = facts.get(name)
            object.__setattr__(self, name, value if type(value) in (str, int, float) else None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"env.client.{name} cannot be replaced")


def client_facts(client: Any) -> dict[str, Any]:
    """The plain facts of `client` a `ModelDoor` shows (see `CLIENT_FACTS`)."""
    found = {name: getattr(client, name, None) for name in CLIENT_FACTS}
    return {k: v for k, v in found.items() if type(v) in (str, int, float)}


# --- the harness's side of the pipe --------------------------------------------------------


class _Pipe:
    """The child's end: one request and its answer at a time (a harness may call from several
    threads), and none between runs: a thread the harness left running is halted there."""

    def __init__(self, connection: Any):
        self.connection, self.lock = connection, threading.Lock()
        self.run: Any = None  # the run under way, as the grader numbered it; None between runs

    def ask(self, message: dict[str, Any]) -> Any:
        with self.lock:
            if self.run is None:
                raise GraderHalt("the grader stopped this run: it is over")
            self.connection.send_bytes(to_json({**message, "run": self.run}))
            answer = from_json(self.connection.recv_bytes(_MAX_MESSAGE))
        if "raise" in answer:
            raise_from_wire(answer)
        return answer.get("value")


def _environment(pipe: _Pipe, run: dict[str, Any]) -> RestockEnv:
    """The `RestockEnv` of one run, every door a request to the grader's process."""
    from openai.types.chat import ChatCompletion

    def door(name: str) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            if name in ("place_order", "ask_manager"):
                (order,) = args
                args = (order_to_wire(received(order)),)  # TypeError for what is not an order
            return pipe.ask({"op": "door", "name": name, "args": list(args)})

        call.__name__ = name
        return call

    def books() -> tuple[dict[str, str], int]:
        accounts, limit = pipe.ask({"op": "door", "name": "books", "args": []})
        return dict(accounts), int(limit)

    def create(*args: Any, **kwargs: Any) -> Any:
        if args:
            raise TypeError("create() takes keyword arguments only, as the SDK's does")
        answer = pipe.ask({"op": "model", "kwargs": kwargs})
        return ChatCompletion.model_validate(answer)

    names = ("read_stock", "ask_quote", "place_order", "ask_manager")
    doors = WorldDoors(books=books, **{name: door(name) for name in names})
    limits = Limits(int(run["limits"][0]), int(run["limits"][1]))
    client = ModelDoor(create, run["client"])
    return RestockEnv(client, doors, limits, TickClock(), model=str(run["model"]), brief=BRIEF)


def _child(connection: Any, harness: Harness | HarnessFile) -> None:
    """The child process: load the harness, then run it once for each run the grader sends."""
    pipe = _Pipe(connection)
    if isinstance(harness, HarnessFile):
        try:
            harness = load_harness(harness.path)
        except BaseException as exc:  # the file's own failure, told to the grader as it is
            connection.send_bytes(to_json({"op": "load_error", "error": str(exc)}))
            return
    connection.send_bytes(to_json({"op": "ready"}))
    while True:
        with pipe.lock:
            run = from_json(connection.recv_bytes(_MAX_MESSAGE))
            pipe.run = run.get("run")
        try:
            report = harness(_environment(pipe, run))
            message = {"op": "report", "report": report_to_wire(report)}
        except GraderHalt:
            message = {"op": "error", "error": "halted"}
        except BaseException as exc:  # the grader reports any failure of the harness as a finding
            message = {"op": "error", "error": f"the harness raised {type(exc).__name__}: {exc}"}
        with pipe.lock:
            connection.send_bytes(to_json({**message, "run": pipe.run}))
            pipe.run = None


# --- the grader's side -----------------------------------------------------------------------


def _start_method() -> str:
    """A fork where it is safe and cheap (Linux); a fresh interpreter elsewhere."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


def _portable(harness: Harness | HarnessFile) -> Harness | HarnessFile:
    """The harness as a fresh interpreter can receive it: a function `load_harness` loaded
    (whose module no import can find) goes as its file; anything else as itself."""
    globals_ = getattr(harness, "__globals__", {})
    if getattr(harness, "__module__", "").startswith(_LOADED) and "__file__" in globals_:
        return HarnessFile(Path(globals_["__file__"]))
    return harness


class HarnessProcess:
    """The harness's process, as the grader drives it: `run(facts, serve, seconds)` runs the
    harness once and answers each request with `serve`. A context manager; `close()` ends it."""

    def __init__(self, harness: Harness | HarnessFile, start_method: str | None = None):
        if not isinstance(harness, HarnessFile) and not callable(harness):
            raise TypeError(f"a harness is the function run_restock, not {type(harness).__name__}")
        self.harness = harness
        self.start_method = start_method or _start_method()  # "fork" or "spawn"
        self._process: Any = None
        self._connection: Any = None
        self._runs = 0  # runs started, so that a message from an earlier run is told apart

    def __enter__(self) -> HarnessProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        import openai.types.chat  # noqa: F401  # loaded once here, not again in each forked child

        context: Any = multiprocessing.get_context(self.start_method)  # typed as the base here
        ours, theirs = context.Pipe()
        harness = self.harness if self.start_method == "fork" else _portable(self.harness)
        process = context.Process(
            target=_child, args=(theirs, harness), daemon=True, name="capstone-harness"
        )
        gc.freeze()  # the child's collector then leaves the parent's objects (and pages) alone
        try:
            process.start()
        finally:
            gc.unfreeze()
        theirs.close()  # so that the child's end closing is seen here as the end of the pipe
        self._process, self._connection = process, ours
        try:
            hello = from_json(ours.recv_bytes(_MAX_MESSAGE))
        except (EOFError, OSError, ValueError):
            hello = {"op": "load_error", "error": "the harness's process ended before it started"}
        if hello.get("op") != "ready":
            self.close()
            raise HarnessLoadError(str(hello.get("error")))

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join()
            self._connection.close()
        self._process = self._connection = None

    def run(
        self, facts: dict[str, Any], serve: Callable[[dict[str, Any]], Any], seconds: float
    ) -> tuple[Any, str]:
        """(the report as sent, "") or (None, why there is none). Kills the process past
        `seconds`; a process that ended is replaced at the next run."""
        if self._process is None:
            self._start()
        self._runs += 1
        timed_out, process = threading.Event(), self._process

        def stop() -> None:
            timed_out.set()
            process.kill()

        timer = threading.Timer(seconds, stop)
        timer.start()
        try:
            return self._serve({**facts, "run": self._runs}, serve)
        except (EOFError, OSError, ValueError) as exc:
            ended = process.exitcode
            self.close()
            if timed_out.is_set():
                return None, f"the harness did not return within {seconds:g} s"
            why = f"exit code {ended}" if isinstance(exc, EOFError) else str(exc)
            return None, f"the harness's process ended without a report ({why})"
        finally:
            timer.cancel()
            if timed_out.is_set():  # the timer fired as the report arrived: start afresh next run
                self.close()

    def _serve(self, facts: dict[str, Any], serve: Callable[[dict[str, Any]], Any]) -> Any:
        connection = self._connection
        connection.send_bytes(to_json(facts))
        while True:
            message = from_json(connection.recv_bytes(_MAX_MESSAGE))
            op, run = message.get("op"), message.get("run")
            if type(run) is int and 0 < run < facts["run"]:  # left over from an earlier run
                continue
            if run != facts["run"]:
                self.close()
                return None, "the harness's process sent a message that belongs to no run"
            if op == "error":
                return None, str(message.get("error"))
            if op == "report":
                return message.get("report"), ""
            connection.send_bytes(to_json(serve(message)))
