"""Where the README's test command spends its processor time, test file by test file.

    python benchmarks/suite_profile.py                 # the README's command, then the table
    python benchmarks/suite_profile.py --top 40        # more rows
    python benchmarks/suite_profile.py --read DIR      # only the table, from an earlier run's DIR

The suite runs as the README says (`pytest -n auto --dist loadfile ...`) with one extra plugin,
this file, loaded by `-p`. Around each test the plugin reads the processor seconds of the worker
and of the children it has waited for (`resource.getrusage`), and adds the difference to the
test's file, and the wall-clock seconds beside them; each worker also records how long its
collection took and when it finished. Every worker writes one JSON file; the table sums them and
ends with each worker's processor seconds and finishing time (workers that finish far apart mean
the files are badly shared out; a file whose wall seconds are far above its processor seconds is
waiting on a browser, a kernel or a subprocess). A browser's or kernel's processes count only once the worker has waited
for them, so the browser rows are a floor.

It prints figures and asserts nothing. Run it on an idle machine and quote the date, the core
count and the Python version with the numbers; issue 33's notes compare tables taken this way.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUT_VARIABLE = "CAFE_SUITE_PROFILE_DIR"


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class _Recorder:
    def __init__(self) -> None:
        self.by_file: dict[str, float] = defaultdict(float)
        self.wall_by_file: dict[str, float] = defaultdict(float)
        self.tests: dict[str, int] = defaultdict(int)
        self.started = time.time()
        self.collect_start = _cpu()
        self.collect_seconds = 0.0

    def finish_collection(self) -> None:
        self.collect_seconds = _cpu() - self.collect_start


_recorder = _Recorder()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    _recorder.finish_collection()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    before, wall_before = _cpu(), time.perf_counter()
    yield
    name = item.nodeid.split("::", 1)[0]
    _recorder.by_file[name] += _cpu() - before
    _recorder.wall_by_file[name] += time.perf_counter() - wall_before
    _recorder.tests[name] += 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get(OUT_VARIABLE)
    if not folder:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    record = {
        "worker": worker,
        "collect": _recorder.collect_seconds,
        "files": dict(_recorder.by_file),
        "wall": dict(_recorder.wall_by_file),
        "started": _recorder.started,
        "finished": time.time(),
        "tests": dict(_recorder.tests),
    }
    Path(folder, f"{worker}-{os.getpid()}.json").write_text(json.dumps(record), encoding="utf-8")


def table(folder: Path, top: int) -> str:
    by_file: dict[str, float] = defaultdict(float)
    wall: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    collect = []
    workers = []
    records = [
        json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))
    ]
    start = min((r["started"] for r in records if "started" in r), default=0.0)
    for record in records:
        if record["worker"] == "main":
            continue
        collect.append(record["collect"])
        for name, seconds in record["files"].items():
            by_file[name] += seconds
            wall[name] += record.get("wall", {}).get(name, 0.0)
            tests[name] += record["tests"][name]
        if "finished" in record:
            busy = sum(record["files"].values()) + record["collect"]
            workers.append(
                f"{record['worker']}: {busy:.0f} cpu s, done at {record['finished'] - start:.0f} s"
            )
    total = sum(by_file.values()) + sum(collect)
    lines = [f"{'file':<52} {'tests':>6} {'cpu s':>8} {'wall s':>7} {'share':>6}"]
    for name, seconds in sorted(by_file.items(), key=lambda pair: -pair[1])[:top]:
        lines.append(
            f"{name:<52} {tests[name]:>6} {seconds:>8.1f} {wall[name]:>7.1f} {seconds / total:>6.1%}"
        )
    lines.append(f"{'collection (all workers)':<52} {'':>6} {sum(collect):>8.1f}")
    lines.append(f"{'total':<52} {sum(tests.values()):>6} {total:>8.1f} {sum(wall.values()):>7.1f}")
    return "\n".join(lines + sorted(workers))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=30, help="how many files to list")
    parser.add_argument("--read", type=Path, help="only print the table of an earlier run")
    parser.add_argument("pytest_args", nargs="*", help="instead of the README's arguments")
    args = parser.parse_args(argv)
    if args.read:
        print(table(args.read, args.top))
        return 0
    folder = Path(tempfile.mkdtemp(prefix="suite-profile-"))
    command = [sys.executable, "-m", "pytest", "-p", "suite_profile", "-q"]
    command += args.pytest_args or ["-n", "auto", "--dist", "loadfile"]
    command += ["--nbval-lax", "--nbval-current-env"]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "benchmarks"), **{OUT_VARIABLE: str(folder)})
    start = time.perf_counter()
    finished = subprocess.run(command, cwd=ROOT, env=env, check=False)
    wall = time.perf_counter() - start
    print(
        f"\nexit {finished.returncode}, {wall:.0f} s wall, {os.cpu_count()} cores; records in {folder}"
    )
    print(table(folder, args.top))
    return finished.returncode


if __name__ == "__main__":
    sys.exit(main())
