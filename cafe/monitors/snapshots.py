"""Putting the work tree back to its last green state, only when that can be proven exact.

Session 15 (run monitors; the safe-state abort in `cafe/monitors/safe_state.py` uses this). The
harness's own edit tool can remember what a file held before each write (`SnapshotStore.capture`);
a shell command cannot: `sed -i`, a `>` redirect or an in-place formatter changes files with no
record of what they held. Putting back the captured files while leaving those alone would make a
tree that never existed, part green and part not. So a restore first proves it can put back
EVERYTHING:

1. At the green moment, a sample of the tree (`cafe/monitors/worktree.py`): HEAD, the index,
   git's settings, every entry's kind and permission bits, and `fingerprint`: each path whose
   content differs from HEAD, with its hash (`ABSENT` for a deleted file). A path missing from a
   fingerprint is as it is at HEAD.
2. At the abort, a second sample. `mutated_since(at_green, at_abort)`: every path whose content
   changed, appeared or vanished in between, whichever tool did it.
3. `can_restore(at_green, at_abort, captured)`: True only if each of those paths has a capture
   holding exactly its green-time content (`captured` maps a path to the hash of what the harness
   can write back: `ABSENT` to delete it, `AT_HEAD` for HEAD's version).

`restore` adds what a real tree needs on top of that gate, and declines by name (`RestoreDecline`)
when anything fails: HEAD, the index and git's settings must be as at green; no link, folder or
special file may stand where a file goes back; an entry that appeared since green (of any kind:
a file, a socket, a pipe, an empty folder) goes only if a capture found nothing there, else
`uncaptured_change`; folders and permission bits come back from the green sample; every path it
must change must be writable for this user before it writes any (else `unwritable_path`). It
writes through `cafe/monitors/safe_write.py` (never through a link, taking every step back if one
fails), samples the tree again, and reports success only when the tree is exactly as it was at
green. It never raises. From its first sample to its last it holds the tree's restore lock
(`cafe/monitors/tree_lock.py`): a second restore of the same tree waits, then finds the tree as
the first left it (`tree_locked` if the first holds on past the wait).

Changes the owner had not committed before the run look identical in both samples, so they are
never "mutated" and never touched.

Left out: when to abort (`cafe/monitors/safe_state.py`); undoing a commit (it declines instead).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cafe.monitors.git_state import TooLarge
from cafe.monitors.safe_write import Plan, Unwritable, apply
from cafe.monitors.tree_lock import WAIT, Waiting, tree_lock
from cafe.monitors.worktree import (
    ABSENT,
    MAX_SAMPLE_BYTES,
    Fingerprint,
    RestoreDecline,
    TreeSample,
    blob_hash,
    changed_paths,
    head_hashes,
    read_regular,
    sample_tree,
)

__all__ = [
    "AT_HEAD",
    "UNCAPTURABLE",
    "fingerprint",
    "mutated_since",
    "can_restore",
    "Capture",
    "SnapshotStore",
    "RestoreOutcome",
    "restore",
]

# --- constants ------------------------------------------------------------------------------

# What a capture is called when it holds exactly HEAD's version of the file.
AT_HEAD = "<head>"
# What a capture is called when the path held something other than a file (a link, a folder):
# no green-time content ever equals it, so such a path is never put back.
UNCAPTURABLE = "<not a file>"


# --- the gate -------------------------------------------------------------------------------


def fingerprint(root: str | Path) -> Fingerprint | None:
    """Every path under `root` whose content differs from HEAD, with its hash; None when the tree
    cannot be sampled (not a repository, and the other reasons of `RestoreDecline`)."""
    sample = sample_tree(root)
    return sample.files if isinstance(sample, TreeSample) else None


def mutated_since(at_green: Fingerprint, at_abort: Fingerprint) -> frozenset[str]:
    """Paths changed, added or removed between the two samples (a path missing from a sample is
    as at HEAD)."""
    return frozenset(
        p
        for p in set(at_green) | set(at_abort)
        if at_green.get(p, AT_HEAD) != at_abort.get(p, AT_HEAD)
    )


def _first_uncaptured(
    at_green: Fingerprint, at_abort: Fingerprint, captured: Mapping[str, str]
) -> str | None:
    return next(
        (
            path
            for path in sorted(mutated_since(at_green, at_abort))
            if captured.get(path) != at_green.get(path, AT_HEAD)
        ),
        None,
    )


def can_restore(
    at_green: Fingerprint | None, at_abort: Fingerprint | None, captured: Mapping[str, str]
) -> bool:
    """The gate: True only when every path mutated since green can be put back to its green-time
    content from `captured` (path -> hash of what the harness holds, ABSENT or AT_HEAD)."""
    if at_green is None or at_abort is None:
        return False
    return _first_uncaptured(at_green, at_abort, captured) is None


# --- records: what the edit tool captured ---------------------------------------------------


@dataclass(frozen=True)
class Capture:
    """What one path held just before the harness's edit tool wrote it: its bytes, None when
    nothing was there, and `is_file` False when it held something else (a link, a folder)."""

    seq: int
    path: str
    before: bytes | None
    is_file: bool = True


def _capture(root: Path, path: str, seq: int) -> Capture:
    """Read `root/path` as it is, without following a final link. A file past MAX_SAMPLE_BYTES
    is not read (a sample of it declines anyway): it is kept as something the restore cannot
    put back."""
    try:
        status = os.lstat(root / path)
    except FileNotFoundError:
        return Capture(seq, path, None)
    except OSError:
        return Capture(seq, path, None, is_file=False)
    try:
        data = read_regular(root / path, MAX_SAMPLE_BYTES) if stat.S_ISREG(status.st_mode) else None
    except TooLarge:
        data = None
    return Capture(seq, path, data, is_file=data is not None)


class SnapshotStore:
    """The pre-write contents the harness's edit tool captured, in order. `mark()` is a position
    (taken at a green moment); `first_since(mark)` is, per path, the earliest capture after it."""

    def __init__(self) -> None:
        self._captures: list[Capture] = []

    def capture(self, root: str | Path, path: str) -> None:
        """Remember what `root/path` holds now; call it just before writing the file. `path` must
        be spelled as a sample names it (`worktree.tree_path`), or no sample entry will match it."""
        self._captures.append(_capture(Path(root), path, len(self._captures)))

    def mark(self) -> int:
        return len(self._captures)

    def first_since(self, mark: int) -> Mapping[str, Capture]:
        found: dict[str, Capture] = {}
        for item in self._captures[mark:]:
            found.setdefault(item.path, item)
        return MappingProxyType(found)

    def restorable(self, root: str | Path, mark: int) -> Mapping[str, str]:
        """The `captured` argument of `can_restore`: per path, what a restore would write back.
        Empty when HEAD cannot be read (then nothing can be proven restorable)."""
        head = head_hashes(root)
        if isinstance(head, str):
            return MappingProxyType({})
        found = {}
        for path, item in self.first_since(mark).items():
            hashed = blob_hash(item.before) if item.is_file else UNCAPTURABLE
            found[path] = AT_HEAD if hashed == head.get(path, ABSENT) else hashed
        return MappingProxyType(found)

    def __len__(self) -> int:
        return len(self._captures)


# --- the plan: what to write, or why not ----------------------------------------------------


@dataclass(frozen=True)
class RestoreOutcome:
    """What a restore did: the paths it put back, or the reason it declined (and the path the
    reason is about, when there is one). `restore_unverified` lists what was written."""

    restored: tuple[str, ...]
    declined: RestoreDecline | None = None
    path: str = ""


def _decline(reason: RestoreDecline, path: str = "") -> RestoreOutcome:
    return RestoreOutcome((), reason, path)


class _Refused(Exception):
    def __init__(self, reason: RestoreDecline, path: str):
        super().__init__(reason, path)
        self.outcome = _decline(reason, path)


def _made_by_edit_tool(path: str, firsts: Mapping[str, Capture]) -> bool:
    """Whether an entry that appeared since green is the edit tool's to take away: its first
    capture since green found nothing at `path`, or (a folder the tool made on the way to a new
    file) at a path below it. One rule for every kind of entry: a socket, a pipe or an empty
    folder that no capture covers is an uncaptured change, as a file from the shell is."""
    return any(
        item.before is None and item.is_file and (name == path or name.startswith(path + "/"))
        for name, item in firsts.items()
    )


def _step_for(
    path: str, green: TreeSample, now: TreeSample, firsts: Mapping[str, Capture]
) -> tuple[str, Any]:
    """(plan field, entry) that brings one changed path back; `_Refused` when none can."""
    was, now_mode = green.modes.get(path), now.modes.get(path)
    if was is None:  # it appeared since green: remove it, if a capture said "nothing was here"
        if not _made_by_edit_tool(path, firsts):
            raise _Refused("uncaptured_change", path)
        is_dir = now_mode is not None and stat.S_ISDIR(now_mode)
        return ("empty_folders", path) if is_dir else ("removals", path)
    perms = stat.S_IMODE(was)
    if stat.S_ISDIR(was):
        if now_mode is None:
            return "folders", (path, perms)
        if stat.S_ISDIR(now_mode):
            return "modes", (path, perms)
        raise _Refused("unsafe_path", path)
    if not stat.S_ISREG(was) or (now_mode is not None and stat.S_ISDIR(now_mode)):
        raise _Refused("unsafe_path", path)
    if green.files.get(path, AT_HEAD) == now.files.get(path, AT_HEAD):
        return "modes", (path, perms)  # the content is right, only the permission bits moved
    before = firsts[path].before
    if before is None:
        raise _Refused("uncaptured_change", path)
    return "files", (path, before, perms)


def _plan(
    green: TreeSample,
    now: TreeSample,
    captured: Mapping[str, str],
    firsts: Mapping[str, Capture],
) -> Plan:
    """The writes that bring `now` back to `green`; `_Refused` names the first path that cannot."""
    missing = _first_uncaptured(green.files, now.files, captured)
    if missing is not None:
        raise _Refused("uncaptured_change", missing)
    steps: dict[str, list[Any]] = {
        "folders": [],
        "files": [],
        "modes": [],
        "removals": [],
        "empty_folders": [],
    }
    for path in sorted(changed_paths(green, now)):
        kind, entry = _step_for(path, green, now, firsts)
        steps[kind].append(entry)
    return Plan(
        folders=tuple(sorted(steps["folders"], key=lambda e: e[0].count("/"))),
        files=tuple(steps["files"]),
        modes=tuple(steps["modes"]),
        removals=tuple(steps["removals"]),
        empty_folders=tuple(sorted(steps["empty_folders"], key=lambda p: -p.count("/"))),
    )


# --- the main function ----------------------------------------------------------------------


def _restore(
    root: Path, green: TreeSample | RestoreDecline | None, store: SnapshotStore, mark: int
) -> RestoreOutcome:
    if green is None or isinstance(green, str):
        return _decline(green or "no_green_point")
    now = sample_tree(root)
    if isinstance(now, str):
        return _decline(now)
    if green.head != now.head:
        return _decline("head_moved")
    if green.index != now.index:
        return _decline("index_changed")
    if green.settings != now.settings:
        return _decline("git_settings_changed")
    changed = tuple(sorted(changed_paths(green, now)))
    if not changed:
        return _decline("nothing_to_restore")
    try:
        plan = _plan(green, now, store.restorable(root, mark), store.first_since(mark))
    except _Refused as refused:
        return refused.outcome
    try:
        apply(root, plan)
    except Unwritable as blocked:
        return _decline("unwritable_path", blocked.path)
    except OSError:
        after = sample_tree(root)
        return (
            _decline("io_error") if after == now else RestoreOutcome(changed, "restore_unverified")
        )
    if sample_tree(root) != green:
        return RestoreOutcome(changed, "restore_unverified")
    return RestoreOutcome(changed)


def restore(
    root: str | Path,
    green: TreeSample | RestoreDecline | None,
    store: SnapshotStore,
    mark: int,
    *,
    waiting: Waiting = WAIT,
) -> RestoreOutcome:
    """Put the tree at `root` back to `green` (its sample at the green moment) from the captures
    made since `mark`, or decline by name with nothing written. Never raises on what it finds
    on disk; passing something other than a sample (a fingerprint, say) is a TypeError. Another
    restore of the tree running is waited for, as `waiting` says."""
    if not (green is None or isinstance(green, (TreeSample, str))):
        raise TypeError(
            "restore needs the TreeSample taken at green (sample_tree(root)), or the reason the "
            f"tree could not be sampled; got {type(green).__name__}."
        )
    try:
        with tree_lock(root, waiting) as lock:
            if lock == "busy":
                return _decline("tree_locked")
            return _restore(Path(root), green, store, mark)
    except (OSError, subprocess.SubprocessError, UnicodeError, ValueError):
        return _decline("io_error")
