"""Writers that share one progress file (red team L, item 10): two processes recording at once
keep every entry, because `record` reads, changes and writes the file under `progress_lock`.

Before the lock, two kernels each recording 40 failures were told 80 of 80 were saved, and the
file kept 41. The first test runs real processes, started together at a barrier (no sleeps);
the second shows, without any race, that the lock is held while a record writes."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from typing import Any

import pytest

import cafe.course.progress as progress
from cafe.course.progress import progress_lock, record
from cafe.course.progress_reset import reset_progress

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fcntl.flock")

ENTRY = {"kind": "timeout", "reason": "x", "model": "x", "saved_at": "t"}
WRITERS, EACH = 3, 40


def _writer(who: int, start: Any, saved: Any) -> None:
    """One process: wait for the others, then record `EACH` failures of its own."""
    start.wait(timeout=120)
    saved.put(sum(record("live_failures", f"s{who:02d}.story{i}", ENTRY) for i in range(EACH)))


def test_writers_at_once_keep_every_entry_they_were_told_was_saved(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    context = multiprocessing.get_context("fork")
    start, saved = context.Barrier(WRITERS), context.Queue()
    writers = [context.Process(target=_writer, args=(w, start, saved)) for w in range(WRITERS)]
    for writer in writers:
        writer.start()
    told = [saved.get(timeout=120) for _ in writers]
    for writer in writers:
        writer.join(timeout=120)
    kept = json.loads((tmp_path / "progress.json").read_text())["live_failures"]
    assert told == [EACH] * WRITERS and len(kept) == WRITERS * EACH
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.json"]  # no lock file left


def _folder_locked(folder: os.PathLike[str]) -> bool:
    """True when another open of `folder` cannot take its lock now (someone holds it)."""
    import fcntl

    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    return False


def _noting_the_lock(function: Any, folder: os.PathLike[str], seen: list[bool]) -> Any:
    """`function`, noting in `seen` whether the folder's lock is held each time it is called."""

    def noted(*args: Any) -> Any:
        seen.append(_folder_locked(folder))
        return function(*args)

    return noted


def test_record_holds_the_lock_from_its_read_to_its_write(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    seen: list[bool] = []
    monkeypatch.setattr(progress, "_read", _noting_the_lock(progress._read, tmp_path, seen))
    save = _noting_the_lock(progress.save_progress, tmp_path, seen)
    monkeypatch.setattr(progress, "save_progress", save)
    assert record("live_failures", "s00.story", ENTRY)
    assert seen == [True, True] and not _folder_locked(tmp_path)  # held while it ran, then let go


def test_a_one_session_reset_holds_the_lock_too(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    record("live_failures", "s07.story", ENTRY)
    seen: list[bool] = []
    save = _noting_the_lock(progress.save_progress, tmp_path, seen)
    monkeypatch.setattr("cafe.course.progress_reset.save_progress", save)
    reset_progress(tmp_path / "progress.json", "s07")
    assert seen == [True]


def test_the_lock_is_let_go_when_the_block_raises(tmp_path):
    with pytest.raises(RuntimeError), progress_lock(tmp_path / "progress.json"):
        assert _folder_locked(tmp_path)
        raise RuntimeError("a failed save")
    assert not _folder_locked(tmp_path)
