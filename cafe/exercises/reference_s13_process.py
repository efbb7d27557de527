"""A learner's function asked again in a fresh Python process with another hash seed: the second
sighting behind `check_signature`'s rule "one failure in two fresh processes, one signature".

The detector compares signatures across turns, and a run is resumed, replayed and graded in other
processes. Python picks a new hash seed for each process (the lesson says so of the sets a runner
prints), so a signature built with `hash()`, or from a set's order, answers every call in one
process alike and differs in the next: no check inside one process can see it. `in_fresh_process`
sends the function to a child Python (`sys.executable`) started with `PYTHONHASHSEED` set to a
seed other than this process's, has it call the function on each input there, and hands back
what it answered, in order.

How the function gets there: a notebook's function cannot be imported by another process, so it
goes by value, as `pickle` cannot send it: its compiled code (`marshal`, read back by the same
Python), the globals its code names, its defaults and its closure. A function those name that
lives in the same place goes the same way, a module by its name, and anything else as `pickle`
sends it (a compiled pattern by its text, a library's function by where it is imported from).
Module-level state goes as it is now, not as a fresh import would compute it. When something
cannot be sent (a lock, an object of a class the notebook defined) or the child does not answer,
the answer is None, and the caller skips the check rather than blame the learner for the carrier.

The caller passes the child's environment, secrets already left out
(`cafe.world.processes.without_secrets`); like the other references, this module imports nothing
from `cafe`. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import io
import marshal
import os
import pickle
import subprocess
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["TIMEOUT_S", "Answer", "in_fresh_process", "answer"]

# Seconds a fresh process may take to start, import the course and answer (it takes about 0.1 s
# on a laptop); past it there is no answer, and the caller skips the check.
TIMEOUT_S = 30.0
# What the child runs: `answer`, below, reading the function and the inputs from its stdin.
_CHILD = "from cafe.exercises.reference_s13_process import answer; answer()"

# One answer of the function in the child: ("returned", the value) or ("raised", the error's name).
Answer = tuple[str, Any]


def _names(code: types.CodeType) -> set[str]:
    """Every global name a function's code (and the code nested in it) may read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _importable(fn: types.FunctionType, home: str) -> bool:
    """Whether the child can import `fn` by its module and name: not the learner's own module."""
    if fn.__module__ in (home, "__main__") or fn.__module__ not in sys.modules:
        return False
    found: Any = sys.modules[fn.__module__]
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is fn


def _function(code: bytes, name: str, free: int) -> types.FunctionType:
    """The child's side: a function rebuilt from its code; `_fill` gives it its globals after."""
    cells = tuple(types.CellType() for _ in range(free))
    return types.FunctionType(marshal.loads(code), {"__builtins__": builtins}, name, None, cells)


def _fill(fn: types.FunctionType, state: tuple[Any, ...]) -> None:
    """The child's side: the globals, defaults and closure values sent with a function."""
    namespace, defaults, keyword_defaults, values = state
    fn.__globals__.update(namespace)
    fn.__defaults__, fn.__kwdefaults__ = defaults, keyword_defaults
    for cell, value in zip(fn.__closure__ or (), values, strict=True):
        cell.cell_contents = value


class _Sender(pickle.Pickler):
    """`pickle`, but a module by its name and the learner's functions by value."""

    def __init__(self, file: io.BytesIO, home: str) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.home = home

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if not isinstance(obj, types.FunctionType) or _importable(obj, self.home):
            return NotImplemented
        code = obj.__code__
        namespace = {
            name: obj.__globals__[name] for name in _names(code) if name in obj.__globals__
        }
        values = tuple(cell.cell_contents for cell in obj.__closure__ or ())
        state = (namespace, obj.__defaults__, obj.__kwdefaults__, values)
        return _function, (marshal.dumps(code), obj.__name__, len(values)), state, None, None, _fill


def _sent(fn: Callable[..., Any], inputs: Sequence[Any]) -> bytes | None:
    """`fn` (unwrapped from a checker's or a notebook's wrapper) and the inputs, as bytes."""
    fn = inspect.unwrap(fn)
    buffer = io.BytesIO()
    try:
        _Sender(buffer, getattr(fn, "__module__", "__main__")).dump((fn, list(inputs)))
    except Exception:  # something the function reads cannot be sent: no answer
        return None
    return buffer.getvalue()


def in_fresh_process(
    fn: Callable[..., Any], inputs: Sequence[Any], env: Mapping[str, str]
) -> list[Answer] | None:
    """What `fn` answers each input in a fresh Python whose hash seed is not this one's, in order;
    None when it could not be asked. `env` is the child's environment, without secrets."""
    sent = _sent(fn, inputs)
    if sent is None:
        return None
    seed = "2" if env.get("PYTHONHASHSEED") == "1" else "1"  # this process's seed is not "1"
    path = os.pathsep.join(entry for entry in sys.path if entry)  # where this process imports from
    child = {**env, "PYTHONHASHSEED": seed, "PYTHONPATH": path}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=sent,
            capture_output=True,
            env=child,
            timeout=TIMEOUT_S,
            check=False,
        )
        answers = pickle.loads(done.stdout) if done.returncode == 0 else None
    except Exception:  # no Python to start, a timeout, an answer that does not read back
        return None
    if not isinstance(answers, list) or len(answers) != len(inputs):
        return None
    return answers


def answer() -> None:
    """The child's side: read the function and its inputs from stdin, call it on each, and write
    the answers to stdout (what the function prints goes to stderr)."""
    fn, inputs = pickle.load(sys.stdin.buffer)
    out, sys.stdout = sys.stdout.buffer, sys.stderr
    answers: list[Answer] = []
    for value in inputs:
        try:
            returned = fn(value)
        except Exception as error:
            answers.append(("raised", type(error).__name__))
            continue
        answers.append(("returned", returned if isinstance(returned, str) else repr(returned)))
    pickle.dump(answers, out)
    out.flush()
