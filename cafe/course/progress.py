"""The progress file: what a learner predicted, tried and banked, kept in one JSON file they own.

`cafe.course` (the notebook toolkit) writes here; later sessions, and the shift report of session
09, read it back. The file is `$CAFE_HOME/progress.json`, or `~/.cafe/progress.json` when
`CAFE_HOME` is unset:

    {"version": 1,
     "predictions": {"s07.stop_reason": {"question": ..., "value": ..., "saved_at": ...}},
     "outcomes":    {"s07.stop_reason": {"predicted": ..., "actual": ..., "match": ..., ...}},
     "exercises":   {"s07.failure_view": {"status": "passed", "problems": [], ...}},
     "checkpoints": {"s07": {"attempts_to_pass": {"value": ..., "model": ..., "saved_at": ...}}},
     "live_failures": {"s08.session": {"kind": "timeout", "reason": ..., "saved_at": ...}}}

Three promises, because the file holds the learner's own work. A write is atomic (a temporary
file in the same folder, then `os.replace`), so a crash half way leaves the old file whole. An
entry that cannot be read back (`NaN` from an old version, a number thousands of digits long,
nesting thousands deep) is set aside on its own (`cafe.course.progress_reading`): the file as it
was is copied to `progress.json.set-aside-1` (then `-2`, ...), the rest is kept, and later saves
work. A file whose structure cannot be read at all is never overwritten: it is renamed aside
(`progress.json.corrupt-1`, ...) with a message saying where, and a fresh file starts; if even
the rename fails, nothing new is saved until the learner moves it. Two kernels (or a notebook and
a toy) recording at once take turns: `record` reads, changes and writes the file while it holds
`progress_lock`, so neither loses the other's entry. And no secret is saved: every
entry is scrubbed (`cafe.endpoint.secrets.redaction.redact`'s redactor) before it is written. `CAFE_HOME`
is checked where it is read (a file, a relative path or a folder you cannot write to is a
`ConfigError` naming it). Session 00 (`sessions/s00-setup/lesson.md`) introduces it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cafe.course.progress_reading import SECTIONS, read_progress
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.secrets.redaction import known_secrets, redactor_for
from cafe.endpoint.settings.environment import course_environ
from cafe.endpoint.settings.reading import regular_file_bytes
from cafe.endpoint.settings.variables import parse_home

if sys.platform != "win32":  # fcntl.flock: Linux, macOS and the other Unixes
    import fcntl

__all__ = [
    "HOME_VARIABLE",
    "PROGRESS_FILE",
    "PROGRESS_VERSION",
    "MAX_PROGRESS_BYTES",
    "SECTIONS",
    "progress_path",
    "progress_text",
    "load_progress",
    "save_progress",
    "progress_lock",
    "record",
]

# Where the file lives: `$CAFE_HOME/progress.json`, or `~/.cafe/progress.json`.
HOME_VARIABLE = "CAFE_HOME"
PROGRESS_FILE = "progress.json"
# Bumped only if the layout above changes shape; readers can then convert old files.
PROGRESS_VERSION = 1
# The largest progress file read, in bytes. A whole course, every session done, writes about
# 25 KiB (the test suite's complete runs); 8 MiB is over 300 times that, room for a learner who
# banks large values, and is read in under a second. A larger file was not written by the course
# (a log or a data file put in its place), and reading it would keep `cafe progress` busy for
# minutes with no word; it is refused instead, and left as it is.
MAX_PROGRESS_BYTES = 8 * 1024 * 1024


def progress_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$CAFE_HOME/progress.json`, or `~/.cafe/progress.json` when `CAFE_HOME` is unset or empty.

    A `CAFE_HOME` that is a file, not a full path, or a folder you cannot write to is a
    `ConfigError` saying so, with an example."""
    home = course_environ(environ).get(HOME_VARIABLE, "")
    folder = parse_home(home) if home.strip() else Path.home() / ".cafe"
    return folder / PROGRESS_FILE


def progress_text(path: Path) -> str:
    """The text of the progress file `path`, read only once it is known to be a regular file of
    at most `MAX_PROGRESS_BYTES` (`cafe.endpoint.settings.reading.regular_file_bytes`, as for a
    `.env` file), so a named pipe, `/dev/zero` or a huge file never hangs the reader.

    `FileNotFoundError` when there is no file; otherwise a `ValueError` saying why it cannot be
    read, in words that follow "your progress file ... is unusable:" ("it is a device, ...")."""
    try:
        data = regular_file_bytes(path, MAX_PROGRESS_BYTES)
    except FileNotFoundError:
        raise
    except ValueError as exc:
        raise ValueError(f"it {exc}") from None
    except OSError as exc:
        raise ValueError(f"it could not be read ({exc.strerror or exc})") from None
    if len(data) > MAX_PROGRESS_BYTES:
        raise ValueError(
            f"it is over {MAX_PROGRESS_BYTES // 2**20} MiB, far larger than any progress file the "
            "course writes (was another file saved in its place?)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"it could not be read (UnicodeDecodeError: {exc})") from None


def _empty() -> dict[str, Any]:
    return {"version": PROGRESS_VERSION, **{section: {} for section in SECTIONS}}


def _free_name(path: Path, label: str) -> Path:
    """The first `progress.json.<label>-<n>` that does not exist yet."""
    number = 1
    while path.with_name(f"{path.name}.{label}-{number}").exists():
        number += 1
    return path.with_name(f"{path.name}.{label}-{number}")


def _set_aside(path: Path) -> Path | None:
    """Rename a broken file to the first free `progress.json.corrupt-<n>`; None if we cannot."""
    target = _free_name(path, "corrupt")
    try:
        os.replace(path, target)
    except OSError:
        return None
    return target


def _unusable(path: Path, reason: str) -> tuple[dict[str, Any], bool]:
    """A file that cannot be read at all: renamed aside and reported; refused if it cannot move."""
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


def _keep_copy(path: Path, text: str, set_aside: tuple[tuple[str, str], ...]) -> bool:
    """Copy the file as it was, then say which entries were set aside; False if it cannot copy."""
    copy = _free_name(path, "set-aside")
    try:
        copy.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(
            f"cafe: your progress file {path} has entries that cannot be read back, and a copy "
            f"could not be kept ({exc}); nothing new will be saved until you fix or move it.",
            file=sys.stderr,
        )
        return False
    listed = "; ".join(f"{where} {why}" for where, why in set_aside)
    print(
        f"cafe: set aside {len(set_aside)} entr{'y' if len(set_aside) == 1 else 'ies'} of your "
        f"progress file that cannot be read back ({listed}). The file as it was is kept, "
        f"unchanged, as {copy}; everything else is kept and later saves work.",
        file=sys.stderr,
    )
    return True


def _read(path: Path) -> tuple[dict[str, Any], bool]:
    """The progress data, and whether it is safe to write back to `path`.

    A missing file is a fresh start. Entries that cannot be read back are set aside (a copy of
    the file kept first); a file that cannot be read at all is renamed aside and reported; if
    even that fails, we say so and refuse to write, so the learner's entries survive.
    """
    try:
        text = progress_text(path)
    except FileNotFoundError:
        return _empty(), True
    except ValueError as exc:
        return _unusable(path, str(exc))
    reading = read_progress(text)
    if reading.problem is not None:
        return _unusable(path, reading.problem)
    if reading.set_aside and not _keep_copy(path, text, reading.set_aside):
        return _empty(), False
    return {**_empty(), **reading.data}, True


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


@contextmanager
def progress_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for the progress file at `path` until the block ends, so that two
    processes (two kernels, a notebook and a toy) changing it take turns: each reads the file
    as the other left it, and no entry is lost.

    The lock is on the file's folder, not on the file: every save replaces the file
    (`os.replace`), so a lock on the old one would guard nothing, and a lock file would be one
    more file in the learner's folder. It is `fcntl.flock`, an advisory lock (Linux, macOS and
    the other Unixes). Windows has no `fcntl` and cannot lock a folder: there no lock is taken,
    and two writers at the very same moment can still lose one entry. A folder that cannot be
    opened or locked (missing, or a file system without locks) is not locked either; the save
    then reports its own failure, if any."""
    if sys.platform == "win32":
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # the first save creates it anyway
        handle = os.open(path.parent, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:  # a file system that does not lock: go on as before, unlocked
            pass
        yield
    finally:
        os.close(handle)  # closing the folder releases the lock


def _stored(
    data: dict[str, Any], section: str, key: str, entry: Mapping[str, Any], session: str | None
) -> None:
    """Put the scrubbed `entry` into `data` (no secret is ever saved)."""
    clean = redactor_for(known_secrets(), show_tail=True)(dict(entry))
    if session is None:
        data[section][key] = clean
    else:
        data[section].setdefault(session, {})[key] = clean


def record(section: str, key: str, entry: Mapping[str, Any], *, session: str | None = None) -> bool:
    """Read the file, set one entry, write it back; True when it was saved.

    For the notebook toolkit: a save that fails is reported on stderr, never raised into a cell.
    """
    if section not in SECTIONS:
        raise ValueError(
            f"{section!r} is not a progress section; use one of {', '.join(SECTIONS)}."
        )
    try:
        path = progress_path()
    except ConfigError as exc:
        print(f"cafe: did not save {section}/{key}: {exc}", file=sys.stderr)
        return False
    with progress_lock(path):
        return _record_now(path, section, key, entry, session)


def _record_now(
    path: Path, section: str, key: str, entry: Mapping[str, Any], session: str | None
) -> bool:
    """`record`'s read, change and write, done while it holds the lock."""
    data, writable = _read(path)
    if not writable:
        return False
    _stored(data, section, key, entry, session)
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
        print(
            f"cafe: did not save {section}/{key} to your progress file: the new entry holds a "
            f"value JSON cannot store ({exc}); the file is unchanged.",
            file=sys.stderr,
        )
        return False
    return True
