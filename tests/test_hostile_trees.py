"""The automatic restore in hostile work trees: it restores exactly, or declines by name.

Each scenario is a real git repository (a workbench) that reaches a green point, makes a bad edit
with the harness's edit tool, and then has the tree turned hostile behind the harness's back: a
link to a file outside the repository, a hard link, an ignored or excluded file, index flags, a
nested repository or submodule, a mode change, a commit, a folder where a file was, a clean
filter or an fsmonitor hook the agent configured, git missing from PATH. The 23 scenarios are the
ones of the issue 24 research (notes/drafts/issue24/hostile_trees.py), each with the outcome the
restore must reach.

Every scenario runs twice: once through `restore` directly, once through `SafeStateMonitor` in
`auto` (which must never raise). Either way: nothing outside the tree changes, no program the
agent configured runs, and the tree ends exactly as it was at green (a restore) or exactly as it
was before the abort (a decline, with its reason named).
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cafe.loop.turns import ToolResult, TurnView
from cafe.monitors.safe_state import SafeStateMonitor
from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.worktree import RESTORE_DECLINES, sample_tree
from cafe.world.workbench import open_workbench

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="symbolic links, hard links and modes as POSIX has them"
)

GREEN = ToolResult("t", "run_tests", {}, True, "4 passed", "verify")
ERROR = ToolResult(
    "e", "read_file", {"path": "receipt.py"}, False, "There is no file 'receipt.py'."
)
TIMEOUT = ToolResult("s", "run_command", {"command": "sleep 5"}, False, "did not finish within 1 s")
# The test's own git: no user configuration, and never the agent's fsmonitor.
ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@a",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@a",
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "core.fsmonitor=false", "-c", "protocol.file.allow=always", *args],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def tree_state(root: Path) -> dict:
    """Everything a state that never existed could hide in: every entry below root but .git
    (kind, content hash, mode), HEAD and the index with its flags."""
    files: dict[str, tuple] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not (folder == str(root) and d == ".git")]
        for name in dirs + names:
            path = Path(folder, name)
            status = path.lstat()
            key = path.relative_to(root).as_posix()
            if stat.S_ISLNK(status.st_mode):
                files[key] = ("link", os.readlink(path))
            elif stat.S_ISREG(status.st_mode):
                digest = hashlib.sha1(path.read_bytes()).hexdigest()
                files[key] = ("file", digest, oct(status.st_mode))
            else:
                files[key] = ("other", oct(status.st_mode))
    top = git(root, "rev-parse", "--show-toplevel").strip()
    return {
        "files": files,
        "head": git(Path(top), "rev-parse", "HEAD"),
        "index": git(Path(top), "ls-files", "-s", "-v"),
    }


def outside_state(outside: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(outside.iterdir()) if p.is_file()}


class Driver:
    """A scenario's moves, fed either to `restore` directly or to a monitor in auto."""

    def __init__(self, root: Path, through_monitor: bool):
        self.root, self.store = root, SnapshotStore()
        self.monitor = SafeStateMonitor("auto", root, self.store) if through_monitor else None
        self.turn, self.green_state, self.green_sample, self.mark = 0, None, None, 0

    def step(self, *results: ToolResult) -> None:
        self.turn += 1
        if self.monitor is not None:
            self.monitor.after_turn(TurnView(self.turn, 30, (), (), results, 0.0))

    def edit(self, path: str, text: str) -> None:
        """What the monitored write_file does: capture, then write."""
        self.store.capture(self.root, path)
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / path).write_text(text, encoding="utf-8")
        args = {"path": path, "content": text}
        self.step(ToolResult("w", "write_file", args, True, "wrote", "mutate"))

    def green(self) -> None:
        self.step(GREEN)
        self.green_state = tree_state(self.root)
        self.green_sample, self.mark = sample_tree(self.root), self.store.mark()

    def abort(self) -> tuple[str, str | None]:
        """("restored" | "declined" | "not fired", reason) after six weighted failures."""
        if self.monitor is None:
            outcome = restore(self.root, self.green_sample, self.store, self.mark)
            return ("declined", outcome.declined) if outcome.declined else ("restored", None)
        for result in (ERROR, ERROR, TIMEOUT, ERROR, ERROR):
            self.step(result)
        if not self.monitor.aborts:
            return "not fired", None
        record = self.monitor.aborts[0]
        return ("declined", record.reason) if record.declined else ("restored", None)


# --- the scenarios: each sets the tree up and returns the driver after the hostile move ------


def _fixed_then_broken(d: Driver) -> None:
    d.edit("bill.py", "fixed\n")
    d.green()
    d.edit("bill.py", "broken\n")


def symlink_outside_clean(d: Driver, outside: Path) -> None:
    d.green()
    d.edit("bill.py", "broken\n")
    (outside / "victim.txt").write_text("VICTIM\n")
    (d.root / "bill.py").unlink()
    (d.root / "bill.py").symlink_to(outside / "victim.txt")


def symlink_outside_dirty(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    (outside / "victim.txt").write_text("VICTIM\n")
    (d.root / "bill.py").unlink()
    (d.root / "bill.py").symlink_to(outside / "victim.txt")


def hardlink_outside(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    (outside / "victim.txt").write_text("broken\n")
    (d.root / "bill.py").unlink()
    os.link(outside / "victim.txt", d.root / "bill.py")


def ignored_file_changed(d: Driver, outside: Path) -> None:
    (d.root / ".gitignore").write_text("settings.cfg\n")
    (d.root / "settings.cfg").write_text("rate=10\n")
    git(d.root, "add", ".gitignore")
    git(d.root, "commit", "-qm", "ignore")
    _fixed_then_broken(d)
    (d.root / "settings.cfg").write_text("rate=99\n")


def info_exclude_new_file(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    with open(d.root / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write("notes.py\n")
    (d.root / "notes.py").write_text("import bill\n")


def assume_unchanged(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    git(d.root, "update-index", "--assume-unchanged", "check_bill.py")
    with open(d.root / "check_bill.py", "a") as file:
        file.write("# sed\n")


def skip_worktree(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    git(d.root, "update-index", "--skip-worktree", "check_bill.py")
    with open(d.root / "check_bill.py", "a") as file:
        file.write("# sed\n")


def nested_repo(d: Driver, outside: Path) -> None:
    (d.root / "vendor").mkdir()
    git(d.root / "vendor", "init", "-q")
    (d.root / "vendor" / "lib.py").write_text("x = 1\n")
    _fixed_then_broken(d)
    (d.root / "vendor" / "lib.py").write_text("x = 2\n")


def _add_submodule(d: Driver, outside: Path) -> None:
    source = outside / "subsrc"
    source.mkdir()
    git(source, "init", "-q")
    (source / "m.py").write_text("y = 1\n")
    git(source, "add", ".")
    git(source, "commit", "-qm", "s")
    git(d.root, "submodule", "add", "-q", str(source), "sub")
    git(d.root, "commit", "-qm", "sub")


def submodule(d: Driver, outside: Path) -> None:
    _add_submodule(d, outside)
    _fixed_then_broken(d)
    (d.root / "sub" / "m.py").write_text("y = 2\n")


def submodule_dirty_at_green(d: Driver, outside: Path) -> None:
    _add_submodule(d, outside)
    (d.root / "sub" / "m.py").write_text("y = 2\n")
    _fixed_then_broken(d)
    (d.root / "sub" / "m.py").write_text("y = 3\n")


def mode_change_clean(d: Driver, outside: Path) -> None:
    d.green()
    d.edit("bill.py", "broken\n")
    (d.root / "bill.py").chmod(0o755)


def mode_change_dirty(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    (d.root / "bill.py").chmod(0o755)


def staged_bad_edit(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    git(d.root, "add", "bill.py")


def commit_after_green_dirty(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    git(d.root, "commit", "-qam", "bad")


def commit_before_and_after_green(d: Driver, outside: Path) -> None:
    d.edit("bill.py", "fixed\n")
    git(d.root, "commit", "-qam", "fix")
    d.green()
    d.edit("bill.py", "broken\n")
    git(d.root, "commit", "-qam", "bad")


def directory_in_place_of_file(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    (d.root / "bill.py").unlink()
    (d.root / "bill.py").mkdir()


def attributes_filter_hides_edit(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    marker = outside / "filter-ran.txt"
    with open(d.root / ".git" / "info" / "attributes", "a") as attributes:
        attributes.write("check_bill.py filter=hide\n")
    git(d.root, "config", "filter.hide.clean", f"touch {marker}; git show HEAD:check_bill.py")
    with open(d.root / "check_bill.py", "a") as file:
        file.write("# shell edit\n")


def fsmonitor_hook_runs(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    hook = outside / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {outside / 'fsmonitor-ran.txt'}\nexit 1\n")
    hook.chmod(0o755)
    git(d.root, "config", "core.fsmonitor", str(hook))


def git_missing(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    os.environ["PATH"] = str(outside)  # the fixture puts PATH back


def symlinked_dir_outside(d: Driver, outside: Path) -> None:
    (outside / "libdir").mkdir()
    (outside / "libdir" / "rates.py").write_text("RATE = 10\n")
    (d.root / "lib").symlink_to(outside / "libdir")
    _fixed_then_broken(d)
    (outside / "libdir" / "rates.py").write_text("RATE = 99\n")


def shell_only_change_after_green(d: Driver, outside: Path) -> None:
    d.edit("bill.py", "fixed\n")
    d.green()
    with open(d.root / "check_bill.py", "a") as file:
        file.write("# note\n")


def red_check_after_bad_edit(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)
    d.step(ToolResult("t2", "run_tests", {}, False, "1 failed", "verify"))


def root_below_toplevel(d: Driver, outside: Path) -> None:
    _fixed_then_broken(d)  # the fixture made d.root a folder below the repository's top


# scenario -> the outcomes it may end in: "restored" (exactly) or a decline reason.
SCENARIOS: dict[Callable[[Driver, Path], None], set[str]] = {
    symlink_outside_clean: {"link_outside_tree"},
    symlink_outside_dirty: {"link_outside_tree"},
    # A file with a name outside the tree is content the sample cannot vouch for (redteamG A10):
    # the restore used to put bill.py back by a rename (safe for the outside file), but the sample
    # now declines any file whose link count exceeds its names in the tree, before any write.
    hardlink_outside: {"link_outside_tree"},
    ignored_file_changed: {"uncaptured_change"},
    info_exclude_new_file: {"git_settings_changed"},
    assume_unchanged: {"index_changed"},
    skip_worktree: {"index_changed"},
    nested_repo: {"nested_repository"},
    submodule: {"nested_repository"},
    submodule_dirty_at_green: {"nested_repository"},
    mode_change_clean: {"restored"},
    mode_change_dirty: {"restored"},
    staged_bad_edit: {"index_changed"},
    commit_after_green_dirty: {"head_moved"},
    commit_before_and_after_green: {"head_moved"},
    directory_in_place_of_file: {"unsafe_path"},
    root_below_toplevel: {"not_top_level"},
    attributes_filter_hides_edit: {"git_settings_changed"},
    fsmonitor_hook_runs: {"git_settings_changed"},
    git_missing: {"git_unavailable"},
    symlinked_dir_outside: {"link_outside_tree"},
    shell_only_change_after_green: {"uncaptured_change"},
    red_check_after_bad_edit: {"restored"},
}
# Scenarios where the monitor's trigger (`abort_decision`) rightly never fires, so only the direct
# `restore` path reaches the outcome above; every other scenario must fire through the monitor.
TRIGGER_SILENT = {
    shell_only_change_after_green: "no edit-tool edit since green: edits_since_verify is 0",
    red_check_after_bad_edit: "the red check verified the bad edit: edits_since_verify is 0",
}


@pytest.fixture
def outside(tmp_path):
    saved = os.environ["PATH"]
    yield tmp_path
    os.environ["PATH"] = saved


@pytest.mark.parametrize("through_monitor", [False, True], ids=["restore", "monitor"])
@pytest.mark.parametrize("scenario", list(SCENARIOS), ids=[s.__name__ for s in SCENARIOS])
def test_hostile_tree_restores_exactly_or_declines_by_name(scenario, through_monitor, outside):
    with open_workbench() as bench:
        root = bench.root
        if scenario is root_below_toplevel:
            (root / "proj").mkdir()
            git(root, "mv", "bill.py", "check_bill.py", "pytest.ini", "proj/")
            git(root, "commit", "-qm", "move")
            root = root / "proj"
        driver, usual_path = Driver(root, through_monitor), os.environ["PATH"]
        scenario(driver, outside)
        hostile_path, os.environ["PATH"] = os.environ["PATH"], usual_path
        before_outside, before_abort = outside_state(outside), tree_state(root)
        os.environ["PATH"] = hostile_path
        what, reason = driver.abort()
        os.environ["PATH"] = usual_path
        assert outside_state(outside) == before_outside, "something outside the tree changed"
        assert not list(outside.glob("*-ran.txt")), "the harness ran a program the agent set"
        allowed = SCENARIOS[scenario]
        if what == "restored":
            assert "restored" in allowed and tree_state(root) == driver.green_state
        elif what == "declined":
            assert reason in RESTORE_DECLINES and reason in allowed, reason
            assert tree_state(root) == before_abort, "a decline must leave the tree alone"
        else:
            assert through_monitor and scenario in TRIGGER_SILENT, "the abort did not fire"
        if through_monitor and scenario in TRIGGER_SILENT:
            assert what == "not fired", TRIGGER_SILENT[scenario]


def test_scenario_table_is_the_research_set():
    assert len(SCENARIOS) == 23
    assert all(expected for expected in SCENARIOS.values())
