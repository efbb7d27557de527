"""The suite's own rule for speed: tests count work, and no test compares two clock readings.

`tests/work.py` counts the steps a call runs; these tests show that the count tells linear work
from quadratic, is the same every time, and cannot be answered by a cache. The last test reads
every test file and lists each use of the clock with the reason it is allowed: a deadline on a
wait, a stand-in that must be slow, a poll for an event. Durations compared with each other
(`perf_counter`, `process_time`) belong in `benchmarks/`.
"""

from __future__ import annotations

import functools
import gc
import re
from pathlib import Path

import pytest

from work import GROWTH_LIMIT, grows_linearly, growth, steps

TESTS = Path(__file__).resolve().parent


def _linear(n: int):
    data = list(range(n))
    return lambda: sum(x for x in data)


def _quadratic(n: int):
    data = list(range(n))
    return lambda: sum(1 for i in data for j in data[: i + 1] if j % 64 == 0)


def test_linear_work_grows_four_times_and_passes():
    assert 3.5 < growth(_linear, 500) < 4.5
    assert grows_linearly(_linear, 500)


def test_quadratic_work_grows_far_past_the_limit_and_fails():
    assert growth(_quadratic, 200) > 3 * GROWTH_LIMIT
    assert not grows_linearly(_quadratic, 200)


def test_steps_are_the_same_every_time():
    call = _quadratic(150)
    call()
    assert len({steps(call) for _ in range(3)}) == 1


def test_a_cache_keyed_on_the_input_cannot_answer_the_count():
    @functools.cache
    def cached(text: str) -> int:
        return sum(1 for i in range(len(text)) for _ in range(i) if _ % 64 == 0)

    def make(n: int):
        text = "a" * n
        return lambda: cached(text)

    assert not grows_linearly(make, 200)


# Where a test file may read the clock, and why. Anything else is a test comparing durations or
# sleeping in place of waiting for an event.
CLOCK_ALLOWED = {
    "lab.py": "polls JupyterLab and the page with a deadline (time.monotonic), sleeping between polls",
    "test_client.py": "a call against a server that never answers ends near its deadline",
    "test_faults.py": "a faulty server's delay is cut off by the client's deadline",
    "test_health.py": "the doctor gives up on a silent endpoint within its deadline",
    "test_grade_worker_death.py": "a stand-in grading worker that sleeps on purpose, to be stopped",
    "test_health_speed.py": "a stand-in server that writes slowly on purpose (sleeps per token)",
    "test_local.py": "a stand-in server process that sleeps, a SIGTERM mid-start, a poll for its end",
    "test_local_model.py": "polls a real local server until it answers, with a deadline",
    "test_loop_clock.py": "reads no clock: checks that ClockError's fix names time.monotonic",
    "test_problems.py": "a stand-in call that is slow on purpose, to see the waiting notice",
    "test_processes.py": "commands that sleep on purpose to be cut off; a poll for a process's end",
    "test_restore_concurrent.py": "a restore waiting for the tree's lock sleeps between its polls",
    "test_pytest_runs.py": "test runs that sleep on purpose to be cut off; polls with a deadline",
    "test_serve.py": "a server delay cut off by the client's deadline; a poll for a request",
}


def test_the_collector_is_held_off_during_a_count_and_restored_after():
    """A full run once saw a 30-step regex scan count as 5x growth: a collection fell inside the
    count and ran other objects' finalizers in the counting thread."""
    seen: list[bool] = []
    steps(lambda: seen.append(gc.isenabled()))
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        steps(lambda: None)
        assert not gc.isenabled()  # a caller's own choice is left as it was
    finally:
        gc.enable()


CLOCK = re.compile(r"\btime\.(sleep|monotonic|perf_counter|process_time|time)\b")
COMPARED_DURATIONS = re.compile(r"\b(perf_counter|process_time|thread_time)\b")


def test_only_the_listed_files_read_the_clock_and_none_compares_durations():
    reading = {
        path.name
        for path in TESTS.glob("*.py")
        if path.name != "test_work.py" and CLOCK.search(path.read_text(encoding="utf-8"))
    }
    assert reading <= set(CLOCK_ALLOWED), (
        f"{sorted(reading - set(CLOCK_ALLOWED))} read the clock: count the work instead "
        "(tests/work.py), or wait on the event with a deadline; list a real need in CLOCK_ALLOWED"
    )
    timing = [
        path.name
        for path in TESTS.glob("*.py")
        if path.name != "test_work.py" and COMPARED_DURATIONS.search(path.read_text("utf-8"))
    ]
    assert not timing, f"{timing} time their code: that is a benchmark (benchmarks/), not a test"


@pytest.mark.parametrize("name", sorted(CLOCK_ALLOWED))
def test_each_allowed_clock_reader_exists(name):
    assert (TESTS / name).exists(), f"CLOCK_ALLOWED lists {name}, which is gone: take it out"
