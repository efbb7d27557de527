"""The front-matter checks of the lesson format: each field of a lesson.md present and well typed.

`check_front_matter(data, folder_number, folder_slug, rel)` compares one lesson's parsed YAML with
the fields docs/AUTHORING.md lists (`lesson_format.FIELDS`) and returns a `Problem` per failure,
naming the field and what to fix. Like every check of the format it reads no file and never
raises; `lessons.py` calls it. The constants it checks against live in `lesson_format.py`.
"""

from __future__ import annotations

from typing import Any

from lesson_format import (
    EXAMPLE_FRONT_MATTER,
    FIELDS,
    MAX_TIME_CHARS,
    PATH_SPANS,
    PATHS,
    SYLLABUS,
    TIME_KEYS,
    Problem,
)

from cafe.course.syllabus import SESSIONS

__all__ = ["check_front_matter", "type_name"]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        type(None): "empty",
    }.get(type(value), type(value).__name__)


class _FieldProblems:
    """Collects one lesson's front-matter problems, each naming the field it is about."""

    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.problems: list[Problem] = []

    def bad(self, name: str, message: str) -> None:
        self.problems.append(Problem(self.rel, f"field '{name}'", message))

    def text(self, name: str, value: Any) -> bool:
        """True when `value` is a non-empty string; otherwise report it."""
        if not isinstance(value, str) or not value.strip():
            self.bad(
                name,
                f"expected a non-empty string, got {type_name(value)} ({value!r}); {EXAMPLE_FRONT_MATTER}",
            )
            return False
        return True


def _check_identity(
    found: _FieldProblems, data: dict[str, Any], folder_number: int | None, folder_slug: str | None
) -> int | None:
    """number, slug, title, path: each well-typed and agreeing with the folder. Returns the number."""
    number = data.get("number")
    if "number" in data:
        if not _is_int(number):
            found.bad("number", f"expected an integer like 7, got {type_name(number)} ({number!r})")
            number = None
        elif folder_number is not None and number != folder_number:
            found.bad(
                "number", f"is {number} but the folder says {folder_number:02d}; make them match"
            )
        elif number not in range(len(SESSIONS)):
            found.bad(
                "number",
                f"session {number} is not in {SYLLABUS}, which runs 0 to {len(SESSIONS) - 1}; "
                "add the session there first",
            )
    if "slug" in data and found.text("slug", data["slug"]):
        if folder_slug is not None and data["slug"] != folder_slug:
            found.bad(
                "slug", f"is {data['slug']!r} but the folder says {folder_slug!r}; make them match"
            )
        elif (
            _is_int(number)
            and number in range(len(SESSIONS))
            and data["slug"] != SESSIONS[number].slug
        ):
            found.bad(
                "slug",
                f"is {data['slug']!r} but {SYLLABUS} names session {number} "
                f"{SESSIONS[number].slug!r}: the folder must be sessions/{SESSIONS[number].folder}",
            )
    if "title" in data:
        found.text("title", data["title"])
    if "path" in data:
        value = data["path"]
        if value not in PATHS:
            found.bad("path", f"expected one of {', '.join(PATHS)}, got {value!r}")
        elif _is_int(number) and number not in PATHS[value]:
            right = next((name for name, span in PATHS.items() if number in span), None)
            hint = (
                f"session {number} belongs on the {right} path"
                if right
                else f"sessions run 00 to {len(SESSIONS) - 1:02d}"
            )
            found.bad("path", f"is {value!r} but {hint} ({PATH_SPANS})")
    return number if _is_int(number) else None


def _check_entries(
    found: _FieldProblems, name: str, entries: list[Any], keys: tuple[str, ...]
) -> None:
    """Each entry of carried_in or ships is a mapping with exactly `keys`; `session` is an int, the rest text."""
    listed = ", ".join(keys[:-1]) + f" and {keys[-1]}"
    for i, entry in enumerate(entries):
        where = f"{name}[{i}]"
        if not isinstance(entry, dict):
            found.bad(where, f"expected a mapping with {listed}, got {type_name(entry)}")
            continue
        for key in keys:
            if key not in entry:
                found.bad(f"{where}.{key}", f"missing; each entry needs {listed}")
            elif key == "session":
                if not _is_int(entry[key]):
                    found.bad(
                        f"{where}.session", f"expected a session number (int), got {entry[key]!r}"
                    )
            else:
                found.text(f"{where}.{key}", entry[key])
        for key in entry:
            if key not in keys:
                found.bad(f"{where}.{key}", f"unknown key; each entry has {listed}")


def _check_time(found: _FieldProblems, value: Any) -> None:
    if not isinstance(value, dict):
        found.bad("time", f"expected a mapping with {', '.join(TIME_KEYS)}, got {type_name(value)}")
        return
    for key in TIME_KEYS:
        if key not in value:
            found.bad(
                f"time.{key}", f"missing; time needs {', '.join(TIME_KEYS)} (e.g. '20–40 min')"
            )
        elif found.text(f"time.{key}", value[key]) and len(value[key]) > MAX_TIME_CHARS:
            found.bad(
                f"time.{key}",
                f"is {len(value[key])} characters; keep it a short estimate like '20–40 min'",
            )
    for key in value:
        if key not in TIME_KEYS:
            found.bad(f"time.{key}", f"unknown key; time has {', '.join(TIME_KEYS)}")


def _check_prerequisites(found: _FieldProblems, value: Any, number: int | None) -> None:
    if not isinstance(value, list):
        found.bad(
            "prerequisites",
            f"expected a list of session numbers like [1, 2, 6], got {type_name(value)}",
        )
        return
    for i, item in enumerate(value):
        if not _is_int(item):
            found.bad(f"prerequisites[{i}]", f"expected a session number (int), got {item!r}")
        elif number is not None and not 0 <= item < number:
            found.bad(
                f"prerequisites[{i}]", f"session {item} is not an earlier session than {number}"
            )


def check_front_matter(
    data: dict[str, Any], folder_number: int | None, folder_slug: str | None, rel: str
) -> list[Problem]:
    """Every field present, none unknown, each of the type docs/AUTHORING.md gives, in field order."""
    found = _FieldProblems(rel)
    for name in FIELDS:
        if name not in data:
            found.bad(
                name,
                f"missing; every front-matter field is required ({', '.join(FIELDS)}); {EXAMPLE_FRONT_MATTER}",
            )
    for name in data:
        if name not in FIELDS:
            found.bad(
                str(name), f"unknown field; the fields are {', '.join(FIELDS)} (check the spelling)"
            )

    number = _check_identity(found, data, folder_number, folder_slug)
    if "carried_in" in data:
        value = data["carried_in"]
        if not isinstance(value, list):
            found.bad(
                "carried_in",
                f"expected a list of {{module, session, summary}} entries, got {type_name(value)}",
            )
        else:
            if not value and number is not None and number > 0:
                found.bad(
                    "carried_in",
                    "is empty; only s00 may carry nothing in; list what earlier sessions gave you",
                )
            _check_entries(found, "carried_in", value, ("module", "session", "summary"))
    if "ships" in data:
        value = data["ships"]
        if not isinstance(value, list) or not value:
            found.bad(
                "ships",
                f"expected a list with at least one {{module, summary}} entry, got {value!r}",
            )
        else:
            _check_entries(found, "ships", value, ("module", "summary"))
    for name in ("teaches", "hands_on"):
        if name in data:
            found.text(name, data[name])
    if "time" in data:
        _check_time(found, data["time"])
    if "prerequisites" in data:
        _check_prerequisites(found, data["prerequisites"], number)
    return found.problems
