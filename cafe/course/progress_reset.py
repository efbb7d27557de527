"""Starting over, and handing in: `cafe progress --reset` and `cafe progress --export`.

- `reset_progress(path, session)` moves the progress file aside to the first free
  `progress.json.backup-<n>` and, for a whole reset, leaves no file (the next cell that saves starts
  a fresh one); with `session` ("s07") the backup is a copy and only that session's entries are
  taken out of the file. Nothing is ever deleted: the backup holds everything as it was, and
  copying it back over `progress.json` undoes the reset.
- `export_progress(...)` is the learner's hand-in (`cafe.course.grading.handin`): their `work/`
  notebooks and this file in one zip with a manifest, for `cafe grade`.

`cafe.course.record_view` declares both flags on `cafe progress`. Session 00 introduces the file
(`cafe.course.progress`); docs/teaching.md says when an instructor asks a learner to reset.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from cafe.course.progress import progress_lock, save_progress
from cafe.course.progress_reading import SECTIONS
from cafe.course.record import read_progress_as_is

__all__ = ["backup_path", "reset_progress", "without_session"]


def backup_path(path: Path) -> Path:
    """The first `progress.json.backup-<n>` beside `path` that does not exist yet."""
    number = 1
    while path.with_name(f"{path.name}.backup-{number}").exists():
        number += 1
    return path.with_name(f"{path.name}.backup-{number}")


def without_session(data: dict[str, Any], session: str) -> dict[str, Any]:
    """`data` with every entry of `session` ("s07") taken out; a new dict, `data` untouched."""
    kept = {key: value for key, value in data.items() if key not in SECTIONS}
    for section in SECTIONS:
        entries = data.get(section, {})
        if section == "checkpoints":
            kept[section] = {tag: e for tag, e in entries.items() if tag != session}
        else:
            kept[section] = {k: e for k, e in entries.items() if not k.startswith(session + ".")}
    return kept


def reset_progress(path: Path, session: str | None = None) -> str:
    """Reset the progress file at `path` (see the module docstring); what was done, in a line.

    Raises `ValueError` (saying why) when a one-session reset meets a file it cannot read: that
    file is left as it is, and a whole reset (which only moves it) still works. It holds the
    progress file's lock (`cafe.course.progress.progress_lock`), so a kernel recording at the
    same moment neither loses its entry nor writes the old entries back over the reset."""
    if not path.exists():
        return f"nothing to reset: there is no progress file at {path}."
    with progress_lock(path):
        return _reset_now(path, session)


def _reset_now(path: Path, session: str | None) -> str:
    """`reset_progress`, done while it holds the lock."""
    if not path.exists():  # another process moved it while we waited for the lock
        return f"nothing to reset: there is no progress file at {path}."
    backup = backup_path(path)
    if session is None:
        os.replace(path, backup)
        return (
            f"reset: your progress file is now {backup}; the next cell that saves starts a new one."
        )
    data, _, unreadable, set_aside = read_progress_as_is(path)
    if data is None or set_aside:
        why = unreadable or "; ".join(set_aside)
        raise ValueError(
            f"{path} cannot be read entry by entry ({why}), so one session cannot be taken out; "
            "reset it whole with `cafe progress --reset`, which keeps it as a backup."
        )
    shutil.copyfile(path, backup)
    save_progress(without_session(data, session), path)
    return (
        f"reset {session}: its entries are out of {path}; the file as it was is kept as {backup}."
    )
