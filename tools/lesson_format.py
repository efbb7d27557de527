"""The lesson format (docs/AUTHORING.md) as data and checks: what a lesson.md must hold.

The constants say what a lesson must contain (fields, paths, the ten sections, the reading
order); the checks compare one lesson's sections with them and return a `Problem` per failure,
naming the file, the section and line, and what to fix. Nothing here reads files or raises:
`lessons.py` loads a lesson.md and calls these checks. The front-matter checks live in
`lesson_front.py`, the reading order (the Build section's last line, folded self-check answers)
in `lesson_order.py`, link checks in `site_links.py`.
The session map (each session's number, folder, path, topic and modules) is not declared here: it
is read from its one declaration, `cafe/course/syllabus.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lesson_markdown import Section, split_questions

from cafe.course.syllabus import COURSE_PATHS, SESSIONS

__all__ = [
    "AFTER_NOTEBOOK",
    "ANSWER_CLOSE",
    "ANSWER_OPEN",
    "BUILD",
    "COURSE_MODULES",
    "EXAMPLE_FRONT_MATTER",
    "FIELDS",
    "FOLDER_RE",
    "PATHS",
    "READING_ORDER_LINE",
    "REQUIRED_SECTIONS",
    "REQUIRE_READING_ORDER",
    "SELF_CHECK",
    "STATE_OF_THE_ART_RE",
    "TIME_KEYS",
    "TIME_LABELS",
    "LessonError",
    "Problem",
    "check_sections",
    "section_index",
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
BUILD = REQUIRED_SECTIONS[3]
# The sections the site folds under one closed "After the notebook" marker: read after the
# notebook, so nothing in them can give a prediction away (docs/AUTHORING.md, "Reading order").
AFTER_NOTEBOOK = REQUIRED_SECTIONS[4:9]
# The Build section's last line, telling the learner the order: the lesson up to here, then the
# notebook, then the rest of the page. Checked by lesson_order.check_reading_order.
READING_ORDER_LINE = "Work through the notebook now, then come back for the rest of this page."
# Every lesson ends its Build section with READING_ORDER_LINE and wraps each self-check answer
# (ANSWER_OPEN ... ANSWER_CLOSE); the build refuses a lesson that does not. (False would let an
# old-shape lesson through, for a course being converted.)
REQUIRE_READING_ORDER = True
# The two lines that fold a self-check answer in lesson.md, as GitHub shows it. The site's
# markdown runs with raw HTML off, so the loader strips exactly these lines inside Self-check.
ANSWER_OPEN = "<details><summary>Answer</summary>"
ANSWER_CLOSE = "</details>"
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


def section_index(title: str) -> int | None:
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
        i = section_index(section.title)
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
