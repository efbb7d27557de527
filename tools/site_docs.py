"""The course's guides (`docs/*.md`) as pages of the site, so a hosted copy carries its help too.

Each `docs/<name>.md` becomes `docs-<name>.html` (lower case), rendered by the same markdown
pipeline as the lessons: its `# ` heading is the page title, each `## ` section gets an anchor
and a place in the page's contents and in the search index, and its links are pointed at the
site like a lesson's (another guide, a lesson's page, or a repository file's copy under `files/`).
A guide holds no front matter and follows no section order: the lesson format does not apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from lesson_format import Problem
from lesson_markdown import sections_from_tokens
from markdown_it.token import Token
from site_links import LinkOrigin, docs_page, rewrite_links
from site_pages import COURSE_NAME, Site

__all__ = ["DOCS", "Guide", "find_guides", "render_guides"]

DOCS = "docs"
# The guide a newcomer needs first leads the list on the index; the others follow by name.
FIRST = ("troubleshooting",)


@dataclass(frozen=True)
class Guide:
    """One docs/*.md file: where it is, its page on the site, and its title."""

    rel: str  # docs/troubleshooting.md
    page: str  # docs-troubleshooting.html
    title: str  # the text of its first `# ` heading


def _title(text: str, fallback: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip().replace("`", "")
    return fallback


def find_guides(root: Path) -> list[Guide]:
    """Every docs/*.md of the repository, troubleshooting first, then by file name."""
    guides = []
    for path in sorted((root / DOCS).glob("*.md")):
        rel = path.relative_to(root).as_posix()
        page = docs_page(rel)
        if page is None:  # a name the site cannot turn into a page (docs_page's pattern)
            continue
        guides.append(Guide(rel, page, _title(path.read_text(encoding="utf-8"), path.stem)))
    return sorted(guides, key=lambda g: (g.page[len("docs-") : -5] not in FIRST, g.page))


def _drop_title(tokens: list[Token]) -> list[Token]:
    """The tokens without the first `# ` heading (the template shows the title itself)."""
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            return tokens[:i] + tokens[i + 3 :]
    return tokens


def _guide_context(guide: Guide, site: Site, origins: dict[str, LinkOrigin]) -> dict[str, Any]:
    md, env = site.md, {}  # type: ignore[var-annotated]
    text = (site.root / guide.rel).read_text(encoding="utf-8")
    tokens = _drop_title(md.parse(text, env))
    preamble, sections, _ = sections_from_tokens(tokens, 1)
    rewrite_links(guide.rel, tokens, site.root, origins, site.docs)
    render = lambda toks: md.renderer.render(list(toks), md.options, env)  # noqa: E731
    return {
        "course": COURSE_NAME,
        "guide": guide,
        "preamble": render(preamble),
        "sections": [
            {
                "anchor": s.anchor,
                "title_html": md.renderInline(s.title, env),
                "title": s.title,
                "html": render(s.tokens),
            }
            for s in sections
        ],
        "source": f"files/{guide.rel}",
    }


def render_guides(
    guides: list[Guide], site: Site, jenv: jinja2.Environment
) -> tuple[dict[str, str], dict[str, dict[str, LinkOrigin]], list[Problem]]:
    """{page: html} for every guide, where each page's links come from, and any problem found."""
    pages: dict[str, str] = {}
    origins: dict[str, dict[str, LinkOrigin]] = {}
    problems: list[Problem] = []
    for guide in guides:
        found: dict[str, LinkOrigin] = {}
        try:
            context = _guide_context(guide, site, found)
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(guide.rel, "file", f"cannot be read: {exc}"))
            continue
        found[context["source"]] = LinkOrigin(guide.rel, f"source link '{context['source']}'")
        pages[guide.page] = jenv.get_template("guide.html").render(**context)
        origins[guide.page] = found
    return pages, origins, problems
