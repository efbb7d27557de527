"""What every notebook-toolkit cell shares: the key that names it, and how it shows itself.

`cafe.course` (predict, compare, checkpoint) and `cafe.course.reveals` (the reveal switch) both import
these, so each rule is written once:

- a course key looks like "s07.why_cap": a session tag, a dot, a Python-style name;
- a cell is headless (plain text only) when `CAFE_HEADLESS=1`, or when no Jupyter kernel runs;
- inside a kernel, a widget is shown together with a plain-text form, which front ends that
  cannot draw widgets print instead;
- a callable is named in messages by its module and qualified name.

What to show lives with each mechanic, not here. ipywidgets and IPython are never imported at
module level, so importing this stays cheap. Session 00 (`sessions/s00-setup/`) introduces it.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from typing import Any

__all__ = [
    "HEADLESS_VARIABLE",
    "split_key",
    "source_name",
    "headless",
    "display_bundle",
]

# Set to 1 (the test suite does) to get plain text instead of widgets, even inside a kernel.
HEADLESS_VARIABLE = "CAFE_HEADLESS"

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
    return f"{module}.{name}" if module else name


def headless(environ: Mapping[str, str] | None = None) -> bool:
    """True when calls should print plain text: `CAFE_HEADLESS=1`, or not inside a Jupyter kernel."""
    env = os.environ if environ is None else environ
    if env.get(HEADLESS_VARIABLE, "").strip().lower() in {"1", "true", "yes", "on"}:
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
