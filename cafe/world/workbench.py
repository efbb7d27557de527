"""The workbench: a real little project for the agent to repair, and the tools to do it with.

Sessions 13 to 15. Stall detection is only worth learning on evidence that is real, so the
harness-path sessions do not fake their failures. The café's till (a bill calculator, `bill.py`,
and its tests, `check_bill.py`, one of which fails) ships as package data under
`cafe/data/workbench/till/`. `open_workbench()` copies it into a fresh temporary folder, makes
that folder a git repository with one commit, and hands back four tools:

- `read_file(path)`            kind `observe`: a file's text, or a failure if it is not there;
- `write_file(path, content)`  kind `mutate`: really writes the whole file, or nothing on failure;
- `run_tests()`                kind `verify`: really runs `python -m pytest` on the project (with
                               this interpreter, forked warm by `cafe.world.pytest_runs`) and returns
                               its exit status and output;
- `todo(action, item)`         kind `observe`: a small todo board the agent can keep.

So a failure signature computed in session 13 is computed from pytest's own words, and an edit
that does not fix the bug really leaves the same words behind.

The till's test file is named `check_bill.py` (and its `pytest.ini` says so) on purpose: the
course's own `pytest` run only looks in `tests/` and `notebooks/`, and never collects the till's
deliberately failing test.

The scripted agents that replay session 13's stories against it live next door, in
`cafe.stories.scenarios`.

Left out: sandboxing (the tools refuse paths outside the folder, nothing more; do not point an
untrusted model at a workbench on a machine you care about), and more than one project.

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from cafe.loop.tools import Tool, ToolOutput, tool
from cafe.world.atomic_write import write_atomically
from cafe.world.processes import without_secrets
from cafe.world.pytest_runs import run_pytest

__all__ = [
    "PROJECTS",
    "TEST_ARGS",
    "TEST_COMMAND",
    "TEST_TIMEOUT_S",
    "TodoAction",
    "Todo",
    "Workbench",
    "open_workbench",
    "project_file",
]

# --- constants ------------------------------------------------------------------------------

# The projects shipped under cafe/data/workbench/. One for now: the till.
PROJECTS: frozenset[str] = frozenset({"till"})

# How the workbench runs the till's tests. Quiet (-q), short tracebacks, no header (which would
# print version numbers and paths), no cache folder, and classic progress output, so that the
# same code gives the same words on every machine. TEST_ARGS are pytest's own arguments;
# TEST_COMMAND is the whole command line after `python`, as the tool's output shows it.
TEST_ARGS: tuple[str, ...] = (
    "-q",
    "--tb=short",
    "--no-header",
    "-p",
    "no:cacheprovider",
    "-o",
    "console_output_style=classic",
    "check_bill.py",
)
TEST_COMMAND: tuple[str, ...] = ("-m", "pytest", *TEST_ARGS)
# Seconds before a test run is abandoned. The till's tests take a fraction of a second; a run
# this slow means a model wrote an infinite loop, which is a failing result, not a hang.
TEST_TIMEOUT_S = 60.0

# The environment of a test run: no bytecode files in the workbench, no third-party pytest plugins
# (the course's own nbval/hypothesis would slow every run), a fixed terminal width and no colour.
_TEST_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    "COLUMNS": "80",
    "NO_COLOR": "1",
    "PY_COLORS": "0",
    "PYTHONIOENCODING": "utf-8",  # read back as UTF-8 on every platform
}
# git with nothing from the machine or the user, and a fixed author for the starting commit.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "cafe workbench",
    "GIT_AUTHOR_EMAIL": "workbench@cafe.invalid",
    "GIT_COMMITTER_NAME": "cafe workbench",
    "GIT_COMMITTER_EMAIL": "workbench@cafe.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_OPTIONAL_LOCKS": "0",
}

# Variables that would smuggle the caller's pytest options or plugins into the till's run (an
# instructor's `PYTEST_ADDOPTS=--nbval-lax`, say, which the till's plugin-free pytest rejects).
_IGNORED_ENV = frozenset({"PYTEST_ADDOPTS", "PYTEST_PLUGINS"})


def _is_secret(name: str) -> bool:
    """Keys and tokens never reach the tests: the model writes those files, and could print them."""
    upper = name.upper()
    return upper.endswith(("_API_KEY", "_TOKEN", "_SECRET")) or upper in (
        "CAFE_API_KEY",
        "OPENAI_API_KEY",
    )


TodoAction = Literal["add", "done", "list"]


# --- small pure helpers ---------------------------------------------------------------------


def project_file(name: str, project: str = "till") -> str:
    """The text of one file of a shipped project, as it is before any agent touches it."""
    if project not in PROJECTS:
        raise ValueError(
            f"Unknown workbench project {project!r}; the projects are {sorted(PROJECTS)}."
        )
    folder = resources.files("cafe").joinpath("data").joinpath("workbench").joinpath(project)
    return folder.joinpath(name).read_text(encoding="utf-8")


def _inside(root: Path, path: str) -> Path | None:
    """`path` resolved inside `root`, or None when it would leave the workbench."""
    candidate = (root / path).resolve()
    return candidate if candidate == root or root in candidate.parents else None


def _git(root: Path, *args: str) -> str:
    """Run git in `root` as the harness must: with none of the caller's `GIT_*` variables, no
    user or system configuration ("/dev/null" is `nul` to Git for Windows) and no fsmonitor, so
    a repository setting the agent wrote cannot make the harness run a program of its choosing.
    The key and every other secret stay out too (`without_secrets`): a hook or filter the agent
    wrote would otherwise read them from its environment."""
    clean = without_secrets(os.environ)
    env = {k: v for k, v in clean.items() if not k.upper().startswith("GIT_")}
    env.update(_GIT_ENV)
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", *args],
            cwd=root,
            env=env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as error:  # git is not on PATH (any more), or cannot be started
        raise RuntimeError(f"git {' '.join(args)} could not run in {root}: {error}") from error
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"git {' '.join(args)} failed in {root}: {message}")
    return done.stdout.decode("utf-8", "surrogateescape")


def _raw_blob(path: Path) -> str | None:
    """The git blob hash of what `path` holds, read as raw bytes (no filter, no line-ending
    conversion, never through a link: a link is hashed as its target's text, as git stores it)."""
    try:
        status = path.lstat()
    except OSError:
        return None
    if stat.S_ISLNK(status.st_mode):
        data = os.fsencode(os.readlink(path))
    elif stat.S_ISREG(status.st_mode):
        data = path.read_bytes()
    else:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Todo:
    """One line on the todo board."""

    item: str
    done: bool = False


class Workbench:
    """A copy of a shipped project in its own git repository, and the tools that work on it.

    Use it as a context manager (`with open_workbench() as bench:`) so the folder is removed at
    the end; `close()` does the same by hand. It is a resource, so it is a class, not a record.
    """

    def __init__(self, root: Path, project: str, *, holder: Path | None = None):
        self.root = root.resolve()
        self.project = project
        # The temporary folder `open_workbench` made for this copy; `close()` removes it and only
        # it. A workbench built on a folder of yours (holder=None) leaves that folder alone.
        self._holder = holder
        self._todos: list[Todo] = []
        self.tools: tuple[Tool, ...] = (
            tool(self.read_file, kind="observe"),
            tool(self.write_file, kind="mutate"),
            tool(self.run_tests, kind="verify"),
            tool(self.todo, kind="observe"),
        )
        self.verify: Tool = self.tools[2]  # hand this to run_loop(verify=...)

    # -- the four tools (their docstrings are what the model reads) --

    def read_file(self, path: str) -> ToolOutput:
        """Read a text file of the project.

        Args:
            path: the file's path relative to the project folder, e.g. bill.py
        """
        target = _inside(self.root, path)
        if target is None:
            return ToolOutput(False, f"{path!r} is outside the project folder.")
        if not target.is_file():
            return ToolOutput(False, f"There is no file {path!r} in the project.")
        return ToolOutput(True, target.read_text(encoding="utf-8"))

    def write_file(self, path: str, content: str) -> ToolOutput:
        """Replace a text file of the project with new content (or create it).

        Args:
            path: the file's path relative to the project folder, e.g. bill.py
            content: the complete new text of the file
        """
        target = _inside(self.root, path)
        if target is None or target == self.root:
            return ToolOutput(False, f"{path!r} is outside the project folder.")
        written = write_atomically(target, content.encode("utf-8"))  # encoded before any write
        return ToolOutput(True, f"wrote {len(content)} characters to {path}{written.remark}")

    def run_tests(self) -> ToolOutput:
        """Run the project's tests with pytest and report the exit status and output."""
        env = {k: v for k, v in os.environ.items() if k not in _IGNORED_ENV and not _is_secret(k)}
        env.update(_TEST_ENV)
        done = run_pytest(TEST_ARGS, self.root, env, TEST_TIMEOUT_S)
        if done.status is None:
            return ToolOutput(False, f"the tests did not finish within {TEST_TIMEOUT_S:g} seconds")
        shown = "python " + " ".join(TEST_COMMAND)
        return ToolOutput(
            done.status == 0, f"$ {shown}\nexit status {done.status}\n{done.stdout}{done.stderr}"
        )

    def todo(self, action: TodoAction, item: str = "") -> str:
        """Keep a todo board: add an item, mark one done, or list them all.

        Args:
            action: add, done or list
            item: the item's text (for add and done)
        """
        if action == "add":
            self._todos.append(Todo(item))
        elif action == "done":
            found = next(
                (i for i, t in enumerate(self._todos) if t.item == item and not t.done), None
            )
            if found is None:
                return f"No open item {item!r} on the board.\n" + self._board()
            self._todos[found] = Todo(item, done=True)
        elif action != "list":
            raise ValueError(f"action must be one of {list(get_args(TodoAction))}, not {action!r}")
        return self._board()

    # -- for the harness, not the model --

    @property
    def todos(self) -> tuple[Todo, ...]:
        return tuple(self._todos)

    def _board(self) -> str:
        if not self._todos:
            return "(the board is empty)"
        return "\n".join(f"[{'x' if t.done else ' '}] {t.item}" for t in self._todos)

    def diff(self) -> str:
        """`git diff` of the work tree against the starting commit (no external diff program,
        no text conversion; a clean filter the agent configured would still run: use this on
        your own reading, not inside a harness)."""
        return _git(self.root, "diff", "--no-color", "--no-ext-diff", "--no-textconv")

    def changed_files(self) -> tuple[str, ...]:
        """Paths the agent changed, created or deleted, relative to the project folder: files
        whose bytes differ from the starting commit's, and new files git does not ignore. Read
        with git's plumbing and this module's own hashing, never `git status`, which would run
        filters and hooks the agent could have configured."""
        head = {}
        for record in _git(self.root, "ls-tree", "-r", "-z", "--full-tree", "HEAD").split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                head[path] = meta.split()[2]
        changed = {path for path, oid in head.items() if _raw_blob(self.root / path) != oid}
        new = _git(self.root, "ls-files", "-z", "--others", "--exclude-standard").split("\0")
        return tuple(sorted(changed | {path for path in new if path}))

    def close(self) -> None:
        """Remove the temporary copy made by `open_workbench` (nothing else)."""
        if self._holder is not None:
            shutil.rmtree(self._holder, ignore_errors=True)

    def __enter__(self) -> Workbench:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Workbench(project={self.project!r}, root={str(self.root)!r})"


# --- the main function ----------------------------------------------------------------------


def open_workbench(project: str = "till", *, parent: str | Path | None = None) -> Workbench:
    """Copy a shipped project into a new temporary folder, commit it to git, return the workbench."""
    if project not in PROJECTS:
        raise ValueError(
            f"Unknown workbench project {project!r}; the projects are {sorted(PROJECTS)}."
        )
    if shutil.which("git") is None:
        raise RuntimeError("The workbench needs git on PATH; install git and try again.")
    holder = Path(tempfile.mkdtemp(prefix="cafe-workbench-", dir=parent))
    root = holder / project
    try:
        source = resources.files("cafe").joinpath("data").joinpath("workbench").joinpath(project)
        with resources.as_file(source) as folder:
            shutil.copytree(
                folder, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
            )
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", f"{project}: the starting point")
    except BaseException:
        shutil.rmtree(holder, ignore_errors=True)  # a half-made copy is not left behind
        raise
    return Workbench(root, project, holder=holder)
