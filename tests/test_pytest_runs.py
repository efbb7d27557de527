"""`cafe.world.pytest_runs`: a warm run is a real pytest run in a process of its own, and says what a
fresh `python -m pytest` says."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pytest

from cafe.world import pytest_runs
from cafe.world.pytest_runs import run_pytest, warm_available
from cafe.world.workbench import TEST_ARGS, open_workbench

warm_only = pytest.mark.skipif(not warm_available(), reason="no os.fork here: every run is fresh")

ARGS = ["-q", "--no-header", "-p", "no:cacheprovider", "-o", "console_output_style=classic"]


def base_env(**extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ["PATH"],
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "COLUMNS": "80",
        "NO_COLOR": "1",
    }
    return {**env, **extra}


def project(folder: Path, **files: str) -> Path:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def without_timing(text: str) -> str:
    return re.sub(r" in \d+\.\d+s", " in Ns", text)


@warm_only
def test_run_pytest_warm_and_fresh_say_the_same_words_about_the_till():
    with open_workbench() as bench:
        env = base_env()
        warm = run_pytest(TEST_ARGS, bench.root, env, 60)
        fresh = run_pytest(TEST_ARGS, bench.root, env, 60, warm=False)
    assert warm.status == fresh.status == 1
    assert "E   assert 999 == 1000" in warm.stdout
    assert without_timing(warm.stdout) == without_timing(fresh.stdout)
    assert warm.stderr == fresh.stderr


@warm_only
def test_run_pytest_sees_each_edit_made_between_runs(tmp_path):
    root = project(
        tmp_path,
        **{
            "price.py": "PRICE = 3\n",
            "check_price.py": "import price\n\ndef test_price():\n    assert price.PRICE == 4\n",
        },
    )
    first = run_pytest([*ARGS, "check_price.py"], root, base_env(), 60)
    (root / "price.py").write_text("PRICE = 4\n", encoding="utf-8")
    second = run_pytest([*ARGS, "check_price.py"], root, base_env(), 60)
    assert first.status == 1 and "assert 3 == 4" in first.stdout
    assert second.status == 0 and "1 passed" in second.stdout


@warm_only
def test_run_pytest_gives_the_run_exactly_the_environment_asked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_TEST_LEAK", "from-the-harness")
    root = project(
        tmp_path,
        **{
            "check_env.py": "import os\n\ndef test_env():\n"
            "    print('asked', os.environ.get('ASKED'))\n"
            "    print('leak', os.environ.get('CAFE_TEST_LEAK'))\n"
            "    assert False\n"
        },
    )
    done = run_pytest([*ARGS, "check_env.py"], root, base_env(ASKED="yes"), 60)
    assert "asked yes" in done.stdout and "leak None" in done.stdout


@warm_only
def test_run_pytest_reseeds_random_in_every_run(tmp_path):
    root = project(
        tmp_path,
        **{
            "check_rand.py": "import random\n\ndef test_rand():\n"
            "    print('draw', random.random())\n    assert False\n"
        },
    )
    draws = {
        re.search(
            r"draw (\S+)", run_pytest([*ARGS, "check_rand.py"], root, base_env(), 60).stdout
        ).group(1)
        for _ in range(3)
    }
    assert len(draws) == 3


def _writes_pid(pid_file: Path, expression: str) -> str:
    """Test code that records a process id in `pid_file` whole or not at all: written beside it,
    then renamed, so a file that exists holds the whole number. (Opened and written in place, a
    run stopped between the two under load left an empty file, read as int('').)"""
    part = f"{str(pid_file)!r} + '.part'"
    return (
        f"    open({part}, 'w').write(str({expression}))\n"
        f"    __import__('os').replace({part}, {str(pid_file)!r})\n"
    )


@warm_only
def test_run_pytest_timeout_kills_the_run_and_what_it_started(tmp_path):
    pid_file = tmp_path / "sleeper.pid"
    root = project(
        tmp_path,
        **{
            "check_slow.py": "import subprocess, time\n\ndef test_slow():\n"
            "    child = subprocess.Popen(['sleep', '30'])\n"
            + _writes_pid(pid_file, "child.pid")
            + "    time.sleep(30)\n"
        },
    )
    started = time.monotonic()
    done = run_pytest([*ARGS, "check_slow.py"], root, base_env(), 1.5)
    assert done.status is None and time.monotonic() - started < 10
    assert not _alive(int(pid_file.read_text()))
    assert (
        run_pytest([*ARGS, "check_slow.py", "-k", "nothing"], root, base_env(), 60).status == 5
    )  # still serving


@warm_only
def test_run_pytest_restarts_the_helper_for_a_new_pythonpath(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "till_rules.py").write_text("ROUNDING = 'down'\n", encoding="utf-8")
    root = project(
        tmp_path / "proj",
        **{
            "check_rules.py": "import till_rules\n\ndef test_rules():\n    assert till_rules.ROUNDING\n"
        },
    )
    assert run_pytest([*ARGS, "check_rules.py"], root, base_env(), 60).status == 2  # not importable
    assert (
        run_pytest([*ARGS, "check_rules.py"], root, base_env(PYTHONPATH=str(lib)), 60).status == 0
    )


@warm_only
def test_run_pytest_starts_a_new_helper_when_the_old_one_died(tmp_path):
    root = project(tmp_path, **{"check_ok.py": "def test_ok():\n    pass\n"})
    assert run_pytest([*ARGS, "check_ok.py"], root, base_env(), 60).status == 0
    pytest_runs._HELPER._process.kill()
    pytest_runs._HELPER._process.wait()
    assert run_pytest([*ARGS, "check_ok.py"], root, base_env(), 60).status == 0


@warm_only
def test_run_pytest_replaces_a_helper_found_dead_only_when_asked(tmp_path, monkeypatch):
    root = project(tmp_path, **{"check_ok.py": "def test_ok():\n    pass\n"})
    assert run_pytest([*ARGS, "check_ok.py"], root, base_env(), 60).status == 0
    helper = pytest_runs._HELPER._process
    helper.kill()
    helper.wait()
    monkeypatch.setattr(helper, "poll", lambda: None)  # as if it died just after the check
    assert run_pytest([*ARGS, "check_ok.py"], root, base_env(), 60).status == 0
    assert pytest_runs._HELPER._process is not helper


@warm_only
def test_run_pytest_helper_ignores_a_stray_module_where_the_harness_runs(tmp_path, monkeypatch):
    (tmp_path / "cmd.py").write_text(
        "raise ImportError('the stray cmd.py was imported')\n", encoding="utf-8"
    )
    root = project(tmp_path / "proj", **{"check_ok.py": "def test_ok():\n    pass\n"})
    monkeypatch.chdir(tmp_path)
    pytest_runs._HELPER.stop()
    done = run_pytest([*ARGS, "check_ok.py"], root, base_env(), 60)
    assert done.status == 0, done.stdout + done.stderr


@warm_only
def test_run_pytest_stopping_the_helper_ends_the_run_in_progress(tmp_path):
    pid_file = tmp_path / "run.pid"
    root = project(
        tmp_path,
        **{
            "check_wait.py": "import os, time\n\ndef test_wait():\n"
            + _writes_pid(pid_file, "os.getpid()")
            + "    time.sleep(30)\n"
        },
    )
    failed: list[BaseException] = []

    def run() -> None:
        try:
            run_pytest([*ARGS, "check_wait.py"], root, base_env(), 60)
        except BaseException as error:  # noqa: BLE001 - what the harness would see
            failed.append(error)

    runner = threading.Thread(target=run)
    runner.start()
    deadline = time.monotonic() + 20
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    pytest_runs._HELPER.stop()  # what an interrupt in the harness does
    runner.join(20)
    assert not runner.is_alive()
    assert failed and "stopped during a run without answering" in str(failed[0])
    assert not _alive(int(pid_file.read_text()))


def _alive(pid: int) -> bool:
    deadline = time.monotonic() + 5  # a killed process may take a moment to be reaped
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        if _zombie(pid):
            return False
        time.sleep(0.05)
    return True


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except OSError:
        return False


def _sleeper(tmp_path: Path) -> tuple[Path, Path]:
    """A test that starts a grandchild (plain Python, so every platform has it) and sleeps."""
    pid_file = tmp_path / "sleeper.pid"
    root = project(
        tmp_path,
        **{
            "check_slow.py": "import subprocess, sys, time\n\ndef test_slow():\n"
            "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
            + _writes_pid(pid_file, "child.pid")
            + "    time.sleep(30)\n"
        },
    )
    return root, pid_file


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="checks the grandchild with os.kill(pid, 0)")
def test_fresh_run_timeout_kills_the_run_and_what_it_started(tmp_path):
    root, pid_file = _sleeper(tmp_path)
    started = time.monotonic()
    done = run_pytest([*ARGS, "check_slow.py"], root, base_env(), 3, warm=False)
    assert done.status is None and time.monotonic() - started < 15
    assert not _alive(int(pid_file.read_text()))


def test_fresh_run_reports_status_and_both_streams(tmp_path):
    root = project(tmp_path, **{"check_one.py": "def test_one():\n    assert 1 == 2\n"})
    done = run_pytest([*ARGS, "check_one.py"], root, base_env(), 60, warm=False)
    assert done.status == 1 and "assert 1 == 2" in done.stdout


KEY = "q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5EuR0tXe"
# A failing test that prints its environment and the key read from a file (the learner's .env):
# pytest shows what a failing test printed.
LEAKY_TEST = """
import base64, os

def test_prints_what_it_can_find():
    key = open(os.path.join(os.path.dirname(__file__), "key.txt")).read()
    print(sorted(os.environ.items()))
    print(key, key.encode().hex(), base64.b64encode(key.encode()).decode())
    assert False
"""


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "fresh"])
def test_a_run_gets_no_key_and_shows_none(tmp_path, monkeypatch, warm):
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    folder = project(tmp_path / "p", **{"test_leak.py": LEAKY_TEST, "key.txt": KEY})
    env = base_env(CAFE_API_KEY=KEY, MY_SETTING=KEY)
    done = run_pytest(ARGS, folder, env, 60, warm=warm)
    shown = done.stdout + done.stderr
    assert done.status == 1 and "PATH" in shown and "[redacted]" in shown
    assert "CAFE_API_KEY" not in shown and "MY_SETTING" not in shown
    for form in (KEY, KEY.encode().hex(), *(KEY[i : i + 8] for i in range(len(KEY) - 7))):
        assert form not in shown
