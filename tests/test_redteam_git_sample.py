"""The tree sample and the restore against held-out red team G's hostile trees.

- A9: a file past what is left of MAX_SAMPLE_BYTES is refused (`tree_too_large`) from its size,
  read off the open handle, before a byte of it is read. The tests count which files were opened
  for reading (`os.fdopen`, the only way `read_regular` reads) and use sparse files, so a
  "large" file costs no disk and no memory.
- A10: a regular file with more names (hard links) than the walk finds in the tree has a name
  outside it: `link_outside_tree`. Names that all sit inside the tree are fine.
- A23: an entry that appeared since green with no capture (a socket, a pipe, an empty folder) is
  an `uncaptured_change`, as a file the shell wrote is; the restore does not delete it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.monitors import worktree
from cafe.monitors.git_state import TooLarge, read_regular
from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.worktree import MAX_SAMPLE_BYTES, TreeSample, sample_tree

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="sparse files, hard links, sockets and pipes as POSIX has them"
)


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@t.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t.invalid",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_CONFIG_NOSYSTEM="1",
    )
    subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=True)


def make_repo(parent: Path) -> Path:
    """A git repository with one committed file, `a.py`."""
    root = parent / "r"
    root.mkdir()
    (root / "a.py").write_bytes(b"a = 1\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def sparse(path: Path, size: int) -> None:
    """A file of `size` bytes that takes no disk: a hole, written with truncate."""
    with open(path, "wb") as handle:
        handle.truncate(size)


@contextmanager
def files_read() -> Iterator[list[int]]:
    """The inodes of the regular files opened for reading while the block runs."""
    opened: list[int] = []
    real = os.fdopen

    def counting(fd: int, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.fstat(fd).st_ino)
        return real(fd, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fdopen", counting)
        yield opened


# --- A9: sizes before bytes -------------------------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True)
@given(size=st.integers(0, 3000), limit=st.integers(0, 3000))
def test_read_regular_refuses_a_file_past_its_limit_without_reading_it(size: int, limit: int):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "f.bin")
        path.write_bytes(b"x" * size)
        with files_read() as opened:
            if size > limit:
                with pytest.raises(TooLarge) as refused:
                    read_regular(path, limit)
                assert refused.value.size == size
                assert path.stat().st_ino not in opened, "bytes were read before the refusal"
            else:
                assert read_regular(path, limit) == b"x" * size


def test_a_sparse_file_past_max_sample_bytes_is_too_large_and_never_read(repo: Path):
    big = repo / "big.bin"
    sparse(big, MAX_SAMPLE_BYTES + 1)
    with files_read() as opened:
        assert sample_tree(repo) == "tree_too_large"
    assert big.stat().st_ino not in opened


@settings(max_examples=12, deadline=None, derandomize=True)
@given(sizes=st.lists(st.integers(0, 400), min_size=1, max_size=5), limit=st.integers(0, 1200))
def test_a_sample_never_reads_past_its_budget(sizes: list[int], limit: int):
    """With the budget made small, whatever the files' sizes and the walk's order: the bytes of
    the files opened for reading stay within the budget, and the sample declines exactly when
    the tree holds more than it."""
    with tempfile.TemporaryDirectory() as folder:
        root = make_repo(Path(folder))
        inodes = {}
        for number, size in enumerate(sizes):
            path = root / f"f{number}.bin"
            sparse(path, size)
            inodes[path.stat().st_ino] = size
        total = sum(sizes) + len(b"a = 1\n")
        with files_read() as opened, pytest.MonkeyPatch.context() as patch:
            patch.setattr(worktree, "MAX_SAMPLE_BYTES", limit)
            found = sample_tree(root)
        assert sum(inodes.get(inode, 0) for inode in set(opened)) <= limit
        assert (found == "tree_too_large") == (total > limit), found


# --- A10: hard links --------------------------------------------------------------------------


@settings(max_examples=10, deadline=None, derandomize=True)
@given(inside=st.integers(1, 3), outside=st.integers(0, 2))
def test_a_file_with_a_name_outside_the_tree_is_link_outside_tree(inside: int, outside: int):
    with tempfile.TemporaryDirectory() as folder:
        root = make_repo(Path(folder))
        first = root / "shared0.txt"
        first.write_bytes(b"owner data\n")
        for number in range(1, inside):
            os.link(first, root / f"shared{number}.txt")
        for number in range(outside):
            os.link(first, Path(folder) / f"outside{number}.txt")
        found = sample_tree(root)
        if outside:
            assert found == "link_outside_tree"
        else:
            assert isinstance(found, TreeSample), found


def test_a_restore_declines_when_a_hard_link_out_of_the_tree_appears_since_green(repo: Path):
    """The red team's A10: green, then `shared.txt` becomes a second name of the owner's file
    outside the tree. The abort's sample declines; the owner's file keeps its bytes."""
    store = SnapshotStore()
    green = sample_tree(repo)
    mark = store.mark()
    outside = repo.parent / "outside.txt"
    outside.write_bytes(b"owner data\n")
    store.capture(repo, "shared.txt")
    os.link(outside, repo / "shared.txt")
    outcome = restore(repo, green, store, mark)
    assert outcome.declined == "link_outside_tree" and outcome.restored == ()
    assert outside.read_bytes() == b"owner data\n" and (repo / "shared.txt").exists()


# --- A23: one rule for every kind of entry ----------------------------------------------------


def _socket(path: Path) -> Callable[[], None]:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    return server.close


def _fifo(path: Path) -> Callable[[], None]:
    os.mkfifo(path)
    return lambda: None


def _folder(path: Path) -> Callable[[], None]:
    path.mkdir()
    return lambda: None


def _nested_folder(path: Path) -> Callable[[], None]:
    path.mkdir()
    (path / "deeper").mkdir()
    return lambda: None


@pytest.mark.parametrize("make", [_socket, _fifo, _folder, _nested_folder])
@pytest.mark.parametrize("where", ["top", "in_a_folder_the_edit_tool_made"])
def test_an_entry_no_capture_covers_is_an_uncaptured_change(repo: Path, make, where):
    store = SnapshotStore()
    green = sample_tree(repo)
    mark = store.mark()
    store.capture(repo, "a.py")
    (repo / "a.py").write_bytes(b"a = 2\n")
    base = repo
    if where != "top":  # the edit tool wrote new/x.py, so `new` is its; `new/e` is not
        store.capture(repo, "new/x.py")
        (repo / "new").mkdir()
        (repo / "new" / "x.py").write_bytes(b"x\n")
        base = repo / "new"
    close = make(base / "e")
    try:
        before = sorted(os.listdir(base))
        outcome = restore(repo, green, store, mark)
        assert outcome.declined == "uncaptured_change", outcome
        assert outcome.path == os.path.relpath(base / "e", repo)
        assert sorted(os.listdir(base)) == before and (repo / "a.py").read_bytes() == b"a = 2\n"
    finally:
        close()


def test_folders_the_edit_tool_made_for_a_new_file_still_go(repo: Path):
    """The rule keeps what the lesson promises: a new file the edit tool wrote, in new folders,
    is taken back with its folders."""
    store = SnapshotStore()
    green = sample_tree(repo)
    mark = store.mark()
    store.capture(repo, "new/deep/x.py")
    (repo / "new" / "deep").mkdir(parents=True)
    (repo / "new" / "deep" / "x.py").write_bytes(b"x\n")
    outcome = restore(repo, green, store, mark)
    assert outcome.declined is None and outcome.restored == ("new", "new/deep", "new/deep/x.py")
    assert sample_tree(repo) == green
