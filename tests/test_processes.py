"""Starting and ending commands (cafe/world/processes.py) on every platform, Windows faked here."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time

import pytest

from cafe.world.processes import (
    Shell,
    family_of,
    find_shell,
    kill_tree,
    popen_options,
    run_captured,
)

GIT_FOR_WINDOWS = r"C:\Program Files\Git"
posix_only = pytest.mark.skipif(not hasattr(os, "killpg"), reason="real process groups")


class FakeProcess:
    """What kill_tree needs of a Popen: a pid, poll, kill and wait."""

    def __init__(self, alive: bool = True):
        self.pid, self.alive, self.calls = 4242, alive, []

    def poll(self):
        return None if self.alive else -9

    def kill(self):
        self.calls.append("kill")
        self.alive = False

    def wait(self, timeout=None):
        self.calls.append("wait")
        return -9


def which_from(found: dict[str, str]):
    return lambda name: found.get(name)


@pytest.mark.parametrize(
    ("platform", "family"), [("linux", "posix"), ("darwin", "posix"), ("win32", "windows")]
)
def test_family_of_each_platform(platform, family):
    assert family_of(platform) == family


def test_find_shell_on_posix_prefers_bash_then_sh():
    assert find_shell("linux", which=which_from({"bash": "/usr/bin/bash"})) == Shell(
        "bash", ("/usr/bin/bash", "-c")
    )
    assert find_shell("darwin", which=which_from({})) == Shell("sh", ("/bin/sh", "-c"))


def test_find_shell_on_windows_finds_git_for_windows_bash_from_git():
    git = GIT_FOR_WINDOWS + r"\cmd\git.exe"
    bash = GIT_FOR_WINDOWS + r"\bin\bash.exe"
    shell = find_shell("win32", which=which_from({"git": git}), is_file=lambda p: p == bash)
    assert shell == Shell("bash", (bash, "-c"))
    assert shell.argv("pytest -q") == [bash, "-c", "pytest -q"]


def test_find_shell_on_windows_never_picks_wsls_launcher():
    wsl = r"C:\Windows\System32\bash.exe"
    shell = find_shell(
        "win32",
        which=which_from({"bash": wsl}),
        is_file=lambda p: False,
        environ={"COMSPEC": r"C:\Windows\system32\cmd.exe"},
    )
    assert shell == Shell("cmd", (r"C:\Windows\system32\cmd.exe", "/d", "/s", "/c"))


def test_find_shell_on_windows_takes_another_bash_on_path():
    msys = r"C:\msys64\usr\bin\bash.exe"
    shell = find_shell("win32", which=which_from({"bash": msys}), is_file=lambda p: False)
    assert shell == Shell("bash", (msys, "-c"))


def test_popen_options_make_a_group_kill_tree_can_end():
    assert popen_options("linux") == {"start_new_session": True}
    assert popen_options("win32") == {"creationflags": 0x200}


def test_kill_tree_on_windows_uses_taskkill_on_the_tree_and_no_signals():
    process, ran = FakeProcess(), []
    kill_tree(process, "win32", killpg=None, run=lambda argv, **kw: ran.append(argv))
    assert ran == [["taskkill", "/T", "/F", "/PID", "4242"]]
    assert process.calls == ["kill", "wait"]


def test_kill_tree_on_posix_signals_the_group_then_the_process_if_the_group_is_gone():
    signalled = []

    def killpg(pid, sig):
        signalled.append(pid)
        raise ProcessLookupError

    process = FakeProcess()
    kill_tree(process, "linux", killpg=killpg, run=lambda *a, **k: pytest.fail("no taskkill"))
    assert signalled == [4242] and process.calls == ["kill", "wait"]


def test_kill_tree_of_a_finished_process_still_ends_its_group():
    signalled = []
    process = FakeProcess(alive=False)
    kill_tree(process, "darwin", killpg=lambda pid, sig: signalled.append(pid))
    assert signalled == [4242] and process.calls == ["wait"]


def test_run_captured_returns_status_and_decodes_bad_bytes(tmp_path):
    code = "import sys; sys.stdout.buffer.write(b'ok \\xff'); sys.stderr.write('err'); sys.exit(3)"
    done = run_captured([sys.executable, "-c", code], tmp_path, dict(os.environ), 30)
    assert (done.status, done.stdout, done.stderr) == (3, "ok \ufffd", "err")
    merged = run_captured(
        [sys.executable, "-c", code], tmp_path, dict(os.environ), 30, merge_stderr=True
    )
    assert "err" in merged.stdout and merged.stderr == ""


@posix_only
def test_run_captured_timeout_ends_the_command_and_its_grandchildren(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    done = run_captured([sys.executable, "-c", code], tmp_path, dict(os.environ), 2)
    assert done.status is None and "started" in done.stdout and time.monotonic() - started < 20
    assert _gone(int(pid_file.read_text()))


@posix_only
def test_run_captured_timeout_ends_a_background_job_of_a_shell(tmp_path):
    shell = find_shell()
    done = run_captured(
        shell.argv("sleep 60 & echo $!; wait"), tmp_path, dict(os.environ), 2, merge_stderr=True
    )
    assert done.status is None and _gone(int(done.stdout.split()[0]))


def _gone(pid: int) -> bool:
    """True once `pid` no longer runs (a zombie waiting for its parent counts as gone)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        state = subprocess.run(
            ["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True
        )
        if state.stdout.strip().startswith("Z") or not state.stdout.strip():
            return True
        time.sleep(0.05)
    return False


def test_run_command_tool_reports_status_output_and_a_timeout():
    from cafe.monitors.snapshots import SnapshotStore
    from cafe.monitors.tools import monitored_tools
    from cafe.world.workbench import open_workbench

    with open_workbench() as bench:
        tools = {t.name: t for t in monitored_tools(bench, SnapshotStore(), command_timeout_s=2)}
        quick = tools["run_command"].function(command="python -c \"print('hi')\"")
        slow = tools["run_command"].function(command='python -c "import time; time.sleep(30)"')
    assert quick.ok and "exit status 0" in quick.text and "hi" in quick.text
    assert not slow.ok and "did not finish within 2 seconds" in slow.text


# --- no key in, no key out ------------------------------------------------------------------

KEY = "q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5EuR0tXe"
# A child that prints its whole environment, then the key as it would read it from a file on disk
# (the learner's .env), raw and in three disguises.
PRINTS_ENV = (
    "import base64, os, sys; print(sorted(os.environ.items())); key = open(sys.argv[1]).read(); "
    "print(key, base64.b64encode(b'x' + key.encode()).decode(), key.encode().hex(), "
    "' '.join(key))"
)


def _key_file(tmp_path) -> str:
    path = tmp_path / "key.txt"
    path.write_text(KEY, encoding="utf-8")
    return str(path)


def _holds_key(text: str) -> list[str]:
    forms = {
        "raw": KEY,
        "base64": base64.b64encode(b"x" + KEY.encode()).decode()[4:-4],
        "hex": KEY.encode().hex(),
        "spaced": " ".join(KEY),
    }
    return [name for name, form in forms.items() if form in text] + [
        KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8] in text
    ]


def test_without_secrets_drops_the_key_secret_names_and_values_that_hold_a_secret(monkeypatch):
    from cafe.world.processes import without_secrets

    monkeypatch.setenv("CAFE_API_KEY", KEY)
    env = {
        "PATH": "/usr/bin",
        "CAFE_API_KEY": KEY,
        "OPENAI_API_KEY": "sk-other-0123456789",
        "GITHUB_TOKEN": "ghp_notthecourses",
        "MY_SETTING": KEY,  # named like nothing in particular, holding the key
        "AUTH_HEADER": f"Bearer {KEY}",
        "CAFE_MODEL": "m",
    }
    assert without_secrets(env) == {"PATH": "/usr/bin", "CAFE_MODEL": "m"}


def test_a_command_that_prints_its_environment_shows_no_key(monkeypatch, tmp_path):
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    env = {**os.environ, "MY_SETTING": KEY}
    done = run_captured([sys.executable, "-c", PRINTS_ENV, _key_file(tmp_path)], tmp_path, env, 30)
    assert done.status == 0 and "PATH" in done.stdout
    assert "CAFE_API_KEY" not in done.stdout and "MY_SETTING" not in done.stdout
    assert "[redacted]" in done.stdout and not _holds_key(done.stdout), _holds_key(done.stdout)


def test_the_run_command_tool_shows_the_model_no_key(monkeypatch, tmp_path):
    from cafe.monitors.snapshots import SnapshotStore
    from cafe.monitors.tools import monitored_tools
    from cafe.world.workbench import open_workbench

    monkeypatch.setenv("CAFE_API_KEY", KEY)
    monkeypatch.setenv("MY_SETTING", KEY)
    with open_workbench() as bench:
        tools = {t.name: t for t in monitored_tools(bench, SnapshotStore(), command_timeout_s=30)}
        shown = tools["run_command"].function(
            command=f'python -c "{PRINTS_ENV}" {_key_file(tmp_path)}'
        )
    assert shown.ok and "exit status 0" in shown.text
    assert "CAFE_API_KEY" not in shown.text and not _holds_key(shown.text)
