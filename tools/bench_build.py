"""Time the full site build: `python tools/bench_build.py [--runs N] [--fixture]`.

Each run is a fresh `python` process running `build_site(root, out)` into a temporary folder, so
the time includes importing markdown-it, jinja2 and pygments, as `python tools/build.py site` does.
Prints every run and the median. `--fixture` builds a 16-session fixture course instead of the
real sessions (useful while few lessons exist, and to see how the build scales).
"""

from __future__ import annotations

import argparse
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

    slugs = ["setup"] + [topic for _, topic, _ in __import__("sitebuild").COURSE_MODULES]
    for number, slug in enumerate(slugs):
        write_lesson(where, number, slug, front=front_matter(number, slug))
    return where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--fixture", action="store_true", help="build a 16-session fixture course")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tools"))
    with tempfile.TemporaryDirectory(prefix="cafe-bench-") as tmp:
        root = _fixture_course(Path(tmp) / "course") if args.fixture else ROOT
        lessons = len(list((root / "sessions").glob("*/lesson.md")))
        times = []
        for i in range(args.runs):
            code = RUN.format(tools=str(ROOT / "tools"), root=str(root), out=str(Path(tmp) / f"site{i}"))
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            wall = time.perf_counter() - started
            inside = float(done.stdout.strip().splitlines()[-1])
            times.append((wall, inside))
            print(f"run {i + 1}: {wall * 1000:7.1f} ms process, {inside * 1000:7.1f} ms import + build"
                  + (f"  {done.stderr.strip()}" if done.stderr.strip() else ""))
    print(f"{'fixture' if args.fixture else 'real'} course, {lessons} lesson(s), {args.runs} runs: "
          f"median {statistics.median(w for w, _ in times) * 1000:.1f} ms per process, "
          f"{statistics.median(b for _, b in times) * 1000:.1f} ms import + build")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
