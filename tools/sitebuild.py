"""Build the course site: one HTML page per session and per guide, an index, search, one stylesheet.

`python tools/build.py site` calls `build_site(root)`; tests call `load_lesson(path)` to get the
same parsed, validated record the builder renders. The lesson format is the contract in
`docs/AUTHORING.md`. The builder's modules, read in this order:

    lesson_markdown.py   the markdown-it parser, pygments highlighting, heading anchors, sections
    lesson_format.py     what a lesson.md must hold, and the checks for its sections
    lesson_front.py      the checks for its front matter
    lesson_order.py      the reading order: Build's last line, self-check answers folded
    lessons.py           load a lesson.md into a validated Lesson record (load_lesson)
    lesson_readings.py   which annotated readings lack a link (a note in the build's summary)
    site_links.py        point lesson and guide links at the site, then check every link and anchor
    diagrams.py          each session's diagram as inline SVG: drawn by Graphviz, or the committed one
    site_commands.py     the commands the site quotes from README.md (the notebook check)
    site_pages.py        what the lesson and index templates need
    site_docs.py         the guides, docs/*.md, as pages
    site_search.py       the search index (search-index.js) that site_templates/search.js reads
    sitebuild.py         this file: render every page with jinja2, check, write, report (build_site)

The session map (paths, topics, modules, folder names) comes from `cafe/course/syllabus.py`.
Every failure is a `Problem` naming the file, the field or link, and what to fix. The build
collects all of them, writes what it could, and then raises `SiteBuildError` listing them all.

Layout of the output (`site/` by default, ignored by git):

    site/index.html            the course, both paths, every session, the guides
    site/sNN-slug.html         one page per session
    site/docs-NAME.html        one page per guide (docs/NAME.md)
    site/sNN-slug-diagram.svg  the session's diagram, full size (the page also holds it inline)
    site/style.css             the one stylesheet (layout + pygments colours)
    site/search.js             the search box's script, and site/search-index.js, what it searches
    site/files/...             copies of the repository files the pages link to (notebooks, toys,
                               lesson and diagram sources), at their repository paths

Nothing a page links to lies outside `site/`, so the folder works copied alone to any static host,
and opened from disk (`file://`) as well.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from diagrams import INSTALL_GRAPHVIZ, Diagram, draw_diagram, find_dot
from lesson_format import COURSE_MODULES, REQUIRED_SECTIONS, LessonError, Problem
from lesson_markdown import Section, make_markdown
from lesson_readings import unlinked_readings
from lessons import Lesson, discover_lessons, load_all, load_lesson
from pygments.formatters import HtmlFormatter
from site_commands import instructor_command
from site_docs import find_guides, render_guides
from site_links import FILES, LinkOrigin, check_links, linked_files
from site_pages import COURSE_NAME, Site, diagram_file, index_paths, lesson_context
from site_search import INDEX_NAME, SCRIPT_NAME, search_index

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

TEMPLATES = Path(__file__).parent / "site_templates"

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
    # diagrams shown as their source: Graphviz is missing and no drawing is committed
    undrawn: list[str] = field(default_factory=list)
    # diagrams shown from the committed diagram.svg, because Graphviz is missing
    committed: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # repository files copied under files/
    # annotated readings with no link (lesson_readings.py): "sessions/sNN-x/lesson.md:LINE"
    unlinked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        state = "ok" if self.ok else f"{len(self.problems)} problem(s)"
        line = (
            f"site: {len(self.pages)} page(s), {len(self.lessons)} session(s) -> {self.out} "
            f"in {self.seconds:.2f}s ({state})"
        )
        if self.committed:
            line += (
                f"\nnote: {len(self.committed)} diagram(s) shown from their committed drawing "
                f"(diagram.svg), because Graphviz's `dot` is not installed; after editing a "
                f"diagram.dot, install it ({INSTALL_GRAPHVIZ}) and run `python tools/build.py diagrams`"
            )
        if self.unlinked:
            shown = ", ".join(self.unlinked[:3]) + (", ..." if len(self.unlinked) > 3 else "")
            line += (
                f"\nnote: {len(self.unlinked)} annotated reading(s) have no link ({shown}); give "
                "each the address of what it names (a book or the learner's own is exempt)"
            )
        if self.undrawn:
            line += (
                f"\nnote: {len(self.undrawn)} diagram(s) shown as their source text, because Graphviz's "
                f"`dot` is not installed and no drawing is committed; to draw them: {INSTALL_GRAPHVIZ}, "
                "then rebuild"
            )
        return line


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _stylesheet() -> str:
    """style.css plus the token colours only (the style's own background and `pre` rules would
    override the stylesheet's)."""
    base = (TEMPLATES / "style.css").read_text(encoding="utf-8")
    colours = "\n".join(HtmlFormatter(style=CODE_STYLE).get_token_style_defs(".highlight"))
    return f"{base}\n/* code colours: pygments '{CODE_STYLE}' style, generated by tools/sitebuild.py */\n{colours}\n"


@dataclass
class _Rendered:
    """Every page of the site as text, where each page's links come from, and its source file."""

    pages: dict[str, str] = field(default_factory=dict)
    origins: dict[str, dict[str, LinkOrigin]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def _render_lessons(
    lessons: list[Lesson], site: Site, jenv: jinja2.Environment, diagrams: dict[str, Diagram | None]
) -> _Rendered:
    rendered = _Rendered()
    by_number = {lesson.number: lesson for lesson in lessons}
    for i, lesson in enumerate(lessons):
        neighbours = (
            lessons[i - 1] if i > 0 else None,
            lessons[i + 1] if i + 1 < len(lessons) else None,
        )
        context, origins = lesson_context(
            lesson, neighbours, by_number, site, diagrams[lesson.page]
        )
        rendered.pages[lesson.page] = jenv.get_template("lesson.html").render(**context)
        rendered.origins[lesson.page] = origins
        rendered.sources[lesson.page] = lesson.rel
    return rendered


def _render_all(
    root: Path, lessons: list[Lesson], report: BuildReport
) -> tuple[_Rendered, dict[str, str]]:
    """Every page (lessons, guides, index), and the full-size diagram files, by name."""
    guides = find_guides(root)
    site = Site(root, make_markdown(), frozenset(guide.rel for guide in guides))
    jenv = _environment()
    diagrams, images = _draw_diagrams(lessons, root, report)
    rendered = _render_lessons(lessons, site, jenv, diagrams)
    pages, origins, found = render_guides(guides, site, jenv)
    report.problems += found
    rendered.pages.update(pages)
    rendered.origins.update(origins)
    rendered.sources.update({guide.page: guide.rel for guide in guides})
    command, found = instructor_command(root)
    report.problems += found
    troubleshooting = next((g.page for g in guides if g.page == "docs-troubleshooting.html"), None)
    rendered.pages["index.html"] = jenv.get_template("index.html").render(
        course=COURSE_NAME,
        paths=index_paths(lessons, site.md),
        sessions=lessons,
        notebook_check=command,
        guides=guides,
        troubleshooting=troubleshooting,
    )
    rendered.sources["index.html"] = "tools/site_templates/index.html"
    return rendered, images


def _write(
    out: Path, root: Path, rendered: _Rendered, images: dict[str, str], report: BuildReport
) -> None:
    """Write the site into `out`: stale pages removed, other files of `out` left alone."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.html"), *out.glob("*-diagram.svg")]:
        if stale.name not in rendered.pages and stale.name not in images:
            stale.unlink()
    written = {
        "style.css": _stylesheet(),
        SCRIPT_NAME: (TEMPLATES / SCRIPT_NAME).read_text(encoding="utf-8"),
        INDEX_NAME: search_index(rendered.pages),
        **images,
    }
    for name, text in written.items():
        (out / name).write_text(text, encoding="utf-8", newline="\n")
    for name, text in rendered.pages.items():
        (out / name).write_text(text, encoding="utf-8", newline="\n")
        report.pages.append(out / name)
    shutil.rmtree(out / FILES, ignore_errors=True)  # the copies are the build's: made afresh
    for rel in sorted(linked_files(rendered.pages)):
        if (root / rel).is_file():
            (out / FILES / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, out / FILES / rel)
            report.files.append(rel)


def build_site(root: Path | str, out: Path | str | None = None) -> BuildReport:
    """Render every session under `root/sessions`, and every guide in `root/docs`, into `out`
    (default `root/site`).

    Returns a `BuildReport` when the course is clean. Otherwise writes what it could and raises
    `SiteBuildError` listing every problem (front matter, sections, links) at once.
    """
    started = time.perf_counter()
    root = Path(root).resolve()
    out = Path(out).resolve() if out is not None else root / "site"
    report = BuildReport(out=out)
    lessons, report.problems = load_all(root)
    report.lessons = lessons
    report.unlinked = [where for lesson in lessons for where in unlinked_readings(lesson)]
    rendered, images = _render_all(root, lessons, report)
    extra = {"style.css", SCRIPT_NAME, INDEX_NAME, *images}
    report.problems += check_links(rendered.pages, rendered.origins, rendered.sources, root, extra)
    _write(out, root, rendered, images, report)
    report.seconds = time.perf_counter() - started
    if report.problems:
        raise SiteBuildError(report.problems, report)
    return report


def _draw_diagrams(
    lessons: list[Lesson], root: Path, report: BuildReport
) -> tuple[dict[str, Diagram | None], dict[str, str]]:
    """Each page's diagram (None when its source is missing or broken: a problem in `report`), and
    the full-size SVG files to write, by name. Diagrams shown as source go to `report.undrawn`,
    those from a committed drawing to `report.committed`."""
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
        if diagram is None:
            continue
        if diagram.standalone is None:
            report.undrawn.append(diagram.rel)
            continue
        if diagram.committed:
            report.committed.append(diagram.rel)
        images[diagram_file(lesson)] = diagram.standalone
    return diagrams, images


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
