"""Lessons: load `sessions/sNN-slug/lesson.md` into a validated `Lesson` record.

`load_lesson(path)` returns the record or raises `LessonError` listing every problem;
`load_all(root)` loads the whole course without raising, so the site build can report every
lesson's problems at once. What a lesson must hold, and the checks, are in `lesson_format.py`
(sections), `lesson_front.py` (front matter) and `lesson_order.py` (the reading order). A
lesson's `body` is what the site renders: its self-check answer wrappers already blanked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from lesson_format import (
    EXAMPLE_FRONT_MATTER,
    FOLDER_RE,
    STATE_OF_THE_ART_RE,
    TIME_KEYS,
    LessonError,
    Problem,
    check_sections,
)
from lesson_front import check_front_matter, type_name
from lesson_markdown import Section, make_markdown, sections_from_tokens
from lesson_order import check_reading_order, strip_answer_wrappers

__all__ = [
    "CarriedIn",
    "Lesson",
    "LessonError",
    "Problem",
    "Shipped",
    "discover_lessons",
    "load_all",
    "load_lesson",
    "split_front_matter",
]


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class CarriedIn:
    module: str
    session: int
    summary: str


@dataclass(frozen=True)
class Shipped:
    module: str
    summary: str


@dataclass(frozen=True)
class Lesson:
    """A parsed, validated lesson: front matter fields plus its sections."""

    source: Path  # absolute path of lesson.md
    rel: str  # repository-relative path, e.g. sessions/s07-repair-loop/lesson.md
    folder: str  # e.g. s07-repair-loop
    number: int
    slug: str
    title: str
    path: str  # setup, core or harness
    carried_in: tuple[CarriedIn, ...]
    ships: tuple[Shipped, ...]
    teaches: str
    time: dict[str, str]
    prerequisites: tuple[int, ...]
    hands_on: str
    sections: tuple[Section, ...]
    body: str = field(repr=False)
    body_line: int = 1  # 1-based line in lesson.md where the body (after front matter) starts

    @property
    def page(self) -> str:
        return f"{self.folder}.html"

    @property
    def label(self) -> str:
        return f"S{self.number:02d}"

    def section(self, title: str) -> Section:
        for section in self.sections:
            if section.title == title or (
                title == "State of the art" and STATE_OF_THE_ART_RE.match(section.title)
            ):
                return section
        raise KeyError(title)


# ---------------------------------------------------------------------------------------------
# Loading and validating one lesson


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(front matter YAML or None, body, 1-based line where the body starts)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 2
    return None, text, 1


def _parse(path: Path, root: Path) -> tuple[Lesson | None, list[Problem]]:
    """Read and check lesson.md: (the record if its front matter is usable, every problem found)."""
    rel = _rel(path, root)
    folder = path.parent.name
    problems: list[Problem] = []
    folder_number = folder_slug = None
    m = FOLDER_RE.match(folder)
    if m:
        folder_number, folder_slug = int(m.group(1)), m.group(2)
    else:
        problems.append(
            Problem(
                rel, "folder", f"folder '{folder}' must be named sNN-slug, e.g. s07-repair-loop"
            )
        )

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(rel, "file", f"cannot be read as UTF-8 text ({exc})")]
    yaml_text, body, body_line = split_front_matter(text)
    data: Any = None
    if yaml_text is None:
        problems.append(
            Problem(
                rel,
                "front matter",
                "missing; start the file with YAML between two '---' lines "
                f"({EXAMPLE_FRONT_MATTER})",
            )
        )
    else:
        try:
            data = yaml.safe_load(yaml_text)
        except yaml.YAMLError as exc:
            problems.append(
                Problem(rel, "front matter", f"is not valid YAML: {exc}".replace("\n", " "))
            )
        if data is not None and not isinstance(data, dict):
            problems.append(
                Problem(
                    rel, "front matter", f"must be a YAML mapping of fields, got {type_name(data)}"
                )
            )
            data = None
        if isinstance(data, dict):
            problems += check_front_matter(data, folder_number, folder_slug, rel)
        elif data is None and not problems:
            problems.append(Problem(rel, "front matter", "is empty; every field is required"))

    problems += check_reading_order(body, body_line, rel)
    body = strip_answer_wrappers(body)
    md = make_markdown()
    tokens = md.parse(body, {})
    _, sections, _ = sections_from_tokens(tokens, body_line)
    problems += check_sections(sections, rel)

    front_ok = isinstance(data, dict) and not any(
        p.where.startswith(("field", "front matter", "folder")) for p in problems
    )
    if not front_ok:
        return None, problems
    lesson = Lesson(
        source=path.resolve(),
        rel=rel,
        folder=folder,
        number=data["number"],
        slug=data["slug"],
        title=data["title"].strip(),
        path=data["path"],
        carried_in=tuple(
            CarriedIn(e["module"], e["session"], e["summary"].strip()) for e in data["carried_in"]
        ),
        ships=tuple(Shipped(e["module"], e["summary"].strip()) for e in data["ships"]),
        teaches=data["teaches"].strip(),
        time={key: data["time"][key].strip() for key in TIME_KEYS},
        prerequisites=tuple(data["prerequisites"]),
        hands_on=data["hands_on"].strip(),
        sections=tuple(sections),
        body=body,
        body_line=body_line,
    )
    return lesson, problems


def _root_of(path: Path) -> Path:
    """A lesson lives at <root>/sessions/sNN-slug/lesson.md."""
    return path.resolve().parent.parent.parent


def load_lesson(path: Path | str) -> Lesson:
    """Parse and validate one `sessions/sNN-slug/lesson.md`; raise `LessonError` listing every problem."""
    path = Path(path)
    lesson, problems = _parse(path, _root_of(path))
    if problems or lesson is None:
        raise LessonError(problems)
    return lesson


def discover_lessons(root: Path) -> list[Path]:
    """Every `sessions/*/lesson.md` under root, in folder order."""
    return sorted((root / "sessions").glob("*/lesson.md"))


def load_all(root: Path) -> tuple[list[Lesson], list[Problem]]:
    """Every lesson that parsed, in session order, and every problem found on the way."""
    lessons: list[Lesson] = []
    problems: list[Problem] = []
    for path in discover_lessons(root):
        lesson, found = _parse(path, root)
        problems += found
        if lesson is not None:
            lessons.append(lesson)
    lessons.sort(key=lambda lesson: (lesson.number, lesson.folder))
    for before, after in zip(lessons, lessons[1:]):
        if before.number == after.number:
            problems.append(
                Problem(
                    after.rel,
                    "field 'number'",
                    f"session {after.number} is also {before.rel}; renumber one",
                )
            )
    return lessons, problems
