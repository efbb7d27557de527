"""How fast the course feels: notebooks against a bare kernel, toys' silences, and the suite.

    python benchmarks/course_speed.py              # notebooks and toys (about two minutes)
    python benchmarks/course_speed.py --suite      # also the README's test command (minutes)
    python benchmarks/course_speed.py --only s07   # the sessions whose folder starts with s07
    python benchmarks/course_speed.py --files tests/test_strict.py tests/test_grade.py
                                                   # only these test files, each on its own

It prints figures; it asserts nothing. Speed is measured here, never inside a timed test.

- **Bare kernel**: a one-cell notebook (`print(1)`) under nbval, the floor every notebook pays
  (interpreter, pytest, kernel start). Measured `--repeat` times; the median is used.
- **Notebooks**: each under nbval on its own (time and ratio to the bare kernel; the target is no
  notebook over 3x), then all of them in one nbval run against the sum of as many bare starts
  (the target is 1.5x).
- **Toys**: each toy run offline, as a learner runs it: seconds to its first output, the
  longest silence between two outputs (a progress dot counts) (the target is no silence over 2 s), and the total.
- **Suite** (`--suite`): the README's test command, timed whole (wall clock and the processor
  seconds of every process it waited for), and divided by the number of written sessions to give
  a figure per session. The same machine can run a minute or more slower one hour than the next
  (issue 33's note), so the run also times a plain Python loop first (`machine_probe`): compare
  suite figures only beside their probes.
- **Test files** (`--files`): each file run on its own in one process (`-n 0`, file order), the
  time one xdist worker spends on it under `--dist loadfile`; compare a file before and after a
  change back to back, in the same conditions. Nothing else is measured.

The figures depend on the machine and on what else it is doing: run it on an idle machine and
quote the date, the core count and the Python version with the numbers.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBVAL = [
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "--nbval-lax",
    "--nbval-current-env",
]
# Targets from the speed issue, printed beside the figures.
NOTEBOOK_RATIO_TARGET = 3.0
ALL_NOTEBOOKS_RATIO_TARGET = 1.5
TOY_SILENCE_TARGET_S = 2.0
SUITE_TARGET_S = 360.0  # issue 33: under 6 minutes on two idle cores
# The machine probe: this many additions in a plain Python loop.
PROBE_ADDITIONS = 20_000_000


def readme_command() -> list[str]:
    """The test command in README.md's Quickstart (its second shell block), which CI runs too."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", quickstart, re.S)
    return shlex.split(blocks[1].strip().splitlines()[-1])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    env.update(
        COURSE_MODE="offline",
        CAFE_HOME=tempfile.mkdtemp(prefix="cafe-speed-"),
        PYTHONPATH=str(ROOT),
    )
    return env


def machine_probe() -> float:
    """Seconds for a plain Python loop of PROBE_ADDITIONS additions: how fast one core is now."""
    start = time.perf_counter()
    total = 0
    for number in range(PROBE_ADDITIONS):
        total += number
    return time.perf_counter() - start


def _processor_seconds() -> float:
    """User and system seconds of every child process waited for so far (and their children)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise SystemExit(
            f"{' '.join(command)} failed (exit {done.returncode}):\n" + "\n".join(tail)
        )
    return elapsed


def bare_kernel(repeat: int) -> float:
    """Median seconds for nbval to run a one-cell notebook."""
    with tempfile.TemporaryDirectory() as folder:
        notebook = Path(folder) / "bare.ipynb"
        notebook.write_text(
            json.dumps(
                {
                    "cells": [
                        {
                            "cell_type": "code",
                            "execution_count": None,
                            "metadata": {},
                            "outputs": [],
                            "source": "print(1)",
                        }
                    ],
                    "metadata": {
                        "kernelspec": {
                            "name": "python3",
                            "display_name": "Python 3",
                            "language": "python",
                        }
                    },
                    "nbformat": 4,
                    "nbformat_minor": 5,
                }
            ),
            encoding="utf-8",
        )
        return statistics.median(_timed([*NBVAL, str(notebook)], ROOT) for _ in range(repeat))


def _toy_timing(toy: Path) -> tuple[float, float, float]:
    """(seconds to first output, longest silence between two outputs, total) for one offline toy
    run. Any output counts, a progress dot included, not only a finished line."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-u", str(toy)],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    stamps = []
    while process.stdout.read1(4096):
        stamps.append(time.perf_counter() - start)
    process.wait()
    total = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{toy.relative_to(ROOT)} failed (exit {process.returncode})")
    if not stamps:
        return total, total, total
    gaps = [b - a for a, b in zip([0.0, *stamps], [*stamps, total])]
    return stamps[0], max(gaps), total


def time_files(files: list[str]) -> None:
    """Each test file run on its own, as one worker runs it; browser tests required, not skipped."""
    print(_row("test file (-n 0)", "seconds"))
    for name in files:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0", name]
        start = time.perf_counter()
        done = subprocess.run(
            command,
            cwd=ROOT,
            env={**os.environ, "CAFE_REQUIRE_BROWSER": "1"},
            check=False,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
        said = "" if done.returncode == 0 else f"   failed (exit {done.returncode})"
        print(_row(Path(name).name, f"{seconds:.1f}") + said, flush=True)


def _row(name: str, *cells: str) -> str:
    return f"  {name:<28}" + "".join(f"{cell:>14}" for cell in cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="store_true", help="also time the README's test command")
    parser.add_argument(
        "--only", default="", help="only sessions whose folder starts with this, e.g. s07"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="bare-kernel runs to take the median of (default 3)"
    )
    parser.add_argument(
        "--files", nargs="+", default=[], help="only time these test files, each on its own"
    )
    args = parser.parse_args(argv)
    if args.files:
        time_files(args.files)
        return 0
    notebooks = sorted(
        p for p in (ROOT / "notebooks").glob("*.ipynb") if p.name.startswith(args.only)
    )
    toys = sorted(
        p for p in (ROOT / "sessions").glob("*/toy.py") if p.parent.name.startswith(args.only)
    )
    print(
        f"course speed, {datetime.date.today()}: {os.cpu_count()} cores, Python {platform.python_version()}"
    )

    bare = bare_kernel(args.repeat)
    print(f"\nbare kernel under nbval: {bare:.1f} s (median of {args.repeat})\n\nnotebooks")
    print(_row("", "seconds", "x bare", f"<= {NOTEBOOK_RATIO_TARGET:g}x?"))
    for notebook in notebooks:
        seconds = _timed([*NBVAL, str(notebook)], ROOT)
        print(
            _row(
                notebook.stem,
                f"{seconds:.1f}",
                f"{seconds / bare:.2f}",
                "yes" if seconds / bare <= NOTEBOOK_RATIO_TARGET else "NO",
            ),
            flush=True,
        )
    if notebooks:
        together = _timed([*NBVAL, *map(str, notebooks)], ROOT)
        ratio = together / (bare * len(notebooks))
        print(
            _row(
                f"all {len(notebooks)} in one run",
                f"{together:.1f}",
                f"{ratio:.2f}",
                "yes" if ratio <= ALL_NOTEBOOKS_RATIO_TARGET else "NO",
            )
            + f"   (target <= {ALL_NOTEBOOKS_RATIO_TARGET:g}x)"
        )

    print("\ntoys (offline)")
    print(_row("", "first output", "longest quiet", "total"))
    for toy in toys:
        first, quiet, total = _toy_timing(toy)
        flag = "" if quiet <= TOY_SILENCE_TARGET_S else f"   quiet over {TOY_SILENCE_TARGET_S:g} s"
        print(
            _row(toy.parent.name, f"{first:.1f} s", f"{quiet:.1f} s", f"{total:.1f} s") + flag,
            flush=True,
        )

    if args.suite:
        sessions = len(list((ROOT / "sessions").glob("*/lesson.md")))
        probe = machine_probe()
        before = _processor_seconds()
        seconds = _timed([sys.executable, "-m", *readme_command()], ROOT)
        used = _processor_seconds() - before
        print(
            f"\nthe README's test command: {seconds:.0f} s for {sessions} written sessions "
            f"({seconds / sessions:.0f} s a session; target under {SUITE_TARGET_S:.0f} s), "
            f"{used:.0f} s of processor time; machine probe {probe:.2f} s "
            f"({PROBE_ADDITIONS:,} additions in a Python loop, before the run)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
