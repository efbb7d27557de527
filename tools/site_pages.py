"""What the course site's templates need: one lesson page's context, and the index's sessions.

`sitebuild.build_site` renders `lesson.html` once per lesson with `lesson_context`, and
`index.html` with `index_paths`. Every link a context holds points inside the site: another
session's page, or a repository file's copy under `files/` (site_links.py), so the pages work
from `site/` alone. Each context also says where its links come from (`LinkOrigin`), so a broken
one is reported against the lesson that made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagrams import INSTALL_GRAPHVIZ, Diagram
from lesson_format import (
    AFTER_NOTEBOOK,
    COURSE_MODULES,
    PATHS,
    REQUIRED_SECTIONS,
    SELF_CHECK,
    TIME_KEYS,
    TIME_LABELS,
    section_index,
)
from lesson_markdown import sections_from_tokens, split_questions
from lessons import Lesson
from markdown_it import MarkdownIt
from site_links import FILES, LinkOrigin, rewrite_links

from cafe.course.syllabus import SESSIONS

__all__ = [
    "AFTER_NOTEBOOK_ID",
    "AFTER_NOTEBOOK_SUMMARY",
    "COURSE_NAME",
    "DIAGRAM_SECTION",
    "Site",
    "diagram_file",
    "format_time",
    "index_paths",
    "lesson_context",
]

COURSE_NAME = "The Agent Harness Path"

# The section whose heading the session's diagram follows (docs/AUTHORING.md, "The diagram").
DIAGRAM_SECTION = REQUIRED_SECTIONS[2]
# The one closed <details> holding the sections read after the notebook (AFTER_NOTEBOOK), and
# its summary line; the page's contents list it as one entry.
AFTER_NOTEBOOK_ID = "after-the-notebook"
AFTER_NOTEBOOK_SUMMARY = "After the notebook"
AFTER_NOTEBOOK_HOLDS = "checkpoint, state of the art, readings, misconceptions, self-check"
_FOLDED = frozenset(REQUIRED_SECTIONS.index(title) for title in AFTER_NOTEBOOK)


@dataclass(frozen=True)
class Site:
    """What every page's rendering shares: the repository, the parser, the docs rendered as pages."""

    root: Path
    md: MarkdownIt
    docs: frozenset[str]  # repository paths of the docs/*.md files the site renders as pages


def diagram_file(lesson: Lesson) -> str:
    """The full-size drawing's file beside the pages, e.g. s07-repair-loop-diagram.svg."""
    return f"{lesson.folder}-diagram.svg"


def format_time(time_: dict[str, str]) -> list[str]:
    """Each estimate as the page shows it: "25–35 min reading", or, for a reading time split
    around the notebook, "reading 8 min before the notebook, 7 after"."""
    return [
        f"{TIME_LABELS[k]} {time_[k]}" if "notebook" in time_[k] else f"{time_[k]} {TIME_LABELS[k]}"
        for k in TIME_KEYS
    ]


def _fold(sections: list[dict[str, Any]]) -> dict[str, Any]:
    """The sections split around the fold: those read before the notebook, the ones folded
    after it (Checkpoint to Self-check), and the rest (What this unlocks) below the fold."""
    folded = [s for s in sections if section_index(s["title"]) in _FOLDED]
    first = sections.index(folded[0]) if folded else len(sections)
    return {
        "before": sections[:first],
        "folded": folded,
        "after": [s for s in sections[first:] if s not in folded],
        "after_notebook": {
            "id": AFTER_NOTEBOOK_ID,
            "summary": AFTER_NOTEBOOK_SUMMARY,
            "holds": AFTER_NOTEBOOK_HOLDS,
        },
    }


def _topic(number: int) -> str:
    """The session's topic from the syllabus (cafe/course/syllabus.py)."""
    return SESSIONS[number].topic if 0 <= number < len(SESSIONS) else f"session {number}"


def _section_item(section: Any, md: MarkdownIt, env: dict[str, Any]) -> dict[str, Any]:
    """One `##` section for the template: its title, anchor and html; self-check as questions."""
    render = lambda toks: md.renderer.render(list(toks), md.options, env)  # noqa: E731
    item: dict[str, Any] = {
        "title": section.title,
        "anchor": section.anchor,
        "questions": None,
        "title_html": md.renderInline(section.title, env),
    }
    if section.title == SELF_CHECK:
        intro, questions = split_questions(section)
        item["html"] = render(intro)
        item["questions"] = [
            {
                "html": md.renderer.renderInline(inline.children or [], md.options, env),
                "anchor": anchor,
                "answer": render(answer),
            }
            for inline, _, answer, anchor in questions
        ]
    else:
        item["html"] = render(section.tokens)
    return item


def _render_lesson_parts(
    lesson: Lesson, site: Site, origins: dict[str, LinkOrigin]
) -> dict[str, Any]:
    """Render the lesson body: preamble, sections (self-check as <details>), inline front-matter text."""
    md, env = site.md, {}  # type: ignore[var-annotated]
    tokens = md.parse(lesson.body, env)  # fresh tokens: rendering rewrites links in place
    preamble, sections, _ = sections_from_tokens(tokens, lesson.body_line)
    rewrite_links(lesson.rel, tokens, site.root, origins, site.docs)

    def inline(text: str) -> str:
        inline_tokens = md.parseInline(text, env)
        rewrite_links(lesson.rel, inline_tokens, site.root, origins, site.docs)
        return md.renderer.render(inline_tokens, md.options, env)

    return {
        "preamble": md.renderer.render(preamble, md.options, env),
        "sections": [_section_item(section, md, env) for section in sections],
        "inline": inline,
    }


def _file_links(lesson: Lesson, diagram: Diagram | None) -> dict[str, LinkOrigin]:
    """The repository files the template links (under files/), each with where it comes from."""
    notebook = f"notebooks/{lesson.folder}.ipynb"
    toy = f"sessions/{lesson.folder}/toy.py"
    links = {
        f"{FILES}/{notebook}": LinkOrigin(
            lesson.rel,
            f"notebook link '{FILES}/{notebook}'",
            f"write sessions/{lesson.folder}/notebook.py and run `python tools/build.py notebooks`",
        ),
        f"{FILES}/{toy}": LinkOrigin(
            lesson.rel,
            f"toy link '{FILES}/{toy}'",
            f"add sessions/{lesson.folder}/toy.py (docs/AUTHORING.md, toy.py)",
        ),
    }
    if diagram is not None:
        links[f"{FILES}/{diagram.rel}"] = LinkOrigin(
            lesson.rel,
            f"diagram link '{FILES}/{diagram.rel}'",
            f"add {diagram.rel} (docs/AUTHORING.md, 'The diagram')",
        )
    return links


def _about(lesson: Lesson, by_number: dict[int, Lesson], inline: Any) -> dict[str, Any]:
    """The about box: what the session carries in and ships, its time and its prerequisites."""

    def page_of(number: int) -> str | None:
        return by_number[number].page if number in by_number else None

    return {
        "teaches": inline(lesson.teaches),
        "hands_on": inline(lesson.hands_on),
        "carried_in": [
            {
                "module": c.module,
                "session": c.session,
                "summary": inline(c.summary),
                "page": page_of(c.session),
            }
            for c in lesson.carried_in
        ],
        "ships": [{"module": s.module, "summary": inline(s.summary)} for s in lesson.ships],
        "time": format_time(lesson.time),
        "prerequisites": [
            {
                "label": f"S{n:02d}",
                "title": by_number[n].title if n in by_number else _topic(n),
                "page": page_of(n),
            }
            for n in lesson.prerequisites
        ],
        "modules": [
            {
                "number": n,
                "topic": topic,
                "module": module,
                "current": n == lesson.number,
                "page": page_of(n),
            }
            for n, topic, module in COURSE_MODULES
        ],
    }


def lesson_context(
    lesson: Lesson,
    neighbours: tuple[Lesson | None, Lesson | None],
    by_number: dict[int, Lesson],
    site: Site,
    diagram: Diagram | None,
) -> tuple[dict[str, Any], dict[str, LinkOrigin]]:
    """What lesson.html needs for one page, and where each of its links comes from."""
    origins: dict[str, LinkOrigin] = {}
    parts = _render_lesson_parts(lesson, site, origins)
    origins.update(_file_links(lesson, diagram))
    context = {
        "course": COURSE_NAME,
        "lesson": lesson,
        "path_label": f"{lesson.path} path",
        "title_text": f"{lesson.label} · {lesson.title}",
        **_about(lesson, by_number, parts["inline"]),
        "preamble": parts["preamble"],
        "sections": parts["sections"],
        **_fold(parts["sections"]),
        "notebook": f"{FILES}/notebooks/{lesson.folder}.ipynb",
        "toy": f"{FILES}/sessions/{lesson.folder}/toy.py",
        "source": f"{FILES}/{lesson.rel}",
        "files": FILES,
        "prev": neighbours[0],
        "next": neighbours[1],
        "diagram": diagram,
        "diagram_file": diagram_file(lesson),
        "diagram_section": DIAGRAM_SECTION,
        "install_graphviz": INSTALL_GRAPHVIZ,
    }
    return context, origins


def index_paths(lessons: list[Lesson], md: MarkdownIt) -> list[dict[str, Any]]:
    """Sessions grouped by path, each with its time estimate and what it ships; planned ones named."""
    env: dict[str, Any] = {}
    present = {lesson.number: lesson for lesson in lessons}
    groups = []
    for name, span in PATHS.items():
        entries: list[dict[str, Any]] = []
        for n in span:
            if n not in present:
                module = ", ".join(SESSIONS[n].modules) or None
                entries.append({"lesson": None, "number": n, "topic": _topic(n), "module": module})
                continue
            lesson = present[n]
            ships = [
                {"module": s.module, "summary": md.renderInline(s.summary, env)}
                for s in lesson.ships
            ]
            entries.append({"lesson": lesson, "time": format_time(lesson.time), "ships": ships})
        groups.append({"name": name, "entries": entries})
    return groups
