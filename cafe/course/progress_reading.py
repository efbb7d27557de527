"""Reading the progress file without losing anything: what cannot be read is set aside, one entry at a time.

The progress file (`cafe.course.progress`) holds a learner's own work, and it is input like any
other: an old version of the course, an editor or a crash may have left something in it that
cannot be read back. `read_progress(text)` reads it entry by entry. The file's structure (one
object, four sections of objects, checkpoints grouped by session) is found by a scan that never
recurses, and each entry is then parsed on its own, so one bad entry cannot take the others with
it. An entry is set aside when it:

- is not JSON at all, or nests deeper than `MAX_DEPTH` (Python's parser would raise
  `RecursionError` on it);
- holds `NaN` or `Infinity` (Python reads them, but no later save could write them back), or a
  number of more than `MAX_DIGITS` digits (past what Python converts by default);
- holds a lone surrogate (`"\ud800"`, in a key or a string): Python reads the escape, but no
  save could write it back as UTF-8, so keeping it would make every later save fail;
- is not an object.

The caller (`cafe.course.progress`) keeps a copy of the file as it was before it writes the rest
back, so nothing is ever lost. A file whose structure itself is broken (cut off, not an object,
a section that is not an object) is reported whole, with why (`Reading.problem`).
"""

from __future__ import annotations

import json
import json.decoder
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "Reading", "read_progress"]

# The deepest an entry may nest: the toolkit writes entries three or four deep; a checkpoint's
# value (a learner's list of dicts) rarely ten. Far beyond that the file was not written by us.
MAX_DEPTH = 32
# The longest integer kept: well past any count a session banks, short of Python's own limit
# (4,300 digits) on turning text into an int.
MAX_DIGITS = 100
# The sections, and the one whose entries are grouped by session.
SECTIONS = ("predictions", "outcomes", "exercises", "checkpoints", "live_failures")
GROUPED = "checkpoints"
_WHITESPACE = " \t\n\r"
# The standard library's reader of one JSON string (the C one when there is one): (text, end).
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Reading:
    """What reading the file gave: the data kept, each entry set aside with why ("outcomes/s05.x",
    "holds NaN"), and, when the file cannot be read at all, why (`data` is then empty)."""

    data: dict[str, Any]
    set_aside: tuple[tuple[str, str], ...] = ()
    problem: str | None = None


class _Unreadable(ValueError):
    """An entry that cannot be kept, with why."""


def _refuse_constant(name: str) -> Any:
    raise _Unreadable(f"holds {name}, which no later save could write back")


def _checked_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Unreadable(f"holds a number of {len(text.lstrip('-'))} digits")
    return int(text)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def _value_end(text: str, i: int, end: int) -> int:
    """Where the JSON value starting at `i` ends, found without recursion, looking no further than
    `end` (-1: it does not end). `end` is passed, not cut off with `text[:end]`: a copy of the
    rest of the file per entry made a large file take minutes to read."""
    if i >= end:
        return -1
    if text[i] == '"':
        return scanstring(text, i + 1)[1]
    depth = 0
    while i < end:
        char = text[i]
        if char == '"':
            i = scanstring(text, i + 1)[1]
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            if depth == 0:
                return i
            depth -= 1
            if depth == 0:
                return i + 1
        elif char == "," and depth == 0:
            return i
        i += 1
    return i if depth == 0 else -1


def _members(text: str) -> list[tuple[str, str]] | None:
    """(key, raw value text) of each member of the JSON object `text`; None if it is not one."""
    text = text.strip()
    if len(text) < 2 or text[0] != "{" or text[-1] != "}":
        return None
    members, i, end = [], _skip(text, 1), len(text) - 1
    try:
        while i < end:
            if text[i] != '"':
                return None
            key, i = scanstring(text, i + 1)
            i = _skip(text, i)
            if text[i] != ":":
                return None
            start = _skip(text, i + 1)
            stop = _value_end(text, start, end)
            if stop < 0:
                return None
            members.append((key, text[start:stop].strip()))
            i = _skip(text, stop)
            if i < end and text[i] != ",":
                return None
            i = _skip(text, i + 1) if i < end else i
    except (ValueError, IndexError):  # a string that never ends, an escape that is not one
        return None
    return members


def _depth(value: Any) -> int:
    deepest, waiting = 0, [(value, 0)]
    while waiting:
        item, depth = waiting.pop()
        deepest = max(deepest, depth)
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        waiting.extend((child, depth + 1) for child in children)
    return deepest


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) in `value` that holds a lone surrogate, or None."""
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            waiting.extend([*item.keys(), *item.values()])
        elif isinstance(item, list):
            waiting.extend(item)
    return None


def _entry(raw: str) -> Any:
    """One entry parsed; `_Unreadable` saying why when it cannot be kept."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, parse_int=_checked_int)
    except RecursionError:
        raise _Unreadable(f"nests more than {MAX_DEPTH} deep") from None
    except _Unreadable:
        raise
    except ValueError as exc:
        raise _Unreadable(f"is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise _Unreadable(f"is a JSON {type(value).__name__}, not an object")
    if _depth(value) > MAX_DEPTH:
        raise _Unreadable(f"nests more than {MAX_DEPTH} deep")
    if (bad := _lone_surrogate(value)) is not None:
        raise _Unreadable(f"holds a lone surrogate in {bad!r}, which UTF-8 cannot store")
    return value


def _whole_file_problem(text: str) -> str:
    """Why a file whose structure could not be found is unusable, in the words of its parse."""
    try:
        data = json.loads(text)
    except RecursionError:
        return "it nests deeper than any progress file"
    except ValueError as exc:
        return f"it is not valid JSON ({exc})"
    return f"it holds a JSON {type(data).__name__}, not an object"


def _section(name: str, raw: str, aside: list[tuple[str, str]]) -> dict[str, Any] | str:
    """A section's entries kept (the ones set aside noted in `aside`), or why it is unusable."""
    members = _members(raw)
    if members is None:
        return f"its {name!r} entry is not an object"
    kept: dict[str, Any] = {}
    for key, value in members:
        if name == GROUPED and _lone_surrogate(key) is not None:
            aside.append((f"{name}/{key!r}", "has a lone surrogate in its name"))
        elif name == GROUPED:
            inner = _members(value)
            if inner is None:
                return f"its checkpoints for {key!r} are not an object"
            kept[key] = _entries(f"{name}/{key}", inner, aside)
        else:
            kept.update(_entries(name, [(key, value)], aside))
    return kept


def _entries(
    where: str, members: Sequence[tuple[str, str]], aside: list[tuple[str, str]]
) -> dict[str, Any]:
    kept = {}
    for key, raw in members:
        try:
            if _lone_surrogate(key) is not None:
                raise _Unreadable(f"has a lone surrogate in its name {key!r}")
            kept[key] = _entry(raw)
        except _Unreadable as why:
            shown = key.encode("utf-8", "backslashreplace").decode("utf-8")  # printable, always
            aside.append((f"{where}/{shown}", str(why)))
    return kept


def read_progress(text: str) -> Reading:
    """The progress data in `text`, every entry that cannot be kept set aside (see the module)."""
    members = _members(text)
    if members is None:
        return Reading({}, problem=_whole_file_problem(text))
    data: dict[str, Any] = {}
    aside: list[tuple[str, str]] = []
    for key, raw in members:
        if key in SECTIONS:
            section = _section(key, raw, aside)
            if isinstance(section, str):
                return Reading({}, problem=section)
            data[key] = section
        else:
            try:
                value = json.loads(raw, parse_constant=_refuse_constant, parse_int=_checked_int)
                if _lone_surrogate([key, value]) is not None:
                    raise _Unreadable("holds a lone surrogate, which UTF-8 cannot store")
                data[key] = value
            except (ValueError, RecursionError) as exc:
                aside.append(
                    (key, str(exc) if isinstance(exc, _Unreadable) else "is not readable JSON")
                )
    return Reading(data, tuple(aside))
