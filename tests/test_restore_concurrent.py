"""Two restores of one tree at the same time: one writes, the other finds it done (red team A26).

The principle, in one sentence: one restore of a tree runs at a time, and what each restore
reports is true of the tree it leaves. Two processes restoring the same tree used to interleave
their writes and samples: both claimed the restore, one reported `restore_unverified` about a
tree that ended restored, or `io_error` on a file the other had set aside.

The race is made certain rather than hoped for: the test holds the lock on the tree's folder
itself (its own `fcntl.flock`, not `tree_lock`), starts two real processes that restore, waits
until both say they are waiting for the lock, and lets go. The audit reads the tree with its own
walk (`os.lstat`, raw bytes), never with the sample the restore trusts. The edits are generated
(Hypothesis): files rewritten or deleted, files and folders made, each through a capture.
Nothing sleeps to wait for an absence: every wait is on a queue or a process, with a deadline.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.tree_lock import POLL_S, Waiting, tree_lock
from cafe.monitors.worktree import RESTORE_DECLINES, sample_tree
from cafe.world.workbench import open_workbench

if sys.platform != "win32":
    import fcntl

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="Windows takes no lock: tree_lock.py says what happens there"
)

# How long any one wait may take before the test fails instead of hanging: a restore of the till
# takes a fraction of a second, so this is only reached when something is stuck.
DEADLINE_S = 60
# fork starts a restorer without importing the course again; spawn where there is no fork.
CONTEXT = multiprocessing.get_context(
    "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
)
# What an edit may do to a path: the till's three files, a new file, a new file in a new folder.
PATHS = ["bill.py", "check_bill.py", "pytest.ini", "new.py", "notes/new.txt"]
EDITS = st.dictionaries(
    st.sampled_from(PATHS),
    st.one_of(st.none(), st.binary(max_size=12)),  # None: delete it; bytes: write them
    min_size=1,
)


def audit(root: Path) -> dict[str, tuple]:
    """Every entry below `root` but `.git`: kind, permission bits, and content or link target."""
    found: dict[str, tuple] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not (folder == str(root) and d == ".git")]
        for name in dirs + names:
            path = Path(folder, name)
            status = path.lstat()
            kind, bits = stat.S_IFMT(status.st_mode), stat.S_IMODE(status.st_mode)
            content = path.read_bytes() if stat.S_ISREG(status.st_mode) else None
            found[path.relative_to(root).as_posix()] = (kind, bits, content)
    return found


def edit(root: Path, store: SnapshotStore, edits: dict[str, bytes | None]) -> bool:
    """The harness's edit tool on each path (capture, then write or delete); True if any changed."""
    changed = False
    for path, data in sorted(edits.items()):
        target = root / path
        store.capture(root, path)
        if data is None and target.exists():
            target.unlink()
            changed = True
        elif data is not None:
            target.parent.mkdir(exist_ok=True)
            changed |= not target.exists() or target.read_bytes() != data
            target.write_bytes(data)
    return changed


def reset(root: Path) -> None:
    """The test's own way back to HEAD (the green point of every test here)."""
    subprocess.run(["git", "clean", "-fdxq"], cwd=root, check=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)


def hold(root: Path) -> int:
    """The test's own lock on the tree's folder; closing the descriptor lets go."""
    fd = os.open(root, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _restorer(root, green, store, mark, events) -> None:
    """One restore; it says so on `events` the first time it finds the lock taken, and at the end
    says what it reported."""
    said: list[bool] = []

    def sleep(seconds: float) -> None:
        if not said:
            said.append(True)
            events.put(("waiting", os.getpid()))
        time.sleep(seconds)

    outcome = restore(root, green, store, mark, waiting=Waiting(DEADLINE_S, sleep=sleep))
    events.put(("done", outcome.declined, outcome.restored))


def _holder(root, held, let_go) -> None:
    """The test's own lock on the tree's folder, in a process of its own (a forked restorer would
    inherit a descriptor of the parent's, and the lock with it), held until told to let go."""
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.put(os.getpid())
        let_go.get(timeout=DEADLINE_S)
    finally:
        os.close(fd)


def race(root: Path, green, store: SnapshotStore, mark: int) -> list[tuple]:
    """Two restores of `root`, both started while the test holds the tree's lock, then let go at
    once: what each one reported. A restore that ends while the lock is held fails the test."""
    held, let_go, events = CONTEXT.Queue(), CONTEXT.Queue(), CONTEXT.Queue()
    holder = CONTEXT.Process(target=_holder, args=(root, held, let_go))
    args = (root, green, store, mark, events)
    restorers = [CONTEXT.Process(target=_restorer, args=args) for _ in range(2)]
    try:
        holder.start()
        held.get(timeout=DEADLINE_S)
        for restorer in restorers:
            restorer.start()
        for _ in restorers:  # both are inside restore, waiting for the lock
            event = events.get(timeout=DEADLINE_S)
            assert event[0] == "waiting", f"a restore ran while the tree was locked: {event}"
        let_go.put("go")
        return [events.get(timeout=DEADLINE_S)[1:] for _ in restorers]
    finally:
        let_go.put("go")  # a second one is never read
        for process in (holder, *restorers):
            process.join(DEADLINE_S)
            if process.is_alive():
                process.kill()


@pytest.fixture(scope="module")
def bench():
    with open_workbench() as opened:
        yield opened


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=EDITS)
def test_two_restores_at_once_one_restores_and_the_other_finds_nothing_to_do(bench, edits):
    root = bench.root
    reset(root)
    store, green, before = SnapshotStore(), sample_tree(root), audit(root)
    mark = store.mark()
    if not edit(root, store, edits):
        return  # nothing differs from green: no restore to race
    edited = audit(root)
    reports = race(root, green, store, mark)
    counts = collections.Counter(declined for declined, _ in reports)
    assert counts == {None: 1, "nothing_to_restore": 1}, reports
    assert audit(root) == before  # each one left the green tree, read by the test's own walk
    written = next(restored for declined, restored in reports if declined is None)
    assert set(written) == {
        p for p in before.keys() | edited.keys() if before.get(p) != edited.get(p)
    }


def test_a_restore_waits_out_its_deadline_then_declines_and_writes_nothing(bench):
    root = bench.root
    reset(root)
    store, green = SnapshotStore(), sample_tree(root)
    mark = store.mark()
    edit(root, store, {"bill.py": b"broken\n"})
    broken = audit(root)
    now, sleeps = [0.0], []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    fd = hold(root)
    try:
        waiting = Waiting(10 * POLL_S, clock=lambda: now[0], sleep=sleep)
        outcome = restore(root, green, store, mark, waiting=waiting)
        assert sample_tree(root) != green  # the test's lock left the tree as it was
    finally:
        os.close(fd)
    assert (outcome.declined, outcome.restored) == ("tree_locked", ())
    assert "tree_locked" in RESTORE_DECLINES
    assert 10 <= len(sleeps) <= 11 and set(sleeps) == {POLL_S} and audit(root) == broken
    assert restore(root, green, store, mark).declined is None  # once free, it restores


def test_the_lock_adds_nothing_to_the_tree_and_a_link_to_it_shares_it(bench, tmp_path):
    root = bench.root
    reset(root)
    before, walked, link = sample_tree(root), audit(root), tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    with tree_lock(link) as state:
        assert state == "held"
        assert sample_tree(root) == before and audit(root) == walked
        with tree_lock(root, Waiting(0)) as second:
            assert second == "busy"  # the same folder, however it was reached
    with tree_lock(root, Waiting(0)) as again:
        assert again == "held"  # let go at the end of the block


def test_a_tree_where_the_lock_cannot_be_taken_is_named_not_hung(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for root in (pipe, tmp_path / "missing", str(tmp_path) + "\0"):
        with tree_lock(root, Waiting(0)) as state:
            assert state == "unlocked"
    assert restore(pipe, None, SnapshotStore(), 0).declined == "no_green_point"
    assert restore(pipe, sample_tree(pipe), SnapshotStore(), 0).declined == "not_a_repository"


@pytest.mark.parametrize("seconds", [-1, float("nan"), float("inf"), True, "30"])
def test_waiting_refuses_a_deadline_that_is_not_a_finite_number_of_seconds(seconds):
    with pytest.raises(ValueError, match="finite number of seconds"):
        Waiting(seconds)
