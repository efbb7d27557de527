"""What one workbench test run costs: forked from the warm helper, and started fresh.

    python benchmarks/pytest_runs.py              # prints seconds per run, both ways
    python benchmarks/pytest_runs.py --runs 40

Each run is the pytest command the workbench's `run_tests` uses (`TEST_ARGS`, in the workbench's
test environment) on a fresh copy of the till: the failing split test, four tests in all, the
call the stories of sessions 13 to 15 make dozens of times. The two ways alternate, so a busy
spell on the machine slows both alike. The figure is the median wall time, because a run is a
process of its own and the learner waits for all of it. The first warm run, which starts the
helper, is timed apart.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from cafe.world.pytest_runs import run_pytest, warm_available
from cafe.world.workbench import _TEST_ENV, TEST_ARGS, open_workbench


def _timed(root: Path, env: dict[str, str], warm: bool) -> float:
    start = time.perf_counter()
    done = run_pytest(TEST_ARGS, root, env, 60, warm=warm)
    elapsed = time.perf_counter() - start
    if done.status != 1:
        raise SystemExit(
            f"expected the till's one failing test (exit status 1), got {done.status}:\n{done.stdout}"
        )
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each kind (default 20)")
    args = parser.parse_args(argv)
    if not warm_available():
        print("no os.fork on this system: every run starts fresh, so there is nothing to compare")
        return 0
    env = {"PATH": os.environ["PATH"], **_TEST_ENV}
    with open_workbench() as bench:
        first = _timed(bench.root, env, warm=True)
        warm, fresh = [], []
        for _ in range(args.runs):
            warm.append(_timed(bench.root, env, warm=True))
            fresh.append(_timed(bench.root, env, warm=False))
    rows = [
        ("first warm run (starts the helper)", f"{first:.3f} s"),
        (f"warm run, median of {args.runs}", f"{statistics.median(warm):.3f} s"),
        (f"fresh run, median of {args.runs}", f"{statistics.median(fresh):.3f} s"),
        ("fresh / warm", f"{statistics.median(fresh) / statistics.median(warm):.1f}x"),
    ]
    for label, figure in rows:
        print(f"{label + ':':<38}{figure:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
