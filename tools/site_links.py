"""Links on the course site: point lesson links at the site, then check every link on every page.

Lessons and docs link relative to their own file (`../s01-agent-loop/lesson.md#the-hook`,
`toy.py`, `../../docs/doctor.md`), so they also work when read on a forge. `rewrite_links` turns
those into site links and remembers where each came from:

- another lesson becomes its page (`s01-agent-loop.html#the-hook`);
- a page of `docs/` becomes its page on the site (`docs-doctor.html`);
- any other repository file becomes its copy under `files/` (`files/sessions/s07-repair-loop/toy.py`),
  which the build writes beside the pages (`linked_files` lists them).

So the site never links outside itself: `site/` works copied alone to any static host, or opened
from a checkout. `check_links` then scans every generated page and reports each link or anchor that
does not resolve as a `Problem` naming the source file, the link (with its line) and the fix.
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
from markdown_it.token import Token

__all__ = ["FILES", "LinkOrigin", "check_links", "docs_page", "linked_files", "rewrite_links"]

# The folder of the site that holds copies of the repository files its pages link to.
FILES = "files"
_LESSON = re.compile(r"sessions/([^/]+)/lesson\.md")
_DOC = re.compile(r"docs/([A-Za-z0-9_-]+)\.md")


def docs_page(rel: str) -> str | None:
    """The site page of a `docs/<name>.md` file (`docs-<name>.html`), or None for another path."""
    match = _DOC.fullmatch(rel)
    return f"docs-{match.group(1).lower()}.html" if match else None


def _site_target(target: str, fragment: str, docs: frozenset[str]) -> str:
    """Where a repository path `target` lives on the site."""
    lesson = _LESSON.fullmatch(target)
    if lesson:
        return f"{lesson.group(1)}.html{fragment}"
    if target in docs:
        return f"{docs_page(target)}{fragment}"
    return f"{FILES}/{target}{fragment}"


@dataclass(frozen=True)
class LinkOrigin:
    file: str
    where: str  # "link 'x' (line 12)" or "notebook link" ...
    hint: str = ""


def rewrite_links(
    rel: str,
    tokens: Iterable[Token],
    root: Path,
    origins: dict[str, LinkOrigin],
    docs: frozenset[str] = frozenset(),
) -> None:
    """Point the links of the markdown file `rel` (repository-relative) at the site.

    `docs` holds the `docs/*.md` paths the site renders as pages. Records where each rewritten
    href came from, for error messages.
    """
    base = posixpath.dirname(rel)
    for token in tokens:
        children = token.children or ()
        for child in children:
            attr = "href" if child.type == "link_open" else "src" if child.type == "image" else None
            if attr is None:
                continue
            written = str(child.attrs.get(attr, ""))
            place = f"line {token.map[0] + 1}" if token.map else "front matter"
            origin = LinkOrigin(rel, f"link '{written}' ({place})")
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
            target = posixpath.normpath(posixpath.join(base, unquote(parts.path)))
            if target.startswith("../") or target == "..":
                origins.setdefault(
                    written,
                    LinkOrigin(
                        rel, origin.where, "points outside the repository; link to a file inside it"
                    ),
                )
                continue  # left as written: the check reports it
            fragment = f"#{parts.fragment}" if parts.fragment else ""
            new = _site_target(target, fragment, docs)
            child.attrs[attr] = new
            origins.setdefault(new, origin)


def linked_files(pages: dict[str, str]) -> set[str]:
    """The repository paths the pages link under `files/`, which the build copies into the site."""
    found = set()
    for text in pages.values():
        for _, href in _scan(text).links:
            path = unquote(urlsplit(href).path)
            if path.startswith(f"{FILES}/"):
                found.add(posixpath.normpath(path[len(FILES) + 1 :]))
    return found


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


def _page_problem(
    page: str,
    fragment: str,
    name: str,
    scans: dict[str, _PageScan],
    root: Path,
    extra_files: set[str],
) -> str | None:
    """What is wrong with a link to `page` (a page or file of the site), or None."""
    if page in scans:
        if fragment and fragment not in scans[page].ids:
            known = ", ".join(sorted(i for i in scans[page].ids if not i.startswith("page-"))[:20])
            on = "this page" if page == name else page
            return f"anchor '#{fragment}' does not exist on {on}; use one of: {known}"
        return None
    if page in extra_files:
        return None
    lesson = re.fullmatch(r"(s\d{2}-[^/]+)\.html", page)
    if lesson and (root / "sessions" / lesson.group(1) / "lesson.md").exists():
        return (
            f"sessions/{lesson.group(1)}/lesson.md did not build (its problems are listed "
            f"in this report), so the link cannot be checked; fix that lesson first"
        )
    return (
        f"there is no page {page}"
        + (f" (no sessions/{lesson.group(1)}/lesson.md)" if lesson else "")
        + "; link to an existing session's lesson.md, e.g. ../s01-loop/lesson.md"
    )


def _network_problem(tag: str, scheme: str) -> str | None:
    """A link to another host is fine to follow; something the page would fetch from it is not."""
    if tag == "a" or scheme == "data":
        return None
    what = {"img": "an image", "link": "a stylesheet", "script": "a script"}.get(tag, f"a <{tag}>")
    return (
        f"{what} from the network would load every time the page is viewed; save it in the "
        "repository and link it by its relative path"
    )


def _link_problem(
    name: str,
    tag: str,
    href: str,
    origin: LinkOrigin,
    scans: dict[str, _PageScan],
    root: Path,
    extra_files: set[str],
) -> str | None:
    """What is wrong with one link of page `name`, or None when it resolves."""
    parts = urlsplit(href)
    if parts.scheme or href.startswith("//"):
        return _network_problem(tag, parts.scheme)
    fragment = unquote(parts.fragment)
    # the page's place is site/<name>; anything it links must stay inside site/
    target = (
        posixpath.normpath(posixpath.join("site", unquote(parts.path)))
        if parts.path
        else f"site/{name}"
    )
    if not target.startswith("site/"):
        return origin.hint or "points outside the site; link to a file of the repository"
    if target.startswith(f"site/{FILES}/"):
        repository = target[len(f"site/{FILES}/") :]
        if (root / repository).is_file():
            return None
        return f"{repository} does not exist in the repository; " + (
            origin.hint or "fix the path (links are relative to the file they are in)"
        )
    return _page_problem(target[len("site/") :], fragment, name, scans, root, extra_files)


def check_links(
    pages: dict[str, str],
    origins: dict[str, dict[str, LinkOrigin]],
    page_sources: dict[str, str],
    root: Path,
    extra_files: set[str],
) -> list[Problem]:
    """Every href/src on every page resolves inside the site: its pages and their anchors, the
    files it writes (`extra_files`), and repository files copied under `files/`.

    Links to other hosts are not followed (no network at build time), but anything the browser
    would fetch by itself on opening the page (an image, a stylesheet, a script) must come from
    the site, so that nothing is fetched at view time either.
    """
    scans = {name: _scan(text) for name, text in pages.items()}
    problems: list[Problem] = []
    for name, scan in scans.items():
        for tag, href in dict.fromkeys(scan.links):  # each distinct link once, in page order
            origin = origins.get(name, {}).get(href) or LinkOrigin(
                page_sources[name],
                f"generated link '{href}' on {name}",
                "this link comes from the page template",
            )
            problem = _link_problem(name, tag, href, origin, scans, root, extra_files)
            if problem:
                problems.append(Problem(origin.file, origin.where, problem))
    return problems
