"""Sample values and helpers shared by several test modules (pytest puts this folder on the path)."""

import functools
import json
import os
import tempfile
from pathlib import Path

# The answer text the reveal tests hide and then load.
ANSWER = "The cap turns a repeated defect into an honest stop."


def run_notebook_source(folder: str) -> dict:
    """Run `sessions/<folder>/notebook.py` top to bottom, quietly; return its namespace.

    How a test reaches a notebook's your-turn stub without a kernel.
    """
    import contextlib
    import io
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "sessions" / folder / "notebook.py"
    namespace: dict = {"__name__": "__notebook__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)
    return namespace


@functools.cache
def notebook_outcomes(folder: str) -> dict:
    """Run a session's notebook source once per test session, with a progress file of its own;
    return the outcomes `course.show_outcome` saved (prediction key -> actual value)."""
    home = Path(tempfile.mkdtemp(prefix="cafe-notebook-"))
    before = os.environ.get("CAFE_HOME")
    os.environ["CAFE_HOME"] = str(home)
    try:
        run_notebook_source(folder)
    finally:
        if before is None:
            os.environ.pop("CAFE_HOME", None)
        else:
            os.environ["CAFE_HOME"] = before
    progress = json.loads((home / "progress.json").read_text(encoding="utf-8"))
    return {key: entry["actual"] for key, entry in progress.get("outcomes", {}).items()}
