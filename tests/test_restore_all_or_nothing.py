"""A restore is all or nothing: the tree ends exactly as at green, or exactly as it was before.

The principle, in one sentence: a restore either leaves every entry of the tree (and of git's own
folders) as it was at the green moment, or leaves every one as it found it and names why.

The audit here shares nothing with the code under test: `snapshot` walks every entry below a
folder, `.git` included, with `os.lstat` and raw reads, and the outcome the restore reports is
only used to pick which of the two snapshots the tree must equal. Trees, modes, edits and hostile
changes are generated (Hypothesis); linked work trees are built with `git worktree add`.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.monitors.safe_write import Plan, Unwritable, apply
from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.worktree import RESTORE_DECLINES, TreeSample, sample_tree

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes, links and pipes")

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@a",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@a",
}
PATHS = ["a.py", "b.txt", "lib/c.py", "lib/deep/d.py", "docs/e.md"]
MODES = [0o644, 0o600, 0o755, 0o444]
HOSTILE = ["none", "folder", "link", "pipe", "read_only_file", "read_only_folder"]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env=ENV, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def snapshot(top: Path) -> dict[str, tuple]:
    """Every entry below `top`: kind, permission bits, and content or link target."""
    found: dict[str, tuple] = {}
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            path = Path(folder, name)
            status = path.lstat()
            key = path.relative_to(top).as_posix()
            if stat.S_ISLNK(status.st_mode):
                found[key] = ("link", os.readlink(path))
            elif stat.S_ISREG(status.st_mode):
                found[key] = ("file", stat.S_IMODE(status.st_mode), path.read_bytes())
            else:
                found[key] = (stat.S_IFMT(status.st_mode), stat.S_IMODE(status.st_mode))
    return found


def strays(top: Path) -> list[str]:
    return [key for key in snapshot(top) if ".cafe-restore-" in key]


def _write(root: Path, path: str, data: bytes, mode: int) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.chmod(0o644)
    target.write_bytes(data)
    target.chmod(mode)


def _hostile(root: Path, path: str, kind: str) -> None:
    """Turn the tree hostile at `path` behind the harness's back."""
    target = root / path
    if kind in ("folder", "link", "pipe") and os.path.lexists(target):
        target.unlink()
    if kind == "folder":
        target.mkdir(parents=True, exist_ok=True)
    elif kind == "link":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to("b.txt" if "/" not in path else "../b.txt")
    elif kind == "pipe":
        target.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(target)
    elif kind == "read_only_file" and target.exists():
        target.chmod(0o444)
    elif kind == "read_only_folder" and target.parent.exists():
        target.parent.chmod(0o555)


def _unlock(top: Path) -> None:
    for folder, dirs, _ in os.walk(top):
        for name in dirs:
            Path(folder, name).chmod(0o755)


# --- the writer alone: generated plans, folders this user may not write, races ---------------

trees = st.dictionaries(
    st.sampled_from(PATHS), st.tuples(st.binary(max_size=8), st.sampled_from(MODES))
)


def _plan_between(now: dict, goal: dict) -> Plan:
    """The test's own plan from one generated tree to another (files only, folders kept)."""
    files = tuple(
        (p, data, mode) for p, (data, mode) in sorted(goal.items()) if now.get(p) != goal[p]
    )
    return Plan(files=files, removals=tuple(sorted(set(now) - set(goal))))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    now=trees,
    goal=trees,
    locked=st.sets(st.sampled_from(["", "lib", "lib/deep", "docs"])),
    race=st.sampled_from(["none", "folder", "pipe", "link"]),
    use_dir_fd=st.booleans(),
)
def test_apply_ends_at_the_goal_or_exactly_where_it_started(
    tmp_path_factory, now, goal, locked, race, use_dir_fd
):
    root = tmp_path_factory.mktemp("tree")
    for folder in ("lib/deep", "docs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for path, (data, mode) in now.items():
        _write(root, path, data, mode)
    plan = _plan_between(now, goal)
    raced: list[dict] = []
    asked = [len(plan.files) + len(plan.removals)]  # how often the check asks, folders kept

    def writable(folder: str) -> bool:  # the check's question, answered by the test
        asked[0] -= 1
        if race != "none" and asked[0] == 0 and plan.files:
            _hostile(root, plan.files[0][0], race)  # the agent moves after the check passed it
            raced.append(snapshot(root))
        relative = os.path.relpath(folder, root)
        return ("" if relative == "." else relative) not in locked

    before = snapshot(root)
    try:
        apply(root, plan, use_dir_fd=use_dir_fd, writable=writable)
    except OSError as error:
        assert snapshot(root) == (raced[-1] if raced else before), error
        if isinstance(error, Unwritable):
            assert error.path
    else:
        expected = {k: v for k, v in before.items() if not (k in now and k not in goal)}
        for path, (data, mode) in goal.items():
            expected[path] = ("file", mode, data)
        assert snapshot(root) == expected
    assert strays(root) == []


# --- the whole restore on generated git trees -----------------------------------------------


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    committed=st.dictionaries(st.sampled_from(PATHS), st.binary(max_size=6), min_size=1),
    edits=st.dictionaries(
        st.sampled_from(PATHS), st.one_of(st.none(), st.binary(max_size=6)), min_size=1
    ),
    hostile=st.sampled_from(HOSTILE),
    victim=st.integers(0, 10),
)
def test_restore_restores_exactly_or_leaves_the_tree_as_it_found_it(
    tmp_path_factory, committed, edits, hostile, victim
):
    root = tmp_path_factory.mktemp("repo")
    git(root, "init", "-q")
    for path, data in committed.items():
        _write(root, path, data, 0o644)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    green_sample, green = sample_tree(root), snapshot(root)
    assert isinstance(green_sample, TreeSample)
    store = SnapshotStore()
    for path, data in edits.items():  # the harness's edit tool: capture, then write or delete
        store.capture(root, path)
        if data is None:
            if (root / path).exists():
                (root / path).unlink()
        else:
            _write(root, path, data, 0o644)
    _hostile(root, sorted(edits)[victim % len(edits)], hostile)
    before = snapshot(root)
    try:
        outcome = restore(root, green_sample, store, 0)
        after = snapshot(root)
    finally:
        _unlock(root)
    if outcome.declined is None:
        assert after == green
    else:
        assert outcome.declined in RESTORE_DECLINES and outcome.declined != "restore_unverified"
        assert after == before
    assert strays(root) == []


# --- linked work trees: git's shared state is part of green ---------------------------------


def _linked(tmp_path: Path) -> tuple[Path, Path, SnapshotStore, TreeSample]:
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    git(main, "init", "-q")
    (main / "bill.py").write_text("green\n")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "start")
    git(main, "worktree", "add", "-q", str(linked))
    green = sample_tree(linked)
    assert isinstance(green, TreeSample)
    store = SnapshotStore()
    store.capture(linked, "bill.py")
    (linked / "bill.py").write_text("broken\n")
    return main, linked, store, green


def _shared_hooks_path(main: Path, linked: Path) -> None:
    git(main, "config", "core.hooksPath", str(main / "elsewhere"))


def _shared_hook(main: Path, linked: Path) -> None:
    hook = main / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho hi\n")
    hook.chmod(0o755)


def _repointed_git_file(main: Path, linked: Path) -> None:
    git(main, "worktree", "add", "-q", str(main.parent / "other"))
    (linked / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'other'}\n")


def _shared_exclude(main: Path, linked: Path) -> None:
    with open(main / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write("bill.py\n")


@pytest.mark.parametrize(
    "change", [_shared_hooks_path, _shared_hook, _repointed_git_file, _shared_exclude]
)
def test_restore_in_a_linked_worktree_declines_when_shared_git_state_moved(tmp_path, change):
    main, linked, store, green = _linked(tmp_path)
    change(main, linked)
    before = snapshot(tmp_path)
    outcome = restore(linked, green, store, 0)
    assert outcome.declined in ("git_settings_changed", "head_moved", "index_changed")
    assert snapshot(tmp_path) == before and strays(tmp_path) == []


def test_restore_in_a_linked_worktree_restores_when_nothing_shared_moved(tmp_path):
    main, linked, store, green = _linked(tmp_path)
    outcome = restore(linked, green, store, 0)
    assert outcome.declined is None and (linked / "bill.py").read_text() == "green\n"


def test_a_hooks_path_folder_outside_git_is_part_of_green(tmp_path):
    main, linked, store, _ = _linked(tmp_path)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    git(main, "config", "core.hooksPath", str(hooks))
    green = sample_tree(linked)
    (hooks / "post-checkout").write_text("#!/bin/sh\n")
    assert isinstance(green, TreeSample) and sample_tree(linked).settings != green.settings


# --- a folder this user truly cannot write (run as an unprivileged user when we are root) ----

_AS_USER = """
import os, sys
from pathlib import Path
from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.worktree import sample_tree
root = Path(sys.argv[1])
green = sample_tree(root)
store = SnapshotStore()
for path in ("a.py", "lib/c.py"):
    store.capture(root, path)
    (root / path).write_text("broken\\n")
(root / "lib").chmod(0o555)
outcome = restore(root, green, store, 0)
print(outcome.declined, outcome.path, (root / "a.py").read_text().strip())
"""


def test_restore_declines_by_name_when_a_folder_is_read_only_for_this_user(tmp_path):
    root = tmp_path / "repo"
    (root / "lib").mkdir(parents=True)
    (root / "a.py").write_text("green\n")
    (root / "lib" / "c.py").write_text("green\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    as_user: dict = {}
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "65534:65534", str(tmp_path)], check=True)
        tmp_path.chmod(0o755)
        as_user = {"user": 65534, "group": 65534}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _AS_USER, str(root)],
            env={**ENV, "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            check=False,
            **as_user,
        )
    except PermissionError:  # the superuser's Python is out of the unprivileged user's reach
        pytest.skip("no unprivileged user can run this Python; the superuser ignores modes")
    assert done.stdout.split() == ["unwritable_path", "lib/c.py", "broken"], done.stderr
    assert (root / "lib" / "c.py").read_text() == "broken\n" and strays(root) == []


def test_snapshot_audit_sees_content_modes_and_kinds(tmp_path):
    (tmp_path / "a").write_bytes(b"x")
    first = snapshot(tmp_path)
    (tmp_path / "a").chmod(0o600)
    assert snapshot(tmp_path) != first
