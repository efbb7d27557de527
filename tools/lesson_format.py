"""The lesson format (docs/AUTHORING.md) as data and checks: what a lesson.md must hold.

The constants say what a lesson must contain (fields, paths, the ten sections); the checks
compare one lesson's parsed front matter and sections with them and return a `Problem` per
failure, naming the file, the field or section, and what to fix. Nothing here reads files or
raises: `lessons.py` loads a lesson.md and calls these checks; link checks live in `site_links.py`.
The session map (each session's number, folder, path, topic and modules) is not declared here: it
is read from its one declaration, `cafe/course/syllabus.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lesson_markdown import Section, split_questions

from cafe.course.syllabus import COURSE_PATHS, SESSIONS

__all__ = [
    "COURSE_MODULES",
    "EXAMPLE_FRONT_MATTER",
    "FIELDS",
    "FOLDER_RE",
    "PATHS",
    "REQUIRED_SECTIONS",
    "SELF_CHECK",
    "STATE_OF_THE_ART_RE",
    "TIME_KEYS",
    "TIME_LABELS",
    "LessonError",
    "Problem",
    "check_front_matter",
    "check_sections",
    "type_name",
]

# The session map, read from its one declaration (cafe/course/syllabus.py): number -> (topic,
# modules). The page's module list shows sessions 01 to 15, with the page's own session marked.
COURSE_MODULES: tuple[tuple[int, str, str], ...] = tuple(
    (entry.number, entry.topic, ", ".join(entry.modules)) for entry in SESSIONS if entry.number > 0
)


def _path_spans() -> dict[str, range]:
    """Which sessions each path holds, from the syllabus (each path is one unbroken run)."""
    numbers = {
        name: [entry.number for entry in SESSIONS if entry.path == name] for name in COURSE_PATHS
    }
    return {name: range(found[0], found[-1] + 1) for name, found in numbers.items()}


# Which sessions each path holds: setup s00, core s01-s12, harness s13-s15.
PATHS: dict[str, range] = _path_spans()
PATH_SPANS = ", ".join(
    f"{name} s{span[0]:02d}" + (f"-s{span[-1]:02d}" if len(span) > 1 else "")
    for name, span in PATHS.items()
)
SYLLABUS = "cafe/course/syllabus.py"

MONTHS = (
    "January February March April May June July August September October November December"
).split()
STATE_OF_THE_ART_RE = re.compile(
    r"State of the art \(as of ({}) (\d{{4}})\)$".format("|".join(MONTHS))
)
STATE_OF_THE_ART_EXAMPLE = "State of the art (as of November 2026)"

# The ten `##` sections, in order (AUTHORING.md). The sixth is matched by `STATE_OF_THE_ART_RE`.
REQUIRED_SECTIONS: tuple[str, ...] = (
    "The hook",
    "The promise",
    "The theory in depth",
    "Build (in the notebook, predict first)",
    "Checkpoint: the number you bank",
    "State of the art (as of Month YYYY)",
    "Annotated readings",
    "Misconceptions and failure modes",
    "Self-check",
    "What this unlocks",
)
_SOTA_INDEX = 5
SELF_CHECK = "Self-check"
SOTA_COLUMNS = ("Development", "Status", "Take")

# The front-matter fields, all required, in the order docs/AUTHORING.md lists them.
FIELDS = (
    "number",
    "slug",
    "title",
    "path",
    "carried_in",
    "ships",
    "teaches",
    "time",
    "prerequisites",
    "hands_on",
)

TIME_KEYS = ("reading", "notebook", "self_check")
TIME_LABELS = {"reading": "reading", "notebook": "notebook", "self_check": "self-check"}
MAX_TIME_CHARS = 40  # "short string": a range and a unit, not a paragraph

FOLDER_RE = re.compile(r"^s(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$")
EXAMPLE_FRONT_MATTER = "see the example in docs/AUTHORING.md"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the course: where it is and what to do about it."""

    file: str  # repository-relative path of the file at fault
    where: str  # the field, section or link, e.g. "field 'time'" or "link 'x.md#y' (line 12)"
    message: str  # what is wrong and how to fix it

    def __str__(self) -> str:
        return f"{self.file}: {self.where}: {self.message}"


class LessonError(ValueError):
    """A lesson does not meet docs/AUTHORING.md; `problems` lists every reason."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


# ---------------------------------------------------------------------------------------------
# Checks: each returns the problems it found, never raises


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


def _section_index(title: str) -> int | None:
    """Position of a heading in REQUIRED_SECTIONS, or None when it is not one of them."""
    if STATE_OF_THE_ART_RE.match(title):
        return _SOTA_INDEX
    if title in REQUIRED_SECTIONS and REQUIRED_SECTIONS.index(title) != _SOTA_INDEX:
        return REQUIRED_SECTIONS.index(title)
    return None


def check_sections(sections: list[Section], rel: str) -> list[Problem]:
    """The ten required `##` sections, each once, in order; extra `##` headings are flagged."""
    problems: list[Problem] = []
    found: dict[int, Section] = {}
    furthest: tuple[int, Section] | None = None  # the latest required section seen so far
    for section in sections:
        where = f"section '## {section.title}' (line {section.line})"
        i = _section_index(section.title)
        if i is None:
            if section.title.lower().startswith("state of the art"):
                problems.append(
                    Problem(
                        rel,
                        where,
                        f"the heading must carry the month it was written, "
                        f"exactly like '## {STATE_OF_THE_ART_EXAMPLE}'",
                    )
                )
            else:
                close = [t for t in REQUIRED_SECTIONS if t.lower() == section.title.lower()]
                hint = (
                    f"did you mean '## {close[0]}'?"
                    if close
                    else "make it a '###' subsection or use one of the ten required headings"
                )
                problems.append(Problem(rel, where, f"is not one of the required sections; {hint}"))
            continue
        if i in found:
            problems.append(
                Problem(rel, where, f"appears twice (first at line {found[i].line}); keep one")
            )
            continue
        if furthest is not None and i < furthest[0]:
            problems.append(
                Problem(
                    rel,
                    where,
                    f"is out of order: it must come before '## {furthest[1].title}' "
                    f"(order: {'; '.join(REQUIRED_SECTIONS)})",
                )
            )
        found[i] = section
        if furthest is None or i > furthest[0]:
            furthest = (i, section)
    for i, title in enumerate(REQUIRED_SECTIONS):
        if i not in found:
            shown = STATE_OF_THE_ART_EXAMPLE if i == _SOTA_INDEX else title
            after = f"after '## {REQUIRED_SECTIONS[i - 1]}'" if i else "as the first section"
            problems.append(
                Problem(rel, f"section '## {title}'", f"is missing; add '## {shown}' {after}")
            )

    if _SOTA_INDEX in found:
        problems += _check_sota_table(found[_SOTA_INDEX], rel)
    self_check = REQUIRED_SECTIONS.index(SELF_CHECK)
    if self_check in found:
        problems += _check_self_check(found[self_check], rel)
    return problems


def _check_sota_table(section: Section, rel: str) -> list[Problem]:
    where = f"section '## {section.title}' (line {section.line})"
    tokens = section.tokens
    for i, token in enumerate(tokens):
        if token.type == "thead_open":
            headers = []
            for t in tokens[i:]:
                if t.type == "thead_close":
                    break
                if t.type == "inline":
                    headers.append(t.content.strip())
            if tuple(headers) == SOTA_COLUMNS:
                return []
            return [
                Problem(
                    rel,
                    where,
                    f"the table's columns are {' | '.join(headers)}; "
                    f"they must be {' | '.join(SOTA_COLUMNS)}",
                )
            ]
    return [Problem(rel, where, f"needs a table with the columns {' | '.join(SOTA_COLUMNS)}")]


def _check_self_check(section: Section, rel: str) -> list[Problem]:
    intro, questions = split_questions(section)
    where = f"section '## {section.title}' (line {section.line})"
    if not questions:
        return [
            Problem(
                rel,
                where,
                "has no questions; write each question as a '### ' heading with its answer below it",
            )
        ]
    problems = []
    for inline, line, answer, _ in questions:
        if not any(t.type != "hr" for t in answer):
            problems.append(
                Problem(
                    rel,
                    f"self-check question '{inline.content}' (line {line})",
                    "has no answer; write the answer as paragraphs under the question",
                )
            )
    return problems
