"""Writing a whole file or nothing: the workbench's `write_file` never leaves half a file behind.

Session 13 (the workbench's edit tool, `cafe/world/workbench.py`, writes through this; session
15's monitored `write_file` wraps that tool). Opening a file with "w" empties it at once: if the
write then fails (text that cannot be encoded, a full disk, a killed process), the old content is
gone and nothing took its place. So `write_atomically(target, data)`:

1. takes bytes, so the caller encodes first: text that cannot be encoded fails before anything
   on disk changes;
2. creates the folders the target needs, and removes the ones it made if a later step fails;
3. writes the bytes to a new file beside the target (created exclusively, never through a link),
   with the target's permission bits;
4. renames that file over the target: one step, so the name holds the old file or the new one,
   never a mix, and a failure before it leaves the target as it was.

A rename gives the name a new file; it never writes into the old one. When the old file had other
names (hard links, maybe outside the project), those keep the old content: writing in place would
have changed them too. `Replaced.other_names` counts them, so the tool can say so.

Left out: surviving a power cut (that needs `os.fsync` before the rename; a process that fails or
is killed loses nothing without it), the old file's owner and extended attributes (the new file
is the writer's), and a folder swapped for a link while the write runs (session 15's restore
guards against that: `cafe/monitors/safe_write.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["STAGED_PREFIX", "Replaced", "write_atomically"]

# --- constants ------------------------------------------------------------------------------

# The new file's name until the rename: beside its target, unguessable, recognisable if a killed
# process leaves it behind.
STAGED_PREFIX = ".cafe-write-"
# Create the new file only if the name is free, never through a link, as raw bytes on Windows.
_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
)
# A new file's permission bits before the umask, as `open(path, "w")` would give it.
_NEW_FILE_MODE = 0o666


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replaced:
    """What one write found: `created` when nothing was at the path, and `other_names`, how many
    other names (hard links) the old file had; they still hold the old content."""

    created: bool
    other_names: int = 0

    @property
    def remark(self) -> str:
        """What a tool adds to its result about the other names: nothing when there were none."""
        if not self.other_names:
            return ""
        return (
            f" (the old file had {self.other_names} other name(s), hard links; they keep the old"
            " text, and this name is now a file of its own)"
        )


# --- small helpers --------------------------------------------------------------------------


def _make_folders(folder: Path, made: list[Path]) -> None:
    """Create `folder` and its missing parents, outermost first, adding each one made to `made`
    as it is made (so the caller can take back exactly those)."""
    missing = []
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir()
        made.append(each)


def _replace(target: Path, data: bytes) -> Replaced:
    """Write `data` to a new file beside `target` and rename it over `target`."""
    try:
        old: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise IsADirectoryError(f"{target} is not a regular file; refusing to replace it")
    if old is not None and not os.access(target, os.W_OK):
        raise PermissionError(f"{target} is read-only")  # as writing it in place would be
    staged = target.with_name(f"{STAGED_PREFIX}{secrets.token_hex(8)}")
    try:
        with open(os.open(staged, _CREATE_FLAGS, _NEW_FILE_MODE), "wb") as handle:
            handle.write(data)
        if old is not None:
            os.chmod(staged, stat.S_IMODE(old.st_mode))
        os.replace(staged, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise
    return Replaced(created=old is None, other_names=old.st_nlink - 1 if old is not None else 0)


# --- the main function ----------------------------------------------------------------------


def write_atomically(target: str | Path, data: bytes) -> Replaced:
    """Put `data` at `target` whole, or raise with the target (and its folders) as they were."""
    made: list[Path] = []
    try:
        _make_folders(Path(target).parent, made)
        return _replace(Path(target), data)
    except BaseException:
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
