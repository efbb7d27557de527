"""Run `python -m cafe ...` many times, paying for the interpreter and its imports once.

`tests/test_input_fuzz.py` runs the `cafe` command a few hundred times, once per input. A fresh
interpreter costs about 0.6 s to start and import the course's modules before the command does
anything; `cafe progress` itself takes about 0.02 s, `cafe doctor` about 0.2 s (most of it waiting
on the scripted endpoint's threads). A fork server pays the start-up once:

- `ForkServer()` starts one helper process (this file, run as a script). It imports `PRELOADED`
  and then waits for requests on its stdin, one JSON line each.
- For each request it forks. The child takes the request's environment exactly (everything else
  is cleared), moves to its folder, reads stdin from the null device, writes stdout and stderr to
  two files (regular files, not pipes: neither is a terminal, which is what the commands look
  at), and runs the package as `python -m cafe` does (`runpy.run_module` with `alter_sys`,
  which is how `-m` runs a module). The child's `SystemExit`, or a traceback, then ends the child
  the way it ends a fresh interpreter: the same exit statuses, the same flushing, the same
  `atexit` handlers.
- The parent waits for the child and answers its exit status. The client waits at most the
  call's time limit, kills the child on a hang and raises `subprocess.TimeoutExpired`, as
  `subprocess.run` does. An environment the OS cannot hold raises `ValueError`, as
  `subprocess.run` does, before anything is sent.

Why a forked child behaves as a fresh interpreter would:

- What is imported before the fork is shared; everything the command does happens after it, with
  the request's environment. That is only faithful if no preloaded module reads a course variable
  (`CAFE_*`, `COURSE_MODE`) or copies the whole environment while it is imported. The server
  imports `PRELOADED` with the environment's reads recorded and reports each read of a course
  variable and each copy; `usable` is False if there was one, and the caller then runs fresh
  interpreters. (STYLE.md rule 7 says no module reads the environment at import time; measured
  6 Dec 2026, the preloaded modules read none.) The server also starts with no course variable
  set, so a read it missed would see nothing rather than another case's value.
- The server collects the imports' garbage once and freezes what is left (`gc.freeze`) before
  it forks, so a child's exit does not walk, and so copy, the whole shared heap. The imports'
  objects are then never collected as cycles in a child; everything the command creates is, and
  the child still ends through the interpreter's own exit (threads joined, `atexit`, module
  teardown, finalizers, flushes), so whatever a command prints at exit is seen, as from a fresh
  interpreter.
- The server never runs a command itself, so caches filled while a command runs start empty in
  every child, as in a fresh interpreter. A fork with threads running is unsafe, so a server whose
  imports started a thread is not `usable` either.
- `random` reseeds in a forked child (the module registers that with `os.register_at_fork`);
  `tempfile` notices the new process id. The children share the server's string hash seed, where
  fresh interpreters draw one each; a new server, in the next test run, draws a new one.
- `sys.path[0]` is the request's folder, as `-m` makes it; `sys.argv[0]` is the package's
  `__main__.py`, as `-m` makes it.

Where `os.fork` does not exist (Windows), `fork_available()` is False and callers run fresh
interpreters.
"""

from __future__ import annotations

import gc
import json
import locale
import os
import re
import runpy
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

# What the server imports before it forks: what `python -m cafe` imports (cafe.cli), and what
# `cafe doctor` imports when it runs (its checks and the openai client), which is most of the
# time a fresh `cafe doctor` takes. More modules here make every child cheaper, and each is held
# to the same rule: it reads no course variable while it is imported.
PRELOADED = ("cafe.cli", "cafe.endpoint.doctor.health", "openai")


def is_course_variable(name: str) -> bool:
    """The variables the fuzz sets: the course's own, which no module may read at import."""
    return name.startswith("CAFE_") or name == "COURSE_MODE"


def fork_available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "waitstatus_to_exitcode")


def check_encodable(args: Sequence[str], env: Mapping[str, str]) -> None:
    """Raise ValueError for what `subprocess.run` would refuse: a name with `=`, a NUL, or a
    character the file system encoding cannot hold (`UnicodeEncodeError` is a ValueError)."""
    for key, value in env.items():
        if "=" in key or not key or "\x00" in key + value:
            raise ValueError(f"the OS cannot hold {key!r}={value!r} in an environment")
        os.fsencode(key), os.fsencode(value)
    for arg in args:
        if "\x00" in arg:
            raise ValueError(f"the OS cannot hold {arg!r} in an argument")
        os.fsencode(arg)


# --- the server (this file run as a script) ---------------------------------------------------


class _RecordingEnviron(type(os.environ)):
    """`os.environ` that notes each course variable read and each copy of the whole mapping.

    `get`, `in`, `os.getenv` and `[]` all go through `__getitem__`; `dict(os.environ)`, `copy()`
    and `items()` go through `__iter__`."""

    seen: list[str] = []

    def __getitem__(self, key: str) -> str:
        if is_course_variable(key):
            self.seen.append(f"read {key}")
        return super().__getitem__(key)

    def __iter__(self) -> Iterator[str]:
        self.seen.append("copied the whole environment")
        return super().__iter__()


def _import_preloaded(names: Sequence[str]) -> list[str]:
    """Import `names`; what each read of the course's variables while it was imported."""
    plain_class = type(os.environ)
    found = []
    for name in names:
        _RecordingEnviron.seen = []
        os.environ.__class__ = _RecordingEnviron
        try:
            __import__(name)
        finally:
            os.environ.__class__ = plain_class
        found += [f"importing {name}: {what}" for what in dict.fromkeys(_RecordingEnviron.seen)]
    return found


def _become_the_command(request: dict) -> NoReturn:
    """In the forked child: take the request's folder, environment and files, then run the
    package as `python -m cafe` does. Its `SystemExit` (or a traceback) ends this process.
    The child leads a process group of its own, so a hang is ended with every process the command
    started (`cafe capstone check` and `cafe experiment` run their programs as subprocesses)."""
    os.setpgid(0, 0)
    os.chdir(request["cwd"])
    os.environ.clear()  # os.environ's changes reach the C environment, so subprocesses see them
    os.environ.update(request["env"])
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_TRUNC),
        (2, request["stderr"], os.O_WRONLY | os.O_TRUNC),
    ):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    sys.path[0] = os.getcwd()  # what `-m` puts first; the server had this file's folder there
    sys.argv = ["-m", *request["args"]]  # run_module replaces argv[0] with cafe/__main__.py
    runpy.run_module("cafe", run_name="__main__", alter_sys=True)
    raise SystemExit(0)  # cafe/__main__.py always raises SystemExit; this is a guard


def _answer(line: str) -> None:
    os.write(1, (line + "\n").encode())  # unbuffered: nothing is left in a buffer to fork


def serve(preloaded: Sequence[str]) -> None:
    """Import, say whether forking is faithful, then fork one child per request until EOF."""
    found = _import_preloaded(preloaded)
    threads = threading.active_count()
    if threads > 1:
        found.append(f"{threads} threads are running after the imports")
    _answer(json.dumps(found))
    # A child's exit collects its garbage; a collection walks every object, and touching a page
    # shared with the server makes the child copy it: 0.9 s of a 1 s `cafe progress`, measured
    # 6 Dec 2026 on a busy machine (0.1 s with this). The imports' objects are moved out of the
    # collector's reach, as the gc module's documentation advises before forking.
    gc.collect()
    gc.freeze()
    for line in sys.stdin.buffer:  # one request at a time: the client waits for each answer
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _become_the_command(request)
        _answer(str(pid))
        _, status = os.waitpid(pid, 0)
        _answer(str(os.waitstatus_to_exitcode(status)))


# --- the client -------------------------------------------------------------------------------


class ForkServer:
    """One server process; `run` has `subprocess.run`'s answers for `python -m cafe ARGS`."""

    def __init__(self, env: Mapping[str, str], preloaded: Sequence[str] = PRELOADED) -> None:
        """`env` is the server's own environment; it must hold no course variable."""
        assert not any(is_course_variable(name) for name in env), "a course variable leaks in"
        self._files = Path(tempfile.mkdtemp(prefix="fork-runs-"))
        self._process = subprocess.Popen(
            [sys.executable, __file__, *preloaded],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,  # unbuffered, so select() on the pipe sees every answer not yet read
            env=dict(env),
        )
        # What the imports read of the course's variables (or threads they started): [] if none.
        self.import_findings: list[str] = json.loads(self._answer(timeout=120) or '["no answer"]')
        self.usable = not self.import_findings

    def _answer(self, timeout: float | None) -> str | None:
        """The server's next line, or None if none came within `timeout` seconds."""
        assert self._process.stdout is not None
        ready, _, _ = select.select([self._process.stdout], [], [], timeout)
        if not ready:
            return None
        return self._process.stdout.readline().decode().strip()  # raw pipe: reads to "\n" only

    def run(
        self, args: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        check_encodable(args, env)
        out, err = self._files / "stdout", self._files / "stderr"
        out.write_bytes(b"")
        err.write_bytes(b"")
        request = {"args": list(args), "cwd": str(cwd), "env": dict(env)}
        request |= {"stdout": str(out), "stderr": str(err)}
        assert self._process.stdin is not None
        # json.dumps escapes every non-ASCII character, so even a lone surrogate travels intact
        self._process.stdin.write(json.dumps(request).encode() + b"\n")
        pid = _number(self._answer(timeout=60))
        status = self._answer(timeout)
        if status is None:  # a hang: end it and what it started, and let the server reap it
            os.killpg(pid, signal.SIGKILL)
            self._answer(timeout=60)
            raise subprocess.TimeoutExpired([sys.executable, "-m", "cafe", *args], timeout)
        return subprocess.CompletedProcess(
            ["python", "-m", "cafe", *args], _number(status), _text(out), _text(err)
        )

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()  # the server's loop ends at end of input
        self._process.wait(timeout=60)
        shutil.rmtree(self._files, ignore_errors=True)


def _number(answer: str | None) -> int:
    """A process id or an exit status from the server. Anything else means the server broke,
    which is a RuntimeError: a ValueError would read as an input the OS refused, and skip."""
    if answer is None or not re.fullmatch(r"-?[0-9]+", answer):
        raise RuntimeError(f"the fork server answered {answer!r}; its errors are on stderr")
    return int(answer)


def _text(path: Path) -> str:
    """A file read as `subprocess.run(text=True, errors="backslashreplace")` reads a pipe: the
    locale's encoding, newlines made `\\n`."""
    return path.read_text(encoding=locale.getpreferredencoding(False), errors="backslashreplace")


if __name__ == "__main__":
    serve(sys.argv[1:])
