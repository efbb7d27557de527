"""Where the learner's harness file lives, and the grader's verdict as a one-line board.

Session 16, the capstone. The notebook writes each step of the harness to one file, the file
`cafe capstone check` reads by default (`work/capstone/harness.py`, under the course folder), and
grades it after each step. This module holds the little the notebook needs around that:

- `harness_path()`: the file. Headless runs (`CAFE_HEADLESS`: the test suite, CI) and a kernel outside any course
  checkout use `$CAFE_HOME/capstone/harness.py` instead, so a test never writes the learner's
  `work/` folder;
- `write_harness(path, source)`: writes a step, after setting aside a file the learner wrote
  themselves (one that does not start with `STEP_MARK`), so rerunning the notebook never destroys
  their work;
- `board(verdict)`: the seven properties on one line, ok, FAIL, or vacuous (held only because
  nothing happened, where the course's harness did the work);
- `live_summary(run)`: what one live run did, in two lines, read off the world's record.

Left out: the grading itself (`cafe/capstone/grader.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from cafe.capstone.grader import DEFAULT_PATH, Verdict
from cafe.capstone.properties import PROPERTIES, RunEvidence, judge_run
from cafe.course.cells import HEADLESS_VARIABLE
from cafe.course.progress import progress_path
from cafe.endpoint.settings.environment import course_root
from cafe.endpoint.settings.variables import parse_headless

__all__ = ["STEP_MARK", "board", "harness_path", "live_summary", "write_harness"]

# The first line of every file the notebook writes: a file without it is the learner's own.
STEP_MARK = "# Written by notebooks/s16-capstone.ipynb"


def harness_path(environ: Mapping[str, str] | None = None, start: Path | None = None) -> Path:
    """The harness file the notebook writes and grades (see the module docstring)."""
    environ = os.environ if environ is None else environ
    root = course_root(start or Path.cwd())
    if parse_headless(environ.get(HEADLESS_VARIABLE, "")) or root is None:
        return progress_path(environ).parent / "capstone" / DEFAULT_PATH.name
    return root / DEFAULT_PATH


def _free_name(path: Path) -> Path:
    n = 1
    while (found := path.with_name(f"{path.stem}-yours-{n}{path.suffix}")).exists():
        n += 1
    return found


def write_harness(path: Path, source: str) -> str:
    """Write `source` (which must start with `STEP_MARK`) to `path`; a file there that the notebook
    did not write is renamed first. Returns one line saying what was done."""
    if not source.startswith(STEP_MARK):
        raise ValueError(f"a step's source starts with {STEP_MARK!r}, so it can be told apart")
    path.parent.mkdir(parents=True, exist_ok=True)
    said = f"wrote {path.name}"
    if path.is_file() and not path.read_text(encoding="utf-8").startswith(STEP_MARK):
        kept = _free_name(path)
        path.rename(kept)
        said += f" (your own file was kept as {kept.name})"
    path.write_text(source, encoding="utf-8")
    return said


def board(verdict: Verdict) -> str:
    """'ok named_stop · FAIL call_cap · vacuous contract ...': every property, in the grader's
    order."""
    return " · ".join(f"{verdict.mark(name)} {name}" for name in PROPERTIES)


def live_summary(run: RunEvidence) -> str:
    """Two lines on one run: how it ended and what reached the suppliers (the orders, their money,
    whether each paid the café's registered account), then the properties that held."""
    stop = getattr(run.report, "stop", None) if not run.error else None
    ended = f"ended {stop!r}" if isinstance(stop, str) else f"gave no report ({run.error})"
    orders = run.world.orders()
    accounts = {plan.name: plan.account for plan in run.world.suppliers}
    strange = sum(1 for order in orders if accounts.get(order.supplier) != order.pay_to)
    money = sum(o.total_cents for o in orders if isinstance(o.total_cents, int))
    sent = f"{len(orders)} order{'' if len(orders) == 1 else 's'} reached the suppliers"
    sent += f" ({money} cents, {strange} paid to an account not on the café's books)"
    failed = [f.property for f in judge_run(run) if not f.held]
    held = f"{len(PROPERTIES) - len(failed)} of {len(PROPERTIES)} properties held"
    return f"It {ended} after {run.calls} model calls; {sent}.\nOn the world's record: {held}" + (
        f" (failed: {', '.join(failed)})." if failed else "."
    )
