"""Search for the course site: an index of every section of every page, and the script that reads it.

No server and no dependency. The index is a script file, `search-index.js`, that sets
`window.CAFE_SEARCH` to a list of entries, one per `##` section of a lesson or guide page:

    {"u": "s01-agent-loop.html#the-theory-in-depth", "p": "S01 · ...", "s": "The theory in depth",
     "x": "the section's text, whitespace collapsed"}

`search.js` (in site_templates/) loads it with a `<script>` tag the first time the search box is
used. A script tag, unlike `fetch()`, also works when the site is opened from disk (`file://`),
so search works the same from a checkout and on any static host.

What is left out of the index: everything folded "After the notebook" (Checkpoint to
Self-check, the closed `<details class="after-notebook">`: those sections state results, and a
search result's snippet would show them before the learner made the notebook's predictions;
issue 37 found seven answers that way), the answers of any self-check (the same reason), and the
diagram (its labels repeat the text around it).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

__all__ = ["INDEX_NAME", "SCRIPT_NAME", "search_entries", "search_index"]

INDEX_NAME = "search-index.js"
SCRIPT_NAME = "search.js"
# The title of a page is "S07 · Its title — The Agent Harness Path"; the course name is dropped.
TITLE_SEPARATOR = " — "
# Elements whose text stays out of the index: (tag, a class it must carry, or "" for any).
SKIPPED = (("details", "after-notebook"), ("div", "answer"), ("figure", ""), ("svg", ""))


class _Sections(HTMLParser):
    """Collect (anchor, heading, text) for each <section class="lesson-section" id=...> of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.found: list[dict[str, str]] = []
        self._in_title = self._in_h2 = False
        self._section: dict[str, str] | None = None
        self._depth = 0  # nested <section> elements inside the current one
        self._skip: list[str] = []  # the tags of the skipped elements we are inside, innermost last

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if tag == "title":
            self._in_title = True
        elif self._skip:
            self._skip += [tag] if tag == self._skip[0] else []
        elif any(tag == t and (not c or c in classes) for t, c in SKIPPED):
            self._skip = [tag]
        elif self._section is not None:
            self._depth += tag == "section"
            self._in_h2 = self._in_h2 or tag == "h2"
        elif tag == "section" and "lesson-section" in classes:
            self._section = {"a": values.get("id") or "", "s": "", "x": ""}
            self._depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif self._skip:
            if tag == self._skip[0]:
                self._skip.pop()
        elif self._section is not None:
            self._in_h2 = self._in_h2 and tag != "h2"
            self._depth -= tag == "section"
            if self._depth == 0:
                self.found.append(self._section)
                self._section = None

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif self._skip or self._section is None:
            return
        elif self._in_h2:
            self._section["s"] += data
        else:
            self._section["x"] += " " + data


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def search_entries(pages: dict[str, str]) -> list[dict[str, str]]:
    """One entry per section of every page that has sections, in page order then section order."""
    entries = []
    for name, text in sorted(pages.items()):
        scan = _Sections()
        scan.feed(text)
        scan.close()
        page_title = _collapse(scan.title.split(TITLE_SEPARATOR)[0])
        for section in scan.found:
            entries.append(
                {
                    "u": f"{name}#{section['a']}",
                    "p": page_title,
                    "s": _collapse(section["s"]),
                    "x": _collapse(section["x"]),
                }
            )
    return entries


def search_index(pages: dict[str, str]) -> str:
    """The text of search-index.js: the entries as one JavaScript assignment."""
    entries = json.dumps(search_entries(pages), ensure_ascii=False, separators=(",", ":"))
    # "</" inside a script's text could close a <script> element; JSON allows "<\/" instead
    return "window.CAFE_SEARCH = " + entries.replace("</", "<\\/") + ";\n"
