"""Writing inside the work tree without ever following a link out of it.

Session 15 (run monitors; the restore in `cafe/monitors/snapshots.py` hands its plan here). A
restore that opens `bill.py` and writes into it writes wherever `bill.py` points: through a
symbolic link to a file outside the repository, or into an inode a hard link shares with one. So
nothing here opens an existing file for writing:

- a file is put back by writing a new file beside it (created exclusively, never through a link)
  and renaming it over the old name: the rename replaces the directory entry, whatever it was;
- a file is removed with `unlink`, which removes a link itself, never what it points to;
- every folder on the way is opened without following a link (`O_NOFOLLOW` relative to its
  parent, where the system offers it; elsewhere each folder is checked with `lstat` first), so a
  folder swapped for a link makes the write fail instead of landing outside;
- every new file is staged before any old one is replaced: if staging fails, the staged files
  are removed and nothing in the tree changed.

`apply(root, plan)` raises `OSError` when any step fails; the caller turns that into a decline.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Plan", "dir_fd_available", "apply"]

# --- constants ------------------------------------------------------------------------------

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# The staged file's name: beside its target, unguessable, recognisable if a crash leaves it.
_STAGED_PREFIX = ".cafe-restore-"


def dir_fd_available() -> bool:
    """True where folders can be opened and written relative to each other (Linux, macOS)."""
    needed = {os.open, os.mkdir, os.rmdir, os.unlink, os.rename}
    return needed <= os.supports_dir_fd and bool(_NOFOLLOW and _DIRECTORY)


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What a restore writes, each path relative to the root with `/` between folders.

    `folders`: (path, permission bits) to create, parents first. `files`: (path, bytes,
    permission bits) to put in place. `modes`: (path, permission bits) to set on a file or folder
    that is otherwise right. `removals`: files or links to unlink. `empty_folders`: folders to
    remove once emptied, deepest first."""

    folders: tuple[tuple[str, int], ...] = ()
    files: tuple[tuple[str, bytes, int], ...] = ()
    modes: tuple[tuple[str, int], ...] = ()
    removals: tuple[str, ...] = ()
    empty_folders: tuple[str, ...] = ()


# --- two ways to reach a folder: relative descriptors, or checked paths ----------------------


def _split(path: str) -> tuple[list[str], str]:
    parts = path.split("/")
    if not path or any(part in ("", ".", "..") for part in parts):
        raise OSError(f"refusing the path {path!r}: it must stay below the root")
    return parts[:-1], parts[-1]


@contextmanager
def _folder_fd(root: str, folders: Sequence[str]) -> Iterator[int]:
    """A descriptor of `root/folders...`, each step opened without following a link."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for name in folders:
            step = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = step
        yield fd
    finally:
        os.close(fd)


def _checked_folder(root: str, folders: Sequence[str]) -> str:
    """The path `root/folders...` after checking with lstat that no step is a link or junction."""
    path = root
    for name in folders:
        path = os.path.join(path, name)
        status = os.lstat(path)
        reparse = getattr(status, "st_file_attributes", 0) & getattr(
            stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0
        )
        if not stat.S_ISDIR(status.st_mode) or reparse:
            raise OSError(f"{path!r} is not a plain folder; refusing to write through it")
    return path


# --- the steps ------------------------------------------------------------------------------


def _step(action: str, name: str, mode: int, parent: int | None) -> None:
    """`unlink`, `rmdir` or `chmod` on `name` (relative to `parent`, or a checked path)."""
    if action == "unlink":
        os.unlink(name, dir_fd=parent)
    elif action == "rmdir":
        os.rmdir(name, dir_fd=parent)
    elif action == "chmod" and parent is not None:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=parent)
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
    elif action == "chmod":
        if stat.S_ISLNK(os.lstat(name).st_mode):
            raise OSError(f"{name!r} is a link; refusing to change what it points to")
        os.chmod(name, mode)
    else:
        raise ValueError(f"unknown step {action!r}")


class _Writer:
    """Carries out a plan below `root`, one step at a time, undoing staging on failure."""

    def __init__(self, root: str, use_dir_fd: bool):
        self.root, self.use_dir_fd = root, use_dir_fd
        self.staged: list[tuple[str, str]] = []  # (staged path, target path)
        self.made: list[str] = []

    def mkdir(self, path: str, mode: int) -> None:
        folders, name = _split(path)
        if self.use_dir_fd:
            with _folder_fd(self.root, folders) as parent:
                os.mkdir(name, 0o700, dir_fd=parent)
                self.made.append(path)
                fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=parent)
                try:
                    os.fchmod(fd, mode)
                finally:
                    os.close(fd)
        else:
            target = os.path.join(_checked_folder(self.root, folders), name)
            os.mkdir(target, 0o700)
            self.made.append(path)
            os.chmod(target, mode)

    def stage(self, path: str, data: bytes, mode: int) -> None:
        folders, name = _split(path)
        temp = f"{_STAGED_PREFIX}{secrets.token_hex(8)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
        if self.use_dir_fd:
            with _folder_fd(self.root, folders) as parent:
                fd = os.open(temp, flags, 0o600, dir_fd=parent)
        else:
            fd = os.open(os.path.join(_checked_folder(self.root, folders), temp), flags, 0o600)
        self.staged.append(("/".join([*folders, temp]), path))
        try:
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        if not hasattr(os, "fchmod"):
            os.chmod(os.path.join(self.root, *folders, temp), mode)

    def at(self, path: str, action: str, mode: int = 0) -> None:
        """One step on an existing entry: `unlink` (a file or link, never followed), `rmdir` (an
        empty folder) or `chmod` (a file or folder that is not a link)."""
        folders, name = _split(path)
        if self.use_dir_fd:
            with _folder_fd(self.root, folders) as parent:
                _step(action, name, mode, parent)
        else:
            _step(action, os.path.join(_checked_folder(self.root, folders), name), mode, None)

    def commit(self, path: str) -> None:
        staged = next(s for s, target in self.staged if target == path)
        folders, name = _split(path)
        temp = staged.rsplit("/", 1)[-1]
        if self.use_dir_fd:
            with _folder_fd(self.root, folders) as parent:
                os.replace(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
        else:
            base = _checked_folder(self.root, folders)
            os.replace(os.path.join(base, temp), os.path.join(base, name))
        self.staged = [(s, t) for s, t in self.staged if t != path]

    def undo_staging(self) -> None:
        """Remove staged files and made folders after a failure before anything was replaced."""
        for staged, _ in reversed(self.staged):
            try:
                self.at(staged, "unlink")
            except OSError:
                pass
        for path in reversed(self.made):
            try:
                self.at(path, "rmdir")
            except OSError:
                pass


# --- the main function ----------------------------------------------------------------------


def apply(root: str | os.PathLike[str], plan: Plan, *, use_dir_fd: bool | None = None) -> None:
    """Carry out `plan` below `root`: folders, then every file staged, then replaced; modes;
    removals; emptied folders. Raises OSError on the first failure (before any replacement when
    it comes from staging, in which case the tree is as it was)."""
    writer = _Writer(os.fspath(root), dir_fd_available() if use_dir_fd is None else use_dir_fd)
    try:
        for path, mode in plan.folders:
            writer.mkdir(path, mode)
        for path, data, mode in plan.files:
            writer.stage(path, data, mode)
    except OSError:
        writer.undo_staging()
        raise
    for path, _, _ in plan.files:
        writer.commit(path)
    for path, mode in plan.modes:
        writer.at(path, "chmod", mode)
    for path in plan.removals:
        writer.at(path, "unlink")
    for path in plan.empty_folders:
        writer.at(path, "rmdir")
