"""Links on the course site: point lesson links at the site, then check every link on every page.

Lessons link relative to their own file (`../s01-agent-loop/lesson.md#the-hook`, `toy.py`), so
they also work when read on a forge. `rewrite_links` turns those into site links
(`s01-agent-loop.html#the-hook`, `../sessions/s07-repair-loop/toy.py`) and remembers where each
came from; `check_links` then scans every generated page and reports each link or anchor that does
not resolve as a `Problem` naming the lesson, the link (with its line) and the fix.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lesson_format import Problem
from lessons import Lesson
from markdown_it.token import Token

__all__ = ["LinkOrigin", "check_links", "rewrite_links"]


@dataclass(frozen=True)
class LinkOrigin:
    file: str
    where: str  # "link 'x' (line 12)" or "notebook link" ...
    hint: str = ""


def rewrite_links(
    lesson: Lesson, tokens: Iterable[Token], root: Path, origins: dict[str, LinkOrigin]
) -> None:
    """Point lesson links at the site: `../sNN-x/lesson.md#a` -> `sNN-x.html#a`, repo files -> `../path`.

    Links in lesson.md are written relative to the lesson file, so they also work when the file is
    read on a forge. Records where each rewritten href came from, for error messages.
    """
    lesson_dir = posixpath.dirname(lesson.rel)
    for token in tokens:
        children = token.children or ()
        for child in children:
            attr = "href" if child.type == "link_open" else "src" if child.type == "image" else None
            if attr is None:
                continue
            written = str(child.attrs.get(attr, ""))
            place = f"line {token.map[0] + 1}" if token.map else "front matter"
            origin = LinkOrigin(lesson.rel, f"link '{written}' ({place})")
            parts = urlsplit(written)
            if parts.scheme or written.startswith("//") or not written:
                if (
                    attr == "src"
                ):  # a link is followed on a click; an image would load on every view
                    origins.setdefault(written, origin)
                continue  # external links: no network at build time, so not checked
            if not parts.path:  # '#anchor' on this page
                origins.setdefault(written, origin)
                continue
            target = posixpath.normpath(posixpath.join(lesson_dir, unquote(parts.path)))
            fragment = f"#{parts.fragment}" if parts.fragment else ""
            m = re.fullmatch(r"sessions/([^/]+)/lesson\.md", target)
            new = f"{m.group(1)}.html{fragment}" if m else f"../{target}{fragment}"
            if target.startswith("../") or target == "..":
                new = written  # outside the repository: leave it, the check reports it
                origins.setdefault(
                    new,
                    LinkOrigin(
                        lesson.rel,
                        origin.where,
                        "points outside the repository; link to a file inside it",
                    ),
                )
                continue
            child.attrs[attr] = new
            origins.setdefault(new, origin)


class _PageScan(HTMLParser):
    """Collect ids and outgoing link targets of one generated page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, href or src)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])  # type: ignore[arg-type]
        if tag == "a" and values.get("name"):
            self.ids.add(values["name"])  # type: ignore[arg-type]
        for attr in ("href", "src", "data"):
            if tag in (
                "a",
                "link",
                "img",
                "script",
                "iframe",
                "source",
                "video",
                "audio",
                "embed",
                "object",
            ) and values.get(attr):
                self.links.append((tag, values[attr]))  # type: ignore[arg-type]


def _scan(page_html: str) -> _PageScan:
    scan = _PageScan()
    scan.feed(page_html)
    scan.close()
    return scan


def check_links(
    pages: dict[str, str],
    origins: dict[str, dict[str, LinkOrigin]],
    page_sources: dict[str, str],
    root: Path,
    extra_files: set[str],
) -> list[Problem]:
    """Every href/src on every page resolves: site pages and their anchors, repository files.

    Links to other hosts are not followed (no network at build time), but anything the browser
    would fetch by itself on opening the page (an image, a stylesheet) must come from the
    repository, so that nothing is fetched at view time either.
    """
    scans = {name: _scan(text) for name, text in pages.items()}
    problems: list[Problem] = []
    for name, scan in scans.items():
        seen: set[tuple[str, str]] = set()
        for tag, href in scan.links:
            if (tag, href) in seen:
                continue
            seen.add((tag, href))
            parts = urlsplit(href)
            origin = origins.get(name, {}).get(href) or LinkOrigin(
                page_sources[name],
                f"generated link '{href}' on {name}",
                "this link comes from the page template",
            )
            if parts.scheme or href.startswith("//"):
                if tag != "a" and parts.scheme not in ("data",):
                    what = {"img": "an image", "link": "a stylesheet", "script": "a script"}.get(
                        tag, f"a <{tag}>"
                    )
                    problems.append(
                        Problem(
                            origin.file,
                            origin.where,
                            f"{what} from the network would load every "
                            "time the page is viewed; save it in the repository and link it by "
                            "its relative path",
                        )
                    )
                continue
            fragment = unquote(parts.fragment)
            # the page's place in the repository is site/<name>
            target = (
                posixpath.normpath(posixpath.join("site", unquote(parts.path)))
                if parts.path
                else f"site/{name}"
            )
            problem = None
            if target.startswith("../") or target == "..":
                problem = origin.hint or "points outside the repository; link to a file inside it"
            elif target.startswith("site/"):
                page = target[len("site/") :]
                if page in scans:
                    if fragment and fragment not in scans[page].ids:
                        known = ", ".join(
                            sorted(i for i in scans[page].ids if not i.startswith("page-"))[:20]
                        )
                        on = "this page" if page == name else page
                        problem = (
                            f"anchor '#{fragment}' does not exist on {on}; use one of: {known}"
                        )
                elif page not in extra_files:
                    lesson = re.fullmatch(r"(s\d{2}-[^/]+)\.html", page)
                    if lesson and (root / "sessions" / lesson.group(1) / "lesson.md").exists():
                        problem = (
                            f"sessions/{lesson.group(1)}/lesson.md did not build (its problems are listed "
                            f"in this report), so the link cannot be checked; fix that lesson first"
                        )
                    else:
                        problem = (
                            f"there is no page {page}"
                            + (f" (no sessions/{lesson.group(1)}/lesson.md)" if lesson else "")
                            + "; link to an existing session's lesson.md, e.g. ../s01-loop/lesson.md"
                        )
            else:
                # a repository file; anchors into files other than lessons are not checked
                if not (root / target).exists():
                    problem = f"{target} does not exist in the repository; " + (
                        origin.hint or "fix the path (links are relative to the lesson file)"
                    )
            if problem:
                problems.append(Problem(origin.file, origin.where, problem))
    return problems
