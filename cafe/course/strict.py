"""Strict mode, for instructors: a failed exercise, an unanswered prediction or a live error fails its cell.

A learner's notebook gives feedback and never crashes: `compare` prints what is still wrong,
`show_outcome` says no prediction was recorded, a live cell whose endpoint failed says so in one
line. That is right for learning and useless for checking a class: `pytest --nbval-lax` over a
learner's notebook passes every cell whatever the learner did. With `CAFE_STRICT=1` in the
environment the notebook is run, three of those messages also fail their cell:

- a compare whose exercise did not pass (failed, or still the stub: an exercise handed in
  unattempted is not done, so a grader must see it; `docs/teaching.md` says why);
- an outcome shown when no prediction was recorded before the run;
- a live story that stopped on an endpoint problem.

How a cell fails: inside a Jupyter kernel, the `StrictModeError` is shown as the cell's error
(IPython's `showtraceback`, which nbval and nbclient read as the cell failing) and the cell then
finishes, so the names it assigns exist and the cells below run on them: one failed exercise fails
one cell, not every cell after it. Anywhere else (a script, a test) the error is raised.

`CAFE_STRICT` is read each time a cell asks (`is_strict()`), never at import, so an instructor can
turn it on for one run. Unset or off, nothing here does anything. Session 00 (`docs/teaching.md`,
the instructors' part) describes it; `cafe.course.toolkit`, `predictions` and `live` call it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.environment import course_environ
from cafe.endpoint.settings.variables import FALSE_WORDS, TRUE_WORDS

__all__ = ["STRICT_VARIABLE", "StrictModeError", "is_strict", "fail_cell"]

# The switch instructors set (CAFE_STRICT=1) to make a learner's shortfalls fail their cells.
STRICT_VARIABLE = "CAFE_STRICT"


class StrictModeError(AssertionError):
    """What fails a cell in strict mode: the one line the cell printed as feedback, raised."""


def is_strict(environ: Mapping[str, str] | None = None) -> bool:
    """True when `CAFE_STRICT` is on (1, true, yes, on); off when unset, empty or 0/false/no/off.
    Any other value is a `ConfigError` that names it and the two ways to write it."""
    raw = course_environ(environ).get(STRICT_VARIABLE, "")
    value = raw.strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ConfigError(
        f"{STRICT_VARIABLE} is {raw.strip()!r}: it must be 1 (strict: a failed exercise, an "
        f"unanswered prediction or a live error fails its cell) or 0 (the default: feedback "
        f"only); e.g. `export {STRICT_VARIABLE}=1`."
    )


def _kernel_shell() -> object | None:
    """The IPython shell when a Jupyter kernel runs this code; None otherwise (never imports it)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell if getattr(shell, "kernel", None) is not None else None


def fail_cell(message: str, environ: Mapping[str, str] | None = None) -> None:
    """In strict mode, fail the running cell with `message`; otherwise do nothing.

    Inside a kernel the error is shown as the cell's error and the call returns, so the cell
    finishes (see the module docstring); elsewhere `StrictModeError` is raised.
    """
    if not is_strict(environ):
        return
    error = StrictModeError(f"strict mode ({STRICT_VARIABLE}=1): {message}")
    shell = _kernel_shell()
    if shell is None:
        raise error
    try:
        raise error
    except StrictModeError:
        shell.showtraceback()  # type: ignore[attr-defined]
