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

Every run is in a random order and under one hash seed, both printed in the header so a failure
can be replayed. pytest-randomly shuffles the files and the tests in each file (`--randomly-seed`);
a notebook's cells go back to their own order, since each cell runs on the state the cells above it
left. Python picks a new hash seed for each process, which reorders what a set or a frozenset holds
when it is printed or compared as text: `pytest_configure` picks one for the run (from the
randomly seed, unless `PYTHONHASHSEED` is already set) and the workers and every subprocess they
start inherit it. A test that passes under one seed and fails under another is itself the bug
(the s05 bank's `kitchen_spelling` compared `repr`s of frozensets, and failed under 1 seed in 8).
Replay: `PYTHONHASHSEED=H pytest -p randomly --randomly-seed=R ...` with the two figures the
header printed; `-p no:randomly` runs in file order.

Hypothesis, too, draws the same from run to run. Besides its own numbers it sometimes draws a
constant found in the project's code (`_get_local_constants` in hypothesis's
internal/conjecture/providers.py), and it looks again each time a new module is imported. Which
files share a worker changes from run to run, so one `derandomize=True` test drew 100000 in one
CI run and never in the runs before it (stop 46). `pytest_collection_finish` gathers that pool
once, after collection (every worker collects every file, so every worker gathers the same pool),
and keeps it for the run.

A test run never reads or writes your own `~/.cafe`: `pytest_configure` points `CAFE_HOME` at a
new temporary folder for the run (one per worker), so the notebooks nbval runs bank their offline
numbers there, not over the checkpoints your own model earned. Tests that need a home of their own
still set one.
"""

from __future__ import annotations

import compileall
import os
import shutil
import tempfile
from typing import Any

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
# The files that take longest, longest first, by the summed time of their tests in a full run on
# two idle cores (6 Dec 2026, late evening, `--durations=0`): JupyterLab driving notebooks 151 and
# 129 s, the site in a phone-sized browser 79 s, the wrong-answer banks 75 s, the input fuzz 65 s,
# the toys 48 s (one run each against tests/data/toy_outputs.json), the capstone grader 47 s, the
# spoiler scan 41 s, then 29 to 32 s each. Each file is one unit under `--dist loadfile`; handed
# out first, the long ones run while the other workers clear the many short files, so the run ends
# on short files and the workers finish together.
LONGEST_FIRST = (
    "test_lab_browser.py",
    "test_lab_browser_late.py",
    "test_site_browser.py",
    "test_exercise_banks.py",
    "test_input_fuzz.py",
    "test_toys.py",
    "test_capstone.py",
    "test_spoilers.py",
    "test_grade.py",
    "test_containment.py",
    # one 22-second audit (7 Dec 2026): every strategy the checkers replay, drawn again for real
    "test_generated_replay.py",
    "test_honest_endings.py",
    "test_strict.py",
)
# Where the run keeps the CAFE_HOME it found, to put it back at the end.
_HOME_BEFORE = pytest.StashKey[str | None]()
# Whether this run set PYTHONHASHSEED itself (and so takes it away at the end).
_HASH_SEED_SET = pytest.StashKey[bool]()


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


def _hash_seed(config: pytest.Config) -> str:
    """The run's hash seed: PYTHONHASHSEED if set, else one drawn from the randomly seed."""
    if "PYTHONHASHSEED" in os.environ:
        return os.environ["PYTHONHASHSEED"]
    order_seed = getattr(config.option, "randomly_seed", None)
    # 0 means "no randomisation" to Python, so the figure is kept in 1 .. 2**32 - 1
    number = order_seed if isinstance(order_seed, int) else int.from_bytes(os.urandom(4), "big")
    return str(number % (2**32 - 1) + 1)


@pytest.hookimpl(trylast=True)  # after pytest-randomly has settled its seed
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist is installed
        config.option.loadscopereorder = False
    if not hasattr(config, "workerinput"):  # the controller: workers inherit its environment
        config.stash[_HASH_SEED_SET] = "PYTHONHASHSEED" not in os.environ
        os.environ["PYTHONHASHSEED"] = _hash_seed(config)
        # The run starts hundreds of Python processes (kernels, the command line, toys, graders),
        # each importing the course. Where PYTHONDONTWRITEBYTECODE is set (this course's CI
        # machine sets it) none may save what it compiled, so each compiled every module it
        # imported from source again: importing the capstone, detection and course packages took
        # 0.38 s of processor time from source and 0.28 s compiled. compileall writes the cache
        # whatever the variable says, once, here; a module changed later is compiled again as usual.
        compileall.compile_dir(os.path.join(os.path.dirname(__file__), "cafe"), quiet=1)
    config.stash[_HOME_BEFORE] = os.environ.get("CAFE_HOME")
    os.environ["CAFE_HOME"] = tempfile.mkdtemp(prefix="cafe-test-home-")
    os.environ["CAFE_ENV_FILE"] = ""  # a learner's own .env must not send the suite live
    # an instructor's strict mode would fail the shipped notebooks' stubs on purpose; the tests of
    # strict mode set it themselves
    os.environ.pop("CAFE_STRICT", None)


def pytest_report_header(config: pytest.Config) -> str:
    seed = os.environ.get("PYTHONHASHSEED", "random")
    here = (
        " (this process drew its own: run with -n to replay it exactly)"
        if config.stash.get(_HASH_SEED_SET, False) and not getattr(config.option, "numprocesses", 0)
        else ""
    )
    return f"hash seed: PYTHONHASHSEED={seed} for the workers and their subprocesses{here}"


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_HASH_SEED_SET, False):
        os.environ.pop("PYTHONHASHSEED", None)
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
    items.sort(key=_run_order)  # stable: the shuffled order holds within each group
    _cells_in_notebook_order(items)


def _cells_in_notebook_order(items: list[pytest.Item]) -> None:
    """Put each notebook's cells back in the order they run, in the slots they were shuffled to.

    A cell runs on what the cells above it left in the kernel, so nbval's items are never shuffled.
    """
    slots = [i for i, item in enumerate(items) if hasattr(item, "cell_num")]
    cells = sorted((items[i] for i in slots), key=lambda c: (str(c.path), c.cell_num))
    for slot, cell in zip(slots, cells):
        items[slot] = cell


def pytest_collection_finish(session: pytest.Session) -> None:
    """Hypothesis draws constants from one pool, gathered once, whatever ran before a test.

    Without that internal (a later Hypothesis), the draws merely vary as they did before."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        return
    gather = getattr(providers, "_get_local_constants", None)
    cache: Any = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if gather is None or cache is None:
        return
    pool = gather()
    providers._get_local_constants = lambda: pool
    cache.clear()
