"""Test-only: workbenches copied from one prepared repository, and a memo of their slow answers.

Used by the tests that replay the same stories under many configurations (test_honest_endings,
test_stall). Nothing in `cafe/` uses it; the workbench and its tools run unchanged.

Two savings, each keeping the answer a real run gives:

- `prepared_workbench()` copies one workbench that `open_workbench()` made (files and `.git`)
  instead of copying the till and running `git init`, `add` and `commit` again. The copy holds
  the same files and the same starting commit, so git answers the same in every copy.
- `RunMemo` wraps a run's `run_tests` and `run_command` tools. The key is the tool, its
  arguments, the command timeout, this interpreter, the environment (less the one variable the
  runs do not read, `_NOT_READ`), and a digest of every file in the project folder, `.git`
  included (`tree_digest`). The runs are deterministic: the same command on the same bytes with
  the same environment gives the same result, so the first run of each tree is real and later
  ones replay it. Replayed are only:
    * a finished `run_tests` (the till's pytest run). Its output differs from a new run's only in
      the "in 0.03s" timing figure, which also differs between two real runs (the stall signature drops it);
    * a `run_command` that ran out its timeout (the streak stories' `sleep 10`). The replay is the
      same "did not finish" answer, so the hang is still seen by the run; only the wait is saved.
      A command that finishes always runs for real (`ls -la` prints the time of day).
  A run that changed the tree, or printed the project's folder, is never stored: replaying it
  would not do what it did. A `run_tests` timeout is never stored: it is a hang the test must see
  each time.

`test_run_memo_*` in tests/test_honest_endings.py show that a change of one byte makes a real run.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cafe.loop.tools import Tool, ToolOutput
from cafe.world.workbench import Workbench, open_workbench

# What a tool says when its run was cut off (cafe/world/workbench.py, cafe/monitors/tools.py).
_TIMED_OUT = "did not finish within"
# Left out of the key: the outer pytest sets it to the current test's name, so it differs in every
# test. The runs do not read it: `run_command` drops every PYTEST_ variable, and the till's tests
# run under the value the till's own pytest sets for each of them.
_NOT_READ = frozenset({"PYTEST_CURRENT_TEST"})


@functools.cache
def _template() -> Workbench:
    """One workbench made the course's way, kept until the test process ends."""
    bench = open_workbench()
    atexit.register(bench.close)
    return bench


@contextmanager
def prepared_workbench() -> Iterator[Workbench]:
    """A new workbench: a copy of the prepared one (files and git history), removed at the end."""
    template = _template()
    holder = Path(tempfile.mkdtemp(prefix="cafe-workbench-"))
    root = holder / template.project
    try:
        shutil.copytree(template.root, root, symlinks=True)
    except BaseException:
        shutil.rmtree(holder, ignore_errors=True)
        raise
    with Workbench(root, template.project, holder=holder) as bench:
        yield bench


def _staged(root: Path) -> bytes:
    """What git's index holds (mode, blob and path of each entry), without the file times and
    inode numbers it also keeps, which differ in every copy and change nothing a command prints."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    return subprocess.run(
        ["git", "ls-files", "--stage", "-z"], cwd=root, env=env, capture_output=True, check=True
    ).stdout


def tree_digest(root: Path) -> str:
    """A digest of every path under `root`: each file's bytes and executable bit, each link's
    target, each folder's name; git's index by what it stages (`_staged`)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix().encode()
        if path.is_symlink():
            digest.update(b"link\0" + name + b"\0" + os.fsencode(os.readlink(path)))
        elif path.is_dir():
            digest.update(b"dir\0" + name)
        elif name == b".git/index":
            digest.update(b"index\0" + _staged(root))
        else:
            executable = b"x" if os.access(path, os.X_OK) else b"-"
            content = hashlib.sha256(path.read_bytes()).digest()
            digest.update(b"file\0" + name + b"\0" + executable + content)
    return digest.hexdigest()


def _storable(name: str, output: Any, root: Path) -> bool:
    """Whether a finished real run may be replayed (see the module docstring)."""
    if not isinstance(output, ToolOutput) or os.fspath(root) in output.text:
        return False
    timed_out = not output.ok and _TIMED_OUT in output.text
    return not timed_out if name == "run_tests" else timed_out


class RunMemo:
    """Answers of real runs, by what decides them; `real_runs` and `replays` count the calls."""

    def __init__(self) -> None:
        self.answers: dict[tuple[Any, ...], ToolOutput] = {}
        self.real_runs = 0
        self.replays = 0

    def tools(
        self, tools: Sequence[Tool], root: Path, *, command_timeout_s: float | None = None
    ) -> tuple[Tool, ...]:
        """`tools` (working in `root`, `run_command` with `command_timeout_s`) with `run_tests`
        and `run_command` answered through the memo; the others as given."""
        return tuple(
            dataclasses.replace(
                t, function=self._wrapped(t.name, t.function, root, command_timeout_s)
            )
            if t.name in ("run_tests", "run_command")
            else t
            for t in tools
        )

    def _wrapped(
        self, name: str, function: Callable[..., Any], root: Path, timeout_s: float | None
    ) -> Callable[..., Any]:
        def memoised(**arguments: Any) -> Any:
            before = tree_digest(root)
            key = (
                name,
                tuple(sorted(arguments.items())),
                timeout_s,
                sys.executable,
                tuple(sorted(item for item in os.environ.items() if item[0] not in _NOT_READ)),
                before,
            )
            if key in self.answers:
                self.replays += 1
                return self.answers[key]
            self.real_runs += 1
            output = function(**arguments)
            if _storable(name, output, root) and tree_digest(root) == before:
                self.answers[key] = output
            return output

        return memoised
