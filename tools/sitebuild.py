"""Build the course site: one HTML page per session, an index, one stylesheet.

`python tools/build.py site` calls `build_site(root)`; tests call `load_lesson(path)` to get the
same parsed, validated record the builder renders. The lesson format is the contract in
`docs/AUTHORING.md`. The builder is five modules, read in this order:

    lesson_markdown.py   the markdown-it parser, pygments highlighting, heading anchors, sections
    lesson_format.py     what a lesson.md must hold, and the checks for its front matter and sections
    lessons.py           load a lesson.md into a validated Lesson record (load_lesson)
    site_links.py        point lesson links at the site, then check every link and anchor
    diagrams.py          draw each session's diagram.dot with Graphviz, as inline SVG
    site_commands.py     the commands the site quotes from README.md (the notebook check)
    sitebuild.py         this file: render pages with jinja2, write them, report (build_site)

The session map (paths, topics, modules, folder names) comes from `cafe/course/syllabus.py`.
Every failure is a `Problem` naming the file, the field or link, and what to fix. The build
collects all of them, writes what it could, and then raises `SiteBuildError` listing them all.

Layout of the output (`site/` by default, ignored by git):

    site/index.html            the course, both paths, every session
    site/sNN-slug.html         one page per session
    site/sNN-slug-diagram.svg  the session's diagram, full size (the page also holds it inline)
    site/style.css             the one stylesheet (layout + pygments colours)

Pages link into the repository with paths relative to `site/` at the repository root
(`../notebooks/s07-repair-loop.ipynb`, `../sessions/s07-repair-loop/toy.py`), so they open from a
checkout; repository links are checked against `root` whatever `out` is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from diagrams import INSTALL_GRAPHVIZ, Diagram, draw_diagram, find_dot
from lesson_format import (
    COURSE_MODULES,
    PATHS,
    REQUIRED_SECTIONS,
    SELF_CHECK,
    TIME_KEYS,
    TIME_LABELS,
    LessonError,
    Problem,
)
from lesson_markdown import Section, make_markdown, sections_from_tokens, split_questions
from lessons import Lesson, discover_lessons, load_all, load_lesson
from markdown_it import MarkdownIt
from pygments.formatters import HtmlFormatter
from site_commands import instructor_command
from site_links import LinkOrigin, check_links, rewrite_links

from cafe.course.syllabus import SESSIONS

__all__ = [
    "COURSE_NAME",
    "COURSE_MODULES",
    "REQUIRED_SECTIONS",
    "BuildReport",
    "Lesson",
    "LessonError",
    "Problem",
    "Section",
    "SiteBuildError",
    "build_site",
    "discover_lessons",
    "load_lesson",
    "main",
]

COURSE_NAME = "The Agent Harness Path"

TEMPLATES = Path(__file__).parent / "site_templates"

# The section whose heading the session's diagram follows (docs/AUTHORING.md, "The diagram").
DIAGRAM_SECTION = REQUIRED_SECTIONS[2]

# Pygments' 'default' style: its token colours keep at least 4:1 contrast on the stylesheet's
# code background (--code-bg); 'friendly' drops to 2.2:1 for constants and 2.6:1 for comments.
CODE_STYLE = "default"


class SiteBuildError(RuntimeError):
    """The site build found problems; `problems` lists all of them, `report` has what was built."""

    def __init__(self, problems: Sequence[Problem], report: BuildReport) -> None:
        self.problems = list(problems)
        self.report = report
        lines = [f"site build failed with {len(self.problems)} problem(s):"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


@dataclass
class BuildReport:
    """What a build wrote, what it found wrong, and how long it took."""

    out: Path
    pages: list[Path] = field(default_factory=list)
    lessons: list[Lesson] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    undrawn: list[str] = field(
        default_factory=list
    )  # diagrams shown as source: Graphviz is missing

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        state = "ok" if self.ok else f"{len(self.problems)} problem(s)"
        line = (
            f"site: {len(self.pages)} page(s), {len(self.lessons)} session(s) -> {self.out} "
            f"in {self.seconds:.2f}s ({state})"
        )
        if self.undrawn:
            line += (
                f"\nnote: {len(self.undrawn)} diagram(s) shown as their source text, because Graphviz's "
                f"`dot` is not installed; to draw them: {INSTALL_GRAPHVIZ}, then rebuild"
            )
        return line


# ---------------------------------------------------------------------------------------------
# Rendering


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


def _stylesheet() -> str:
    """style.css plus the token colours only (the style's own background and `pre` rules would
    override the stylesheet's)."""
    base = (TEMPLATES / "style.css").read_text(encoding="utf-8")
    colours = "\n".join(HtmlFormatter(style=CODE_STYLE).get_token_style_defs(".highlight"))
    return f"{base}\n/* code colours: pygments '{CODE_STYLE}' style, generated by tools/sitebuild.py */\n{colours}\n"


def _render_lesson_parts(
    lesson: Lesson, root: Path, md: MarkdownIt, origins: dict[str, LinkOrigin]
) -> dict[str, Any]:
    """Render the lesson body: preamble, sections (self-check as <details>), inline front-matter text."""
    env: dict[str, Any] = {}
    tokens = md.parse(lesson.body, env)  # fresh tokens: rendering rewrites links in place
    preamble, sections, _ = sections_from_tokens(tokens, lesson.body_line)
    rewrite_links(lesson, tokens, root, origins)
    render = lambda toks: md.renderer.render(list(toks), md.options, env)  # noqa: E731

    rendered = []
    for section in sections:
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
        rendered.append(item)

    def inline(text: str) -> str:
        inline_tokens = md.parseInline(text, env)
        rewrite_links(lesson, inline_tokens, root, origins)
        return md.renderer.render(inline_tokens, md.options, env)

    return {"preamble": render(preamble), "sections": rendered, "inline": inline}


def _format_time(time_: dict[str, str]) -> list[tuple[str, str]]:
    return [(TIME_LABELS[k], time_[k]) for k in TIME_KEYS]


def _lesson_context(
    lesson: Lesson,
    neighbours: tuple[Lesson | None, Lesson | None],
    by_number: dict[int, Lesson],
    root: Path,
    md: MarkdownIt,
    diagram: Diagram | None,
) -> tuple[dict[str, Any], dict[str, LinkOrigin]]:
    """What lesson.html needs for one page, and where each of its links comes from."""
    origins: dict[str, LinkOrigin] = {}
    parts = _render_lesson_parts(lesson, root, md, origins)
    inline = parts["inline"]
    notebook = f"notebooks/{lesson.folder}.ipynb"
    toy = f"sessions/{lesson.folder}/toy.py"
    origins[f"../{notebook}"] = LinkOrigin(
        lesson.rel,
        f"notebook link '../{notebook}'",
        f"write sessions/{lesson.folder}/notebook.py and run `python tools/build.py notebooks`",
    )
    origins[f"../{toy}"] = LinkOrigin(
        lesson.rel,
        f"toy link '../{toy}'",
        f"add sessions/{lesson.folder}/toy.py (docs/AUTHORING.md, toy.py)",
    )

    def page_of(number: int) -> str | None:
        return by_number[number].page if number in by_number else None

    context = {
        "course": COURSE_NAME,
        "lesson": lesson,
        "path_label": f"{lesson.path} path",
        "title_text": f"{lesson.label} · {lesson.title}",
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
        "time": _format_time(lesson.time),
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
        "preamble": parts["preamble"],
        "sections": parts["sections"],
        "notebook": f"../{notebook}",
        "toy": f"../{toy}",
        "source": f"../{lesson.rel}",
        "prev": neighbours[0],
        "next": neighbours[1],
        "diagram": diagram,
        "diagram_file": _diagram_file(lesson),
        "diagram_section": DIAGRAM_SECTION,
        "install_graphviz": INSTALL_GRAPHVIZ,
    }
    if diagram is not None:
        origins[f"../{diagram.rel}"] = LinkOrigin(
            lesson.rel,
            f"diagram link '../{diagram.rel}'",
            f"add {diagram.rel} (docs/AUTHORING.md, 'The diagram')",
        )
    return context, origins


def build_site(root: Path | str, out: Path | str | None = None) -> BuildReport:
    """Render every session under `root/sessions` into `out` (default `root/site`).

    Returns a `BuildReport` when the course is clean. Otherwise writes what it could and raises
    `SiteBuildError` listing every problem (front matter, sections, links) at once.
    """
    started = time.perf_counter()
    root = Path(root).resolve()
    out = Path(out).resolve() if out is not None else root / "site"
    report = BuildReport(out=out)
    lessons, report.problems = load_all(root)
    report.lessons = lessons

    md = make_markdown()
    jenv = _environment()
    by_number = {lesson.number: lesson for lesson in lessons}
    pages: dict[str, str] = {}
    origins: dict[str, dict[str, LinkOrigin]] = {}
    page_sources: dict[str, str] = {"index.html": "tools/site_templates/index.html"}
    diagrams, images = _draw_diagrams(lessons, root, report)
    for i, lesson in enumerate(lessons):
        neighbours = (
            lessons[i - 1] if i > 0 else None,
            lessons[i + 1] if i + 1 < len(lessons) else None,
        )
        context, origins[lesson.page] = _lesson_context(
            lesson, neighbours, by_number, root, md, diagrams[lesson.page]
        )
        pages[lesson.page] = jenv.get_template("lesson.html").render(**context)
        page_sources[lesson.page] = lesson.rel
    command, found = instructor_command(root)
    report.problems += found
    pages["index.html"] = jenv.get_template("index.html").render(
        course=COURSE_NAME,
        paths=_index_paths(lessons, md),
        sessions=lessons,
        notebook_check=command,
    )

    report.problems += check_links(
        pages, origins, page_sources, root, extra_files={"style.css", *images}
    )

    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.html"), *out.glob("*-diagram.svg")]:
        if stale.name not in pages and stale.name not in images:
            stale.unlink()
    (out / "style.css").write_text(_stylesheet(), encoding="utf-8")
    for name, text in images.items():
        (out / name).write_text(text, encoding="utf-8")
    for name, text in pages.items():
        (out / name).write_text(text, encoding="utf-8")
        report.pages.append(out / name)
    report.seconds = time.perf_counter() - started
    if report.problems:
        raise SiteBuildError(report.problems, report)
    return report


def _diagram_file(lesson: Lesson) -> str:
    return f"{lesson.folder}-diagram.svg"


def _draw_diagrams(
    lessons: list[Lesson], root: Path, report: BuildReport
) -> tuple[dict[str, Diagram | None], dict[str, str]]:
    """Each page's diagram (None when its source is missing or broken: a problem in `report`), and
    the full-size SVG files to write, by name. Diagrams Graphviz could not draw go to `report.undrawn`."""
    dot = find_dot()
    diagrams: dict[str, Diagram | None] = {}
    images: dict[str, str] = {}
    with ThreadPoolExecutor() as pool:  # each is a `dot` process; they run side by side
        drawn = list(
            pool.map(lambda lesson: draw_diagram(lesson.source.parent, root, dot), lessons)
        )
    for lesson, (diagram, found) in zip(lessons, drawn):
        report.problems += found
        diagrams[lesson.page] = diagram
        if diagram is not None and diagram.standalone is None:
            report.undrawn.append(diagram.rel)
        elif diagram is not None:
            images[_diagram_file(lesson)] = diagram.standalone
    return diagrams, images


def _topic(number: int) -> str:
    """The session's topic from the syllabus (cafe/course/syllabus.py)."""
    return SESSIONS[number].topic if 0 <= number < len(SESSIONS) else f"session {number}"


def _index_paths(lessons: list[Lesson], md: MarkdownIt) -> list[dict[str, Any]]:
    """Sessions grouped by path, each with its time estimate and what it ships; planned ones named."""
    env: dict[str, Any] = {}
    inline = lambda text: md.renderInline(text, env)  # noqa: E731
    present = {lesson.number: lesson for lesson in lessons}
    groups = []
    for name, span in PATHS.items():
        entries = []
        for n in span:
            if n in present:
                lesson = present[n]
                entries.append(
                    {
                        "lesson": lesson,
                        "time": _format_time(lesson.time),
                        "ships": [
                            {"module": s.module, "summary": inline(s.summary)} for s in lesson.ships
                        ],
                    }
                )
            else:
                module = ", ".join(SESSIONS[n].modules) or None
                entries.append({"lesson": None, "number": n, "topic": _topic(n), "module": module})
        groups.append({"name": name, "entries": entries})
    return groups


# ---------------------------------------------------------------------------------------------
# Command line: `python tools/sitebuild.py [root] [out]` (tools/build.py site calls build_site)


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    out = Path(args[1]) if len(args) > 1 else None
    try:
        report = build_site(root, out)
    except SiteBuildError as exc:
        print(exc, file=sys.stderr)
        print(exc.report.summary(), file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
