"""Running one learner's notebook for grading: a copy, a clean kernel, offline, no secrets, a time limit.

`run_notebook(notebook, folder, seconds)` copies the notebook into `folder` (a place of its own
under the grader's working folder) and runs it there in a child process
(`python -m cafe.course.grading.kernel_run`), which starts a fresh Jupyter kernel. The submission itself
is never opened for writing.

The child's environment is built from an allow-list (`PASSED_ON`), never copied from the
instructor's: whatever else the instructor's shell holds (`CAFE_API_KEY`, a cloud token) is not
there for a learner's code to read. On top of it the child gets:

- `COURSE_MODE=offline`: every model is the scripted one; no network is needed;
- `CAFE_HOME` and `HOME`: a fresh folder, so the notebook banks into a progress file of its own
  (the gradebook reads it back) and `~` names nothing of the instructor's;
- `CAFE_ENV_FILE=` (set to nothing): no `.env` settings file is read;
- `CAFE_HEADLESS=1`, `CAFE_STRICT=0`: plain text, and feedback instead of failed cells, so the
  notebook runs to its end and every exercise is recorded.

This is a clean environment, not a sandbox: a notebook's code runs as the instructor's user and
could read a file by its full path. Grade as a user who holds no secrets on disk, or in a container.

The time limit is the child's to keep (each cell gets what is left of it); the parent waits a
margin longer, then stops the child and the kernel it started.

`Worker` is the same run without a new Python process a notebook: one `kernel_run --serve`
process per grading worker takes notebook after notebook (each still in a fresh kernel, with its
own `CAFE_HOME`), and is stopped and replaced only when a run outlives its margin.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from cafe.course.record import read_progress_as_is

__all__ = [
    "PASSED_ON",
    "RunStatus",
    "RUN_STATUSES",
    "NotebookRun",
    "Worker",
    "child_environment",
    "run_notebook",
]

# The only variables the instructor's environment passes on: where programs are, the language,
# the time zone and the temporary folder. Nothing that could hold a secret.
PASSED_ON = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT")
# How long past the child's own limit the parent waits before stopping it (kernel start and
# shut-down are not inside the child's limit).
MARGIN_SECONDS = 60.0

# What happened to a notebook: ran to its end (cells may still have raised: "errored"), stopped
# by the time limit (and only then: a worker that died is "failed_to_run", saying how it died),
# or could not be run at all.
RunStatus = Literal["ran", "errored", "timed_out", "failed_to_run"]
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)


@dataclass(frozen=True)
class NotebookRun:
    """One notebook's run: what happened, the errors by cell, and the progress file it wrote."""

    status: RunStatus
    detail: str = ""
    errors: tuple[tuple[int, str], ...] = ()  # (code cell number, "NameError: ...")
    progress: Mapping[str, Any] | None = None  # the data the run banked; None when none
    executed: Path | None = None  # the executed copy, for the instructor to look at


def child_environment(home: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: the allow-listed variables, and the course's settings for grading."""
    source = os.environ if environ is None else environ
    env = {name: source[name] for name in PASSED_ON if name in source}
    env.update(
        HOME=str(home),
        CAFE_HOME=str(home),
        COURSE_MODE="offline",
        CAFE_ENV_FILE="",
        CAFE_HEADLESS="1",
        CAFE_STRICT="0",
        PYTHONDONTWRITEBYTECODE="1",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        JUPYTER_PLATFORM_DIRS="1",
        MPLBACKEND="Agg",
    )
    return env


def _stop(process: subprocess.Popen[bytes], pid_file: Path) -> None:
    """Stop the child (its whole process group) and the kernel it noted, which has its own."""
    for group in (process.pid, _noted_pid(pid_file)):
        if group is None:
            continue
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
    process.wait()


def _noted_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def _read_result(path: Path) -> dict[str, Any] | None:
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return result if isinstance(result, dict) else None


def _banked(home: Path) -> Mapping[str, Any] | None:
    data, _, _, _ = read_progress_as_is(home / "progress.json")
    return data


def _from_result(result: dict[str, Any], home: Path, executed: Path) -> NotebookRun:
    status = result.get("status")
    errors = tuple(
        (int(e["cell"]), str(e["error"]))
        for e in result.get("errors", [])
        if isinstance(e, dict) and "cell" in e and "error" in e
    )
    return NotebookRun(
        status if status in RUN_STATUSES else "failed_to_run",
        str(result.get("detail", "")),
        errors,
        _banked(home),
        executed if executed.exists() else None,
    )


def run_notebook(notebook: Path, folder: Path, seconds: float) -> NotebookRun:
    """Copy `notebook` into `folder` and run the copy from a clean kernel (see the module)."""
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    copy = folder / notebook.name
    shutil.copyfile(notebook, copy)
    executed, result_path = folder / "executed.ipynb", folder / "result.json"
    command = [sys.executable, "-m", "cafe.course.grading.kernel_run"]
    command += [str(copy), str(executed), str(result_path), f"{seconds:g}"]
    with subprocess.Popen(
        command,
        cwd=folder,
        env=child_environment(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    ) as process:
        try:
            process.wait(timeout=seconds + MARGIN_SECONDS)
        except subprocess.TimeoutExpired:
            _stop(process, folder / "kernel.pid")
            return NotebookRun(
                "timed_out", f"still running after {seconds + MARGIN_SECONDS:g} s; stopped"
            )
    result = _read_result(result_path)
    if result is None:
        return NotebookRun(
            "failed_to_run", f"the run ended (exit {process.returncode}) without a result"
        )
    return _from_result(result, home, executed)


def _death(code: int | None) -> str:
    """Why a worker process ended before it answered, as its exit status says: an outcome names
    its cause, so a process that died is never reported as stopped by the time limit."""
    if code is not None and code < 0:
        try:
            name = f" ({signal.Signals(-code).name})"
        except ValueError:
            name = ""
        return f"the worker process died (signal {-code}{name}) before the notebook's end"
    return f"the worker process ended (exit {code}) before the notebook's end"


class Worker:
    """One grading worker: a `kernel_run --serve` process (started on its first notebook, with the
    allow-listed environment and `home` as its own), running one notebook at a time. `starts`
    counts the processes it started: one, unless a run had to be stopped."""

    def __init__(self, home: Path):
        self.home = home
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def _start(self) -> subprocess.Popen[bytes]:
        self.home.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cafe.course.grading.kernel_run", "--serve"],
            cwd=self.home,
            env=child_environment(self.home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.starts += 1
        return self.process

    def _answer(self, process: subprocess.Popen[bytes], seconds: float) -> str:
        """ "answered", "ended" (the process closed its end: it died) or "timed_out"."""
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], seconds)
        if not ready:
            return "timed_out"
        return "answered" if process.stdout.readline() else "ended"

    def run(self, notebook: Path, folder: Path, seconds: float) -> NotebookRun:
        """As `run_notebook`, in this worker's process."""
        home = folder / "home"
        home.mkdir(parents=True, exist_ok=True)
        copy = folder / notebook.name
        shutil.copyfile(notebook, copy)
        executed, result_path = folder / "executed.ipynb", folder / "result.json"
        process = self.process
        if process is None or process.poll() is not None:
            process = self._start()
        job = {
            "notebook": str(copy),
            "executed": str(executed),
            "result": str(result_path),
            "seconds": seconds,
            "env": child_environment(home),
        }
        assert process.stdin is not None
        try:
            process.stdin.write((json.dumps(job) + "\n").encode("utf-8"))
            process.stdin.flush()
            answer = self._answer(process, seconds + MARGIN_SECONDS)
        except OSError:
            answer = "ended"
        if answer != "answered":
            died = None
            if answer == "ended":  # its own exit status, before `_stop` kills what it left
                try:
                    died = process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    died = None
            _stop(process, folder / "kernel.pid")
            self.process = None
            if answer == "timed_out":
                return NotebookRun(
                    "timed_out", f"still running after {seconds + MARGIN_SECONDS:g} s; stopped"
                )
            return NotebookRun(
                "failed_to_run", _death(died if died is not None else process.returncode)
            )
        result = _read_result(result_path)
        if result is None:
            return NotebookRun("failed_to_run", "the run ended without a result")
        return _from_result(result, home, executed)

    def close(self) -> None:
        """End the worker's process: EOF on its stdin, then a stop if it does not end."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            _stop(process, self.home / "kernel.pid")
