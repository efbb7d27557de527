"""An outcome names its cause: `timed_out` only when the time limit stopped the run; a grading
worker that died (killed by the learner's code, `os.kill(os.getppid(), 9)`) is `failed_to_run`,
saying how it died (reader CC's finding 10: it was "still running after 68 s")."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.course.grading import runner

# A stand-in for `kernel_run --serve`: reads one job, then does what the test says.
FAKE = """
import os, signal, sys, time
sys.stdin.readline()
how, value = sys.argv[1], int(sys.argv[2])
if how == "signal":
    os.kill(os.getpid(), value)
elif how == "exit":
    os._exit(value)
time.sleep(60)
"""


def _worker(tmp_path: Path, how: str, value: int, monkeypatch) -> runner.Worker:
    worker = runner.Worker(tmp_path / "worker")

    def start() -> subprocess.Popen[bytes]:
        worker.process = subprocess.Popen(
            [sys.executable, "-c", FAKE, how, str(value)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        return worker.process

    monkeypatch.setattr(worker, "_start", start)
    monkeypatch.setattr(runner, "MARGIN_SECONDS", 0.0)
    return worker


def _run(tmp_path: Path, worker: runner.Worker, seconds: float) -> runner.NotebookRun:
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"cells": []}))
    return worker.run(notebook, tmp_path / "run", seconds)


SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGABRT, signal.SIGSEGV, signal.SIGINT]


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    how=st.sampled_from(["signal", "exit"]),
    number=st.integers(0, 4),
    code=st.integers(0, 120),
)
def test_a_worker_that_dies_is_never_timed_out(tmp_path_factory, monkeypatch, how, number, code):
    tmp_path = tmp_path_factory.mktemp("w")
    value = int(SIGNALS[number]) if how == "signal" else code
    run = _run(tmp_path, _worker(tmp_path, how, value, monkeypatch), seconds=30)
    # the oracle: dying is failed_to_run, its cause in the detail, whatever the signal or code
    assert run.status == "failed_to_run", run
    expected = f"signal {value}" if how == "signal" else f"exit {value}"
    assert expected in run.detail, run


def test_the_readers_case_a_killed_worker_says_signal_9(tmp_path, monkeypatch):
    run = _run(tmp_path, _worker(tmp_path, "signal", 9, monkeypatch), seconds=30)
    assert (run.status, run.detail) == (
        "failed_to_run",
        "the worker process died (signal 9 (SIGKILL)) before the notebook's end",
    )


@pytest.mark.parametrize("seconds", [0.3])
def test_a_worker_still_running_at_the_limit_is_timed_out(tmp_path, monkeypatch, seconds):
    run = _run(tmp_path, _worker(tmp_path, "sleep", 0, monkeypatch), seconds=seconds)
    assert run.status == "timed_out" and "still running" in run.detail
