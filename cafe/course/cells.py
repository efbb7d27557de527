"""What every notebook-toolkit cell shares: the key that names it, and how it shows itself.

`cafe.course` (predict, compare, checkpoint) and `cafe.course.reveals` (the reveal switch) both import
these, so each rule is written once:

- a course key looks like "s07.why_cap": a session tag, a dot, a Python-style name;
- a cell is headless (plain text only) when `CAFE_HEADLESS=1`, or when no Jupyter kernel runs;
- inside a kernel, a widget is shown together with a plain-text form, which front ends that
  cannot draw widgets print instead;
- a callable is named in messages by its module and qualified name;
- what a cell prints is scrubbed of every secret first (`say`), and values are shown and
  stamped the same way everywhere (`shown`, `jsonable`, `stamp`);
- a plain text table (`print_table`) and a generator that counts its calls (`Counted`), which
  notebooks and toys share.

What to show lives with each mechanic, not here. ipywidgets and IPython are never imported at
module level, so importing this stays cheap. Session 00 (`sessions/s00-setup/`) introduces it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from cafe.endpoint.secrets.redaction import redact
from cafe.endpoint.settings.environment import course_environ
from cafe.endpoint.settings.variables import parse_headless

__all__ = [
    "HEADLESS_VARIABLE",
    "Clock",
    "split_key",
    "source_name",
    "headless",
    "display_bundle",
    "say",
    "shown",
    "jsonable",
    "stamp",
    "print_table",
    "Counted",
]

# Set to 1 (the test suite does) to get plain text instead of widgets, even inside a kernel.
HEADLESS_VARIABLE = "CAFE_HEADLESS"

Clock = Callable[[], datetime]

# Keys look like "s07.stop_reason": a session tag, a dot, a Python-style name.
_KEY = re.compile(r"(s\d{2})\.([A-Za-z_][A-Za-z0-9_]*)")


def split_key(key: str) -> tuple[str, str]:
    """ "s07.why_cap" -> ("s07", "why_cap"); anything else is a ValueError that shows the shape."""
    match = _KEY.fullmatch(key) if isinstance(key, str) else None
    if not match:
        raise ValueError(
            f"{key!r} is not a course key; write it as '<session>.<name>', e.g. 's07.why_cap'."
        )
    return match.group(1), match.group(2)


def source_name(obj: Any) -> str:
    """How messages name a callable: "cafe.course.checkpoint" (module and qualified name)."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", type(obj).__name__)
    return f"{module}.{name}" if module else str(name)


def headless(environ: Mapping[str, str] | None = None) -> bool:
    """True when calls should print plain text: `CAFE_HEADLESS` on (1, true, yes, on), or not
    inside a Jupyter kernel. A value that is neither on nor off is a `ConfigError` naming it."""
    if parse_headless(course_environ(environ).get(HEADLESS_VARIABLE, "")):
        return True
    ipython = sys.modules.get("IPython")  # never import it here: no IPython means no kernel
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is None


def display_bundle(widget: Any, text: str) -> None:
    """Show `widget`, with `text` as the plain-text form for front ends that cannot draw it."""
    from IPython.display import display

    bundle = widget._repr_mimebundle_()
    bundle["text/plain"] = text
    display(bundle, raw=True)


def say(text: str) -> None:
    """Print `text` as a cell's output, with every secret the course knows of masked first."""
    print(redact(text))


def shown(value: Any) -> str:
    """A value as a cell shows it: text quoted, anything else as JSON."""
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)


def jsonable(value: Any) -> Any:
    """`value` as plain JSON data (tuples become lists), or its repr when JSON cannot hold it."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def stamp(clock: Clock | None = None) -> str:
    """The time now (or `clock()`), as the progress file writes it: ISO 8601, UTC, to the second."""
    return (clock or (lambda: datetime.now(timezone.utc)))().isoformat(timespec="seconds")


def print_table(rows: Sequence[Sequence[Any]], columns: Sequence[str]) -> None:
    """Rows under their column names, each column as wide as its widest cell: the same bytes
    on every run, and no library beyond print."""
    widths = [max(len(str(c)), *(len(str(row[i])) for row in rows)) for i, c in enumerate(columns)]
    say("  ".join(str(c).ljust(w) for c, w in zip(columns, widths)).rstrip())
    for row in rows:
        say("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())


class Counted:
    """A generator (messages in, a reply out) that counts its calls; with `announce`, it says
    which draft it is waiting for, so a slow live model is seen to be working."""

    def __init__(self, generate: Callable[[list[Any]], Any], announce: bool = False):
        self.generate, self.calls, self.announce = generate, 0, announce

    def __call__(self, messages: list[Any]) -> Any:
        self.calls += 1
        if self.announce:
            print(f"    … waiting for draft {self.calls}", flush=True)
        return self.generate(messages)
