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
- before anything is written, `check` asks whether every step is allowed (the folder is
  writable for this user, no folder stands where a file goes, the entry to chmod is this user's)
  and raises `Unwritable` naming the first path that is not;
- new files are staged and old entries renamed aside (`.cafe-restore-*`), never deleted, so a
  step that still fails (a race with the agent) is taken back in full, leaving no stray file.

`apply(root, plan)` raises `OSError` when any step fails; the caller turns that into a decline.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Plan", "Unwritable", "dir_fd_available", "can_write_in", "check", "apply"]

# --- constants ------------------------------------------------------------------------------

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_REPARSE = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)  # a Windows link or junction
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
        reparse = getattr(status, "st_file_attributes", 0) & _REPARSE
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


# --- the check before any write: every step must be allowed ---------------------------------


class Unwritable(OSError):
    """A path the plan must add, replace, remove or change cannot be; raised before any write.
    `path` names it (relative to the root), the message says why."""

    def __init__(self, path: str, why: str):
        super().__init__(f"{path!r} cannot be changed: {why}")
        self.path = path  # relative to the root


def can_write_in(folder: str) -> bool:
    """Whether this process may add and remove entries in `folder`: its permission bits for this
    user, a read-only mount, the rights of the superuser."""
    effective = os.access in os.supports_effective_ids
    return os.access(folder, os.W_OK | os.X_OK, effective_ids=effective)


def _entry(root: str, path: str) -> os.stat_result | None:
    folders, name = _split(path)
    try:
        return os.lstat(os.path.join(_checked_folder(root, folders), name))
    except FileNotFoundError:
        return None


def _why_not(root: str, path: str, made: set[str], writable: Callable[[str], bool]) -> str | None:
    """Why the entry at `path` cannot be added, replaced or removed in its folder; None if it can."""
    folders, _ = _split(path)
    if "/".join(folders) in made:
        return None  # a folder this plan creates, writable by its creator until the end
    base = _checked_folder(root, folders)
    if not writable(base):
        return f"its folder {'/'.join(folders) or '.'} is read-only for this user"
    folder, entry, me = os.lstat(base), _entry(root, path), getattr(os, "geteuid", lambda: 0)()
    if folder.st_mode & stat.S_ISVTX and entry and me not in (0, folder.st_uid, entry.st_uid):
        return "it belongs to another user in a folder only owners may change"
    if os.name == "nt" and entry and not os.access(os.path.join(root, path), os.W_OK):
        return "it is marked read-only"
    return None


def _blocked_files(
    root: str, plan: Plan, made: set[str], writable: Callable[[str], bool]
) -> Iterator[tuple[str, str]]:
    for path in [*(p for p, _ in plan.folders), *(p for p, _, _ in plan.files), *plan.removals]:
        entry = _entry(root, path)
        if entry is not None and stat.S_ISDIR(entry.st_mode):
            yield path, "a folder stands where a file goes"
        elif entry is not None and path in made:
            yield path, "something already stands where a folder goes"
        elif (why := _why_not(root, path, made, writable)) is not None:
            yield path, why


def _blocked_other(
    root: str, plan: Plan, writable: Callable[[str], bool]
) -> Iterator[tuple[str, str]]:
    going = set(plan.removals) | set(plan.empty_folders)
    for path in plan.empty_folders:
        entry = _entry(root, path)
        if entry is None or not stat.S_ISDIR(entry.st_mode):
            yield path, "it is no longer a folder"
        elif any(f"{path}/{name}" not in going for name in os.listdir(os.path.join(root, path))):
            yield path, "it holds something the plan does not remove"
        elif (why := _why_not(root, path, set(), writable)) is not None:
            yield path, why
    me = getattr(os, "geteuid", lambda: 0)()
    for path, _ in plan.modes:
        entry = _entry(root, path)
        if entry is None or stat.S_ISLNK(entry.st_mode):
            yield path, "it is gone or is a link"
        elif me not in (0, entry.st_uid):
            yield path, "it belongs to another user"


def check(root: str, plan: Plan, writable: Callable[[str], bool] = can_write_in) -> None:
    """Raise `Unwritable` for the first step of `plan` this process may not carry out; writes
    nothing. `writable(folder)` says whether entries may be added and removed in a folder."""
    made = {path for path, _ in plan.folders}
    for path, why in [
        *_blocked_files(root, plan, made, writable),
        *_blocked_other(root, plan, writable),
    ]:
        raise Unwritable(path, why)


# --- carrying a plan out, with every step taken back on failure -----------------------------


class _Writer:
    """Carries out a plan below `root`. Until `discard`, every step can be taken back: a file
    replaced or removed is first renamed aside (`.cafe-restore-*` beside it), never deleted."""

    def __init__(self, root: str, use_dir_fd: bool):
        self.root, self.use_dir_fd = root, use_dir_fd
        self.undo: list[tuple[str, str, str]] = []  # (action, path, aside) in the order done
        self.staged: dict[str, str] = {}  # target -> its staged file
        self.asides: list[str] = []

    @contextmanager
    def _in(self, path: str) -> Iterator[tuple[int | None, Callable[[str], str]]]:
        """(parent descriptor or None, how to name an entry of the parent) for `path`."""
        folders, _ = _split(path)
        if self.use_dir_fd:
            with _folder_fd(self.root, folders) as parent:
                yield parent, lambda name: name
        else:
            base = _checked_folder(self.root, folders)
            yield None, lambda name: os.path.join(base, name)

    def mkdir(self, path: str) -> None:
        with self._in(path) as (parent, at):
            os.mkdir(at(_split(path)[1]), 0o700, dir_fd=parent)
        self.undo.append(("rmdir", path, ""))

    def stage(self, path: str, data: bytes, mode: int) -> None:
        temp = f"{_STAGED_PREFIX}{secrets.token_hex(8)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
        with self._in(path) as (parent, at):
            fd = os.open(at(temp), flags, 0o600, dir_fd=parent)
            self.staged[path] = _sibling(path, temp)
            self.undo.append(("unlink", self.staged[path], ""))
            try:
                with os.fdopen(fd, "wb", closefd=False) as handle:
                    handle.write(data)
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, mode)
            finally:
                os.close(fd)
            if not hasattr(os, "fchmod"):
                os.chmod(at(temp), mode)

    def set_aside(self, path: str) -> None:
        """Rename the entry at `path` (a file, link or pipe; never a folder) aside, if any."""
        name, aside = _split(path)[1], f"{_STAGED_PREFIX}{secrets.token_hex(8)}"
        with self._in(path) as (parent, at):
            try:
                status = os.stat(at(name), dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                return
            if stat.S_ISDIR(status.st_mode):
                raise IsADirectoryError(f"{path!r} became a folder; refusing to replace it")
            os.rename(at(name), at(aside), src_dir_fd=parent, dst_dir_fd=parent)
        self.asides.append(_sibling(path, aside))
        self.undo.append(("back", path, self.asides[-1]))

    def put(self, path: str) -> None:
        """Set the old entry aside, then rename the staged file into its place."""
        self.set_aside(path)
        temp = self.staged.pop(path).rsplit("/", 1)[-1]
        with self._in(path) as (parent, at):
            os.rename(at(temp), at(_split(path)[1]), src_dir_fd=parent, dst_dir_fd=parent)
        self.undo.append(("unlink", path, ""))

    def at(self, path: str, action: str, mode: int = 0) -> None:
        """`unlink`, `rmdir` or `chmod` on the entry at `path`, never through a link."""
        with self._in(path) as (parent, at):
            _step(action, at(_split(path)[1]), mode, parent)

    def roll_back(self) -> None:
        """Take back every step so far, last first: the tree is as it was before `apply`."""
        for action, path, aside in reversed(self.undo):
            try:
                if action == "back":
                    with self._in(path) as (parent, at):
                        name = aside.rsplit("/", 1)[-1]
                        os.replace(
                            at(name), at(_split(path)[1]), src_dir_fd=parent, dst_dir_fd=parent
                        )
                else:
                    self.at(path, action)
            except OSError:
                pass

    def discard(self) -> None:
        """Delete what was set aside: from here on, nothing can be taken back."""
        for aside in self.asides:
            self.at(aside, "unlink")


def _sibling(path: str, name: str) -> str:  # `name` in the folder of `path`
    return "/".join([*_split(path)[0], name])


# --- the main function ----------------------------------------------------------------------


def apply(
    root: str | os.PathLike[str],
    plan: Plan,
    *,
    use_dir_fd: bool | None = None,
    writable: Callable[[str], bool] = can_write_in,
) -> None:
    """Carry out `plan` below `root`, all or nothing. First `check` (raises `Unwritable`, nothing
    written); then folders, staged files, replacements and removals, each one taken back if a
    later one fails (OSError re-raised, the tree as it was); then, past the point of no return,
    the set-aside entries deleted, emptied folders removed and permission bits set."""
    top = os.fspath(root)
    writer = _Writer(top, dir_fd_available() if use_dir_fd is None else use_dir_fd)
    check(top, plan, writable)
    try:
        for path, _ in plan.folders:
            writer.mkdir(path)
        for path, data, mode in plan.files:
            writer.stage(path, data, mode)
        for path, _, _ in plan.files:
            writer.put(path)
        for path in plan.removals:
            writer.set_aside(path)
    except OSError:
        writer.roll_back()
        raise
    writer.discard()
    for path in plan.empty_folders:
        writer.at(path, "rmdir")
    # deepest first: a folder losing its own rights comes after everything inside it
    for path, mode in sorted((*plan.modes, *plan.folders), key=lambda e: -e[0].count("/")):
        writer.at(path, "chmod", mode)
