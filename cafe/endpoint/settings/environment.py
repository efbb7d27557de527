"""Where the course's settings come from: the environment, then the course's `.env` file.

Every setting the course reads (`COURSE_MODE`, `CAFE_BASE_URL`, `CAFE_MAX_TOKENS`, ...) is looked
up in one mapping, `course_environ()`: the process environment first, then the `KEY=value` lines
of a `.env` file. The environment wins where both name a variable, so a one-off
`COURSE_MODE=offline cafe toy 07` overrides the file. A `.env` file is the same on every
operating system, where `export` (bash) and `$env:` (PowerShell) are not.

Which `.env` file, in one rule: **the nearest `.env` from the current folder up to the course
root**, where the course root is the nearest folder at or above the current one that holds a
`pyproject.toml` (the top of the course's checkout does). So a `.env` beside the course's
`pyproject.toml` is read from the root, from `work/`, from `notebooks/` (where a notebook's kernel
runs) and from any folder below them; a `.env` in a subfolder applies there and below. The walk
never climbs past the root, so a `.env` elsewhere in your home folder is never read by accident;
outside any checkout (no `pyproject.toml` above) only the current folder's `.env` is read. A
folder named `.env` (some people name a virtual environment so) is passed over.

`CAFE_ENV_FILE` names the file instead (`CAFE_ENV_FILE=~/course.env`), or, set to nothing, turns
the file off; the test suite does that so a learner's own `.env` cannot send it live. The file is
read when a setting is asked for, never at import, so a notebook that edits `.env` (or
`os.environ`) and re-runs a cell sees the change. How one file is read, and refused when it
cannot be, is `cafe.endpoint.settings.reading`; `cafe doctor` says which file was read and why.

Session 00 (`sessions/s00-setup/lesson.md`, and `docs/doctor.md`) shows both ways.
"""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.reading import read_settings, settings_bytes, shown_path

__all__ = [
    "ENV_FILE",
    "ENV_FILE_VARIABLE",
    "ROOT_MARKER",
    "SettingsFile",
    "course_root",
    "folders_searched",
    "find_env_file",
    "env_file",
    "file_settings",
    "course_environ",
    "settings_snapshot",
]

# The settings file looked for, from the current folder up to the course root.
ENV_FILE = ".env"
# The variable that names another file instead (or, set to nothing, none).
ENV_FILE_VARIABLE = "CAFE_ENV_FILE"
# What marks the course root: the top folder of the course's checkout holds its pyproject.toml.
ROOT_MARKER = "pyproject.toml"


@dataclass(frozen=True)
class SettingsFile:
    """The settings file the course reads (`path`, None for none), and why that one (`origin`,
    a phrase the doctor prints after the path, e.g. "named by CAFE_ENV_FILE")."""

    path: Path | None
    origin: str


def course_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds a `ROOT_MARKER` (None when none does)."""
    marked = (f for f in (start, *start.parents) if os.path.isfile(os.path.join(f, ROOT_MARKER)))
    return next(marked, None)


def folders_searched(start: Path) -> tuple[Path, ...]:
    """The folders whose `.env` counts, nearest first: `start` and each folder above it up to the
    course root; only `start` outside a course checkout."""
    return _up_to(start, course_root(start))


def _up_to(start: Path, root: Path | None) -> tuple[Path, ...]:
    if root is None:
        return (start,)
    return (start, *start.parents[: len(start.parents) - len(root.parents)])


def _named(named: str) -> SettingsFile:
    """The file `CAFE_ENV_FILE` names (`named`, not blank), which must exist."""
    text = named.strip()
    try:
        path = Path(text).expanduser()
    except RuntimeError:  # "~someone" who does not exist, or no home folder to expand "~" to
        raise ConfigError(
            f"{ENV_FILE_VARIABLE} is {text!r}: its ~ names no user (or home folder) this machine "
            f"knows; write the full path, e.g. `export {ENV_FILE_VARIABLE}=/home/you/course.env`, "
            "or set it to nothing to read no file."
        ) from None
    if not os.path.lexists(path):
        raise ConfigError(
            f"{ENV_FILE_VARIABLE} is {text!r}: there is no such file; e.g. "
            f"`export {ENV_FILE_VARIABLE}=~/course.env`, or set it to nothing to read no file."
        )
    return SettingsFile(path, f"named by {ENV_FILE_VARIABLE}")


def _nearest(start: Path) -> SettingsFile:
    """The nearest `.env` from `start` up to the course root, as the module docstring says, with
    the doctor's wording of where the search looked. The search itself is `_nearest_path`."""
    found, searched = _nearest_path(str(start)), _searched(start, course_root(start))
    if found is None:
        return SettingsFile(None, f"no {ENV_FILE} file{searched}")
    return SettingsFile(Path(found), f"the nearest {ENV_FILE}{searched}")


def _nearest_path(start: str) -> str | None:
    """The nearest `.env` from `start` up to the course root, found with string paths alone: the
    redactor asks this before every quote it scrubs (`settings_snapshot`), tens of thousands of
    times a story, and building `Path` objects and the doctor's wording was most of that cost."""
    folders = []
    folder = start
    while True:
        folders.append(folder)
        if os.path.isfile(os.path.join(folder, ROOT_MARKER)):
            break
        parent = os.path.dirname(folder)
        if parent == folder:  # no course root above: only the starting folder counts
            folders = [start]
            break
        folder = parent
    for folder in folders:
        path = os.path.join(folder, ENV_FILE)
        if os.path.lexists(path) and not os.path.isdir(path):
            return path
    return None


def _searched(start: Path, root: Path | None) -> str:
    """Where the search for a `.env` from `start` to `root` looked, as the doctor says it."""
    if root is None:
        return (
            f" in the current folder {shown_path(start)}, which is outside any course checkout "
            f"(no {ROOT_MARKER} in it or above it)"
        )
    if root == start:
        return f" in the course root {shown_path(root)}"
    return f" from {shown_path(start)} up to the course root {shown_path(root)}"


def find_env_file(
    environ: Mapping[str, str] | None = None, cwd: Path | None = None
) -> SettingsFile:
    """The settings file to read and why: the one `CAFE_ENV_FILE` names (none when it is set to
    nothing; a `ConfigError` when it names no file), else the nearest `.env` from `cwd` (the
    current folder) up to the course root."""
    env = os.environ if environ is None else environ
    named = env.get(ENV_FILE_VARIABLE)
    if named is not None:
        if not named.strip():
            return SettingsFile(None, f"{ENV_FILE_VARIABLE} is set to nothing: no file is read")
        return _named(named)
    return _nearest(Path.cwd() if cwd is None else cwd)


def env_file(environ: Mapping[str, str] | None = None) -> Path | None:
    """The path of the settings file to read (`find_env_file`), or None when there is none."""
    env = os.environ if environ is None else environ
    if env.get(ENV_FILE_VARIABLE) is not None:
        return find_env_file(environ).path
    found = _nearest_path(os.getcwd())
    return None if found is None else Path(found)


def file_settings(path: Path) -> dict[str, str]:
    """The `KEY=value` settings in `path`; a `ConfigError` of one line, naming the file and the
    fix, when it is not a regular UTF-8 (or marked UTF-16) file of at most 64 KiB."""
    return read_settings(path)


def course_environ(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The settings the course reads: `environ` itself when given (tests and notebooks pass one);
    otherwise `os.environ`, falling back to the settings file for what it does not set. A file
    that is named but missing, or cannot be read, raises one `ConfigError` line."""
    if environ is not None:
        return environ
    path = env_file()
    if path is None:
        return os.environ
    return ChainMap(os.environ, file_settings(path))


def settings_snapshot() -> tuple[str, bytes | str] | None:
    """What the settings file holds now, in a form cheap to compare, for a cache that must know
    when to read the settings again (the redactor's `known_secrets`): (its path, its bytes), or
    (its path or `CAFE_ENV_FILE`'s value, why it cannot be read); None when no file is read. Never
    raises, never blocks on a pipe, never reads more than `reading.MAX_SETTINGS_BYTES` + 1."""
    try:
        path = env_file()
        return None if path is None else (str(path), settings_bytes(path))
    except ConfigError as exc:
        return os.environ.get(ENV_FILE_VARIABLE, ENV_FILE), str(exc)
