"""The tools of a monitored run: an edit tool that remembers, and a shell that does not.

Session 15 (run monitors). The safe-state abort (`cafe/monitors/safe_state.py`) may put files
back as they were at the last green point, and it can only put back what was captured. So a
monitored run gets the workbench's tools (`cafe/world/workbench.py`) with two changes:

- `write_file` captures the file in the run's `SnapshotStore` before it writes, under the name
  the tree sample gives it (`tree_path`), however the agent spelled the path;
- `run_command` runs a shell command in the project folder, and captures nothing, as shells do:
  a `sed -i` or a `>` redirect changes files behind the harness's back.

A command runs in the project folder under the shell `find_shell` picks (bash, else `/bin/sh`; on
Windows Git for Windows' bash, never the WSL launcher, else `cmd.exe`), as a process tree a
timeout ends whole (`cafe/world/processes.py`), with no bytecode or pytest cache written into the
tree, no variable whose name says it holds a secret, and its output read as UTF-8.

Left out: a sandbox (like the workbench, `run_command` keeps to the project folder only by its
working directory: do not point an untrusted model at it).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cafe.loop.tools import Tool, ToolOutput, tool
from cafe.monitors.snapshots import SnapshotStore
from cafe.monitors.worktree import tree_path
from cafe.world.processes import find_shell, run_captured
from cafe.world.workbench import Workbench

__all__ = ["COMMAND_TIMEOUT_S", "monitored_tools"]

# Seconds before `run_command` gives up on a command, like the workbench's test runs.
COMMAND_TIMEOUT_S = 60.0
# What a command sees: no bytecode or pytest cache in the work tree (either would show up as a
# changed file), no third-party pytest plugins, a fixed width and no colour.
_COMMAND_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    "PYTEST_ADDOPTS": "-p no:cacheprovider",
    "COLUMNS": "80",
    "NO_COLOR": "1",
    "PY_COLORS": "0",
    "PYTHONIOENCODING": "utf-8",  # output is read as UTF-8 on every platform (Windows too)
}


def _command_env() -> dict[str, str]:
    secret = ("_API_KEY", "_TOKEN", "_SECRET")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().endswith(secret) and not k.startswith("PYTEST_")
    }
    env.update(_COMMAND_ENV)
    env["PATH"] = os.pathsep.join(
        [str(Path(sys.executable).parent), env.get("PATH", "")]
    )  # this Python's pytest
    return env


def _run_shell(command: str, root: Path, timeout_s: float) -> tuple[int | None, str]:
    """(exit status, output) of `command` in the shell `find_shell` picks, run in `root`;
    (None, "") when it timed out. A timeout ends whatever the command started too, on every
    platform (`cafe/world/processes.py`)."""
    done = run_captured(
        find_shell().argv(command), root, _command_env(), timeout_s, merge_stderr=True
    )
    return (None, "") if done.status is None else (done.status, done.stdout)


def monitored_tools(
    bench: Workbench, store: SnapshotStore, *, command_timeout_s: float = COMMAND_TIMEOUT_S
) -> tuple[Tool, ...]:
    """The workbench's tools for a monitored run: `write_file` captures the file before writing;
    `run_command` runs a shell command in the project folder and captures nothing."""

    def write_file(path: str, content: str) -> ToolOutput:
        """Replace a text file of the project with new content (or create it).

        Args:
            path: the file's path relative to the project folder, e.g. bill.py
            content: the complete new text of the file
        """
        name = tree_path(bench.root, path)  # `./a.py` is captured as the sample names it: `a.py`
        if name is not None:  # None: outside the project, which the workbench refuses
            store.capture(bench.root, name)
        return bench.write_file(path, content)

    def run_command(command: str) -> ToolOutput:
        """Run a shell command in the project folder and report its exit status and output.

        Args:
            command: the command line, e.g. pytest -k split
        """
        status, output = _run_shell(command, bench.root, command_timeout_s)
        if status is None:
            return ToolOutput(
                False,
                f"$ {command}\nthe command did not finish within {command_timeout_s:g} seconds",
            )
        return ToolOutput(status == 0, f"$ {command}\nexit status {status}\n{output}")

    by_name = {t.name: t for t in bench.tools}
    return (
        by_name["read_file"],
        tool(write_file, kind="mutate"),
        by_name["run_tests"],
        by_name["todo"],
        tool(run_command, kind="observe"),
    )
