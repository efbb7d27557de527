"""Markdown for the course site: one markdown-it parser, pygments for code, heading anchors.

Used twice per lesson: `lessons.py` parses the body to check its sections, and `sitebuild.py`
parses it again to render the page (rendering rewrites links in place, so it needs fresh tokens).
Everything here is about markdown tokens; what a lesson must contain is `lessons.py`'s business.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

__all__ = [
    "PROSE_CELL_CHARS",
    "TEMPLATE_IDS",
    "Section",
    "Slugger",
    "inline_text",
    "make_markdown",
    "sections_from_tokens",
    "slugify",
    "split_questions",
]

# ids the page template uses itself; lesson headings never take them
TEMPLATE_IDS = (
    "page-top",
    "page-about",
    "page-on-this-page",
    "page-modules",
    "page-main",
    "page-nav",
    "page-diagram",
)

# A table cell longer than this is prose, not a figure; such tables stack on a phone (style.css).
PROSE_CELL_CHARS = 30


@dataclass(frozen=True)
class Section:
    """A `##` section of a lesson: its heading, its anchor and its tokens' line span."""

    title: str
    anchor: str
    line: int  # 1-based line of the heading in lesson.md
    tokens: tuple[Token, ...] = field(repr=False, compare=False)


def _highlight(code: str, lang: str, _attrs: str) -> str:
    """Highlight a fenced block with pygments; plain escaped text when the language is unknown."""
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    inner = pygments_highlight(code, lexer, HtmlFormatter(nowrap=True))
    css_lang = html.escape(lang or "text", quote=True)
    return f'<pre class="highlight"><code class="language-{css_lang}">{inner}</code></pre>\n'


def _cell_label(inline: Token) -> str:
    return " ".join(inline_text(inline).split())


def _label_table(tokens: list[Token], start: int) -> bool:
    """Give each body cell of the table at `start` its column's header as `data-label`.

    Returns True when the table holds prose (a body cell longer than `PROSE_CELL_CHARS`): the
    stylesheet then stacks its rows as labelled blocks on a phone, where three columns of
    sentences would otherwise squeeze into slivers or scroll the last column out of sight.
    """
    headers: list[str] = []
    column = 0
    prose = False
    in_head = False
    for i in range(start, len(tokens)):
        token = tokens[i]
        if token.type == "table_close":
            break
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            column = 0
        elif token.type == "th_open" and in_head:
            headers.append(_cell_label(tokens[i + 1]))
        elif token.type == "td_open":
            if column < len(headers) and headers[column]:
                token.attrSet("data-label", headers[column])
            column += 1
            prose = prose or len(inline_text(tokens[i + 1])) > PROSE_CELL_CHARS
    return prose


def make_markdown() -> MarkdownIt:
    """CommonMark plus tables and strikethrough; raw HTML off, so a lesson cannot inject markup."""
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight})
    md.enable(["table", "strikethrough"])

    def table_open(
        self, tokens, idx, options, env
    ):  # tables scroll inside their own box on a phone
        box = "scroll stack" if _label_table(tokens, idx) else "scroll"
        return f'<div class="{box}">' + md.renderer.renderToken(tokens, idx, options, env)

    def table_close(self, tokens, idx, options, env):
        return md.renderer.renderToken(tokens, idx, options, env) + "</div>\n"

    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    return md


def slugify(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


class Slugger:
    """Unique anchors within one page, deduplicated the way GitHub does (`x`, `x-1`, `x-2`)."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.seen: dict[str, int] = {name: 0 for name in reserved}

    def __call__(self, text: str) -> str:
        base = slugify(text) or "section"
        if base not in self.seen:
            self.seen[base] = 0
            return base
        while True:
            self.seen[base] += 1
            candidate = f"{base}-{self.seen[base]}"
            if candidate not in self.seen:
                self.seen[candidate] = 0
                return candidate


def inline_text(inline: Token) -> str:
    """The plain text of an inline token (code spans keep their content, markup is dropped)."""
    return "".join(
        child.content for child in inline.children or () if child.type in ("text", "code_inline")
    )


def split_questions(
    section: Section,
) -> tuple[list[Token], list[tuple[Token, int, list[Token], str]]]:
    """Self-check tokens -> (intro tokens, [(question inline token, line, answer tokens, anchor)])."""
    intro: list[Token] = []
    questions: list[tuple[Token, int, list[Token], str]] = []
    tokens = list(section.tokens)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open" and token.tag == "h3" and token.level == 0:
            line = (token.map[0] + 1) if token.map else 0
            questions.append((tokens[i + 1], line, [], str(token.attrs.get("id", ""))))
            i += 3  # heading_open, inline, heading_close
            continue
        (questions[-1][2] if questions else intro).append(token)
        i += 1
    return intro, questions


def sections_from_tokens(
    tokens: list[Token], body_line: int, reserved: Iterable[str] = TEMPLATE_IDS
) -> tuple[list[Token], list[Section], Slugger]:
    """Split a parsed body on top-level `##` headings; give every heading a unique anchor."""
    slugger = Slugger(reserved)
    preamble: list[Token] = []
    sections: list[tuple[str, str, int, list[Token]]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open" and token.level == 0:
            inline = tokens[i + 1]
            anchor = slugger(inline_text(inline))
            if token.map:
                token.map = [token.map[0] + body_line - 1, token.map[1] + body_line - 1]
            if token.tag == "h2":
                sections.append(
                    (inline.content.strip(), anchor, token.map[0] + 1 if token.map else 0, [])
                )
                i += 3
                continue
            token.attrSet("id", anchor)
        elif token.map:
            token.map = [token.map[0] + body_line - 1, token.map[1] + body_line - 1]
        (sections[-1][3] if sections else preamble).append(token)
        i += 1
    return preamble, [Section(t, a, ln, tuple(toks)) for t, a, ln, toks in sections], slugger
