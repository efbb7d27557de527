"""The grader's own code, fingerprinted before a harness runs and checked after it.

Session 16, the capstone. The harness runs in the grader's process, so it could replace one of
the grader's functions (`cafe.capstone.properties._approval = ...`), a method of the world's, a
module in `sys.modules`, or a builtin the judges call, and be judged by its own code.
`fingerprint()` notes which object every name of those modules and of the classes they define
is bound to; `restore(before)` puts back every binding that changed and says which ones did (an
empty string when none did). A module imported for the first time during the run is not a
change. The modules watched are `WATCHED`: the capstone's, the trace's (the replay and its
hash), the scripted client's, and `builtins`.
"""

from __future__ import annotations

import builtins
import sys
import types
from dataclasses import dataclass
from typing import Any

__all__ = ["WATCHED", "Fingerprint", "fingerprint", "restore"]

# The prefixes of the modules whose bindings the grader relies on when it judges a run.
WATCHED = ("cafe.capstone", "cafe.trace", "cafe.endpoint.client.script", "builtins")

# A binding: (its namespace's object, the namespace as it was, name -> object).
_Space = tuple[Any, dict[str, Any]]


@dataclass(frozen=True)
class Fingerprint:
    """The watched modules (by their name in `sys.modules`) and each namespace's bindings."""

    modules: dict[str, types.ModuleType]
    spaces: tuple[_Space, ...]


def _watched(name: str) -> bool:
    return any(name == w or name.startswith(w + ".") for w in WATCHED)


def fingerprint() -> Fingerprint:
    """The bindings of every watched module and of every class defined in one."""
    modules = {name: m for name, m in list(sys.modules.items()) if _watched(name) and m}
    spaces: list[_Space] = []
    for name, module in modules.items():
        namespace = vars(module)
        spaces.append((module, dict(namespace)))
        for value in list(namespace.values()):
            if isinstance(value, type) and value.__module__ == name and module is not builtins:
                spaces.append((value, dict(vars(value))))
    return Fingerprint(modules, tuple(spaces))


def _put_back(owner: Any, was: dict[str, Any]) -> list[str]:
    """Restore `owner`'s bindings to `was`; the names that had changed."""
    now = vars(owner)
    changed = []
    label = getattr(owner, "__name__", "?")
    for key in [k for k in now if k not in was and not isinstance(now[k], types.ModuleType)]:
        changed.append(f"{label}.{key} was added")
        if isinstance(owner, type):
            delattr(owner, key)
        else:
            del now[key]
    for key, value in was.items():
        if key not in now or now[key] is not value:
            changed.append(f"{label}.{key} was replaced")
            if isinstance(owner, type):
                type.__setattr__(owner, key, value)
            else:
                now[key] = value
    return changed


def restore(before: Fingerprint) -> str:
    """Undo every change to the bindings `before` noted; what had changed, or "" if nothing."""
    changed = []
    for name, module in before.modules.items():
        if sys.modules.get(name) is not module:
            changed.append(f"sys.modules[{name!r}] was replaced")
            sys.modules[name] = module
    for owner, was in before.spaces:
        changed += _put_back(owner, was)
    if not changed:
        return ""
    shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    return f"the harness changed the grader's own code: {shown}"
