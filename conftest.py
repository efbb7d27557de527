"""How the whole suite runs: the `slow` marker, the order and number of workers, a private CAFE_HOME.

It marks the suite's slow end-to-end tests `slow`, so an author can loop on `pytest -m "not slow"`.
The README's test command runs everything; the marker only lets an author leave the slow end out
while working (`pytest -n auto -m "not slow"`). Slow means the test starts something heavy: a
Jupyter kernel (every notebook under nbval), a headless browser, a real model, a toy or a notebook
run end to end as a learner runs it, or many real pytest runs in the workbench. Tests mark
themselves with `@pytest.mark.slow` where they are slow for their own reasons; this hook marks the
families that are slow by kind. `benchmarks/course_speed.py` measures what each costs.

The hook also sets the order in which pytest-xdist hands whole files to its workers (the README's
command runs `--dist loadfile`): the longest files first, then every other slow file, then the
rest. A worker that picks up a 90-second browser file at the end of the run keeps the whole run
waiting; handed out first, the long files run while the other worker clears the many short ones.
xdist would otherwise sort files by how many tests they hold, so `pytest_configure` turns that off.

`-n auto` starts one worker more than the machine has cores (`pytest_xdist_auto_num_workers`):
the browser, JupyterLab, endpoint and timeout tests spend part of their time waiting, and the extra
worker runs other tests meanwhile. Measured on 2 cores (30 Nov 2026): 2 workers 5 min 48 s, 3
workers 5 min 16 s, 4 workers 5 min 23 s.

A test run never reads or writes your own `~/.cafe`: `pytest_configure` points `CAFE_HOME` at a
new temporary folder for the run (one per worker), so the notebooks nbval runs bank their offline
numbers there, not over the checkpoints your own model earned. Tests that need a home of their own
still set one.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Test files whose every test runs a toy or a notebook end to end.
SLOW_FILES = frozenset(
    {
        "test_toys.py",
        "test_spoilers.py",
        "test_lab_browser.py",
        "test_lab_browser_late.py",
        "test_site_browser.py",
        "test_local_model.py",
    }
)
# Markers that mean a heavy outside process.
SLOW_MARKERS = ("browser", "local_model")
# The files that take longest, longest first (the browser files and the toys about 150 to 190 s
# each in a full run on 2 cores, then 35 to 15 s; measured with -v and timestamps on 30 Nov 2026):
# each browser file is one long unit, and the toys start 35 fresh interpreters. The mid-sized
# files follow them, so that the run ends on many short files and the workers finish together.
LONGEST_FIRST = (
    "test_lab_browser.py",
    "test_site_browser.py",
    "test_lab_browser_late.py",
    "test_toys.py",
    "test_stall.py",
    "test_spoilers.py",
    "test_shapes.py",
    "test_workbench.py",
)
# Where the run keeps the CAFE_HOME it found, to put it back at the end.
_HOME_BEFORE = pytest.StashKey[str | None]()


def _is_slow(item: pytest.Item) -> bool:
    return (
        item.path.suffix == ".ipynb"
        or item.path.name in SLOW_FILES
        or any(item.get_closest_marker(name) for name in SLOW_MARKERS)
    )


def _run_order(item: pytest.Item) -> int:
    """0, 1, ... for the files in LONGEST_FIRST; then other slow items; then the rest."""
    if item.path.name in LONGEST_FIRST and item.path.parent.name == "tests":
        return LONGEST_FIRST.index(item.path.name)
    return len(LONGEST_FIRST) + (0 if _is_slow(item) else 1)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's: not an error where xdist is absent
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
    return cores + 1


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist is installed
        config.option.loadscopereorder = False
    config.stash[_HOME_BEFORE] = os.environ.get("CAFE_HOME")
    os.environ["CAFE_HOME"] = tempfile.mkdtemp(prefix="cafe-test-home-")
    os.environ["CAFE_ENV_FILE"] = ""  # a learner's own .env must not send the suite live


def pytest_unconfigure(config: pytest.Config) -> None:
    if _HOME_BEFORE not in config.stash:
        return
    shutil.rmtree(os.environ["CAFE_HOME"], ignore_errors=True)
    before = config.stash[_HOME_BEFORE]
    if before is None:
        os.environ.pop("CAFE_HOME", None)
    else:
        os.environ["CAFE_HOME"] = before


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)
    items.sort(key=_run_order)  # stable: a notebook's cells keep their order
