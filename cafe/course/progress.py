"""The progress file: what a learner predicted, tried and banked, kept in one JSON file they own.

`cafe.course` (the notebook toolkit) writes here; later sessions, and the shift report of session
09, read it back. The file is `$CAFE_HOME/progress.json`, or `~/.cafe/progress.json` when
`CAFE_HOME` is unset:

    {"version": 1,
     "predictions": {"s07.stop_reason": {"question": ..., "value": ..., "saved_at": ...}},
     "outcomes":    {"s07.stop_reason": {"predicted": ..., "actual": ..., "match": ..., ...}},
     "exercises":   {"s07.failure_view": {"status": "passed", "problems": [], ...}},
     "checkpoints": {"s07": {"attempts_to_pass": {"value": ..., "model": ..., "saved_at": ...}}}}

Two promises, because the file holds the learner's own work. A write is atomic (a temporary file
in the same folder, then `os.replace`), so a crash half way leaves the old file whole. And a file
that cannot be read is never overwritten: it is renamed aside (`progress.json.corrupt-1`, then
`-2`, ...) with a message saying where, and a fresh file starts; if even the rename fails, nothing
new is saved until the learner moves it. Session 00 (`sessions/s00-setup/lesson.md`) introduces it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "HOME_VARIABLE",
    "PROGRESS_FILE",
    "PROGRESS_VERSION",
    "SECTIONS",
    "progress_path",
    "load_progress",
    "save_progress",
    "record",
]

# Where the file lives: `$CAFE_HOME/progress.json`, or `~/.cafe/progress.json`.
HOME_VARIABLE = "CAFE_HOME"
PROGRESS_FILE = "progress.json"
# Bumped only if the layout above changes shape; readers can then convert old files.
PROGRESS_VERSION = 1
# The sections. Checkpoints nest by session ("s07" -> name -> entry); the others are keyed by key.
SECTIONS = ("predictions", "outcomes", "exercises", "checkpoints")


def progress_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$CAFE_HOME/progress.json`, or `~/.cafe/progress.json` when `CAFE_HOME` is unset or empty."""
    env = os.environ if environ is None else environ
    home = env.get(HOME_VARIABLE, "").strip()
    folder = Path(home).expanduser() if home else Path.home() / ".cafe"
    return folder / PROGRESS_FILE


def _empty() -> dict[str, Any]:
    return {"version": PROGRESS_VERSION, **{section: {} for section in SECTIONS}}


def _problem_with(data: Any) -> str | None:
    """Why `data` is not a progress record, or None when it is one."""
    if not isinstance(data, dict):
        return f"it holds a JSON {type(data).__name__}, not an object"
    for section in SECTIONS:
        if not isinstance(data.get(section, {}), dict):
            return f"its {section!r} entry is not an object"
    for session, entries in data.get("checkpoints", {}).items():
        if not isinstance(entries, dict):
            return f"its checkpoints for {session!r} are not an object"
    return None


def _set_aside(path: Path) -> Path | None:
    """Rename a broken file to the first free `progress.json.corrupt-<n>`; None if we cannot."""
    number = 1
    while path.with_name(f"{path.name}.corrupt-{number}").exists():
        number += 1
    target = path.with_name(f"{path.name}.corrupt-{number}")
    try:
        os.replace(path, target)
    except OSError:
        return None
    return target


def _read(path: Path) -> tuple[dict[str, Any], bool]:
    """The progress data, and whether it is safe to write back to `path`.

    A missing file is a fresh start. A file we cannot read or parse is renamed aside and reported;
    if even the rename fails, we say so and refuse to write, so the learner's entries survive.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _empty(), True
    except (OSError, UnicodeDecodeError) as exc:
        reason = f"it could not be read ({type(exc).__name__}: {exc})"
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            reason = f"it is not valid JSON ({exc})"
        else:
            reason = _problem_with(data)
            if reason is None:
                return {**_empty(), **data}, True
    kept = _set_aside(path)
    if kept is None:
        print(
            f"cafe: your progress file {path} is unusable: {reason}. It could not be moved aside, "
            "so it is left untouched and nothing new will be saved until you move or fix it.",
            file=sys.stderr,
        )
        return _empty(), False
    print(
        f"cafe: your progress file {path} is unusable: {reason}. The old file is kept, unchanged, "
        f"as {kept}; a fresh progress file starts now (copy entries back from the old one if you "
        "want them).",
        file=sys.stderr,
    )
    return _empty(), True


def load_progress(path: str | Path | None = None) -> dict[str, Any]:
    """Everything recorded so far: {"version", "predictions", "outcomes", "exercises", "checkpoints"}.

    Never raises for a missing or broken file: a broken one is set aside as described above.
    """
    data, _ = _read(Path(path) if path is not None else progress_path())
    return data


def save_progress(data: Mapping[str, Any], path: str | Path | None = None) -> Path:
    """Write `data` to the progress file atomically: a temp file in the same folder, then os.replace.

    A crash half way leaves the old file whole. The folder is created when missing.
    """
    target = Path(path) if path is not None else progress_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    handle, temp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(text)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return target


def record(section: str, key: str, entry: Mapping[str, Any], *, session: str | None = None) -> bool:
    """Read the file, set one entry, write it back; True when it was saved.

    For the notebook toolkit: a save that fails is reported on stderr, never raised into a cell.
    """
    if section not in SECTIONS:
        raise ValueError(
            f"{section!r} is not a progress section; use one of {', '.join(SECTIONS)}."
        )
    path = progress_path()
    data, writable = _read(path)
    if not writable:
        return False
    if session is None:
        data[section][key] = dict(entry)
    else:
        data[section].setdefault(session, {})[key] = dict(entry)
    try:
        save_progress(data, path)
    except OSError as exc:
        print(
            f"cafe: could not save to your progress file {path} ({exc}); "
            f"set {HOME_VARIABLE} to a folder you can write to.",
            file=sys.stderr,
        )
        return False
    except (TypeError, ValueError) as exc:  # a value JSON cannot hold, such as NaN or a set
        print(f"cafe: did not save {section}/{key} to your progress file: {exc}", file=sys.stderr)
        return False
    return True
