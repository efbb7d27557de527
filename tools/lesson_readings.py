"""Which annotated readings of a lesson say where to find them: a link for each, or a reason not to.

A reading a learner cannot find is a reading they skip, so each bullet of a lesson's
"Annotated readings" section should carry an http(s) link. Two kinds need none: a book (its title
set in italics, `*Basics of Qualitative Research*`), and something of the learner's own (the
bullet starts "Your ..."). The site build lists the others in its summary as a note, not a
problem: adding a link takes an address someone has checked, and a note keeps the build green
while that happens.
"""

from __future__ import annotations

from lesson_markdown import Section
from lessons import Lesson
from markdown_it.token import Token

__all__ = ["READINGS", "unlinked_readings"]

READINGS = "Annotated readings"  # the section's heading (lesson_format.REQUIRED_SECTIONS)
OWN = "Your "  # a bullet about the learner's own material starts so


def _bullets(section: Section) -> list[tuple[int, list[Token]]]:
    """(line, inline tokens) of each top-level bullet of the section."""
    found: list[tuple[int, list[Token]]] = []
    depth = 0
    for token in section.tokens:
        if token.type == "list_item_open":
            depth += 1
            if depth == 1:
                found.append(((token.map[0] + 1) if token.map else section.line, []))
        elif token.type == "list_item_close":
            depth -= 1
        elif token.type == "inline" and depth >= 1 and found:
            found[-1][1].extend(token.children or [])
    return found


def _exempt(children: list[Token]) -> bool:
    text = "".join(child.content for child in children if child.type == "text").lstrip()
    book = any(child.type == "em_open" for child in children[:12])  # a title in italics
    return text.startswith(OWN) or book


def _linked(children: list[Token]) -> bool:
    return any(
        child.type == "link_open"
        and str(child.attrs.get("href", "")).startswith(("http://", "https://"))
        for child in children
    )


def unlinked_readings(lesson: Lesson) -> list[str]:
    """`<lesson.md>:<line>` for each reading with no http(s) link and no reason to have none."""
    try:
        section = lesson.section(READINGS)
    except KeyError:
        return []
    return [
        f"{lesson.rel}:{line}"
        for line, children in _bullets(section)
        if not _linked(children) and not _exempt(children)
    ]
