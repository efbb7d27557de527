"""What in git's own folders decides what git shows and runs, as one digest.

Session 15 (run monitors; the tree sample in `cafe/monitors/worktree.py` keeps this digest as
its `settings`, and a restore declines when it moved since green). A work tree's `.git` is not
always a folder: in a linked work tree (`git worktree add`) it is a one-line file naming a
folder inside another repository's `.git`, and the settings that matter most live there, in the
shared ("common") folder: its `config` (where `core.hooksPath` can send git to run hooks from
anywhere), its `info/` and its `hooks/`. A digest of `root/.git/config` alone would miss a change
to any of them, and a restore would report "restored" on a tree git now treats differently.

So `state_digest` covers, each by its kind and bytes (never through a link; a file past
`_SETTINGS_FILE_MAX` by its size, never read):

- the `.git` entry itself (a folder, or the file naming where the git folder is);
- where git says the git folder, the common folder and the hooks folder are (absolute paths);
- in the git folder and in the common folder: `config`, `config.worktree`, `info/`, `hooks/`,
  and the `commondir` and `gitdir` files a linked work tree keeps;
- the hooks folder git would use, wherever `core.hooksPath` puts it;
- the settings git ends up with after every `include` (`git config --list`).

Left out: git's files that record history rather than settings (HEAD and the index are sampled
on their own in `worktree.py`; refs and objects are what HEAD names).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

__all__ = ["TooLarge", "read_regular", "state_digest"]

# --- constants ------------------------------------------------------------------------------

# What a git folder holds that changes what git shows or runs (and, for a linked work tree,
# where its shared folder is).
_SETTINGS_FILES = ("config", "config.worktree", "info", "hooks", "commondir", "gitdir")
# Course choice: bytes read from any one settings file (a hook past this is not read at all: the
# digest keeps its size, and its kind says so; a settings file is a few hundred bytes).
_SETTINGS_FILE_MAX = 1024 * 1024
# Open a file for reading its bytes, never through a link, never blocking on a FIFO.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
)

# The read-only git command the caller runs for us: (root, *arguments) -> its output.
GitRunner = Callable[..., bytes]


# --- small pure helpers ---------------------------------------------------------------------


class TooLarge(OSError):
    """A regular file larger than its reader allowed, told from its size before any byte was
    read: a sample or a capture names it (`tree_too_large`) instead of filling memory."""

    def __init__(self, path: str | Path, size: int, limit: int):
        super().__init__(
            errno.EFBIG, f"{os.fspath(path)!r} holds {size} bytes; the limit is {limit}"
        )
        self.size = size


def read_regular(path: str | Path, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file, read without following a link; None for anything else.

    With `limit`, a file of more than `limit` bytes raises `TooLarge` without being read: its
    size comes from the open handle itself (`fstat`), so it is the file about to be read, and
    the read stops one byte past the limit in case the file grows meanwhile."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return None
        if limit is not None and status.st_size > limit:
            raise TooLarge(path, status.st_size, limit)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise TooLarge(path, len(data), limit)  # it grew while being read
    return data


def _kind(path: Path) -> str:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "missing"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    return "link" if stat.S_ISLNK(mode) else "other"


def _walk(top: Path) -> list[Path]:
    """`top` and, when it is a folder (not a link), everything below it in a fixed order."""
    found = [top]
    if _kind(top) == "folder":
        for folder, dirs, files in os.walk(top, followlinks=False):
            dirs.sort()
            found += [Path(folder, entry) for entry in sorted(dirs + files)]
    return found


def _digest_paths(digest: hashlib._Hash, label: str, paths: list[Path]) -> None:
    for path in paths:
        kind, data = _kind(path), b""
        if kind == "file":
            try:
                data = read_regular(path, _SETTINGS_FILE_MAX) or b""
            except TooLarge as error:  # a huge hook: told apart by its size, never read
                kind, data = "file past the limit", b"%d" % error.size
        target = os.readlink(path) if kind == "link" else ""
        digest.update(f"{label}\0{path}\0{kind}\0{target}\0".encode("utf-8", "surrogateescape"))
        digest.update(data)


# --- the main function ----------------------------------------------------------------------


def state_digest(root: Path, git: GitRunner) -> str:
    """A digest of git's state at `root` as the module docstring lists it; `git` runs one
    read-only git command (and raises when git cannot answer)."""
    where = os.fsdecode(
        git(
            root,
            "rev-parse",
            "--path-format=absolute",
            "--absolute-git-dir",
            "--git-common-dir",
            "--git-path",
            "hooks",
        )
    ).splitlines()
    git_dir, common_dir, hooks_dir = (Path(line) for line in where[:3])
    digest = hashlib.sha256()
    digest.update("\0".join(where).encode("utf-8", "surrogateescape"))
    _digest_paths(digest, "entry", [root / ".git"])
    folders = [git_dir] if common_dir == git_dir else [git_dir, common_dir]
    for folder in folders:
        for name in _SETTINGS_FILES:
            _digest_paths(digest, "settings", _walk(folder / name))
    _digest_paths(digest, "hooks", _walk(hooks_dir))
    digest.update(git(root, "config", "--list", "-z"))
    return digest.hexdigest()
