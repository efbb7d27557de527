"""The built site in a real browser: headless Chromium, driven with selenium over chromedriver.

Each page is served from a stdlib HTTP server on 127.0.0.1 (an ephemeral port, in a thread) that
serves the build output and nothing else, as a static host serving `site/` on its own would: the
notebook, toy and source links must resolve inside it (`site/files/`). For each page:

- navigation works: the index link, previous and next land on the right pages;
- every "On this page" entry, clicked, sets the location hash and brings its section into view;
- a self-check `<details>` starts closed, opens on a click on its question, and closes again;
- the course name leads to the index, and the module list links the sessions that exist;
- at 390 px (a phone, with its meta viewport honoured) nothing scrolls sideways, and at both
  widths no text touches the screen edge and no prose table is wider than the screen;
- on a phone the lesson comes first: its first heading is on the first screen, the about box, the
  contents and the module list are folded, and the contents open on a tap and still lead to
  their sections;
- the session's diagram keeps its smallest label at 9 px or more at both widths; on a desktop it
  fits its column (a drawing still waiting for its redraw scrolls inside its box), on a phone it
  scrolls inside its box and its full-size link answers;
- the search box finds a section from a word typed, on a phone, and a result leads to it; it also
  works with the site opened from disk (`file://`);
- screenshots: with `$CAFE_SCREENSHOT_DIR` set, of what the screen shows at 1280 px and 390 px
  and of the full page at each width, for every page; without it only of a page where a check
  failed, under the pytest temporary folder (a screenshot costs a tenth of a second or more, four
  a page). The folder is printed.

How the links between pages are checked, and why that is still what a reader meets. Each page is
loaded once at each width. On every page, each pager link (previous, next, index), the course name
and the first module link must point at the page it should, and be on top where a reader would
click it (the element itself is what the browser finds at its centre); every page they point at
is one this test loads and checks. On one sample lesson page of each site (and the index and the
first guide) those links are also clicked for real and followed, and then the browser goes back:
the links come from one template, so a click that works on the sample works wherever the same
link is on top. Clicking every link on every page, about ten loads a page, was most of the time.

Needs: apt `chromium chromium-driver`, pip `selenium` (in the test extra). Where Chromium,
chromedriver or selenium is missing:

- on a learner's machine the test is SKIPPED, and pytest's summary gives the reason and the
  command that installs the browser, so the README's test command still passes on a fresh machine;
- where the browser is required it FAILS: `.ci/run` sets `CAFE_REQUIRE_BROWSER=1` (and `CI=true`,
  which most CI services set, counts the same), so CI never mistakes a missing browser for a pass.

`CAFE_SKIP_BROWSER=1` skips the test on purpose even where Chromium is installed; a run that
requires the browser refuses it.
"""

from __future__ import annotations

import base64
import functools
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sitebuild  # noqa: E402
from browser import CHROMIUM_FLAGS, locate_browser  # noqa: E402
from lesson_format import AFTER_NOTEBOOK  # noqa: E402
from test_site import write_course  # noqa: E402

pytestmark = pytest.mark.browser

DESKTOP = (1280, 900)
PHONE = (390, 844)
REAL_LESSONS = sitebuild.discover_lessons(ROOT)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    binary, chromedriver = locate_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
    browser = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()


class _SiteHandler(SimpleHTTPRequestHandler):
    """The build output and nothing around it, as a static host serves `site/`."""

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass


def _serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_SiteHandler, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="module", params=["fixture", "real"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict]:
    """A built site behind a loopback server: the fixture course, then the real sessions."""
    if request.param == "fixture":
        repo = write_course(tmp_path_factory.mktemp("course"))
    else:
        if not REAL_LESSONS:
            pytest.skip("no sessions/*/lesson.md written yet")
        repo = ROOT
    out = tmp_path_factory.mktemp(f"{request.param}-site") / "site"
    try:
        report = sitebuild.build_site(repo, out)
    except sitebuild.SiteBuildError as exc:
        problems = str(exc)
    else:
        problems = ""
    if problems:
        pytest.fail(f"the {request.param} site does not build:\n{problems}", pytrace=False)
    shots = (
        Path(os.environ.get("CAFE_SCREENSHOT_DIR") or tmp_path_factory.mktemp("screenshots"))
        / request.param
    )
    shots.mkdir(parents=True, exist_ok=True)
    server, base = _serve(out)
    print(f"\nscreenshots of the {request.param} site: {shots}")
    try:
        yield {
            "name": request.param,
            "base": base,
            "report": report,
            "shots": shots,
            "every_step": bool(os.environ.get("CAFE_SCREENSHOT_DIR")),
            "out": out,
        }
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """A machine without Chromium (PATH is an empty folder) and none of the browser variables set."""
    for name in ("CAFE_SKIP_BROWSER", "CAFE_REQUIRE_BROWSER", "CI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    return monkeypatch


def test_missing_chromium_skips_on_a_learners_machine_and_says_how_to_install_it(
    no_browser,
) -> None:
    with pytest.raises(
        pytest.skip.Exception, match="sudo apt-get install chromium chromium-driver"
    ):
        locate_browser()


def test_missing_chromium_fails_where_the_browser_is_required(no_browser) -> None:
    no_browser.setenv("CAFE_REQUIRE_BROWSER", "1")
    with pytest.raises(
        pytest.fail.Exception,
        match="requires the browser test.*apt-get install chromium chromium-driver",
    ):
        locate_browser()
    no_browser.delenv("CAFE_REQUIRE_BROWSER")
    no_browser.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        locate_browser()
    no_browser.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        locate_browser()


def test_skip_browser_skips_on_purpose_but_not_where_required(no_browser) -> None:
    no_browser.setenv("CAFE_SKIP_BROWSER", "1")
    with pytest.raises(pytest.skip.Exception, match="on purpose"):
        locate_browser()
    no_browser.setenv("CAFE_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="CAFE_SKIP_BROWSER=1, but this run requires"):
        locate_browser()


def _viewport(driver, size: tuple[int, int], mobile: bool) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile},
    )


def _screenshot(driver, path: Path, full_page: bool = False) -> None:
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": full_page}
    )
    path.write_bytes(base64.b64decode(shot["data"]))


def _no_sideways_scroll(driver, width: int) -> None:
    # Compare with the device width, not window.innerWidth: a mobile browser zooms out to fit an
    # overflowing page, and innerWidth then grows to match the overflow.
    layout = driver.execute_script("return document.documentElement.clientWidth")
    assert layout == width, (
        f"the layout viewport is {layout}px, expected {width}px (meta viewport missing?)"
    )
    scroll = driver.execute_script(
        "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
    )
    wide = driver.execute_script("""
        const w = document.documentElement.clientWidth; const out = [];
        for (const el of document.querySelectorAll('body *')) {
          const r = el.getBoundingClientRect();
          if (r.right > w + 1) out.push(el.tagName + '.' + el.className);
        }
        return out.slice(0, 5);""")
    assert scroll <= width, (
        f"page scrolls sideways at {width}px: scrollWidth {scroll}; too wide: {wide}"
    )


# Text that sits on the screen edge: headings, paragraphs, list items, summaries outside a box that
# scrolls on its own (code blocks and figure tables may run past the edge inside that box).
EDGE_CHECK = """
    const w = document.documentElement.clientWidth, margin = arguments[0], out = [];
    for (const el of document.querySelectorAll('h1, h2, h3, p, li, dt, dd, summary, td')) {
      if (el.closest('pre, .scroll:not(.stack)') || el.getClientRects().length === 0) continue;
      const r = el.getBoundingClientRect();
      if (r.left < margin || r.right > w - margin)
        out.push(`${el.tagName} '${el.textContent.trim().slice(0, 30)}' spans ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return out.slice(0, 5);"""


def _text_clear_of_the_edges(driver, page: str, width: int, margin: int = 8) -> None:
    touching = driver.execute_script(EDGE_CHECK, margin)
    assert not touching, (
        f"{page} at {width}px: text closer than {margin}px to the screen edge: {touching}"
    )
    squeezed = driver.execute_script("""
        return Array.from(document.querySelectorAll('.scroll.stack'))
          .filter(box => box.scrollWidth > box.clientWidth + 1).length""")
    assert not squeezed, (
        f"{page} at {width}px: {squeezed} prose table(s) still wider than the screen"
    )


# Where a reader would click: the element's centre, scrolled into view, must hit the element itself.
# (Selenium's own check calls anything inside a closed <details> hidden, even where the desktop
# stylesheet unfolds it; this one asks the page what is really on top at that point.) The centre's
# coordinates when it does, else null.
WHERE_SEEN = """
    function whereSeen(el) {
      el.scrollIntoView({block: 'center'});
      const r = el.getClientRects()[0];  // a link that wraps: its first line
      if (!r || r.width === 0 || r.height === 0) return null;
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      return hit !== null && (hit === el || el.contains(hit)) ? [x, y] : null;
    }"""
# Whether any of a list of elements is on top where a reader would click it.
ANY_ON_TOP = WHERE_SEEN + "return Array.from(arguments[0]).some(el => whereSeen(el) !== null);"


def _click_where_seen(driver, element, what: str) -> None:
    """A left click at the element's centre, as the mouse makes it, once it is on top there."""
    point = driver.execute_script(WHERE_SEEN + "return whereSeen(arguments[0]);", element)
    assert point, f"{what} is not visible where a reader would click it"
    for event in ("mousePressed", "mouseReleased"):
        driver.execute_cdp_cmd(
            "Input.dispatchMouseEvent",
            {"type": event, "x": point[0], "y": point[1], "button": "left", "clickCount": 1},
        )


# Where a section stands after its contents entry was clicked: the location's hash, the section's
# top, and the window's height (one round trip to the browser).
LANDED = """
    const el = document.getElementById(arguments[0]);
    return [location.hash, el ? el.getBoundingClientRect().top : null, window.innerHeight];"""


def _lands_on(driver, page: str, anchor: str, where: str) -> None:
    """The location names `anchor` and its section's top is on the screen."""
    hash_, top, height = driver.execute_script(LANDED, anchor)
    assert hash_ == f"#{anchor}", f"{page}{where}: clicking {anchor} set the hash {hash_!r}"
    assert top is not None and 0 <= top < height, (
        f"{page}{where}: section #{anchor} is not in view after the click (top={top})"
    )


def _lesson_first_on_a_phone(driver, page: str) -> None:
    from selenium.webdriver.common.by import By

    top = driver.execute_script(
        "return document.querySelector('.lesson-section h2').getBoundingClientRect().top"
    )
    assert 0 < top < PHONE[1] - 40, (
        f"{page} at {PHONE[0]}px: the lesson's first heading starts {top:.0f}px down, "
        f"below the first screen ({PHONE[1]}px)"
    )
    folds = driver.find_elements(By.CSS_SELECTOR, "details.fold")
    assert len(folds) == 3 and all(fold.get_attribute("open") is None for fold in folds), (
        f"{page}: a fold starts open"
    )
    entries = driver.find_elements(By.CSS_SELECTOR, "nav.toc a")
    assert entries and not driver.execute_script(ANY_ON_TOP, entries), (
        f"{page}: contents shown unfolded"
    )
    driver.execute_script("window.scrollTo(0, 0)")
    _click_where_seen(
        driver,
        driver.find_element(By.CSS_SELECTOR, "#page-on-this-page > summary"),
        f"{page}: 'On this page'",
    )
    last = entries[-1]
    anchor = last.get_attribute("href").split("#", 1)[1]
    _click_where_seen(driver, last, f"{page}: the contents entry #{anchor}")
    _lands_on(driver, page, anchor, " on a phone")


# The drawing's scale (rendered width over its viewBox, which dot writes in points), the smallest
# label's rendered size in px, and whether its box scrolls sideways.
DIAGRAM_MEASURE = """
    const s = document.querySelector('figure.diagram svg'); if (!s) return null;
    const box = s.closest('.diagram-box'), w = s.getBoundingClientRect().width;
    const perPt = w / s.viewBox.baseVal.width;
    const sizes = Array.from(s.querySelectorAll('text')).map(t => parseFloat(t.getAttribute('font-size') || '14'));
    return [perPt * 3 / 4, Math.min(...sizes) * perPt, box.scrollWidth > box.clientWidth + 1];"""


def _diagram_is_readable(driver, page: str, width: int) -> None:
    """Both widths: the smallest label at 9 px or more. Desktop: fitted to the column. Phone: the
    full-size link answers."""
    from selenium.webdriver.common.by import By

    measured = driver.execute_script(DIAGRAM_MEASURE)
    assert measured is not None, f"{page}: no drawn diagram"
    scale, smallest, scrolls = measured
    assert smallest >= 8.95 and scale <= 1.01, (
        f"{page} at {width}px: the diagram is drawn at {scale:.2f} of its size, its smallest label "
        f"{smallest:.1f}px tall"
    )
    if width == DESKTOP[0]:
        assert not scrolls, f"{page} at {width}px: the diagram does not fit its column"
        return
    link = driver.find_element(By.CSS_SELECTOR, "figure.diagram figcaption a.full-size")
    status = driver.execute_script(
        "return fetch(arguments[0], {method: 'HEAD'}).then(r => r.status)",
        link.get_attribute("href"),
    )
    assert link.text == "Open it full size" and status == 200, (
        f"{page}: the full-size diagram link answered {status}"
    )


def _pages(served: dict) -> list[str]:
    """The index, every session's page, and every guide's page."""
    guides = sorted(path.name for path in served["out"].glob("docs-*.html"))
    return ["index.html"] + [lesson.page for lesson in served["report"].lessons] + guides


def _shoot(driver, served: dict, name: str) -> None:
    """The screen and the full page, as `<name>.png` and `<name>-full.png`, when asked for."""
    if served["every_step"]:
        _screenshot(driver, served["shots"] / f"{name}.png")
        _screenshot(driver, served["shots"] / f"{name}-full.png", full_page=True)


def _check_page(driver, served: dict, page: str, sample: set[str]) -> None:
    """One page at a desktop's width, then loaded again at a phone's."""
    from selenium.webdriver.common.by import By

    lessons, base = served["report"].lessons, served["base"]
    _viewport(driver, DESKTOP, mobile=False)
    driver.get(base + page)
    assert sitebuild.COURSE_NAME in driver.title, page
    _text_clear_of_the_edges(driver, page, DESKTOP[0])
    _shoot(driver, served, f"{page[:-5]}-desktop")

    if page == "index.html":
        links = {
            a.get_attribute("href").rsplit("/", 1)[-1]
            for a in driver.find_elements(By.CSS_SELECTOR, "li.session h3 a")
        }
        assert links == {lesson.page for lesson in lessons}, "index does not link every session"
        driver.find_element(
            By.LINK_TEXT, f"Session {lessons[0].number:02d} · {lessons[0].title}"
        ).click()
        assert driver.current_url == base + lessons[0].page
    elif page.startswith("docs-"):
        _links_lead_right(
            driver, base, page, [("nav.pager-top a.up", "index.html")], page in sample
        )
    else:
        _check_lesson_page(driver, base, page, lessons, page in sample)
        if served["name"] == "real" or shutil.which("dot"):
            _diagram_is_readable(driver, page, DESKTOP[0])

    _viewport(driver, PHONE, mobile=True)
    driver.get(base + page)
    _no_sideways_scroll(driver, PHONE[0])
    _text_clear_of_the_edges(driver, page, PHONE[0])
    _shoot(driver, served, f"{page[:-5]}-phone")
    if page != "index.html" and not page.startswith("docs-"):
        if served["name"] == "real" or shutil.which("dot"):
            _diagram_is_readable(driver, page, PHONE[0])
        _lesson_first_on_a_phone(driver, page)


def test_every_page_navigates_scrolls_toggles_and_fits_a_phone(driver, served) -> None:
    """Every page at both widths; the links between pages clicked for real on a sample of pages
    (the middle session's and the first guide's), pointed right and on top on every page (see the
    module's docstring for why that still checks what a reader meets)."""
    lessons = served["report"].lessons
    assert lessons, "the site has no session pages"
    pages = _pages(served)
    guides = [page for page in pages if page.startswith("docs-")]
    sample = {lessons[len(lessons) // 2].page, *guides[:1]}
    try:
        for page in pages:
            try:
                _check_page(driver, served, page, sample)
            except Exception:  # a screenshot of the page where a check failed, asked for or not
                with suppress(Exception):
                    _screenshot(driver, served["shots"] / f"{page[:-5]}-failed.png")
                raise
    finally:
        _viewport(driver, DESKTOP, mobile=False)


# A link's target and whether it is on top where a reader would click it (one round trip).
TARGET_AND_ON_TOP = WHERE_SEEN + "return [arguments[0].href, whereSeen(arguments[0]) !== null];"


def _links_lead_right(
    driver, base: str, page: str, links: list[tuple[str, str | None]], click: bool
) -> None:
    """Each (css, page it must lead to, or None where the link must be absent): the link points
    there and is on top where a reader would click it; with `click`, a click follows it (then
    back)."""
    from selenium.webdriver.common.by import By

    for css, expected in links:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        if expected is None:
            assert not found, f"{page}: {css} should not exist"
            continue
        assert found, f"{page}: {css} is missing"
        href, on_top = driver.execute_script(TARGET_AND_ON_TOP, found[0])
        assert href == base + expected, f"{page}: {css} points at {href}, not {expected}"
        assert on_top, f"{page}: {css} is not visible where a reader would click it"
        if click:
            _click_where_seen(driver, found[0], f"{page}: {css}")
            assert driver.current_url == base + expected, (
                f"{page}: {css} went to {driver.current_url}"
            )
            driver.back()
            assert driver.current_url == base + page


def _check_lesson_page(driver, base: str, page: str, lessons: list, click: bool) -> None:
    from selenium.webdriver.common.by import By

    i = [lesson.page for lesson in lessons].index(page)
    # previous / next / index from the top pager; the course name in the header leads to the index
    _links_lead_right(
        driver,
        base,
        page,
        [
            ("nav.pager-top a.prev", lessons[i - 1].page if i else None),
            ("nav.pager-top a.next", lessons[i + 1].page if i + 1 < len(lessons) else None),
            ("nav.pager-top a.up", "index.html"),
            ("header.site-header a.course", "index.html"),
        ],
        click,
    )
    # the module list marks this session's module and links the written sessions
    current = driver.find_elements(By.CSS_SELECTOR, "nav.modules li.current")
    number = lessons[i].number
    listed = {module for module, _, _ in sitebuild.COURSE_MODULES}
    assert len(current) == (1 if number in listed else 0), (
        f"{page}: {len(current)} modules marked current"
    )
    others = driver.find_elements(By.CSS_SELECTOR, "nav.modules li a")
    if others:
        target = others[0].get_attribute("href").rsplit("/", 1)[-1]
        assert target in {lesson.page for lesson in lessons}, f"{page}: module link to {target}"
        _links_lead_right(driver, base, page, [("nav.modules li a", target)], click)

    # the sections after Build sit in one closed fold, closed on a desktop too
    fold = driver.find_element(By.CSS_SELECTOR, "details.after-notebook")
    inside = fold.find_elements(By.CSS_SELECTOR, "section.lesson-section")
    assert fold.get_attribute("open") is None and len(inside) == len(AFTER_NOTEBOOK), page
    assert not any(section.is_displayed() for section in inside), (
        f"{page}: a section after the notebook shows before the fold is opened"
    )

    # on this page: each entry lands on its section (the fold's entry on the fold, still closed)
    entries = driver.find_elements(By.CSS_SELECTOR, "nav.toc a")
    assert len(entries) == len(sitebuild.REQUIRED_SECTIONS) - len(AFTER_NOTEBOOK) + 1, (
        f"{page}: on-this-page has {len(entries)} entries"
    )
    anchors = driver.execute_script(
        "return Array.from(arguments[0], a => a.href.split('#')[1])", entries
    )
    for entry, anchor in zip(entries, anchors):
        _click_where_seen(driver, entry, f"{page}: the contents entry #{anchor}")
        _lands_on(driver, page, anchor, "")

    assert fold.get_attribute("open") is None, f"{page}: the contents entry opened the fold"

    # the fold opens on its summary; a self-check answer inside it: collapsed, opened by its
    # question, closed again
    fold_summary = fold.find_element(By.TAG_NAME, "summary")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", fold_summary)
    fold_summary.click()
    assert fold.get_attribute("open") is not None and inside[0].is_displayed(), page
    details = driver.find_elements(By.CSS_SELECTOR, "details.self-check")
    assert details, f"{page}: no self-check <details>"
    first = details[0]
    answer = first.find_element(By.CSS_SELECTOR, ".answer")
    summary = first.find_element(By.TAG_NAME, "summary")
    assert first.get_attribute("open") is None and not answer.is_displayed(), (
        f"{page}: answer shown before a click"
    )
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
    summary.click()
    assert first.get_attribute("open") is not None and answer.is_displayed(), (
        f"{page}: the question did not open"
    )
    summary.click()
    assert first.get_attribute("open") is None, f"{page}: the question did not close"

    # the notebook and toy links reach real files through the same server
    for css in ("dd.open a",):
        for link in driver.find_elements(By.CSS_SELECTOR, css):
            href = link.get_attribute("href")
            status = driver.execute_script(
                "return fetch(arguments[0], {method: 'HEAD'}).then(r => r.status)", href
            )
            assert status == 200, f"{page}: {href} answered {status}"


# What a search should find on each site: a query, and a page its results must link.
SEARCHES = {
    "fixture": ("why fixtures", "s07-repair-loop.html"),
    "real": ("max_turns", "s01-agent-loop.html"),
}


def _search(driver, query: str) -> list[str]:
    """Type `query` in the search box as a reader would; return the result links, in order."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    box = driver.find_element(By.ID, "search-box")
    assert box.is_displayed(), "the search box is hidden (search.js did not run?)"
    box.click()
    box.send_keys(query)  # typed while the index may still be loading: nothing may be lost
    WebDriverWait(driver, 10).until(
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, "#search-results li a")
            or "No section" in d.find_element(By.ID, "search-count").text
        )
    )
    return [
        a.get_attribute("href")
        for a in driver.find_elements(By.CSS_SELECTOR, "#search-results li a")
    ]


def test_search_finds_a_section_on_a_phone_and_from_a_file_url(driver, served) -> None:
    from selenium.webdriver.common.by import By

    query, expected = SEARCHES[served["name"]]
    _viewport(driver, PHONE, mobile=True)
    try:
        driver.get(served["base"] + "index.html")
        links = _search(driver, query)
        count = driver.find_element(By.ID, "search-count").text
        assert links and any(link.split("#")[0].endswith("/" + expected) for link in links), (
            f"searching {query!r} found {count!r}: {links[:5]}"
        )
        assert len(links) <= 12 and "section" in count
        marks = driver.find_elements(By.CSS_SELECTOR, "#search-results mark")
        assert marks and all(m.text.lower() in query.split() for m in marks), [
            m.text for m in marks
        ]
        _no_sideways_scroll(driver, PHONE[0])
        if served["every_step"]:
            _screenshot(driver, served["shots"] / "search-phone.png")
        first = driver.find_element(By.CSS_SELECTOR, "#search-results li a")
        target = first.get_attribute("href")
        _click_where_seen(driver, first, "the first search result")
        assert driver.current_url == target
        anchor = target.split("#", 1)[1]
        top = driver.execute_script(
            f"return document.getElementById({anchor!r}).getBoundingClientRect().top"
        )
        assert 0 <= top < PHONE[1], f"the result's section #{anchor} is not in view (top={top})"
        driver.get(served["base"] + "index.html")
        assert _search(driver, "zzqqxx nothing") == []
        assert driver.find_element(By.ID, "search-count").text == "No section holds every word."
        # opened from disk, as from a checkout: the index still loads (a <script>, not fetch())
        driver.get((served["out"] / "index.html").as_uri())
        links = _search(driver, query)
        assert links and all(link.startswith("file://") for link in links), links[:3]
        assert any(link.split("#")[0].endswith("/" + expected) for link in links)
    finally:
        _viewport(driver, DESKTOP, mobile=False)
