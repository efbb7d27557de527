"""How a checker calls the learner's function and words a rejection: one place for every session.

A checker (`cafe.exercises.sNN.check_<thing>`) runs the learner's function on a handful of cases
and returns a list of problems; `cafe.course.compare` prints them under "failed". Every checker
needs the same two things, so they live here:

- `call(fn, *args, **kwargs)` runs the learner's function on one case and hands back what it
  returned, or a `Raised` record when it raised. The stub's `NotImplementedError` is not caught:
  it travels up to `compare`, which says "not attempted yet" instead of "failed".
- `mismatch(case, returned, expected, idea)` words one rejection in one or two lines: which case
  failed, what the learner's function returned, what was expected, and the idea of the session it
  bears on. `wrong_type(case, returned, wanted)` words the rejection of a value the checker cannot
  read at all ("returned None; return a list of problem strings"). An answer that is no single
  value is said in words with `Described("a problem naming 'fragile'")`.

A rejection never shows the reference's code: it shows values (`shown` keeps each short and
readable, floats to six significant digits) and a sentence the checker's author wrote.

```python
from cafe.exercises.feedback import Raised, call, mismatch

problems = []
for label, checks, expected, idea in CASES:
    found = call(fn, checks)
    if isinstance(found, Raised):
        problems.append(found.problem(label))
    elif found != expected:
        problems.append(mismatch(label, found, expected, idea))
```

This module imports nothing from `cafe`: every session's checkers may use it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SHOWN_CHARS",
    "Raised",
    "Described",
    "call",
    "shown",
    "mismatch",
    "wrong_type",
    "counterexample",
    "library_answer",
]

# A value longer than this is cut with "…": enough to see a ticket or a short list, and a
# problem still fits on about two lines of a notebook's output.
SHOWN_CHARS = 120
# Floats are shown to this many significant digits, so a cost reads 0.00306, not
# 0.0030600000000000002; six is more than any case of the course tells apart.
SHOWN_DIGITS = 6


# --- showing values -----------------------------------------------------------------------------


def _tidy(value: Any) -> Any:
    """`value` with its floats rounded for display, inside tuples, lists and dicts too."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{SHOWN_DIGITS}g}")
    if isinstance(value, tuple) and not hasattr(value, "_fields"):  # not a named tuple
        return tuple(_tidy(item) for item in value)
    if isinstance(value, list):
        return [_tidy(item) for item in value]
    if isinstance(value, dict):
        return {key: _tidy(item) for key, item in value.items()}
    return value


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """A value as a problem shows it: its `repr` on one line, floats rounded, cut at `limit`."""
    try:
        text = repr(_tidy(value))
    except Exception as exc:  # a learner's object whose __repr__ raises is still shown
        text = f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"
    # a multi-line repr goes on one line; runs of spaces stay ('latte  ' is not 'latte ')
    return _cut(re.sub(r"\s*[\r\n]\s*", " ", text), limit)


def _cut(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_of(value: Any) -> str:
    return "None" if value is None else type(value).__name__


# --- calling the learner's function ---------------------------------------------------------


@dataclass(frozen=True)
class Raised:
    """The learner's function raised on a case: who raised, the exception's type and message."""

    function: str
    error: str  # the exception's type name, e.g. "KeyError"
    message: str

    def problem(self, case: str) -> str:
        """The rejection for the case it raised on, in one line."""
        said = f": {self.message}" if self.message else ""
        return f"{case}: {self.function} raised {self.error}{said}"


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, or a `Raised` record when it raised any `Exception`.

    `NotImplementedError` is raised on: it means the learner's stub is still a stub, and
    `cafe.course.compare` reports that as "not attempted yet". A learner's function may return
    anything, so a checker tests `isinstance(result, Raised)` before it reads the result.
    """
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as exc:  # the learner's bug is a problem to show, not a crash of the checker
        name = getattr(fn, "__name__", "your function")
        return Raised(name, type(exc).__name__, _cut(" ".join(str(exc).split())))


# --- wording a rejection ----------------------------------------------------------------------


@dataclass(frozen=True)
class Described:
    """An expected answer said in words, for when no single value is the answer:
    `Described("a problem naming 'fragile'")` is shown as written, without quotes."""

    text: str


def mismatch(case: str, returned: Any, expected: Any, idea: str) -> str:
    """One rejection in two lines: the case, what came back and what was expected; then the idea.

    `expected` is a value, shown as `repr` shows it (a string quoted, as a function returns it),
    or a `Described` answer, shown as written. `idea` is one sentence naming what the case tests
    ("a fixture of 0 is still a fixture"): the learner's next step, never the reference's code.
    """
    if not isinstance(case, str) or not case.strip():
        raise ValueError("mismatch needs the case that failed, e.g. 'a sound check'.")
    if not isinstance(idea, str) or not idea.strip():
        raise ValueError("mismatch needs the idea the case bears on: one short sentence.")
    want = expected.text if isinstance(expected, Described) else shown(expected)
    return f"{case}: returned {shown(returned)}, expected {want}\n  ({' '.join(idea.split())})"


def wrong_type(case: str, returned: Any, wanted: str) -> str:
    """The rejection of a value the checker cannot read: its type and value, and what to return."""
    if not wanted or not wanted.strip():
        raise ValueError("wrong_type needs what to return instead, e.g. 'a list of item names'.")
    what = _type_of(returned)
    value = "" if returned is None else f" ({shown(returned, SHOWN_CHARS // 2)})"
    return f"{case}: returned {what}{value}; return {' '.join(wanted.split())}"


def counterexample(given: Any, returned: Any, expected: Any, idea: str) -> str:
    """The rejection of a generated input (`cafe.exercises.generated`): the input, shrunk to a
    small one, what came back, what was expected, and the idea, in two lines. A `Described`
    input is shown as written (a run as its failures per attempt, say), any other as `repr`."""
    said = _cut(given.text, SHOWN_CHARS - 20) if isinstance(given, Described) else None
    return mismatch(f"on {said or shown(given, SHOWN_CHARS - 20)}", returned, expected, idea)


def library_answer(name: str) -> str:
    """The rejection of the course's own function handed in as the learner's answer."""
    return (
        f"this is the course's `{name}` (or calls it); write your own: the exercise is to build "
        "it, and the course's answer is what the reveal shows"
    )
