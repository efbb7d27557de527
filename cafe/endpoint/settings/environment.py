"""Where the course's settings come from: the environment, then a `.env` file beside it.

Every setting the course reads (`COURSE_MODE`, `CAFE_BASE_URL`, `CAFE_MAX_TOKENS`, ...) is looked
up in one mapping, `course_environ()`: the process environment first, then the `KEY=value` lines
of a `.env` file in the working directory. The environment wins where both name a variable, so a
one-off `COURSE_MODE=offline cafe toy 07` overrides the file. A `.env` file is the same on every
operating system, where `export` (bash) and `$env:` (PowerShell) are not.

`CAFE_ENV_FILE` names another file to read instead (`CAFE_ENV_FILE=~/course.env`), or, set to
nothing, turns the file off; the test suite does that so a learner's own `.env` cannot send it live.
The file is read when a setting is asked for, never at import, so a notebook that edits `.env` (or
`os.environ`) and re-runs a cell sees the change. Values are read with python-dotenv's
`dotenv_values`, which never changes `os.environ`.

Session 00 (`sessions/s00-setup/lesson.md`, and `docs/doctor.md`) shows both ways.
"""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Mapping
from pathlib import Path

from cafe.endpoint.errors import ConfigError

__all__ = ["ENV_FILE", "ENV_FILE_VARIABLE", "env_file", "file_settings", "course_environ"]

# The settings file read from the working directory unless `CAFE_ENV_FILE` names another.
ENV_FILE = ".env"
ENV_FILE_VARIABLE = "CAFE_ENV_FILE"


def env_file(environ: Mapping[str, str] | None = None) -> Path | None:
    """The settings file to read: `CAFE_ENV_FILE` when set (None when set to nothing; a
    `ConfigError` when it names no file), else `.env` in the working directory if there is one."""
    env = os.environ if environ is None else environ
    named = env.get(ENV_FILE_VARIABLE)
    if named is not None:
        if not named.strip():
            return None
        path = Path(named.strip()).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"{ENV_FILE_VARIABLE} is {named.strip()!r}: there is no such file; e.g. "
                f"`export {ENV_FILE_VARIABLE}=~/course.env`, or set it to nothing to read no file."
            )
        return path
    path = Path.cwd() / ENV_FILE
    return path if path.is_file() else None


def file_settings(path: Path) -> dict[str, str]:
    """The `KEY=value` settings in `path`, as python-dotenv reads them (a key with no value is left
    out). A file that cannot be read as text counts as empty: the doctor names it (`env_file`)."""
    from dotenv import dotenv_values  # imported here so that `import cafe` stays light

    try:
        values = dotenv_values(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    return {key: value for key, value in values.items() if value is not None}


def course_environ(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """The settings the course reads: `environ` itself when given (tests and notebooks pass one);
    otherwise `os.environ`, falling back to the settings file for what it does not set."""
    if environ is not None:
        return environ
    path = env_file()
    if path is None:
        return os.environ
    return ChainMap(os.environ, file_settings(path))
