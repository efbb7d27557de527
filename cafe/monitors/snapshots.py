"""Putting the work tree back to its last green state, only when that can be proven safe.

Session 15 (run monitors; the safe-state abort in `cafe/monitors/safe_state.py` uses this). The harness's
own edit tool can remember what a file held before each write (`SnapshotStore.capture`); a shell
command cannot: `sed -i`, a `>` redirect or an in-place formatter changes files with no record of
what they held. Putting back the captured files while leaving those alone would make a tree that
never existed, part green and part not. So a restore first proves it can put back EVERYTHING:

1. `fingerprint(root)` at the green moment: every path `git status --porcelain=v1 -z
   --untracked-files=all` lists, with its `git hash-object` (`ABSENT` for a deleted file).
   A path not listed is as it is at HEAD.
2. `fingerprint(root)` again at the abort. `mutated_since(at_green, at_abort)`: every path
   changed, added or removed in between, whichever tool did it.
3. `can_restore(at_green, at_abort, captured)`: True only if each of those paths has a capture
   holding exactly its green-time content. `captured` maps a path to the hash of what the harness
   can write back (`ABSENT`: delete it; `AT_HEAD`: HEAD's version). No repository, or one path
   the harness cannot put back, and the answer is no.

Changes the owner had not committed before the run look identical in both fingerprints, so they are
never "mutated" and never touched. `restore` writes only after `can_restore` said yes, then checks the
tree now fingerprints as it did at green.

Left out: when to abort (`cafe/monitors/safe_state.py`); undoing a commit (the agent's tools do not commit).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = [
    "ABSENT",
    "AT_HEAD",
    "Fingerprint",
    "blob_hash",
    "fingerprint",
    "mutated_since",
    "can_restore",
    "Capture",
    "SnapshotStore",
    "restore",
]

# --- constants ------------------------------------------------------------------------------

# The hash written for a file that does not exist (the source design's spelling).
ABSENT = "<absent>"
# What a capture is called when it holds exactly HEAD's version of the file.
AT_HEAD = "<head>"

# A fingerprint: path -> git blob hash (or ABSENT) for every path that differs from HEAD.
Fingerprint = Mapping[str, str]

# git with no user or system configuration, so a learner's settings cannot change what it prints.
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_OPTIONAL_LOCKS": "0"}


# --- small pure helpers ---------------------------------------------------------------------


def blob_hash(data: bytes | None) -> str:
    """The hash git gives `data` as a file (`git hash-object`), or ABSENT for None."""
    if data is None:
        return ABSENT
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", *args], cwd=root, env={**os.environ, **_GIT_ENV}, capture_output=True, check=False
    )


def _status_paths(raw: bytes) -> list[str]:
    """The paths in `git status --porcelain=v1 -z` output; a rename's old path too."""
    fields = raw.decode("utf-8", errors="surrogateescape").split("\0")
    paths, i = [], 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if "R" in entry[:2] or "C" in entry[:2]:  # the next field is where it came from
            paths.append(fields[i])
            i += 1
    return paths


def fingerprint(root: str | Path) -> Fingerprint | None:
    """Every path under `root` that differs from HEAD, with its hash; None when `root` is not a git
    work tree (then nothing can be proven, and nothing is restored)."""
    root = Path(root)
    if not root.is_dir() or _git(root, "rev-parse", "--verify", "-q", "HEAD").returncode != 0:
        return None
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    if status.returncode != 0:
        return None
    found: dict[str, str] = {}
    for path in sorted(set(_status_paths(status.stdout))):
        target = root / path
        if not target.is_file():
            found[path] = ABSENT
            continue
        hashed = _git(root, "hash-object", "--", path)
        found[path] = hashed.stdout.decode().strip() if hashed.returncode == 0 else ABSENT
    return MappingProxyType(found)


def mutated_since(at_green: Fingerprint, at_abort: Fingerprint) -> frozenset[str]:
    """Paths changed, added or removed between the two samples (a path missing from a sample is
    as at HEAD)."""
    return frozenset(
        p
        for p in set(at_green) | set(at_abort)
        if at_green.get(p, AT_HEAD) != at_abort.get(p, AT_HEAD)
    )


def can_restore(
    at_green: Fingerprint | None, at_abort: Fingerprint | None, captured: Mapping[str, str]
) -> bool:
    """The gate: True only when every path mutated since green can be put back to its green-time
    content from `captured` (path -> hash of what the harness holds, ABSENT or AT_HEAD)."""
    if at_green is None or at_abort is None:
        return False
    return all(
        captured.get(path) == at_green.get(path, AT_HEAD)
        for path in mutated_since(at_green, at_abort)
    )


# --- records: what the edit tool captured ---------------------------------------------------


@dataclass(frozen=True)
class Capture:
    """What one file held just before the harness's edit tool wrote it (None: it did not exist)."""

    seq: int
    path: str
    before: bytes | None


class SnapshotStore:
    """The pre-write contents the harness's edit tool captured, in order. `mark()` is a position
    (taken at a green moment); `first_since(mark)` is, per path, the earliest capture after it."""

    def __init__(self) -> None:
        self._captures: list[Capture] = []

    def capture(self, root: str | Path, path: str) -> None:
        """Remember what `root/path` holds now; call it just before writing the file."""
        target = Path(root) / path
        self._captures.append(
            Capture(len(self._captures), path, target.read_bytes() if target.is_file() else None)
        )

    def mark(self) -> int:
        return len(self._captures)

    def first_since(self, mark: int) -> Mapping[str, Capture]:
        found: dict[str, Capture] = {}
        for item in self._captures[mark:]:
            found.setdefault(item.path, item)
        return MappingProxyType(found)

    def restorable(self, root: str | Path, mark: int) -> Mapping[str, str]:
        """The `captured` argument of `can_restore`: per path, what a restore would write back."""
        found = {}
        for path, item in self.first_since(mark).items():
            hashed = blob_hash(item.before)
            found[path] = AT_HEAD if hashed == _head_hash(Path(root), path) else hashed
        return MappingProxyType(found)

    def __len__(self) -> int:
        return len(self._captures)


def _head_hash(root: Path, path: str) -> str:
    done = _git(root, "rev-parse", "-q", "--verify", f"HEAD:{path}")
    return done.stdout.decode().strip() if done.returncode == 0 else ABSENT


# --- the main function ----------------------------------------------------------------------


def restore(
    root: str | Path, at_green: Fingerprint | None, store: SnapshotStore, mark: int
) -> tuple[str, ...]:
    """Put every path mutated since the green moment back, if `can_restore` allows it; the paths
    written, or () when it declined (and then nothing was touched)."""
    root = Path(root)
    at_abort = fingerprint(root)
    if (
        at_green is None
        or at_abort is None
        or not can_restore(at_green, at_abort, store.restorable(root, mark))
    ):
        return ()
    firsts = store.first_since(mark)
    changed = sorted(mutated_since(at_green, at_abort))
    for path in changed:
        target, before = root / path, firsts[path].before
        if before is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(before)
    assert dict(fingerprint(root) or {}) == dict(at_green), (
        "restore did not bring back the green tree"
    )
    return tuple(changed)
