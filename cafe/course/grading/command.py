"""`cafe grade SUBMISSIONS`: run every learner's notebooks and write the class's gradebook.

    cafe grade submissions/ --out gradebook/ [--jobs 2] [--time-limit 300]

SUBMISSIONS is a folder or a zip in any layout `cafe.course.grading.submissions` reads. Each notebook is
run on a copy, from a clean kernel, offline and without the instructor's secrets
(`cafe.course.grading.runner`), several at once (`--jobs`, the machine's cores by default; one
worker process each, which runs notebook after notebook), each within `--time-limit` seconds. A line on stderr says how far it has got. The gradebook's three files
(`cafe.course.grading.writers`) go to `--out`, with each run's executed notebook under `--out/runs/`.

Exit status: 0 when the gradebook was written (whatever the learners' results), 2 when
SUBMISSIONS cannot be found or `--out` is inside it (the grader never writes into a submission).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import cafe
from cafe.course.grading.gradebook import Line, course_items, notebook_lines, record_lines
from cafe.course.grading.runner import NotebookRun, Worker
from cafe.course.grading.submissions import Submission, collect
from cafe.course.grading.writers import write_gradebook

__all__ = ["COURSE_NOTEBOOKS", "grade", "build_parser", "add_grade_command", "run_grade", "main"]

# The course's own notebooks, which say what each session asks for (`course_items`).
COURSE_NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"
# A notebook's time limit by default: session 13 to 15's real pytest runs take about 10 s on two
# cores (docs/teaching.md); thirty times that is room for a slow machine, not for a stuck loop.
DEFAULT_LIMIT = 300.0

Job = tuple[Submission, Path, Path]  # (whose, the notebook copy, the folder to run it in)


def _progress(done: int, total: int, started: float, label: str) -> None:
    """One line on stderr: how many notebooks are graded, the time so far, the last one."""
    elapsed = time.monotonic() - started
    text = f"graded {done} of {total} notebooks, {elapsed:.0f} s: {label}"
    if sys.stderr.isatty():
        print(f"\r{text[:100]:<100}", end="" if done < total else "\n", file=sys.stderr, flush=True)
    else:
        print(text, file=sys.stderr, flush=True)


def _jobs(submissions: Sequence[Submission], work: Path) -> list[Job]:
    jobs = []
    for number, submission in enumerate(submissions):
        for index, notebook in enumerate(submission.notebooks):
            jobs.append(
                (submission, notebook, work / "runs" / f"{number}" / f"{index}-{notebook.stem}")
            )
    return jobs


def _run_all(
    jobs: Sequence[Job], workers: int, seconds: float, work: Path
) -> dict[int, NotebookRun]:
    """Run every job, `workers` at a time (one `Worker` process each), saying how far it has got;
    results by job index."""
    results: dict[int, NotebookRun] = {}
    started = time.monotonic()
    mine = threading.local()
    made: list[Worker] = []

    def run(notebook: Path, folder: Path) -> NotebookRun:
        worker = getattr(mine, "worker", None)
        if worker is None:
            worker = mine.worker = Worker(work / "workers" / str(threading.get_ident()))
            made.append(worker)
        return worker.run(notebook, folder, seconds)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {
            pool.submit(run, notebook, folder): i for i, (_, notebook, folder) in enumerate(jobs)
        }
        for future in as_completed(futures):
            index = futures[future]
            submission, notebook, _ = jobs[index]
            try:
                results[index] = future.result()
            except Exception as exc:  # the runner itself failed: named, never dropped
                results[index] = NotebookRun("failed_to_run", f"{type(exc).__name__}: {exc}")
            label = f"{submission.learner}/{notebook.name}: {results[index].status}"
            _progress(len(results), len(jobs), started, label)
    for worker in made:
        worker.close()
    return results


def _keep_executed(run: NotebookRun, out: Path, learner_folder: str, name: str) -> None:
    """Keep the run's executed notebook at `runs/<learner>/<name>`, `name` the notebook's path in
    the submission: every run's kept copy has its own path (two `s01.ipynb` in two folders of one
    submission are two copies)."""
    if run.executed is not None:
        target = out / "runs" / learner_folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run.executed, target)


def _relative(submission: Submission, notebook: Path) -> str:
    """The notebook's path inside the submission (its file name when it has no folder)."""
    if submission.folder is not None and notebook.is_relative_to(submission.folder):
        return notebook.relative_to(submission.folder).as_posix()
    return notebook.name


def _learner_lines(
    submission: Submission, runs: Sequence[tuple[Path, NotebookRun]], out: Path, folder: str
) -> list[Line]:
    """Every line for one learner: submission problems, each notebook's run, their own file."""
    who = submission.learner
    lines = [
        Line(who, "", "submission", submission.origin, "unreadable", problem, "submission")
        for problem in submission.problems
    ]
    expected = [course_items(notebook, COURSE_NOTEBOOKS) for notebook, _ in runs]
    first = [
        notebook_lines(who, nb.name, run, items, {}) for (nb, run), items in zip(runs, expected)
    ]
    covered = {line.session for group in first for line in group} - {""}
    own_lines: list[Line] = []
    own: dict[str, Any] = {}
    if submission.progress is not None:
        own_lines, own = record_lines(who, submission.progress, covered)
    names = [nb.name for nb, _ in runs]
    for (notebook, run), items in zip(runs, expected):
        kept = _relative(submission, notebook)
        _keep_executed(run, out, folder, kept)
        # the row names the notebook by its path when another of the learner's shares its name
        key = notebook.name if names.count(notebook.name) == 1 else kept
        lines += notebook_lines(who, key, run, items, own)
    return lines + own_lines


def _folder_name(number: int, learner: str) -> str:
    """The learner's folder under `--out/runs/`: a number, then their name with anything that is
    not a plain file-name character (a `/`, a `..` from a hand-in's manifest) made `_`."""
    return f"{number:03d}-" + re.sub(r"[^A-Za-z0-9_@+-]+", "_", learner)[:60]


def grade(source: Path, out: Path, workers: int, seconds: float) -> list[Line]:
    """Grade every submission in `source` into `out` (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="cafe-grade-") as scratch:
        work = Path(scratch)
        submissions = collect(source, work / "copies")
        jobs = _jobs(submissions, work)
        results = _run_all(jobs, workers, seconds, work)
        lines: list[Line] = []
        for number, submission in enumerate(submissions):
            runs = [(jobs[i][1], results[i]) for i in range(len(jobs)) if jobs[i][0] is submission]
            folder = _folder_name(number, submission.learner)
            try:
                lines += _learner_lines(submission, runs, out, folder)
            except Exception as exc:  # noqa: BLE001 - one learner's bad input is their row alone
                why = f"their results could not be read ({type(exc).__name__}: {exc})"
                lines.append(
                    Line(
                        submission.learner,
                        "",
                        "submission",
                        submission.origin,
                        "unreadable",
                        why,
                        "submission",
                    )
                )
    made_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    write_gradebook(
        lines, out, made_at, {"course_version": cafe.__version__, "source": str(source)}
    )
    return lines


DESCRIPTION = "Grade a class's notebooks into a gradebook (CSV, JSON and an HTML summary)."


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """`cafe grade`'s arguments, on `parser` (a subcommand's) or on a parser of its own."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="cafe grade", description=DESCRIPTION)
    parser.add_argument(
        "submissions",
        type=Path,
        help="a folder (one sub-folder per learner, or nbgrader's submitted/) or a zip",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("gradebook"),
        help="where the gradebook goes (default: ./gradebook)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="notebooks run at once (default: the cores)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_LIMIT,
        help="seconds per notebook (default: 300)",
    )
    return parser


def add_grade_command(sub: argparse._SubParsersAction) -> None:
    """Declare `cafe grade` on `cafe`'s subcommands (`cafe.cli` adds it beside `progress`)."""
    grade = sub.add_parser("grade", help=DESCRIPTION, description=DESCRIPTION)
    build_parser(grade).set_defaults(run=run_grade)


def main(argv: Sequence[str] | None = None) -> int:
    """`cafe grade`: 0 when the gradebook was written, 2 for a mistake in the command line."""
    return run_grade(build_parser().parse_args(argv))


def run_grade(args: argparse.Namespace) -> int:
    """`cafe grade` with its arguments parsed (see `main`)."""
    source, out = args.submissions.resolve(), args.out.resolve()
    if not source.exists():
        print(
            f"cafe grade: {args.submissions} does not exist; name the folder or zip of submissions.",
            file=sys.stderr,
        )
        return 2
    if source.is_dir() and out.is_relative_to(source):
        print(
            f"cafe grade: --out {args.out} is inside the submissions; choose a folder outside them.",
            file=sys.stderr,
        )
        return 2
    if args.jobs < 1 or not 0 < args.time_limit < float("inf"):  # nan and inf are no limit
        print(
            f"cafe grade: --jobs must be 1 or more and --time-limit a number of seconds above 0"
            f" (got --jobs {args.jobs}, --time-limit {args.time_limit}).",
            file=sys.stderr,
        )
        return 2
    lines = grade(source, out, args.jobs, args.time_limit)
    learners = len({line.learner for line in lines})
    print(
        f"graded {learners} learner{'s' if learners != 1 else ''}: {out / 'gradebook.html'} (also .csv, .json)"
    )
    return 0
