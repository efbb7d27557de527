"""The course site: `tools/sitebuild.py` renders every lesson and refuses a broken one.

Two kinds of input: the real `sessions/*/lesson.md` (whatever exists right now), and small
fixture courses written under `tmp_path`, which pin the edge cases: a missing field, a wrong
type, a missing or misplaced section, a broken link or anchor, a missing notebook, a missing or
broken diagram. The tests that need Graphviz's `dot` skip where it is missing and fail in CI.
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import sitebuild  # noqa: E402
from lesson_format import AFTER_NOTEBOOK, REQUIRED_SECTIONS  # noqa: E402
from site_pages import format_time  # noqa: E402
from sitebuild import LessonError, SiteBuildError, build_site, load_lesson  # noqa: E402

# ---------------------------------------------------------------------------------------------
# Fixture lessons (test_site_browser.py reuses write_course)

PATH_OF = {0: "setup", **{n: "core" for n in range(1, 13)}, **{n: "harness" for n in range(13, 17)}}

BODY = """\
## The hook

Fixture hook for session {number}, with a [jump to the promise](#the-promise) and
Averyveryverylongidentifierthatwouldwidenthepageonaphoneifitcouldnotwrapanywhereatall.

## The promise

By the end you have a fixture.

## The theory in depth

### Why fixtures

| attempts | pass rate |
|---|---|
| 3 | 0.875 |

```python
def fixture_session(number: int) -> str:
    return f"session {{number}} renders, and this comment line is long enough to scroll on a phone"
```

## Build (in the notebook, predict first)

Open the [toy](toy.py) and the [module docs](../../docs/AUTHORING.md).{extra_build}

Work through the notebook now, then come back for the rest of this page.

## Checkpoint: the number you bank

The number of pages that rendered.

## State of the art (as of November 2026)

| Development | Status | Take |
|---|---|---|
| Fixture tables | adopt | A take long enough that this table is wider than a phone screen, so it has to scroll in its own box |

## Annotated readings

- The fixture, read slowly.

## Misconceptions and failure modes

- "A fixture is a toy." It pins one edge case.

## Self-check

### Which page renders this question?

<details><summary>Answer</summary>

The fixture page for session {number}; the answer stays collapsed until opened.

</details>

### Does a second question get its own block?

<details><summary>Answer</summary>

Yes, one `details` block per question.

</details>

## What this unlocks

The next fixture.{extra_unlocks}
"""


def front_matter(number: int, slug: str, /, **changes: Any) -> dict[str, Any]:
    """A valid front matter for session `number`; `changes` override fields (`_DROP` removes one)."""
    data: dict[str, Any] = {
        "number": number,
        "slug": slug,
        "title": f"Fixture session {number:02d}",
        "path": PATH_OF.get(number, "harness"),
        "carried_in": []
        if number == 0
        else [
            {
                "module": "cafe/endpoint/settings/config.py",
                "session": 0,
                "summary": "the mode switch, `COURSE_MODE`.",
            }
        ],
        "ships": [
            {"module": f"cafe/fixture{number}.py", "summary": f"what session {number} ships."}
        ],
        "teaches": f"what fixture session {number} teaches.",
        "time": {"reading": "10–20 min", "notebook": "20–30 min", "self_check": "5 min"},
        "prerequisites": [] if number == 0 else [0],
        "hands_on": "toy.py runs offline by default.",
    }
    for key, value in changes.items():
        if value is _DROP:
            data.pop(key)
        else:
            data[key] = value
    return data


_DROP = object()

FIXTURE_DIAGRAM = """\
// The fixture's loop: ask, check, ask again. A second sentence the caption leaves out.
digraph fixture { ask -> check; check -> ask [label="again"]; }
"""
FIXTURE_README = """\
# Fixture course

## The instructor path

```bash
pytest --nbval-lax --fixture-flag notebooks/   # the fixture's own notebook check
```

## Licence
"""


def write_lesson(
    root: Path,
    number: int,
    slug: str,
    *,
    front: dict[str, Any] | None = None,
    body: str | None = None,
    extra_build: str = "",
    extra_unlocks: str = "",
    notebook: bool = True,
    toy: bool = True,
    diagram: str | None = FIXTURE_DIAGRAM,
) -> Path:
    """Write sessions/sNN-slug/lesson.md (+ toy.py, diagram.dot, notebooks/sNN-slug.ipynb, README.md) under root."""
    folder = root / "sessions" / f"s{number:02d}-{slug}"
    folder.mkdir(parents=True, exist_ok=True)
    data = front if front is not None else front_matter(number, slug)
    text = (
        body
        if body is not None
        else BODY.format(number=number, extra_build=extra_build, extra_unlocks=extra_unlocks)
    )
    path = folder / "lesson.md"
    path.write_text(
        "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n\n" + text,
        encoding="utf-8",
    )
    if toy:
        (folder / "toy.py").write_text("print('fixture toy')\n", encoding="utf-8")
    if diagram is not None:
        (folder / "diagram.dot").write_text(diagram, encoding="utf-8")
    (root / "README.md").write_text(FIXTURE_README, encoding="utf-8")
    if notebook:
        (root / "notebooks").mkdir(exist_ok=True)
        (root / "notebooks" / f"s{number:02d}-{slug}.ipynb").write_text("{}\n", encoding="utf-8")
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "AUTHORING.md").write_text("# fixture\n", encoding="utf-8")
    return path


def write_course(root: Path) -> Path:
    """A small valid course: s00 setup, s01 and s07 core (s07 needs s01, s02, s06), s13 harness."""
    write_lesson(root, 0, "setup")
    write_lesson(
        root,
        1,
        "agent-loop",
        extra_unlocks=" Back to [the setup hook](../s00-setup/lesson.md#the-hook).",
    )
    write_lesson(
        root,
        7,
        "repair-loop",
        front=front_matter(
            7, "repair-loop", prerequisites=[1, 2, 6], title="A bounded re-ask, fixture edition"
        ),
    )
    write_lesson(root, 13, "stall-detection")
    return root


def failure(root: Path, out: Path | None = None) -> list[str]:
    """Build and return the problems as strings; fail the test if the build passed."""
    with pytest.raises(SiteBuildError) as caught:
        build_site(root, out or root / "site")
    return [str(p) for p in caught.value.problems]


class _Page(HTMLParser):
    """Just enough of a page: ids, links, and the text under some elements."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "a" and values.get("href"):
            self.links.append(values["href"] or "")


class Fold(HTMLParser):
    """The page's "After the notebook" fold: whether it is closed, the lesson sections in it and
    the ones outside it, in page order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.closed = True
        self.inside: list[str] = []
        self.outside: list[str] = []
        self.count = 0
        self._depth = 0  # <details> elements open inside the fold, the fold itself counted
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if tag == "details" and self._depth:
            self._depth += 1
        elif tag == "details" and "after-notebook" in classes:
            self.count += 1
            self._depth = 1
            self.closed = self.closed and "open" not in values
            assert values.get("id") == "after-the-notebook", values
        elif tag == "section" and "lesson-section" in classes:
            (self.inside if self._depth else self.outside).append(values.get("id") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "details" and self._depth:
            self._depth -= 1


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


# ---------------------------------------------------------------------------------------------
# A valid fixture course


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, sitebuild.BuildReport]:
    root = write_course(tmp_path_factory.mktemp("course"))
    out = tmp_path_factory.mktemp("out") / "site"
    return root, out, build_site(root, out)


def test_build_site_writes_index_one_page_per_session_and_one_stylesheet(built) -> None:
    root, out, report = built
    assert report.ok
    pages = [
        "index.html",
        "s00-setup.html",
        "s01-agent-loop.html",
        "s07-repair-loop.html",
        "s13-stall-detection.html",
    ]
    drawn = (
        [] if report.undrawn else [f"{page[:-5]}-diagram.svg" for page in pages[1:]]
    )  # where Graphviz is installed
    site = ["style.css", "search.js", "search-index.js", "files", "docs-authoring.html"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*pages, *drawn, *site])
    assert [lesson.number for lesson in report.lessons] == [0, 1, 7, 13]


def test_index_lists_every_session_with_time_and_what_it_ships(built) -> None:
    _, out, report = built
    index = (out / "index.html").read_text(encoding="utf-8")
    assert sitebuild.COURSE_NAME in index
    assert "Learner path" in index and "Instructor path" in index
    page = _Page(index)
    for lesson in report.lessons:
        assert lesson.page in page.links, f"index does not link {lesson.page}"
        assert lesson.title in index
        assert f"<code>cafe/fixture{lesson.number}.py</code>" in index
    assert text_of(index).count("10–20 min reading · 20–30 min notebook · 5 min self-check") == len(
        report.lessons
    )
    # the sessions not written yet are named, not linked
    assert "Session 02 · evals" in index and "s02-" not in " ".join(page.links)


def test_lesson_page_holds_every_required_part(built) -> None:
    _, out, _ = built
    html = (out / "s07-repair-loop.html").read_text(encoding="utf-8")
    text = text_of(html)
    page = _Page(html)
    assert sitebuild.COURSE_NAME in text
    assert "Session 07 · core path" in text
    assert "<h1>A bounded re-ask, fixture edition</h1>" in html
    assert (
        "Carried in" in text
        and "Today you ship" in text
        and "<code>cafe/fixture7.py</code>" in html
    )
    # the module list: all sixteen, this session marked, written sessions linked
    modules = re.search(r'<nav class="modules".*?</nav>', html, re.S).group(0)
    assert modules.count("<li ") == 16
    assert re.search(r'<li value="7" class="current" aria-current="page">repair', modules)
    assert (
        '<a href="s01-agent-loop.html">loop</a>' in modules
        and '<a href="s13-stall-detection.html">stall</a>' in modules
    )
    assert "What this teaches:" in text and "what fixture session 7 teaches." in text
    assert "10–20 min reading · 20–30 min notebook · 5 min self-check" in text
    # prerequisites: linked where the page exists, plain text where it does not
    assert '<a href="s01-agent-loop.html">S01 (Fixture session 01)</a>' in html
    assert "S02 (evals)" in text and "S06 (detect)" in text and "s02-" not in html
    assert "Hands-on" in text and "toy.py runs offline by default." in text
    # on this page: the four sections before the notebook, the fold after it, what it unlocks;
    # each link landing on an element of the page
    toc = re.search(r'<nav class="toc".*?</nav>', html, re.S).group(0)
    anchors = re.findall(r'href="#([^"]+)"', toc)
    assert len(anchors) == 6 and all(a in page.ids for a in anchors)
    assert anchors[3:5] == ["build-in-the-notebook-predict-first", "after-the-notebook"]
    assert "state-of-the-art-as-of-november-2026" in page.ids
    # tables scroll in their own box; a table of prose is marked to stack on a phone, each cell
    # labelled with its column; code is highlighted by pygments
    assert '<div class="scroll"><table>' in html and '<td data-label="pass rate">0.875</td>' in html
    assert (
        '<div class="scroll stack"><table>' in html
        and '<td data-label="Take">A take long enough' in html
    )
    assert '<pre class="highlight"><code class="language-python"><span class="k">def</span>' in html
    assert '<details class="self-check"' in html
    assert 'href="files/notebooks/s07-repair-loop.ipynb"' in html
    assert 'href="files/sessions/s07-repair-loop/toy.py"' in html
    assert (
        'rel="prev" href="s01-agent-loop.html"' in html
        and 'rel="next" href="s13-stall-detection.html"' in html
    )
    assert 'href="index.html"' in html
    source = (
        "sessions/s07-repair-loop/lesson.md"  # the footer names the file the page was built from
    )
    assert (
        f"Generated by tools/build.py from {source} · {sitebuild.COURSE_NAME}, the course." in text
    )


def _loads_from_the_network(html: str) -> list[str]:
    """Everything a browser would fetch by itself from another host on opening the page."""
    fetched = re.findall(
        r'<(?:img|script|iframe|link|source|video|audio|embed|object)\b[^>]*?(?:src|href|data)="([^"]+)"',
        html,
    )
    return [url for url in fetched if re.match(r"(https?:)?//", url)]


def test_pages_run_only_the_local_search_script_and_load_nothing_from_the_network(built) -> None:
    _, out, _ = built
    for page in out.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert re.findall(r"<script[^>]*>", html) == ['<script src="search.js" defer>'], page.name
        assert not _loads_from_the_network(html), page.name
        assert (
            html.count('<link rel="stylesheet"') == 1
            and '<link rel="stylesheet" href="style.css">' in html
        )
    css = (out / "style.css").read_text(encoding="utf-8")
    assert "@import" not in css and "url(" not in css
    assert ".highlight .k" in css, "the pygments colours live in the one stylesheet"


def _luminance(colour: str) -> float:
    hexa = colour.lstrip("#")
    hexa = "".join(c * 2 for c in hexa) if len(hexa) == 3 else hexa
    channels = [int(hexa[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rgb / #rrggbb colours (1 to 21)."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_text_and_code_colours_are_readable(built) -> None:
    _, out, _ = built
    css = (out / "style.css").read_text(encoding="utf-8")
    var = dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{3,6})", css))
    for fg, bg in [
        ("ink", "paper"),
        ("muted", "paper"),
        ("accent", "paper"),
        ("accent", "accent-soft"),
        ("ink", "code-bg"),
        ("muted", "accent-soft"),
    ]:
        assert contrast(var[fg], var[bg]) >= 4.5, (fg, bg, round(contrast(var[fg], var[bg]), 2))
    tokens = re.findall(r"\.highlight \.(\w+) \{ color: (#[0-9a-fA-F]{3,6})", css)
    assert len(tokens) > 20, "the pygments token colours are missing from style.css"
    faint = [
        (name, colour, round(contrast(colour, var["code-bg"]), 2))
        for name, colour in tokens
        if name != "w" and contrast(colour, var["code-bg"]) < 4.0
    ]  # .w: visible-whitespace marks
    assert not faint, f"code colours too faint on the code background: {faint}"
    generated = css.split("/* code colours:", 1)[1]
    assert not re.search(r"^\.highlight \{|^pre \{", generated, re.M), (
        "pygments' own rules override the code box"
    )


def test_the_network_check_sees_what_a_browser_would_fetch() -> None:
    assert _loads_from_the_network('<img alt="x" src="https://example.org/a.png">') == [
        "https://example.org/a.png"
    ]
    assert _loads_from_the_network('<link rel="stylesheet" href="//cdn.example/x.css">') == [
        "//cdn.example/x.css"
    ]
    assert _loads_from_the_network('<a href="https://arxiv.org/abs/2310.01798">a reading</a>') == []


def test_build_opens_no_network_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the site build tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    root = write_course(tmp_path / "course")
    assert build_site(root, tmp_path / "site").ok


def test_raw_html_in_a_lesson_is_shown_as_text_not_run(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path,
        1,
        "agent-loop",
        extra_build='\n\n<script>alert("x")</script>\n\n<img src="x.png" onerror="alert(1)">',
    )
    build_site(tmp_path, tmp_path / "site")
    html = (tmp_path / "site" / "s01-agent-loop.html").read_text(encoding="utf-8")
    assert html.count("<script") == 1 and "<img" not in html  # the one script: search.js
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_an_image_from_the_network_is_refused_with_the_fix(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path, 1, "agent-loop", extra_build=" ![a chart](https://example.org/chart.png)"
    )
    problems = "\n".join(failure(tmp_path))
    assert re.search(
        r"sessions/s01-agent-loop/lesson\.md: link 'https://example\.org/chart\.png' \(line \d+\): an image "
        r"from the network would load every time the page is viewed; save it in the repository",
        problems,
    )


def test_self_check_questions_become_collapsed_details(built) -> None:
    _, out, _ = built
    html = (out / "s00-setup.html").read_text(encoding="utf-8")
    blocks = re.findall(
        r'<details class="self-check" id="([^"]+)">\s*<summary>(.*?)</summary>\s*<div class="answer">(.*?)</div>\s*</details>',
        html,
        re.S,
    )
    assert [(anchor, summary) for anchor, summary, _ in blocks] == [
        ("which-page-renders-this-question", "Which page renders this question?"),
        ("does-a-second-question-get-its-own-block", "Does a second question get its own block?"),
    ]
    assert "the answer stays collapsed until opened" in blocks[0][2]
    assert '<details class="self-check" id="which-page-renders-this-question" open' not in html
    assert "<h3" not in html.split('id="self-check"')[1].split("</section>")[0], (
        "questions are not plain headings"
    )


def test_lesson_links_are_rewritten_to_site_pages_and_repository_files(built) -> None:
    _, out, _ = built
    html = (out / "s01-agent-loop.html").read_text(encoding="utf-8")
    assert 'href="s00-setup.html#the-hook"' in html  # ../s00-setup/lesson.md#the-hook
    assert 'href="files/sessions/s01-agent-loop/toy.py"' in html  # toy.py, relative to the lesson
    assert 'href="docs-authoring.html"' in html  # ../../docs/AUTHORING.md: a guide is a page
    assert 'href="#the-promise"' in html


def test_first_and_last_pages_have_one_neighbour_each(built) -> None:
    _, out, _ = built
    first = (out / "s00-setup.html").read_text(encoding="utf-8")
    last = (out / "s13-stall-detection.html").read_text(encoding="utf-8")
    assert 'rel="prev"' not in first and 'rel="next" href="s01-agent-loop.html"' in first
    assert 'rel="next"' not in last and 'rel="prev" href="s07-repair-loop.html"' in last


def test_load_lesson_returns_the_validated_record(built) -> None:
    root, _, _ = built
    lesson = load_lesson(root / "sessions" / "s07-repair-loop" / "lesson.md")
    assert (lesson.number, lesson.slug, lesson.path, lesson.folder) == (
        7,
        "repair-loop",
        "core",
        "s07-repair-loop",
    )
    assert lesson.rel == "sessions/s07-repair-loop/lesson.md"
    assert lesson.prerequisites == (1, 2, 6)
    assert lesson.time == {"reading": "10–20 min", "notebook": "20–30 min", "self_check": "5 min"}
    assert lesson.ships[0].module == "cafe/fixture7.py"
    assert [s.title for s in lesson.sections][5] == "State of the art (as of November 2026)"
    assert len(lesson.sections) == len(sitebuild.REQUIRED_SECTIONS)
    hook = lesson.section("The hook")
    lines = (root / lesson.rel).read_text(encoding="utf-8").splitlines()
    assert lines[hook.line - 1] == "## The hook"


def test_build_replaces_stale_pages_but_keeps_other_files(tmp_path: Path) -> None:
    root = write_course(tmp_path / "course")
    out = tmp_path / "site"
    (out / "screenshots").mkdir(parents=True)
    (out / "s99-gone.html").write_text("old", encoding="utf-8")
    build_site(root, out)
    assert not (out / "s99-gone.html").exists()
    assert (out / "screenshots").is_dir()


# ---------------------------------------------------------------------------------------------
# Broken lessons: each failure names the file, the field or link, and the fix


def test_missing_front_matter_field_names_file_and_field(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", front=front_matter(1, "agent-loop", hands_on=_DROP))
    problems = failure(tmp_path)
    assert any(
        p.startswith("sessions/s01-agent-loop/lesson.md: field 'hands_on': missing")
        for p in problems
    ), problems


def test_wrongly_typed_fields_name_file_field_and_expected_type(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path,
        1,
        "agent-loop",
        front=front_matter(
            1,
            "loop",
            number="1",
            prerequisites="0",
            time={"reading": "10 min", "notebook": "5 min"},
            ships=[],
            path="harness",
        ),
    )
    problems = "\n".join(failure(tmp_path))
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'number': expected an integer like 7, got a string ('1')"
        in problems
    )
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'prerequisites': expected a list of session numbers"
        in problems
    )
    assert "sessions/s01-agent-loop/lesson.md: field 'time.self_check': missing" in problems
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'ships': expected a list with at least one"
        in problems
    )


def test_path_must_match_the_session_number(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path, 13, "stall-detection", front=front_matter(13, "stall-detection", path="core")
    )
    problems = failure(tmp_path)
    assert (
        "sessions/s13-stall-detection/lesson.md: field 'path': is 'core' but session 13 belongs on the harness path "
        "(setup s00, core s01-s12, harness s13-s16)"
    ) in problems


def test_number_and_slug_must_match_the_folder(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", front=front_matter(8, "the-loop", path="core"))
    problems = failure(tmp_path)
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'number': is 8 but the folder says 01; make them match"
        in problems
    )
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'slug': is 'the-loop' but the folder says 'agent-loop'; make them match"
        in problems
    )


def test_unknown_and_nested_fields_are_checked(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path,
        1,
        "agent-loop",
        front=front_matter(
            1,
            "loop",
            prerequisite=[0],
            carried_in=[
                {"module": "cafe/endpoint/settings/config.py", "session": "S00", "summary": "x"}
            ],
        ),
    )
    problems = "\n".join(failure(tmp_path))
    assert "sessions/s01-agent-loop/lesson.md: field 'prerequisite': unknown field" in problems
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'carried_in[0].session': expected a session number (int), got 'S00'"
        in problems
    )


def test_entries_time_and_prerequisites_are_checked_one_by_one(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path,
        7,
        "repair-loop",
        front=front_matter(
            7,
            "repair-loop",
            carried_in=[
                {"module": "cafe/detect/checks.py", "session": 6, "sumary": "typo"},
                "cafe/schema/ticket.py",
            ],
            ships=[{"module": "", "summary": "ships nothing"}],
            time={
                "reading": "20 min",
                "notebook": "a long afternoon with the notebook and a pot of coffee",
                "self_check": 5,
            },
            prerequisites=[1, 7, 9],
        ),
    )
    problems = "\n".join(failure(tmp_path))
    lesson = "sessions/s07-repair-loop/lesson.md"
    for expected in [
        "field 'carried_in[0].summary': missing; each entry needs module, session and summary",
        "field 'carried_in[0].sumary': unknown key; each entry has module, session and summary",
        "field 'carried_in[1]': expected a mapping with module, session and summary, got a string",
        "field 'ships[0].module': expected a non-empty string, got a string ('')",
        "field 'time.notebook': is 54 characters; keep it a short estimate like '20–40 min'",
        "field 'time.self_check': expected a non-empty string, got int (5)",
        "field 'prerequisites[1]': session 7 is not an earlier session than 7",
        "field 'prerequisites[2]': session 9 is not an earlier session than 7",
    ]:
        assert f"{lesson}: {expected}" in problems, expected


def test_missing_front_matter_block_is_reported(tmp_path: Path) -> None:
    write_course(tmp_path)
    path = tmp_path / "sessions" / "s01-agent-loop" / "lesson.md"
    path.write_text(path.read_text(encoding="utf-8").split("---\n", 2)[2], encoding="utf-8")
    problems = failure(tmp_path)
    assert any(
        p.startswith("sessions/s01-agent-loop/lesson.md: front matter: missing") for p in problems
    ), problems


def test_missing_section_names_file_section_and_where_it_goes(tmp_path: Path) -> None:
    write_course(tmp_path)
    body = BODY.format(number=1, extra_build="", extra_unlocks="").replace(
        "## Annotated readings\n\n- The fixture, read slowly.\n\n", ""
    )
    write_lesson(tmp_path, 1, "agent-loop", body=body)
    problems = failure(tmp_path)
    assert (
        "sessions/s01-agent-loop/lesson.md: section '## Annotated readings': is missing; add '## Annotated readings' "
        "after '## State of the art (as of Month YYYY)'"
    ) in problems


def test_sections_out_of_order_misnamed_or_undated_are_reported(tmp_path: Path) -> None:
    write_course(tmp_path)
    body = BODY.format(number=1, extra_build="", extra_unlocks="")
    body = body.replace("## The promise\n\nBy the end you have a fixture.\n\n", "")
    body = body.replace("## Self-check\n", "## The promise\n\nLate promise.\n\n## Self-check\n")
    body = body.replace("(as of November 2026)", "(2026)").replace(
        "## Checkpoint: the number you bank", "## Checkpoint"
    )
    write_lesson(tmp_path, 1, "agent-loop", body=body)
    problems = "\n".join(failure(tmp_path))
    assert re.search(
        r"sessions/s01-agent-loop/lesson\.md: section '## The promise' \(line \d+\): is out of order: "
        r"it must come before '## Misconceptions and failure modes'",
        problems,
    )
    assert (
        "section '## State of the art (2026)'" in problems
        and "must carry the month it was written" in problems
    )
    assert (
        "section '## Checkpoint' (line" in problems
        and "is not one of the required sections" in problems
    )


def test_state_of_the_art_table_needs_its_three_columns(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path,
        1,
        "agent-loop",
        body=BODY.format(number=1, extra_build="", extra_unlocks="").replace(
            "| Development | Status | Take |", "| Development | Verdict | Take |"
        ),
    )
    problems = "\n".join(failure(tmp_path))
    assert (
        "the table's columns are Development | Verdict | Take; they must be Development | Status | Take"
        in problems
    )


def test_self_check_needs_questions_with_answers(tmp_path: Path) -> None:
    write_course(tmp_path)
    body = BODY.format(number=1, extra_build="", extra_unlocks="").replace(
        "Yes, one `details` block per question.\n", ""
    )
    write_lesson(tmp_path, 1, "agent-loop", body=body)
    problems = "\n".join(failure(tmp_path))
    assert re.search(
        r"sessions/s01-agent-loop/lesson\.md: self-check question 'Does a second question get its own block\?' "
        r"\(line \d+\): has no answer",
        problems,
    )


def test_broken_repository_link_names_file_line_and_path(tmp_path: Path) -> None:
    write_course(tmp_path)
    path = write_lesson(
        tmp_path, 1, "agent-loop", extra_build=" See [the module](../../cafe/nothing_here.py)."
    )
    problems = failure(tmp_path)
    line = next(
        i
        for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "nothing_here" in text
    )
    assert (
        f"sessions/s01-agent-loop/lesson.md: link '../../cafe/nothing_here.py' (line {line}): cafe/nothing_here.py "
        "does not exist in the repository; fix the path (links are relative to the file they are in)"
    ) in problems


def test_broken_anchor_on_this_page_and_on_another_page(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path,
        1,
        "agent-loop",
        extra_unlocks=" See [nowhere](#no-such-section) and "
        "[setup](../s00-setup/lesson.md#no-such-anchor).",
    )
    problems = "\n".join(failure(tmp_path))
    assert re.search(
        r"sessions/s01-agent-loop/lesson\.md: link '#no-such-section' \(line \d+\): anchor '#no-such-section' "
        r"does not exist on this page; use one of: .*the-hook",
        problems,
    )
    assert re.search(
        r"sessions/s01-agent-loop/lesson\.md: link '\.\./s00-setup/lesson\.md#no-such-anchor' \(line \d+\): "
        r"anchor '#no-such-anchor' does not exist on s00-setup\.html",
        problems,
    )


def test_link_to_a_session_that_does_not_exist(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(
        tmp_path, 1, "agent-loop", extra_unlocks=" Next: [detect](../s06-detect/lesson.md)."
    )
    problems = "\n".join(failure(tmp_path))
    assert (
        "link '../s06-detect/lesson.md' (line" in problems
        and "there is no page s06-detect.html" in problems
    )


def test_missing_notebook_and_toy_are_reported_with_the_fix(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", notebook=False, toy=False)
    (tmp_path / "notebooks" / "s01-agent-loop.ipynb").unlink()
    (tmp_path / "sessions" / "s01-agent-loop" / "toy.py").unlink()
    problems = "\n".join(failure(tmp_path))
    assert (
        "sessions/s01-agent-loop/lesson.md: notebook link 'files/notebooks/s01-agent-loop.ipynb': notebooks/s01-agent-loop.ipynb does "
        "not exist in the repository; write sessions/s01-agent-loop/notebook.py and run `python tools/build.py notebooks`"
    ) in problems
    assert (
        "sessions/s01-agent-loop/lesson.md: toy link 'files/sessions/s01-agent-loop/toy.py': sessions/s01-agent-loop/toy.py does not exist"
        in problems
    )


def test_every_failure_is_collected_before_the_build_fails(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", front=front_matter(1, "agent-loop", teaches=_DROP))
    write_lesson(tmp_path, 13, "stall-detection", extra_build=" [gone](#gone)")
    with pytest.raises(SiteBuildError) as caught:
        build_site(tmp_path, tmp_path / "site")
    files = {p.file for p in caught.value.problems}
    assert files == {"sessions/s01-agent-loop/lesson.md", "sessions/s13-stall-detection/lesson.md"}
    message = str(caught.value)
    assert message.startswith("site build failed with 2 problem(s):")
    # the valid pages are still written, for a look
    assert (tmp_path / "site" / "s07-repair-loop.html").exists()


def test_load_lesson_raises_lesson_error_listing_every_problem(tmp_path: Path) -> None:
    path = write_lesson(
        tmp_path, 1, "agent-loop", front=front_matter(1, "agent-loop", title=3, time="an hour")
    )
    with pytest.raises(LessonError) as caught:
        load_lesson(path)
    wheres = [p.where for p in caught.value.problems]
    assert wheres == ["field 'title'", "field 'time'"]
    assert (
        "sessions/s01-agent-loop/lesson.md: field 'title': expected a non-empty string, got int (3)"
        in str(caught.value)
    )


def test_command_line_exits_non_zero_and_prints_the_problems(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", front=front_matter(1, "agent-loop", title=_DROP))
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "sitebuild.py"),
            str(tmp_path),
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "sessions/s01-agent-loop/lesson.md: field 'title': missing" in run.stderr


def test_command_line_exits_zero_on_a_clean_course(tmp_path: Path) -> None:
    write_course(tmp_path)
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "sitebuild.py"),
            str(tmp_path),
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "site: 6 page(s), 4 session(s)" in run.stdout  # index, 4 sessions, 1 guide


# ---------------------------------------------------------------------------------------------
# The real course, whatever sessions exist right now

REAL_LESSONS = sitebuild.discover_lessons(ROOT)


@pytest.mark.skipif(not REAL_LESSONS, reason="no sessions/*/lesson.md written yet")
def check_page_parts(html: str, lesson: sitebuild.Lesson, lessons: list[sitebuild.Lesson]) -> None:
    """Every part issue 5 lists for a lesson page, in the page built for `lesson`."""
    text = text_of(html)
    page = _Page(html)
    pages = {other.number: other.page for other in lessons}
    where = lesson.page
    assert sitebuild.COURSE_NAME in text, where
    assert f"Session {lesson.number:02d} · {lesson.path} path" in text, where
    assert f"<h1>{lesson.title}</h1>" in html.replace("&#39;", "'").replace("&#34;", '"').replace(
        "&amp;", "&"
    ), where
    assert "Carried in" in text and "Today you ship" in text, where
    for carried in lesson.carried_in:
        assert f"<code>{carried.module}</code>" in html, (where, carried.module)
    for shipped in lesson.ships:
        assert f"<code>{shipped.module}</code>" in html, (where, shipped.module)
    modules = re.search(r'<nav class="modules".*?</nav>', html, re.S).group(0)
    assert modules.count("<li ") == len(sitebuild.COURSE_MODULES), where
    marked = re.findall(r'<li value="(\d+)" class="current"', modules)
    listed = {number for number, _, _ in sitebuild.COURSE_MODULES}
    assert marked == ([str(lesson.number)] if lesson.number in listed else []), (where, marked)
    assert "What this teaches:" in text, where
    assert all(value in text for value in lesson.time.values()), where
    for number in lesson.prerequisites:
        if number in pages:
            assert f'<a href="{pages[number]}">S{number:02d} (' in html, (where, number)
        else:
            assert f"S{number:02d} (" in text, (where, number)
    assert "Hands-on" in text, where
    toc = re.search(r'<nav class="toc".*?</nav>', html, re.S).group(0)
    anchors = re.findall(r'href="#([^"]+)"', toc)
    sections = [section.anchor for section in lesson.sections]
    assert anchors == [*sections[:4], "after-the-notebook", sections[-1]], where
    assert all(anchor in page.ids for anchor in anchors), where
    fold = Fold(html)
    assert fold.inside == sections[4:9] and fold.outside == [*sections[:4], sections[-1]], where
    assert fold.closed, where
    assert (
        html.count('<details class="self-check"') >= 1 and '<details class="self-check" id' in html
    ), where
    assert (
        f"files/notebooks/{lesson.folder}.ipynb" in page.links
        and f"files/sessions/{lesson.folder}/toy.py" in page.links
    ), where
    i = [other.page for other in lessons].index(lesson.page)
    if i > 0:
        assert f'rel="prev" href="{lessons[i - 1].page}"' in html, where
    if i + 1 < len(lessons):
        assert f'rel="next" href="{lessons[i + 1].page}"' in html, where
    assert (
        f'Generated by tools/build.py from <a href="files/{lesson.rel}">{lesson.rel}</a>' in html
    ), where


def test_every_fixture_page_holds_every_part(built) -> None:
    _, out, report = built
    for lesson in report.lessons:
        check_page_parts((out / lesson.page).read_text(encoding="utf-8"), lesson, report.lessons)


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, sitebuild.BuildReport]:
    """The course's own site, built once for the tests that only read it (a build of the real
    course takes seconds, and reading it changes nothing). A build that fails fails each of them
    with the build's own list of problems."""
    out = tmp_path_factory.mktemp("real") / "site"
    try:
        report = build_site(ROOT, out)
    except SiteBuildError as exc:
        pytest.fail(str(exc), pytrace=False)
    return out, report


def test_real_site_builds_with_a_page_per_session(real_site) -> None:
    site, report = real_site
    index = (site / "index.html").read_text(encoding="utf-8")
    index_text = text_of(index)
    assert len(report.lessons) == len(REAL_LESSONS)
    assert (
        sitebuild.COURSE_NAME in index_text
        and "Learner path" in index_text
        and "Instructor path" in index_text
    )
    assert all(f"{name.capitalize()} path" in index_text for name in ("setup", "core", "harness"))
    # the kitchen words every lesson links to are a guide page, listed on the index
    glossary = (site / "docs-glossary.html").read_text(encoding="utf-8")
    assert 'href="docs-glossary.html"' in index and "86'd" in glossary, "docs/glossary.md"
    for lesson in report.lessons:
        # the index: every session, linked, with its time estimate and what it ships
        assert f'href="{lesson.page}"' in index
        assert " · ".join(format_time(lesson.time)) in index_text, lesson.page
        assert all(f"<code>{shipped.module}</code>" in index for shipped in lesson.ships), (
            lesson.page
        )
        html = (site / lesson.page).read_text(encoding="utf-8")
        check_page_parts(html, lesson, report.lessons)
        assert not _loads_from_the_network(html), lesson.page


def test_two_lessons_with_one_number_are_reported(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 7, "retry", front=front_matter(7, "retry"))
    problems = failure(tmp_path)
    # the syllabus names one folder per session, so the second one is the one at fault
    assert (
        "sessions/s07-retry/lesson.md: field 'slug': is 'retry' but cafe/course/syllabus.py names session 7 "
        "'repair-loop': the folder must be sessions/s07-repair-loop"
    ) in problems


def test_lesson_slug_or_number_outside_the_syllabus_is_reported(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 2, "checks", front=front_matter(2, "checks"))
    write_lesson(tmp_path, 17, "more", front=front_matter(17, "more", path="harness"))
    problems = failure(tmp_path)
    assert (
        "sessions/s02-checks/lesson.md: field 'slug': is 'checks' but cafe/course/syllabus.py names session 2 "
        "'evals': the folder must be sessions/s02-evals"
    ) in problems
    assert (
        "sessions/s17-more/lesson.md: field 'number': session 17 is not in cafe/course/syllabus.py, which runs "
        "0 to 16; add the session there first"
    ) in problems


def test_link_to_a_lesson_that_failed_says_to_fix_that_lesson(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 0, "setup", front=front_matter(0, "setup", ships=_DROP))
    problems = "\n".join(failure(tmp_path))
    assert "sessions/s00-setup/lesson.md: field 'ships': missing" in problems
    assert (
        "sessions/s01-agent-loop/lesson.md: link '../s00-setup/lesson.md#the-hook' (line"
        in problems
        and "sessions/s00-setup/lesson.md did not build" in problems
    )


def test_the_build_is_deterministic(tmp_path: Path) -> None:
    root = write_course(tmp_path / "course")
    build_site(root, tmp_path / "a")
    build_site(root, tmp_path / "b")
    written = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*"))
    assert written == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*"))
    for path in written:
        if (tmp_path / "a" / path).is_file():
            assert (tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes(), (
                path
            )


# ---------------------------------------------------------------------------------------------
# A diagram per session (Graphviz), and the instructor's command quoted from README.md


def _needs_graphviz() -> None:
    """Skip where Graphviz is missing on a learner's machine; fail in CI, which installs it."""
    import os
    import shutil

    if shutil.which("dot"):
        return
    message = "Graphviz's `dot` is not installed (sudo apt-get install graphviz)"
    if os.environ.get("CAFE_REQUIRE_BROWSER") == "1" or os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}, and .ci/run installs it", pytrace=False)
    pytest.skip(message)


def _figure(html: str) -> str:
    match = re.search(r'<figure class="diagram" id="page-diagram">.*?</figure>', html, re.S)
    assert match, "the page has no diagram figure"
    return match.group(0)


def test_every_written_session_has_a_diagram_source() -> None:
    assert REAL_LESSONS
    missing = [
        str(path.parent.relative_to(ROOT))
        for path in REAL_LESSONS
        if not (path.parent / "diagram.dot").exists()
    ]
    assert not missing, (
        f"sessions without a diagram.dot (docs/AUTHORING.md, 'The diagram'): {missing}"
    )


def test_a_missing_diagram_names_the_file_and_the_fix(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", diagram=None)
    (tmp_path / "sessions" / "s01-agent-loop" / "diagram.dot").unlink()
    assert (
        "sessions/s01-agent-loop/diagram.dot: diagram: missing: every session has one Graphviz diagram of its "
        "loop or seam (docs/AUTHORING.md, 'The diagram')"
    ) in failure(tmp_path)


def test_a_diagram_graphviz_cannot_draw_fails_the_build_naming_the_file(tmp_path: Path) -> None:
    _needs_graphviz()
    write_course(tmp_path)
    write_lesson(tmp_path, 7, "repair-loop", diagram="digraph broken { ask -> ; }\n")
    problems = failure(tmp_path)
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        "sessions/s07-repair-loop/diagram.dot: diagram: Graphviz cannot draw it: "
    )
    assert (
        "syntax error" in problems[0]
        and "dot -Tsvg sessions/s07-repair-loop/diagram.dot" in problems[0]
    )


def test_the_diagram_is_drawn_inline_under_the_theory_heading(built) -> None:
    _needs_graphviz()
    _, out, _ = built
    html = (out / "s07-repair-loop.html").read_text(encoding="utf-8")
    figure = _figure(html)
    assert '<svg role="img" aria-label="The fixture\'s loop: ask, check, ask again."' in figure
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html and "<!--" not in figure
    assert ">again</text>" in figure, "the edge label is drawn as SVG text"
    assert 'href="files/sessions/s07-repair-loop/diagram.dot"' in figure
    assert 'href="s07-repair-loop-diagram.svg">Open it full size</a>' in figure
    assert (out / "s07-repair-loop-diagram.svg").read_text(encoding="utf-8").startswith("<?xml")
    theory = html.index('<section class="lesson-section" id="the-theory-in-depth">')
    assert (
        theory
        < html.index('<figure class="diagram"')
        < html.index('id="build-in-the-notebook-predict-first"')
    )
    assert html.count('<figure class="diagram"') == 1


def test_without_graphviz_the_page_shows_the_source_and_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_course(tmp_path / "course")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `dot` anywhere
    report = build_site(root, tmp_path / "site")
    assert report.ok and len(report.undrawn) == 4
    assert (
        "4 diagram(s) shown as their source text" in report.summary()
        and "sudo apt-get install graphviz" in report.summary()
    )
    figure = _figure((tmp_path / "site" / "s07-repair-loop.html").read_text(encoding="utf-8"))
    assert "<svg" not in figure and "sudo apt-get install graphviz" in figure
    assert "full size" not in figure and not list((tmp_path / "site").glob("*.svg"))
    assert "digraph fixture { ask -&gt; check;" in figure


def test_every_real_page_shows_its_drawn_diagram(real_site) -> None:
    _needs_graphviz()
    site, report = real_site
    assert not report.undrawn
    for lesson in report.lessons:
        figure = _figure((site / lesson.page).read_text(encoding="utf-8"))
        assert "<svg" in figure and f"sessions/{lesson.folder}/diagram.dot" in figure, lesson.page


def test_the_index_quotes_the_readmes_notebook_check(real_site) -> None:
    site, _ = real_site
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The instructor path", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"^pytest .*notebooks/$", section, re.M).group(0)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert f"Check every notebook headless with <code>{command}</code>" in index
    assert "--nbval-current-env" in command


def test_a_readme_without_the_instructor_command_is_a_problem(tmp_path: Path) -> None:
    write_course(tmp_path)
    fixture_index = tmp_path / "site" / "index.html"
    build_site(tmp_path, tmp_path / "site")
    assert "<code>pytest --nbval-lax --fixture-flag notebooks/</code>" in fixture_index.read_text(
        encoding="utf-8"
    )
    (tmp_path / "README.md").write_text(
        "# Fixture course\n\n## The instructor path\n\nRun the tests.\n", encoding="utf-8"
    )
    assert (
        "README.md: section '## The instructor path': needs a ```bash block whose `pytest ...` line checks every "
        "notebook; the site's instructor path quotes it"
    ) in failure(tmp_path)


# ---------------------------------------------------------------------------------------------
# Issue 28: committed drawings without Graphviz, legible diagrams, a site that stands alone,
# the guides as pages, and search

sys.path.insert(0, str(ROOT / "tools"))
import diagrams  # noqa: E402
import site_search  # noqa: E402

COMMITTED_DRAWINGS = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/diagram.svg"))


def _drawing(width_pt: float, font_pt: float) -> str:
    return (
        f'<svg width="{width_pt}pt" height="100pt" viewBox="0.00 0.00 {width_pt} 100.00">'
        f'<text font-size="{font_pt}">a</text><text font-size="14.00">b</text></svg>'
    )


def test_a_drawing_is_never_shown_smaller_than_its_smallest_label_stays_legible() -> None:
    svg = _drawing(600, 10.0)
    assert diagrams.smallest_label_pt(svg) == 10.0
    assert diagrams.natural_width_px(svg) == pytest.approx(800)
    # 10 pt is 13.3 px at natural size; 9 px is reached at 0.675 of it
    assert diagrams.legible_scale(svg) == pytest.approx(9 / (10 * 4 / 3))
    assert diagrams.legible_scale(_drawing(600, 6.0)) == 1.0  # tiny labels: never below natural
    # at 0.675, a drawing w pt wide takes 0.9 w px: the 683 px column holds 759 pt, not 760
    assert diagrams.fits_column(_drawing(755, 10.0)) and not diagrams.fits_column(
        _drawing(765, 10.0)
    )
    style = re.search(r'style="([^"]+)"', diagrams._inline_svg(svg, "A caption.")).group(1)
    assert style == "min-width: 540px; max-width: 800px"


@pytest.mark.parametrize(
    "drawing", COMMITTED_DRAWINGS, ids=[path.parent.name for path in COMMITTED_DRAWINGS]
)
def test_every_committed_diagram_fits_the_desktop_column_with_legible_labels(drawing: Path) -> None:
    svg = drawing.read_text(encoding="utf-8")
    width = diagrams.natural_width_px(svg) * diagrams.legible_scale(svg)
    assert diagrams.fits_column(svg), (
        f"{drawing.relative_to(ROOT)}: {width:.0f} px wide with its smallest label at "
        f"{diagrams.MIN_LABEL_PX:.0f} px; the desktop column holds {diagrams.DESKTOP_COLUMN_PX:.0f} "
        "px. Redraw it narrower (rankdir=TB, shorter lines in wide nodes; docs/AUTHORING.md)"
    )


def test_without_graphviz_the_page_uses_the_committed_drawing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_course(tmp_path / "course")
    _needs_graphviz()
    for folder in (root / "sessions").iterdir():  # what `python tools/build.py diagrams` commits
        drawn = subprocess.run(
            ["dot", "-Tsvg", str(folder / "diagram.dot")], capture_output=True, text=True
        )
        (folder / "diagram.svg").write_text(diagrams.drawing_text(drawn.stdout), encoding="utf-8")
    (root / "sessions" / "s13-stall-detection" / "diagram.svg").unlink()  # one never drawn
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `dot` anywhere
    report = build_site(root, tmp_path / "site")
    assert report.undrawn == ["sessions/s13-stall-detection/diagram.dot"]
    assert len(report.committed) == 3 and "committed drawing" in report.summary()
    figure = _figure((tmp_path / "site" / "s07-repair-loop.html").read_text(encoding="utf-8"))
    assert '<svg role="img" aria-label="The fixture\'s loop: ask, check, ask again."' in figure
    assert "digraph" not in figure, "no DOT source shown to a learner"
    assert 'href="s07-repair-loop-diagram.svg">Open it full size</a>' in figure
    assert (tmp_path / "site" / "s07-repair-loop-diagram.svg").exists()
    undrawn = _figure((tmp_path / "site" / "s13-stall-detection.html").read_text(encoding="utf-8"))
    assert "digraph fixture" in undrawn and "sudo apt-get install graphviz" in undrawn


def test_every_real_page_shows_a_drawing_even_without_graphviz(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    report = build_site(ROOT, tmp_path / "site")
    assert not report.undrawn and len(report.committed) == len(report.lessons)
    for lesson in report.lessons:
        figure = _figure((tmp_path / "site" / lesson.page).read_text(encoding="utf-8"))
        assert "<svg" in figure and "digraph" not in figure, lesson.page


class _Links(HTMLParser):
    """Every href and src of a page, and its ids."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        self.links += [values[a] or "" for a in ("href", "src") if values.get(a)]


def test_the_site_copied_alone_to_another_folder_has_no_broken_link(
    real_site, tmp_path: Path
) -> None:
    import shutil

    alone = tmp_path / "host" / "public"  # as a static host serves it: nothing around it
    shutil.copytree(real_site[0], alone)
    broken, checked = [], 0
    for page in sorted(alone.glob("*.html")):
        for link in _Links(page.read_text(encoding="utf-8")).links:
            if re.match(r"[a-z]+:|//", link):
                continue
            checked += 1
            path, _, anchor = link.partition("#")
            target = (alone / path).resolve() if path else page
            if path.startswith("../") or not target.is_relative_to(alone.resolve()):
                broken.append(f"{page.name}: {link} leaves the site")
            elif not target.is_file():
                broken.append(f"{page.name}: {link} does not exist")
            elif anchor and target.suffix == ".html":
                if anchor not in _Links(target.read_text(encoding="utf-8")).ids:
                    broken.append(f"{page.name}: {link}: no #{anchor} there")
    assert checked > 500 and not broken, broken[:20]
    assert (alone / "files" / "notebooks" / "s00-setup.ipynb").is_file()
    assert (alone / "docs-troubleshooting.html").is_file()


def test_a_link_out_of_the_site_is_a_problem_naming_the_fix(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", extra_build=" [up](../../../elsewhere.md)")
    problems = "\n".join(failure(tmp_path))
    assert (
        "link '../../../elsewhere.md'" in problems and "points outside the repository" in problems
    )


def test_the_guides_are_pages_listed_on_the_index_troubleshooting_first(real_site) -> None:
    site, report = real_site
    index = (site / "index.html").read_text(encoding="utf-8")
    guides = re.search(r'<section class="guides" id="guides">(.*?)</section>', index, re.S).group(1)
    pages = re.findall(r'href="(docs-[a-z0-9_-]+\.html)"', guides)
    expected = sorted(f"docs-{p.stem.lower()}.html" for p in (ROOT / "docs").glob("*.md"))
    assert pages[0] == "docs-troubleshooting.html" and sorted(pages) == expected
    trouble = (site / "docs-troubleshooting.html").read_text(encoding="utf-8")
    assert "<h1>When something does not work</h1>" in trouble
    assert '<section class="lesson-section" id="windows-notes">' in trouble
    assert 'href="files/docs/troubleshooting.md"' in trouble
    assert len(report.pages) == len(report.lessons) + len(expected) + 1


def test_the_search_index_has_every_section_of_every_page_and_no_answer(real_site) -> None:
    site, report = real_site
    text = (site / "search-index.js").read_text(encoding="utf-8")
    assert text.startswith("window.CAFE_SEARCH = ") and text.endswith(";\n")
    import json

    entries = json.loads(text[len("window.CAFE_SEARCH = ") : -2])
    by_page: dict[str, list[str]] = {}
    for entry in entries:
        page, anchor = entry["u"].split("#")
        by_page.setdefault(page, []).append(anchor)
        assert entry["p"] and entry["s"] and entry["x"], entry["u"]
    for lesson in report.lessons:
        folded = {REQUIRED_SECTIONS.index(title) for title in AFTER_NOTEBOOK}  # as the site folds
        unfolded = [s.anchor for i, s in enumerate(lesson.sections) if i not in folded]
        assert by_page[lesson.page] == unfolded, lesson.page  # nothing read after the notebook
    assert any(page.startswith("docs-troubleshooting") for page in by_page)
    # a snippet must never show a self-check answer
    answers = re.findall(
        r'<div class="answer">(.*?)</div>',
        (site / "s07-repair-loop.html").read_text(encoding="utf-8"),
        re.S,
    )
    first = " ".join(re.sub(r"<[^>]+>", " ", answers[0]).split())[:60]
    assert answers and first not in text


def test_search_entries_skip_answers_figures_and_keep_code() -> None:
    page = """<html><head><title>S01 · Loop — The Agent Harness Path</title></head><body>
    <section class="lesson-section" id="one"><h2>One <code>x</code></h2><p>Alpha
    <code>max_turns</code></p><figure><svg><text>label</text></svg></figure></section>
    <section class="lesson-section" id="self-check"><h2>Self-check</h2><details><summary>Why?</summary>
    <div class="answer"><p>Because <div>nested</div> secret.</p></div></details><p>After.</p></section>
    </body></html>"""
    assert site_search.search_entries({"s01-loop.html": page}) == [
        {"u": "s01-loop.html#one", "p": "S01 · Loop", "s": "One x", "x": "Alpha max_turns"},
        {"u": "s01-loop.html#self-check", "p": "S01 · Loop", "s": "Self-check", "x": "Why? After."},
    ]
    assert "<\\/script>" in site_search.search_index(
        {"a.html": page.replace("Alpha", "&lt;/script&gt;")}
    )


def test_search_entries_skip_what_is_folded_after_the_notebook() -> None:
    """Issue 37: the search showed seven prediction answers from the folded sections."""
    page = """<html><head><title>S01 · Loop — The Agent Harness Path</title></head><body>
    <section class="lesson-section" id="build"><h2>Build</h2><p>Predict first.</p></section>
    <details class="after-notebook" id="after-the-notebook"><summary>After the notebook</summary>
    <section class="lesson-section" id="checkpoint"><h2>Checkpoint</h2><p>It stops at 4.</p>
    <details><summary>Why?</summary><p>nested fold</p></details></section>
    <section class="lesson-section" id="self-check"><h2>Self-check</h2><p>Q</p></section>
    </details>
    <section class="lesson-section" id="what-this-unlocks"><h2>What this unlocks</h2><p>Next.</p>
    </section></body></html>"""
    entries = site_search.search_entries({"s01-loop.html": page})
    assert [e["u"].split("#")[1] for e in entries] == ["build", "what-this-unlocks"]
    assert "stops at 4" not in site_search.search_index({"s01-loop.html": page})


import lesson_readings  # noqa: E402

READINGS_BODY = BODY.replace(
    "- The fixture, read slowly.",
    '- **[Linked, "A paper"](https://arxiv.org/abs/2210.03629).** Read it.\n'
    '- **Unlinked, "A page".** Read it, see [the promise](#the-promise).\n'
    "- **Strauss and Corbin, *Basics of Qualitative Research*.** A book.\n"
    "- **Your own agent's longest run.** Yours.\n"
    "- **Two links** ([one](https://example.org/1), [two](https://example.org/2)).",
)


def test_readings_without_a_link_are_named_in_the_summary_books_and_your_own_exempt(
    tmp_path: Path,
) -> None:
    write_course(tmp_path)
    path = write_lesson(tmp_path, 1, "agent-loop", body=READINGS_BODY)
    lesson = load_lesson(path)
    line = next(
        i
        for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "Unlinked" in text
    )
    assert lesson_readings.unlinked_readings(lesson) == [
        f"sessions/s01-agent-loop/lesson.md:{line}"
    ]
    report = build_site(tmp_path, tmp_path / "site")
    assert f"sessions/s01-agent-loop/lesson.md:{line}" in report.unlinked
    assert "annotated reading(s) have no link" in report.summary()
    html = (tmp_path / "site" / "s01-agent-loop.html").read_text(encoding="utf-8")
    assert '<a href="https://arxiv.org/abs/2210.03629">Linked, &quot;A paper&quot;</a>' in html
