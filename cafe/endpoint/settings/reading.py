"""Reading one settings file: a regular file of a few lines, in UTF-8, or one line saying why not.

A `.env` file is the learner's input like any variable, so it is checked where it enters. Before
this module the file was handed to python-dotenv as it was, and three kinds of file went wrong:
a named pipe made every command wait forever for a writer, `/dev/zero` was read until memory ran
out, and a file saved in Latin-1 or UTF-16 was quietly taken as empty while the doctor called the
settings valid. Now the file is read in three steps, each of which either passes or raises one
`ConfigError` line that names the file and the fix:

1. its type, from `os.stat` before it is opened: only a regular file is read (a folder, a named
   pipe, a device or a socket is refused by name);
2. its size: at most `MAX_SETTINGS_BYTES`, and no more than that is ever read;
3. its text: UTF-8, with or without the byte-order mark Windows editors write, or UTF-16 with its
   mark (Notepad's "Unicode"); any other byte sequence, and a NUL, is refused.

Then python-dotenv reads the `KEY=value` lines from the text (`dotenv_values`, which never changes
`os.environ`); a line that is not `NAME=value` (a lone value without its name among them) is
refused by its number rather than skipped unseen. Which file is read, and from where, is
`cafe.endpoint.settings.environment`; `regular_file_bytes`, steps 1 and 2 on their own, also
guards the progress file (`cafe.course.progress`).
Session 00 (`sessions/s00-setup/lesson.md`) and `docs/doctor.md` show a `.env` file.
"""

from __future__ import annotations

import codecs
import functools
import io
import os
import stat
from pathlib import Path

from cafe.endpoint.errors import ConfigError

__all__ = [
    "MAX_SETTINGS_BYTES",
    "shown_path",
    "file_kind",
    "regular_file_bytes",
    "settings_bytes",
    "settings_text",
    "read_settings",
]

# The largest settings file read, in bytes. The course's eight variables take under 1 KiB with
# comments; 64 KiB leaves room for other tools' lines in a shared `.env` while refusing a device
# such as /dev/zero, or a log or data file named by mistake, before memory runs out.
MAX_SETTINGS_BYTES = 64 * 1024
# The byte-order marks decoded (a UTF-16 file without one is refused: its NUL bytes give it away).
UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# What each kind of file that is not a regular file is called in a message, by `stat` test.
KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (reading it would wait for a writer)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)
# What to do about a file that cannot be read, said at the end of every refusal.
FIX = (
    "make it a plain text file of KEY=value lines saved as UTF-8, or point CAFE_ENV_FILE at one "
    "(set to nothing, CAFE_ENV_FILE reads no file)"
)
SAVE_AS_UTF8 = (
    "save it as UTF-8 (most editors: Save As, encoding UTF-8) and run `cafe doctor` again"
)


def shown_path(path: Path) -> str:
    """`path` as a message shows it: as it is, or quoted when it holds a character that would
    break the one line (a newline, a control character)."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def file_kind(mode: int) -> str | None:
    """What a file of this `st_mode` is called when it is not a regular file (None when it is)."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def _refused(path: Path, problem: str, fix: str = FIX) -> ConfigError:
    return ConfigError(f"The settings file {shown_path(path)} {problem}; {fix}.")


def regular_file_bytes(path: Path, limit: int) -> bytes:
    """At most `limit` + 1 bytes of `path`, once `os.stat` says it is a regular file: a
    `ValueError` ("is a named pipe (...), not a regular file") when it is not, and the `OSError`
    of a file that cannot be opened or read as it is. Never blocks on a pipe and never reads
    without limit, so any file a learner names can be checked this way (the progress file too,
    `cafe.course.progress`); a caller that gets `limit` + 1 bytes knows the file is too big."""
    kind = file_kind(os.stat(path).st_mode)
    if kind is not None:
        raise ValueError(f"is {kind}, not a regular file")
    # O_NONBLOCK: should the file be swapped for a pipe after the check, opening it still returns.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    with open(descriptor, "rb", closefd=True) as handle:
        kind = file_kind(os.fstat(descriptor).st_mode)
        if kind is not None:
            raise ValueError(f"is {kind}, not a regular file")
        return handle.read(limit + 1)


def _read_bytes(path: Path) -> bytes:
    """At most `MAX_SETTINGS_BYTES` + 1 bytes of `path`, once it is known to be a regular file."""
    try:
        return regular_file_bytes(path, MAX_SETTINGS_BYTES)
    except ValueError as exc:
        raise _refused(path, str(exc)) from None
    except OSError as exc:  # missing, a dangling link, a file in /proc that would block
        raise _refused(path, f"cannot be read ({exc.strerror or exc})") from None


def _decode(path: Path, data: bytes) -> str:
    """The text of `data`: UTF-8 (a leading byte-order mark dropped), or UTF-16 with its mark."""
    encoding = "utf-16" if data.startswith(UTF16_MARKS) else "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        if b"\x00" in data and encoding != "utf-16":  # UTF-16 without its mark, most likely
            text = "\x00"
        else:
            problem = (
                "starts with a UTF-16 byte-order mark but is not UTF-16 text"
                if encoding == "utf-16"
                else f"is not UTF-8 text (byte 0x{data[exc.start]:02X} at position {exc.start} "
                "is not UTF-8: was it saved as Latin-1 or Windows-1252?)"
            )
            raise _refused(path, problem, SAVE_AS_UTF8) from None
    if "\x00" in text:
        raise _refused(
            path,
            "holds a NUL character, which a text settings file never does (saved as UTF-16 "
            "without a byte-order mark, or not a text file at all?)",
            SAVE_AS_UTF8,
        )
    return text


def settings_bytes(path: Path) -> bytes:
    """The bytes of the settings file `path` once its type and size have passed (steps 1 and 2
    of the module docstring); never blocks, and never reads more than `MAX_SETTINGS_BYTES` + 1."""
    data = _read_bytes(path)
    if len(data) > MAX_SETTINGS_BYTES:
        raise _refused(
            path,
            f"is over {MAX_SETTINGS_BYTES // 1024} KiB, far more than a few settings need",
        )
    return data


def settings_text(path: Path) -> str:
    """The text of the settings file `path`, checked as the module docstring says; a
    `ConfigError` of one line names the file, what is wrong with it, and the fix."""
    return _decode(path, settings_bytes(path))


def _first_line(original: str, line: int) -> int:
    """The number of the line a binding's text starts on: python-dotenv counts from the blank
    lines before it (`line`), which the text (`original`) begins with."""
    blank = original[: len(original) - len(original.lstrip())]
    return line + blank.count("\n")


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> tuple[tuple[tuple[str, str], ...], int | None]:
    """(the `NAME=value` settings in `text`, the number of its first line that is not one, or
    None). python-dotenv reads a line with no "=" as a name with no value; such a line is counted
    as unreadable too, as docs/doctor.md says: it is a value pasted without its name (the key,
    most likely), a name whose value was forgotten, or text decoded in the wrong encoding, and
    skipping it would let the doctor call the settings valid. Kept for the last few texts: a run
    asks for its settings at every call, and the file seldom changes."""
    from dotenv import dotenv_values  # imported here so that `import cafe` stays light
    from dotenv.parser import parse_stream

    for binding in parse_stream(io.StringIO(text)):
        if binding.error or (binding.key is not None and binding.value is None):
            return (), _first_line(binding.original.string, binding.original.line)
    values = dotenv_values(stream=io.StringIO(text))
    return tuple((key, value) for key, value in values.items() if value is not None), None


def read_settings(path: Path) -> dict[str, str]:
    """The `NAME=value` settings in the file `path`, as python-dotenv reads them from its checked
    text; a `ConfigError` when the file cannot be read, or holds a line that is not a setting
    (a lone word or value included; named by its number only: the line may hold the key)."""
    settings, bad_line = _parsed(settings_text(path))
    if bad_line is not None:
        raise _refused(
            path,
            f"has a line it cannot read as NAME=value (line {bad_line})",
            "write it as e.g. COURSE_MODE=live (a # starts a comment), and run `cafe doctor` again",
        )
    return dict(settings)
