"""How long `cafe grade` takes over a class: N learners, each handing in the built notebooks.

    python benchmarks/grade_speed.py                      # 3 learners x 16 notebooks
    python benchmarks/grade_speed.py --learners 30        # the issue's class (about 30x the time of one learner)
    python benchmarks/grade_speed.py --only s00 s01 --learners 2 --jobs 2

Each learner gets a copy of every built notebook (`notebooks/`) with every prediction answered
(`tests/learners.answered`); every other learner also gets a wrong first exercise in each
notebook (its stub returns None), so the gradebook has failures to find. Then `cafe grade` runs
over the class (`cafe.course.grading.command.main`) and this prints the wall time, the time per notebook
and what the gradebook found. It asserts nothing: quote the date, the cores and the Python
version with the figure. The class and the gradebook are made in a temporary folder and deleted
(`--keep` keeps them).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the learners' notebooks are made as the tests make them

import learners  # noqa: E402

from cafe.course.grading.command import main as grade_main  # noqa: E402

STUB = re.compile(r"def (\w+)\([^)]*\)[^:]*:\n(?:    .*\n)*?    raise NotImplementedError\(")


def first_stub(nb: dict) -> str | None:
    """The name of the notebook's first your-turn stub."""
    for cell in nb["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        match = STUB.search(source)
        if cell["cell_type"] == "code" and match:
            return match.group(1)
    return None


def make_class(root: Path, count: int, names: list[str]) -> int:
    """`count` learners under `root`; return how many notebooks were handed in."""
    handed = 0
    for number in range(count):
        for name in names:
            nb = learners.answered(learners.load(name))
            stub = first_stub(nb)
            if number % 2 == 1 and stub is not None:
                nb = learners.wrong(nb, stub)
            learners.save(nb, root / f"learner{number:02d}" / "work" / name)
            handed += 1
    return handed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="session prefixes, e.g. s00 s07")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--keep", action="store_true", help="keep the class and the gradebook")
    args = parser.parse_args()
    names = sorted(p.name for p in (ROOT / "notebooks").glob("s*.ipynb"))
    if args.only:
        names = [n for n in names if n.startswith(tuple(args.only))]
    scratch = Path(tempfile.mkdtemp(prefix="grade-speed-"))
    handed = make_class(scratch / "class", args.learners, names)
    started = time.monotonic()
    argv = [str(scratch / "class"), "--out", str(scratch / "gradebook"), "--jobs", str(args.jobs)]
    grade_main(argv + ["--time-limit", str(args.time_limit)])
    elapsed = time.monotonic() - started
    rows = list(csv.DictReader((scratch / "gradebook" / "gradebook.csv").open(encoding="utf-8")))
    found = Counter((r["kind"], r["result"]) for r in rows)
    print(
        f"\n{datetime.date.today()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"--jobs {args.jobs}"
    )
    print(f"{args.learners} learners x {len(names)} notebooks = {handed} notebooks graded")
    print(f"cafe grade: {elapsed:.0f} s wall, {elapsed / max(handed, 1):.1f} s per notebook")
    print("gradebook: " + ", ".join(f"{k}/{r} {n}" for (k, r), n in sorted(found.items())))
    if args.keep:
        print(f"kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
