"""Real pytest runs for the workbench, started warm: a fresh process per run, without the wait.

Session 13 (machinery behind `Workbench.run_tests`). Every check the agent asks for is a real
pytest run in a process of its own, and the stories of sessions 13 to 15 need dozens of them.
Started from nothing, a run of the till's four tests takes about 0.27 s, and 0.2 s of that is
Python starting and importing pytest; the tests themselves take 0.02 s.

So `run_pytest` keeps one small helper process (this module's `serve`) that has already imported
pytest and its built-in plugins. For each run the helper forks. The child is a new process with its
own memory, working folder, environment and output files, and it calls `pytest.main` on the
project as `python -m pytest` would: the project folder first on `sys.path`, no bytecode files
(`random` reseeds itself in a forked child). It collects and runs the tests from the files on disk,
so the edit the agent just made is what runs. A run takes about 0.07 s instead of 0.27 s.

- The helper starts on the first run, with the same secret-free environment the runs get, and ends
  when the process that started it ends (its input closes).
- Secret-free means `cafe.world.processes.without_secrets`: whatever environment the caller hands
  over, a run gets it without the course's key and anything else that holds a known secret, and
  what it printed comes back with every known secret masked (a test may print its environment,
  or read the learner's `.env`).
- A run that outlives its timeout is killed with everything it started (its own process group).
- Without `os.fork` (Windows), or with `warm=False`, every run starts a fresh interpreter, and a
  timeout ends it with its whole process tree (`cafe/world/processes.py`, on every platform).

Left out: reusing one run's output for another. Every call runs the tests again.

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from cafe.endpoint.secrets.redaction import redactor_for
from cafe.world.processes import command_secrets, run_captured, without_secrets

__all__ = ["PytestRun", "run_pytest", "serve", "warm_available"]

# Variables Python reads only when it starts: a warm helper started with other values than a run
# asks for would not honour them, so a change in any of these starts a new helper.
_START_ONLY = (
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "PYTHONWARNINGS",
    "PYTHONSAFEPATH",
    "PYTHONUTF8",
    "PYTHONIOENCODING",
)
# The helper's command line. It drops the folder it started in from `sys.path` before importing
# anything, so a stray `cmd.py` or `json.py` there cannot stand in for the standard library's.
_HELPER_CODE = "import sys; del sys.path[0]; from cafe.world.pytest_runs import serve; serve()"
# How long the harness waits for the helper beyond a run's own timeout before giving up on it.
_HELPER_GRACE_S = 10.0
# The waiting child is polled, starting at 1 ms and backing off to 20 ms (a run takes ~70 ms).
_POLL_S, _POLL_MAX_S = 0.001, 0.02


@dataclass(frozen=True)
class PytestRun:
    """One finished run: exit status (None when it timed out), and what it printed."""

    status: int | None
    stdout: str
    stderr: str


def warm_available() -> bool:
    """True where a warm helper can fork runs (every POSIX system; not Windows)."""
    return hasattr(os, "fork")


def run_pytest(
    args: Sequence[str],
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout_s: float,
    *,
    warm: bool = True,
) -> PytestRun:
    """Run `python -m pytest *args` in `cwd` with `env` less its secrets; warm when it can be.
    What the run printed comes back with every known secret masked."""
    clean, given = redactor_for(command_secrets(env)), without_secrets(env)
    if warm and warm_available():
        done = _HELPER.run(list(args), os.fspath(cwd), given, timeout_s)
    else:
        done = _fresh_run(list(args), os.fspath(cwd), given, timeout_s)
    return PytestRun(done.status, clean.text(done.stdout), clean.text(done.stderr))


def _fresh_run(args: list[str], cwd: str, env: dict[str, str], timeout_s: float) -> PytestRun:
    """A new interpreter for this one run; at the timeout it is ended with all it started."""
    done = run_captured([sys.executable, "-m", "pytest", *args], cwd, env, timeout_s)
    if done.status is None:
        return PytestRun(None, "", "")
    return PytestRun(done.status, done.stdout, done.stderr)


# --- the harness's side: one helper process, asked over a pipe ------------------------------


class _Helper:
    """The warm helper as the harness sees it: started on first use, restarted when it must be."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._started_with: dict[str, str | None] = {}
        self._lock = threading.Lock()
        atexit.register(self.stop)

    def run(self, args: list[str], cwd: str, env: dict[str, str], timeout_s: float) -> PytestRun:
        request = json.dumps({"args": args, "cwd": cwd, "env": env, "timeout_s": timeout_s}) + "\n"
        with self._lock:
            process = self._sent(request, env)
            try:
                line = _read_line(process, timeout_s + _HELPER_GRACE_S)
            except BaseException:  # an interrupt, or no answer in time: stop it (it kills its run)
                self.stop()
                raise
            if not line:
                self.stop()
                raise RuntimeError(
                    "The warm pytest helper stopped during a run without answering; run again, "
                    "or pass warm=False to start every run fresh."
                )
            answer = json.loads(line)
            return PytestRun(answer["status"], answer["stdout"], answer["stderr"])

    def _sent(self, request: str, env: dict[str, str]) -> subprocess.Popen[str]:
        """The helper, with `request` written to it. A helper that died since its last run is
        replaced; so is one found dead only as the request is written (no run began)."""
        try:
            return _write(self._ready(env), request)
        except BrokenPipeError:
            self.stop()
            return _write(self._ready(env), request)

    def _ready(self, env: dict[str, str]) -> subprocess.Popen[str]:
        wanted = {name: env.get(name) for name in _START_ONLY}
        if self._process is not None and (
            self._process.poll() is not None or wanted != self._started_with
        ):
            self.stop()
        if self._process is None:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _HELPER_CODE],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            self._started_with = wanted
        return self._process

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()  # the helper kills a run still going, then exits
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _pipes(process: subprocess.Popen[str]) -> tuple[IO[str], IO[str]]:
    """The helper's input and output (it is always started with both piped)."""
    if process.stdin is None or process.stdout is None:
        raise RuntimeError("The warm pytest helper was started without its pipes.")
    return process.stdin, process.stdout


def _write(process: subprocess.Popen[str], request: str) -> subprocess.Popen[str]:
    stdin, _ = _pipes(process)
    stdin.write(request)
    stdin.flush()
    return process


def _read_line(process: subprocess.Popen[str], timeout_s: float) -> str:
    _, stdout = _pipes(process)
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            raise TimeoutError(f"The warm pytest helper gave no answer within {timeout_s:g} s.")
    return stdout.readline()


_HELPER = _Helper()


# --- the helper's side: import once, fork per run ---------------------------------------------


_running_child: int | None = None


def _warm_up() -> None:
    """Import pytest and every built-in plugin once, so that each forked run finds them loaded."""
    import pdb  # noqa: F401 - pytest's debugging plugin imports it while configuring

    import pytest  # noqa: F401
    from _pytest.config import default_plugins

    for name in default_plugins:
        importlib.import_module(f"_pytest.{name}")


def _child(request: dict, out_path: str, err_path: str) -> None:
    """In the forked child: become `python -m pytest` in the project folder, run, exit."""
    import pytest

    code = 4  # pytest's "usage error", should anything below fail before pytest runs
    try:
        os.setpgid(0, 0)  # its own process group, so a timeout can end whatever it starts
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with open(os.devnull) as nothing, open(out_path, "w") as out, open(err_path, "w") as err:
            os.dup2(nothing.fileno(), 0)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path.insert(0, request["cwd"])  # as `python -m` does: the working folder first
        sys.dont_write_bytecode = True
        code = int(pytest.main(request["args"]))
    except BaseException:  # noqa: BLE001 - whatever it was, it is in the run's stderr
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait(pid: int, timeout_s: float) -> int | None:
    """The child's exit status, or None after killing its process group at the timeout."""
    deadline, pause = time.monotonic() + timeout_s, _POLL_S
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            _kill_group(pid)
            os.waitpid(pid, 0)
            return None
        time.sleep(pause)
        pause = min(pause * 2, _POLL_MAX_S)


def _kill_group(pid: int) -> None:
    """End a forked run and its process group. Only the helper calls this, and the helper only
    runs where `os.fork` exists (POSIX), so `killpg` and SIGKILL are there too."""
    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    try:
        os.killpg(pid, kill)
    except (ProcessLookupError, PermissionError):  # the group is already gone, or not yet made
        os.kill(pid, kill)


def _serve_one(request: dict) -> dict:
    global _running_child
    with tempfile.TemporaryDirectory(prefix="cafe-pytest-run-") as folder:
        out_path, err_path = os.path.join(folder, "out"), os.path.join(folder, "err")
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _child(request, out_path, err_path)
        _running_child = pid
        status = _wait(pid, request["timeout_s"])
        _running_child = None
        if status is None:
            return {"status": None, "stdout": "", "stderr": ""}
        with open(out_path) as out, open(err_path) as err:
            return {"status": status, "stdout": out.read(), "stderr": err.read()}


def _stop(signum: int, frame: object) -> None:
    if _running_child is not None:
        _kill_group(_running_child)
    os._exit(0)


def serve() -> None:
    """The helper's loop: one JSON request per input line, one JSON answer per output line."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the harness's to handle
    signal.signal(signal.SIGTERM, _stop)
    _warm_up()
    gc.freeze()  # what the helper holds is never collected again, in it or in a child
    for line in sys.stdin:
        sys.stdout.write(json.dumps(_serve_one(json.loads(line))) + "\n")
        sys.stdout.flush()
