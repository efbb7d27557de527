"""Is the learner's function the course's own? Asked of its code first, then of what it runs.

Some exercises ask for a mechanism the course already has (session 07's loop, session 13's fold),
and the notebook says the course's own function is refused: the checker says so plainly ("this is
the course's `fold_diagnostic` (or calls it); write your own") instead of passing it. The rule,
in one sentence: the learner's function is the course's own when the course's function's code
runs while the learner's function runs. However it was handed in (the function itself, an alias,
a wrapper that imports it inside its body, a closure or a lambda round it, a default argument, a
helper that calls it, a `functools.partial`), that code runs.

So `is_library(fn, *library, trial=args)` asks twice, the fast way first:

1. `names_library`: `fn` is one of `library`, or its code names one by a global name, as an
   attribute of a module it imported, or as `cafe.<...>.<name>`. No call is made.
2. `runs_library`: `fn(*trial)` runs once, on an input the checker already has (its first case),
   while a profile hook (`sys.setprofile`, and `threading.setprofile` for threads it starts)
   notes every Python function that starts; it is the course's own when one of them has the code
   of a `library` function (for a class: of one of its methods). Other course helpers run code
   of their own, so a right solution that calls them is not flagged (unless such a helper runs
   the refused function itself: then the solution is a wrapper round it too).

This module is the checkers' machinery, not library code a lesson teaches: the profile hook is
the one place the course looks at what runs rather than at what it is handed, because a wrapper
can hide a name from any reading of the code. Like `generated`, it imports nothing from `cafe`:
any session's checkers may use it.
"""

from __future__ import annotations

import copy
import inspect
import sys
import threading
from collections.abc import Callable, Iterator
from types import CodeType, FrameType, ModuleType
from typing import Any

__all__ = ["is_library", "names_library", "runs_library"]


def _names(code: Any) -> set[str]:
    """Every global or attribute name a code object and the code nested in it refer to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def names_library(fn: Any, *library: Callable[..., Any]) -> bool:
    """True when `fn` is one of `library` (the course's own functions the exercise mirrors), or
    a function whose code names one of them: by any name it was imported under (`import ... as
    x`), as `report.<name>` of a module it imported, or as `cafe.<...>.<name>`."""
    inner = getattr(fn, "__wrapped__", fn)
    inner = getattr(inner, "func", inner)  # a functools.partial of it
    code = getattr(inner, "__code__", None)
    if any(inner is own for own in library):
        return True
    if code is None:
        return False
    if any(code is getattr(own, "__code__", None) for own in library):
        return True
    names, found = _names(code), getattr(inner, "__globals__", {})
    if any(found.get(n) is own for n in names for own in library):  # by any name, aliases too
        return True
    modules = [found[n] for n in names if isinstance(found.get(n), ModuleType)]
    for own in library:
        name = getattr(own, "__name__", "")
        if name in names and (
            found.get(name) is own
            or "cafe" in names
            or any(getattr(module, name, None) is own for module in modules)
        ):
            return True
    return False


def _functions(own: Any) -> Iterator[Any]:
    """The functions whose code is `own`'s: itself, or for a class every method in its body
    (static, class and property methods too), each with what it wraps (`functools.wraps`)."""
    parts = list(vars(own).values()) if isinstance(own, type) else [own]
    for part in parts:
        if isinstance(part, property):
            yield from (f for f in (part.fget, part.fset, part.fdel) if f is not None)
            continue
        part = getattr(part, "__func__", part)  # a staticmethod's or classmethod's function
        if callable(part):
            yield part
            yield inspect.unwrap(part)


def _codes(library: tuple[Callable[..., Any], ...]) -> frozenset[CodeType]:
    """The code objects that are the course's own: one running means a `library` function ran."""
    found = (getattr(function, "__code__", None) for own in library for function in _functions(own))
    return frozenset(code for code in found if isinstance(code, CodeType))


def _copied(trial: tuple[Any, ...]) -> tuple[Any, ...]:
    """A copy of the trial's arguments (a learner's function may change its input), or the
    arguments themselves when they cannot be copied (a generator, a client)."""
    try:
        return copy.deepcopy(trial)
    except Exception:
        return trial


def runs_library(
    fn: Callable[..., Any], library: tuple[Callable[..., Any], ...], trial: tuple[Any, ...]
) -> bool:
    """True when the code of a `library` function (or method) runs while `fn(*trial)` runs.

    `fn` gets a copy of `trial`, and whatever it raises is its own business here: a stub's
    NotImplementedError or a learner's bug says "no course code ran" only if none did before the
    raise. The hooks in place before are put back, whatever happens."""
    codes = _codes(library)
    ran: list[CodeType] = []

    def noted(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in codes:
            ran.append(frame.f_code)

    before = sys.getprofile()
    threads_before = getattr(threading, "getprofile", lambda: None)()  # Python 3.12 has it
    sys.setprofile(noted)
    threading.setprofile(noted)
    try:
        fn(*_copied(trial))
    except Exception:  # the checker's cases run it again and report what went wrong
        pass
    finally:
        sys.setprofile(before)
        threading.setprofile(threads_before)
    return bool(ran)


def is_library(fn: Any, *library: Callable[..., Any], trial: tuple[Any, ...] | None = None) -> bool:
    """True when `fn` is the course's own `library` function however it was handed in: by what
    its code names (`names_library`), or, given `trial` (the arguments of the checker's first
    case), by what runs while it runs on them (`runs_library`)."""
    if names_library(fn, *library):
        return True
    return trial is not None and callable(fn) and runs_library(fn, library, trial)
