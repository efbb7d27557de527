"""Several processes appending to one trace file at once lose nothing and write no run twice (A20).

`write_trace(..., append=True)` reads which runs the file holds, then appends. Two processes
appending the same run used to both find it absent and both write it; the reader then refused
the whole file ("here a second time") and the shift report counted none of its runs. The writer
now holds a lock on the file from the check to the end of the append (`cafe.trace.file._lock`).

Real processes, started together behind a barrier so their checks meet: the same run is written
once and every other writer gets the ValueError; different runs all land; the file reads clean.
Nothing sleeps: each wait is on a process, a queue or the barrier, with a deadline.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import pytest

from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.repair.reask import make_model_generator
from cafe.report.traces import read_shift
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.file import read_traces, write_trace
from cafe.trace.record import Recorder, record_repair
from cafe.trace.spans import Trace

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="Windows takes no lock: the race is documented in _lock"
)

WRITERS = 4
# How long any one wait may take before the test fails instead of hanging: a writer does a few
# milliseconds of work, so this is only reached when something is stuck.
DEADLINE_S = 60
# fork starts a writer without importing the course again; spawn where there is no fork.
CONTEXT = multiprocessing.get_context(
    "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
)


def _recorded(trace_id: str) -> Trace:
    """A three-call run of the re-ask, recorded and given `trace_id`."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(ScriptedClient(Script(FeedbackModel()))))
    trace = record_repair(PRACTICE_ORDERS[1], generate, recorder=recorder)[1]
    return Trace(trace_id, trace.started_at, trace.spans)


def _append(trace: Trace, path: Path, barrier, results) -> None:
    """One writer: wait until every writer is ready, then append `trace` and say what happened."""
    barrier.wait(DEADLINE_S)
    try:
        write_trace(trace, path, append=True)
    except ValueError as exc:
        results.put((trace.trace_id, "refused", str(exc)))
    else:
        results.put((trace.trace_id, "written", ""))


def _race(traces: list[Trace], path: Path) -> list[tuple[str, str, str]]:
    """Each trace appended to `path` by its own process, all at once; what each one reported."""
    barrier, results = CONTEXT.Barrier(len(traces)), CONTEXT.Queue()
    writers = [CONTEXT.Process(target=_append, args=(t, path, barrier, results)) for t in traces]
    for writer in writers:
        writer.start()
    try:
        reports = [results.get(timeout=DEADLINE_S) for _ in writers]
    finally:
        for writer in writers:
            writer.join(DEADLINE_S)
            if writer.is_alive():
                writer.kill()
    assert [writer.exitcode for writer in writers] == [0] * len(writers)
    return reports


def test_writers_of_the_same_run_write_it_once_and_the_others_are_refused(tmp_path):
    path = tmp_path / "shift.jsonl"
    run = _recorded("same")
    for _ in range(3):  # a race is lost only sometimes: three rounds, each from no file
        path.unlink(missing_ok=True)
        reports = _race([run] * WRITERS, path)
        outcomes = sorted(outcome for _, outcome, _ in reports)
        assert outcomes == ["refused"] * (WRITERS - 1) + ["written"]
        assert all("run 'same' is already in" in why for _, outcome, why in reports if why)
        (read,) = read_traces(path)
        assert read.trace_id == "same" and read.spans == run.spans


def test_writers_of_different_runs_all_land_and_the_file_reads_clean(tmp_path):
    path = tmp_path / "shift.jsonl"
    runs = [_recorded(f"run-{n}") for n in range(WRITERS)]
    reports = _race(runs, path)
    assert sorted(reports) == [(f"run-{n}", "written", "") for n in range(WRITERS)]
    read = read_traces(path)
    assert sorted(trace.trace_id for trace in read) == [f"run-{n}" for n in range(WRITERS)]
    records, notes = read_shift([path])
    assert len(records) == WRITERS and notes == ()


def test_two_runs_each_with_two_writers_land_once_each(tmp_path):
    path = tmp_path / "shift.jsonl"
    first, second = _recorded("first"), _recorded("second")
    reports = _race([first, second, first, second], path)
    assert sorted((run_id, outcome) for run_id, outcome, _ in reports) == [
        ("first", "refused"),
        ("first", "written"),
        ("second", "refused"),
        ("second", "written"),
    ]
    assert sorted(trace.trace_id for trace in read_traces(path)) == ["first", "second"]


def test_a_file_written_without_append_replaces_what_was_there(tmp_path):
    """The lock takes the file as it is ("a+") and empties it only once held: writing without
    `append` still replaces the file, as it did when it was opened with "w"."""
    path = write_trace(_recorded("old"), tmp_path / "shift.jsonl")
    write_trace(_recorded("new"), path)
    assert [trace.trace_id for trace in read_traces(path)] == ["new"]
