"""Time the course build: `python tools/bench_build.py [--runs N] [--fixture | --full]`.

Default: each run is a fresh `python` process running `build_site(root, out)` into a temporary
folder, so the time includes importing markdown-it, jinja2 and pygments, as
`python tools/build.py site` does. `--fixture` builds a 16-session fixture course instead of the
real sessions (to see how the build scales). `--full` times `python tools/build.py` (notebooks,
then site) in a scratch copy of the repository, so the real notebooks are never rewritten.
Prints every run and the median.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RUN = """
import sys, time
sys.path.insert(0, {tools!r})
t0 = time.perf_counter()
import sitebuild
try:
    sitebuild.build_site({root!r}, {out!r})
except sitebuild.SiteBuildError as exc:
    print(f"(build reported {{len(exc.problems)}} problem(s); pages still written)", file=sys.stderr)
print(time.perf_counter() - t0)
"""


def _fixture_course(where: Path) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_site import front_matter, write_lesson  # the same fixture lessons the tests use

    from cafe.course.syllabus import SESSIONS  # a fixture lesson per session, named as the map says

    for entry in SESSIONS:
        write_lesson(where, entry.number, entry.slug, front=front_matter(entry.number, entry.slug))
    return where


# What a scratch copy leaves out: version control, the environment, caches and build output.
SCRATCH_IGNORE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "site",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    "*.egg-info",
    ".ipynb_checkpoints",
)


def _time_full_builds(runs: int, scratch: Path) -> list[float]:
    """Seconds per `python tools/build.py` (notebooks and site) in a copy of the repository."""
    copy = scratch / "repo"
    shutil.copytree(ROOT, copy, ignore=SCRATCH_IGNORE)
    times = []
    for i in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(copy / "tools" / "build.py")],
            cwd=copy,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - started
        if done.returncode:
            raise SystemExit(f"python tools/build.py failed in {copy}:\n{done.stdout}{done.stderr}")
        times.append(wall)
        print(f"run {i + 1}: {wall * 1000:7.1f} ms  ({done.stdout.strip().splitlines()[-1]})")
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--fixture", action="store_true", help="build a 16-session fixture course")
    which.add_argument(
        "--full", action="store_true", help="python tools/build.py (notebooks and site), in a copy"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tools"))
    if args.full:
        with tempfile.TemporaryDirectory(prefix="cafe-bench-") as tmp:
            times = _time_full_builds(args.runs, Path(tmp))
        lessons = len(list((ROOT / "sessions").glob("*/lesson.md")))
        print(
            f"full build (notebooks + site), {lessons} session(s), {args.runs} runs: "
            f"median {statistics.median(times) * 1000:.1f} ms per `python tools/build.py`"
        )
        return 0
    with tempfile.TemporaryDirectory(prefix="cafe-bench-") as tmp:
        root = _fixture_course(Path(tmp) / "course") if args.fixture else ROOT
        lessons = len(list((root / "sessions").glob("*/lesson.md")))
        times = []
        for i in range(args.runs):
            code = RUN.format(
                tools=str(ROOT / "tools"), root=str(root), out=str(Path(tmp) / f"site{i}")
            )
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            )
            wall = time.perf_counter() - started
            inside = float(done.stdout.strip().splitlines()[-1])
            times.append((wall, inside))
            print(
                f"run {i + 1}: {wall * 1000:7.1f} ms process, {inside * 1000:7.1f} ms import + build"
                + (f"  {done.stderr.strip()}" if done.stderr.strip() else "")
            )
    print(
        f"{'fixture' if args.fixture else 'real'} course, {lessons} lesson(s), {args.runs} runs: "
        f"median {statistics.median(w for w, _ in times) * 1000:.1f} ms per process, "
        f"{statistics.median(b for _, b in times) * 1000:.1f} ms import + build"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
