"""What the work tree holds at one moment, read without trusting anything the agent could change.

Session 15 (run monitors; the restore in `cafe/monitors/snapshots.py` starts from two of these).
A restore may only write when it can prove what the tree held at the green moment and what it
holds now. `git status` cannot be the witness: the agent can hide a change from it (`.gitignore`,
`.git/info/exclude`, `git update-index --assume-unchanged` or `--skip-worktree`, a clean filter),
and can make it run a program of the agent's choosing (`core.fsmonitor`, a filter command). So
`sample_tree(root)` reads the files itself, and asks git only what git alone knows:

- every entry below `root` except `.git`, walked without following a link: its type and
  permission bits (`modes`), and for a regular file the git blob hash of its raw bytes;
- `files`: the entries whose content differs from HEAD, path -> hash (`ABSENT` for a file HEAD
  has and the tree lost). This is the reference design's fingerprint, seen through no filter;
- `head`, `index`, `settings`: HEAD's commit, a digest of the index (staged content and the
  assume-unchanged and skip-worktree flags), and a digest of git's own settings, hooks and the
  `.git` entry itself, in a linked work tree's shared folder too (`cafe/monitors/git_state.py`).
  A restore declines when any of them moved since green.

git runs read-only (`rev-parse`, `ls-tree`, `ls-files`), with no user or system configuration,
`core.fsmonitor` off and no `GIT_*` variable from the caller. A tree the sample cannot vouch for
is named with a `RestoreDecline` instead: not a repository, a folder below its top level, a nested
repository or submodule, a link leading out of the tree (a symbolic link, or a file with a hard
link whose other name is outside: the walk counts a file's names against its link count), or
more than the sample reads (a file's size is checked before it is read).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal, get_args

from cafe.monitors.git_state import TooLarge, read_regular, state_digest
from cafe.world.processes import without_secrets

__all__ = [
    "RestoreDecline",
    "RESTORE_DECLINES",
    "ABSENT",
    "Fingerprint",
    "MAX_SAMPLE_ENTRIES",
    "MAX_SAMPLE_BYTES",
    "blob_hash",
    "read_regular",
    "TreeSample",
    "head_hashes",
    "sample_tree",
    "changed_paths",
    "tree_path",
]

# --- constants ------------------------------------------------------------------------------

# Every reason an automatic restore can decline, declared once. The restore then behaves exactly
# as `advisory`: the worst case is "auto did not fire", never "auto left a broken tree".
RestoreDecline = Literal[
    "git_unavailable",  # no git on PATH, or git could not be run
    "not_a_repository",  # the folder is not a git work tree with a commit
    # git refused the repository as another user's ("dubious ownership"). The fix: run the
    # harness as the tree's owner, or give the tree to this user (`chown -R`). The sample reads
    # no global git settings, so `git config --global --add safe.directory` does not change it.
    "repository_not_trusted",
    "not_top_level",  # the folder is below its repository's top level
    "nested_repository",  # a .git inside the tree, or a submodule in HEAD
    "link_outside_tree",  # a symbolic or hard link in the tree leads out of it: unseen content
    "tree_too_large",  # past MAX_SAMPLE_ENTRIES entries or MAX_SAMPLE_BYTES bytes (never read past)
    "no_green_point",  # no sample was taken when the checks last passed
    "nothing_to_restore",  # nothing differs from green: claiming a restore would be a lie
    "head_moved",  # a commit, checkout or reset since green
    "index_changed",  # staged content or index flags changed since green
    "git_settings_changed",  # git's settings, hooks or the .git entry changed since green
    "uncaptured_change",  # a changed file's green content is not among the captures
    "unsafe_path",  # a folder, link or special file stands where the restore must write
    "unwritable_path",  # a file or folder the restore must change is read-only for this user
    "io_error",  # reading or writing failed; nothing was replaced
    "restore_unverified",  # written, but the tree does not sample as it did at green
    "tree_locked",  # another restore of this tree held it past the wait (`tree_lock.py`)
]
RESTORE_DECLINES: frozenset[str] = frozenset(get_args(RestoreDecline))

# The hash written for a file HEAD has and the tree lost (the reference design's spelling).
ABSENT = "<absent>"
# A fingerprint: path -> content hash (or ABSENT) for every path whose content differs from HEAD.
Fingerprint = Mapping[str, str]

# Course choice: how much a sample reads before it gives up (`tree_too_large`). The till has a
# handful of files; a tree past these is one whose state a restore should not claim to know.
MAX_SAMPLE_ENTRIES = 20_000
MAX_SAMPLE_BYTES = 100 * 1024 * 1024

# git with nothing from the caller or the machine: Git for Windows reads "/dev/null" as `nul`.
_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",  # git's refusals in its own English words, which `_refusal` reads
}
# Settings on the command line beat the repository's own `.git/config`.
_GIT_OVERRIDES = ("-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false")


class _Declined(Exception):
    """Raised inside a sample to stop it with a reason; never leaves this module."""

    def __init__(self, reason: RestoreDecline):
        super().__init__(reason)
        self.reason: RestoreDecline = reason


# --- small pure helpers ---------------------------------------------------------------------


def blob_hash(data: bytes | None) -> str:
    """The hash git gives `data` as a file (`git hash-object`), or ABSENT for None."""
    if data is None:
        return ABSENT
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _git(root: Path, *args: str) -> bytes:
    """The output of one read-only git command in `root`; `_Declined` when git cannot answer."""
    git = shutil.which("git")
    if git is None:
        raise _Declined("git_unavailable")
    clean = without_secrets(os.environ)  # a hook or filter the agent wrote sees no key
    env = {k: v for k, v in clean.items() if not k.upper().startswith("GIT_")}
    try:
        done = subprocess.run(
            [git, *_GIT_OVERRIDES, *args],
            cwd=root,
            env={**env, **_GIT_ENV},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise _Declined("git_unavailable") from error
    if done.returncode != 0:
        raise _Declined(_refusal(done.stderr))
    return done.stdout


def _refusal(stderr: bytes) -> RestoreDecline:
    """Why git refused to answer: another user's repository, in git's words ("detected dubious
    ownership in repository"), else not a repository."""
    return "repository_not_trusted" if b"dubious ownership" in stderr else "not_a_repository"


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeSample:
    """The tree at one moment (see the module docstring for each field)."""

    head: str
    index: str
    settings: str
    files: Fingerprint
    modes: Mapping[str, int]


# --- reading the tree -----------------------------------------------------------------------


def head_hashes(root: str | Path) -> Mapping[str, str] | RestoreDecline:
    """HEAD's content per path, as a sample writes it (a link as `link:<hash>`), or a reason."""
    try:
        entries = _head_entries(Path(root))
    except _Declined as declined:
        return declined.reason
    return MappingProxyType(
        {p: ("link:" + oid if mode == "120000" else oid) for p, (mode, oid) in entries.items()}
    )


def _head_entries(root: Path) -> dict[str, tuple[str, str]]:
    """HEAD's files: path -> (mode, blob hash). A submodule is `nested_repository`."""
    found: dict[str, tuple[str, str]] = {}
    for record in _git(root, "ls-tree", "-r", "-z", "--full-tree", "HEAD").split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        if kind == "commit":
            raise _Declined("nested_repository")
        found[os.fsdecode(name)] = (mode, oid)
    return found


class _Walk:
    """One walk of the tree below `root`, never through a link, with its running totals."""

    def __init__(self, root: Path):
        self.root, self.real_root = root, os.path.realpath(root)
        self.modes: dict[str, int] = {}
        self.hashes: dict[str, str] = {}
        self.bytes = 0
        # per file (device, inode): (its link count, how many of its names the walk met)
        self.names: dict[tuple[int, int], tuple[int, int]] = {}

    def run(self) -> None:
        pending = [""]
        while pending:
            folder = pending.pop()
            with os.scandir(self.root / folder) as entries:
                for entry in entries:
                    path = f"{folder}/{entry.name}" if folder else entry.name
                    if entry.name == ".git":
                        if folder:
                            raise _Declined("nested_repository")
                        continue
                    # os.lstat, not entry.stat: on Windows that leaves st_ino and st_nlink 0
                    if self._note(path, os.lstat(entry.path)):
                        pending.append(path)
        self._check_hard_links()

    def _note(self, path: str, status: os.stat_result) -> bool:
        """Record one entry; True when it is a folder to walk into."""
        self.modes[path] = status.st_mode
        if len(self.modes) > MAX_SAMPLE_ENTRIES:
            raise _Declined("tree_too_large")
        if stat.S_ISREG(status.st_mode):
            self._read(path, status)
        elif stat.S_ISLNK(status.st_mode):
            self._check_link(path)
        return stat.S_ISDIR(status.st_mode)

    def _read(self, path: str, status: os.stat_result) -> None:
        """Hash one regular file, refusing before reading it when it would take the sample past
        MAX_SAMPLE_BYTES (its size read from the open file: `read_regular`'s `limit`)."""
        try:
            data = read_regular(self.root / path, MAX_SAMPLE_BYTES - self.bytes)
        except TooLarge as error:
            raise _Declined("tree_too_large") from error
        if data is None:
            raise _Declined("io_error")  # it changed type while being read
        self.bytes += len(data)
        self.hashes[path] = blob_hash(data)
        inode = (status.st_dev, status.st_ino)
        links, seen = self.names.get(inode, (status.st_nlink, 0))
        self.names[inode] = (links, seen + 1)

    def _check_hard_links(self) -> None:
        """A file with more names (hard links) than the walk found in the tree has a name
        outside it: a write there changes content the sample cannot see."""
        if any(links > names for links, names in self.names.values()):
            raise _Declined("link_outside_tree")

    def _check_link(self, path: str) -> None:
        target = os.readlink(self.root / path)
        self.hashes[path] = "link:" + blob_hash(os.fsencode(target))
        resolved = os.path.realpath(self.root / path)
        if os.path.commonpath([resolved, self.real_root]) != self.real_root:
            raise _Declined("link_outside_tree")


def _content_vs_head(walk: _Walk, head: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """The fingerprint: every path whose content (or kind) differs from HEAD's."""
    found: dict[str, str] = {}
    for path, token in walk.hashes.items():
        mode, oid = head.get(path, ("", ""))
        if not oid or token != ("link:" + oid if mode == "120000" else oid):
            found[path] = token
    for path in head.keys() - walk.hashes.keys():
        found[path] = ABSENT
    return found


def _sample(root: Path) -> TreeSample:
    if not root.is_dir():
        raise _Declined("not_a_repository")
    top = os.fsdecode(_git(root, "rev-parse", "--show-toplevel")).strip()
    if os.path.normcase(os.path.realpath(top)) != os.path.normcase(os.path.realpath(root)):
        raise _Declined("not_top_level")
    head = os.fsdecode(_git(root, "rev-parse", "--verify", "-q", "HEAD")).strip()
    index = hashlib.sha256(_git(root, "ls-files", "--stage", "-v", "-z")).hexdigest()
    walk = _Walk(root)
    walk.run()
    files = _content_vs_head(walk, _head_entries(root))
    return TreeSample(
        head,
        index,
        state_digest(root, _git),
        MappingProxyType(files),
        MappingProxyType(dict(walk.modes)),
    )


# --- the main functions ---------------------------------------------------------------------


def sample_tree(root: str | Path) -> TreeSample | RestoreDecline:
    """The tree at `root` now, or the reason it cannot be vouched for. Never raises."""
    try:
        return _sample(Path(root))
    except _Declined as declined:
        return declined.reason
    except (OSError, UnicodeError, ValueError):
        return "io_error"


def tree_path(root: str | Path, path: str) -> str | None:
    """The name a sample gives the file a write to `path` (relative to `root`) lands on, or None
    when it lands outside `root` or on `root` itself.

    An agent may spell one file many ways (`./a.py`, `a//b.py`, `sub/../sub/b.py`), and a capture
    filed under any spelling but the sample's would never be matched to the sample's entry. So the
    path is resolved as the edit tool resolves it (`Path.resolve`: a link inside the tree leads to
    the file really written) and spelled as the walk spells it: parts below `root` joined by `/`.
    A link leading out of the tree gives None, never a name."""
    try:
        real_root = os.path.realpath(root)
        target = os.path.realpath(os.path.join(real_root, path))
        if target == real_root or os.path.commonpath([target, real_root]) != real_root:
            return None
    except (OSError, ValueError):  # a NUL in the path; another drive on Windows
        return None
    return "/".join(Path(os.path.relpath(target, real_root)).parts)


def changed_paths(green: TreeSample, now: TreeSample) -> frozenset[str]:
    """Every path whose content, kind or permission bits differ between the two samples."""
    content = {
        p for p in green.files.keys() | now.files.keys() if green.files.get(p) != now.files.get(p)
    }
    shape = {
        p for p in green.modes.keys() | now.modes.keys() if green.modes.get(p) != now.modes.get(p)
    }
    return frozenset(content | shape)
