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

How the reads are made, and why that checks the same page. Every WebDriver command is a round trip
(chromedriver, the browser, pytest); the reads a page's assertions need at one width are one
script (`site_page_reads.PAGE_READ_BODY`), and the assertions run on what it returns. What a
reader does stays a real action, one at a time: a click at an element's centre (one W3C actions
command: the mouse moves there, presses, releases), a WebDriver click on a summary, a link followed
and the browser sent back. Every page is checked at a desktop's width, then every page at a
phone's, so the device metrics are set twice a site rather than twice a page. Measured 7 Dec
2026 on a shared 2-core machine, two runs each: 2,589 WebDriver commands became 861, and the
file's processor time (pytest and Chromium) 68.6 and 67.2 s became 47.8 and 42.4 s (at 840
commands, before the module link got its own round trip back).

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

import site_page_reads as reads  # noqa: E402
import sitebuild  # noqa: E402
from browser import CHROMIUM_FLAGS, locate_browser  # noqa: E402
from lesson_format import AFTER_NOTEBOOK  # noqa: E402
from test_site import write_course  # noqa: E402

pytestmark = pytest.mark.browser

DESKTOP = (1280, 900)
PHONE = (390, 844)
EDGE_MARGIN = 8  # px of room text keeps from the screen's edges
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


def _assert_no_sideways_scroll(sideways: list, width: int) -> None:
    # Compare with the device width, not window.innerWidth: a mobile browser zooms out to fit an
    # overflowing page, and innerWidth then grows to match the overflow.
    layout, scroll, wide = sideways
    assert layout == width, (
        f"the layout viewport is {layout}px, expected {width}px (meta viewport missing?)"
    )
    assert scroll <= width, (
        f"page scrolls sideways at {width}px: scrollWidth {scroll}; too wide: {wide}"
    )


def _no_sideways_scroll(driver, width: int) -> None:
    _assert_no_sideways_scroll(driver.execute_script(reads.script("return sideways();")), width)


def _assert_text_clear_of_the_edges(facts: dict, page: str, width: int, margin: int) -> None:
    touching, squeezed = facts["touching"], facts["squeezed"]
    assert not touching, (
        f"{page} at {width}px: text closer than {margin}px to the screen edge: {touching}"
    )
    assert not squeezed, (
        f"{page} at {width}px: {squeezed} prose table(s) still wider than the screen"
    )


def _open(driver, url: str) -> None:
    """Load `url` and wait until the browser shows that page, parsed and loaded.

    `get` returns once a load finished, but on two loaded cores a CI run once read a lesson page's
    module list as empty right after it (stop 48's first fresh clone: "s07-repair-loop.html: 0
    modules marked current", while the built HTML marks it and ten idle runs passed): the read
    met a document that was not yet, or no longer, the page asked for. So the reads below wait
    for the location to be `url` and the document to be complete, and a page that never gets
    there fails here, saying which."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 15, poll_frequency=0.05).until(
        lambda d: d.execute_script(
            "return location.href === arguments[0] && document.readyState === 'complete';", url
        ),
        message=f"the browser did not show {url}, loaded, within 15 s",
    )


def _read_page(driver, links: list[str], phone: bool, lesson: bool, diagram: bool) -> dict:
    """`PAGE_READ`: everything the page's checks read at this width, in one round trip."""
    spec = {"margin": EDGE_MARGIN, "phone": phone, "links": links}
    spec |= {"lesson": lesson, "diagram": diagram}
    return driver.execute_script(reads.script(reads.PAGE_READ_BODY, asynchronous=True), spec)


def _click_at(driver, point: list[float]) -> None:
    """A left click at `point` (the viewport's coordinates), as the mouse makes it: one W3C
    actions command (chromedriver moves, presses and releases through the browser's input)."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    actions = ActionBuilder(driver, duration=0)
    actions.pointer_action.move_to_location(point[0], point[1]).click()
    actions.perform()


def _click_where_seen(driver, element, what: str) -> None:
    """A left click at the element's centre, as the mouse makes it, once it is on top there."""
    point = driver.execute_script(reads.script("return whereSeen(arguments[0]);"), element)
    assert point, f"{what} is not visible where a reader would click it"
    _click_at(driver, point)


def _assert_landed(landed: list, page: str, anchor: str, where: str) -> None:
    """The location names `anchor` and its section's top is on the screen."""
    hash_, top, height = landed
    assert hash_ == f"#{anchor}", f"{page}{where}: clicking {anchor} set the hash {hash_!r}"
    assert top is not None and 0 <= top < height, (
        f"{page}{where}: section #{anchor} is not in view after the click (top={top})"
    )


def _lesson_first_on_a_phone(driver, page: str, facts: dict) -> None:
    top = facts["top"]
    assert 0 < top < PHONE[1] - 40, (
        f"{page} at {PHONE[0]}px: the lesson's first heading starts {top:.0f}px down, "
        f"below the first screen ({PHONE[1]}px)"
    )
    folds = facts["folds"]
    assert len(folds) == 3 and not any(folds), f"{page}: a fold starts open"
    assert facts["entryCount"] and not facts["contentsOnTop"], f"{page}: contents shown unfolded"
    # the page was scrolled back to the top before 'On this page' was looked for
    assert facts["summaryPoint"], (
        f"{page}: 'On this page' is not visible where a reader would click it"
    )
    _click_at(driver, facts["summaryPoint"])
    anchor, last = facts["last"]
    _click_where_seen(driver, last, f"{page}: the contents entry #{anchor}")
    landed = driver.execute_script(reads.script("return landed(arguments[0]);"), anchor)
    _assert_landed(landed, page, anchor, " on a phone")


def _diagram_is_readable(facts: dict, page: str, width: int) -> None:
    """Both widths: the smallest label at 9 px or more. Desktop: fitted to the column. Phone: the
    full-size link answers."""
    measured = facts["diagram"]
    assert measured is not None, f"{page}: no drawn diagram"
    scale, smallest, scrolls = measured
    assert smallest >= 8.95 and scale <= 1.01, (
        f"{page} at {width}px: the diagram is drawn at {scale:.2f} of its size, its smallest label "
        f"{smallest:.1f}px tall"
    )
    if width == DESKTOP[0]:
        assert not scrolls, f"{page} at {width}px: the diagram does not fit its column"
        return
    text, status = facts["fullSize"] or (None, None)
    assert text == "Open it full size" and status == 200, (
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


def _lesson_links(page: str, lessons: list) -> list[tuple[str, str | None]]:
    """previous / next / index from the top pager; the course name in the header leads to the index."""
    i = [lesson.page for lesson in lessons].index(page)
    return [
        ("nav.pager-top a.prev", lessons[i - 1].page if i else None),
        ("nav.pager-top a.next", lessons[i + 1].page if i + 1 < len(lessons) else None),
        ("nav.pager-top a.up", "index.html"),
        ("header.site-header a.course", "index.html"),
    ]


def _check_desktop(driver, served: dict, page: str, sample: set[str]) -> None:
    """One page at a desktop's width (the viewport is set once, for every page)."""
    from selenium.webdriver.common.by import By

    lessons, base = served["report"].lessons, served["base"]
    lesson = page != "index.html" and not page.startswith("docs-")
    links = (
        _lesson_links(page, lessons)
        if lesson
        else [("nav.pager-top a.up", "index.html")]
        if page.startswith("docs-")
        else []
    )
    diagram = lesson and (served["name"] == "real" or bool(shutil.which("dot")))
    _open(driver, base + page)
    facts = _read_page(driver, [css for css, _ in links], False, lesson, diagram)
    assert sitebuild.COURSE_NAME in facts["title"], page
    _assert_text_clear_of_the_edges(facts, page, DESKTOP[0], EDGE_MARGIN)
    _shoot(driver, served, f"{page[:-5]}-desktop")

    if page == "index.html":
        links_found = {
            a.get_attribute("href").rsplit("/", 1)[-1]
            for a in driver.find_elements(By.CSS_SELECTOR, "li.session h3 a")
        }
        assert links_found == {lesson.page for lesson in lessons}, (
            "index does not link every session"
        )
        driver.find_element(
            By.LINK_TEXT, f"Session {lessons[0].number:02d} · {lessons[0].title}"
        ).click()
        assert driver.current_url == base + lessons[0].page
        return
    _links_lead_right(driver, base, page, links, facts["links"], page in sample)
    if lesson:
        _check_lesson_page(driver, base, page, lessons, facts, page in sample)
    if diagram:
        _diagram_is_readable(facts, page, DESKTOP[0])


def _check_phone(driver, served: dict, page: str) -> None:
    """The same page loaded again at a phone's width."""
    lesson = page != "index.html" and not page.startswith("docs-")
    diagram = lesson and (served["name"] == "real" or bool(shutil.which("dot")))
    _open(driver, served["base"] + page)
    facts = _read_page(driver, [], True, lesson, diagram)
    _assert_no_sideways_scroll(facts["sideways"], PHONE[0])
    _assert_text_clear_of_the_edges(facts, page, PHONE[0], EDGE_MARGIN)
    _shoot(driver, served, f"{page[:-5]}-phone")
    if lesson:
        if diagram:
            _diagram_is_readable(facts, page, PHONE[0])
        _lesson_first_on_a_phone(driver, page, facts)


def test_every_page_navigates_scrolls_toggles_and_fits_a_phone(driver, served) -> None:
    """Every page at both widths (every page at a desktop's, then every page at a phone's); the
    links between pages clicked for real on a sample of pages (the middle session's and the first
    guide's), pointed right and on top on every page (see the module's docstring for why that
    still checks what a reader meets)."""
    lessons = served["report"].lessons
    assert lessons, "the site has no session pages"
    pages = _pages(served)
    guides = [page for page in pages if page.startswith("docs-")]
    sample = {lessons[len(lessons) // 2].page, *guides[:1]}
    try:
        for size, mobile, check in (
            (DESKTOP, False, functools.partial(_check_desktop, sample=sample)),
            (PHONE, True, _check_phone),
        ):
            _viewport(driver, size, mobile=mobile)
            for page in pages:
                try:
                    check(driver, served, page)
                except Exception:  # a screenshot of the page where a check failed, asked for or not
                    with suppress(Exception):
                        _screenshot(driver, served["shots"] / f"{page[:-5]}-failed.png")
                    raise
    finally:
        _viewport(driver, DESKTOP, mobile=False)


def _links_lead_right(
    driver,
    base: str,
    page: str,
    links: list[tuple[str, str | None]],
    read: list[list],
    click: bool,
) -> None:
    """Each (css, page it must lead to, or None where the link must be absent), with what the page
    read says of it: the link points there and is on top where a reader would click it; with
    `click`, a click follows it (then back)."""
    for (css, expected), (count, href, on_top, _) in zip(links, read, strict=True):
        if expected is None:
            assert not count, f"{page}: {css} should not exist"
            continue
        assert count, f"{page}: {css} is missing"
        assert href == base + expected, f"{page}: {css} points at {href}, not {expected}"
        assert on_top, f"{page}: {css} is not visible where a reader would click it"
        if click:  # found again: the page read's element is gone after a click and a back
            from selenium.webdriver.common.by import By

            element = driver.find_element(By.CSS_SELECTOR, css)
            _click_where_seen(driver, element, f"{page}: {css}")
            assert driver.current_url == base + expected, (
                f"{page}: {css} went to {driver.current_url}"
            )
            driver.back()
            assert driver.current_url == base + page


def _check_lesson_page(
    driver, base: str, page: str, lessons: list, facts: dict, click: bool
) -> None:
    # the module list marks this session's module and links the written sessions
    number = lessons[[lesson.page for lesson in lessons].index(page)].number
    listed = {module for module, _, _ in sitebuild.COURSE_MODULES}
    current = facts["current"]
    assert current == (1 if number in listed else 0), f"{page}: {current} modules marked current"
    if facts["module"]:
        href, link = facts["module"]
        # Asked in a round trip of its own, after the page read, as before the batching: the
        # module list sits in the desktop's sticky sidebar, and measured in the same script right
        # after the pager links' scrolls it was reported hidden twice in about twenty runs.
        on_top = driver.execute_script(
            reads.script("return whereSeen(arguments[0]) !== null;"), link
        )
        target = href.rsplit("/", 1)[-1]
        assert target in {lesson.page for lesson in lessons}, f"{page}: module link to {target}"
        module_read = [[1, href, on_top, None]]
        _links_lead_right(driver, base, page, [("nav.modules li a", target)], module_read, click)
    if click:  # the links were followed and the browser came back: the page is read again
        facts = _read_page(driver, [], False, True, False)

    # the sections after Build sit in one closed fold, closed on a desktop too
    fold = facts["fold"]
    assert fold is not None, f"{page}: no details.after-notebook fold"
    fold_open, shown = facts["foldState"]
    assert not fold_open and len(shown) == len(AFTER_NOTEBOOK), page
    assert not any(shown), f"{page}: a section after the notebook shows before the fold is opened"

    # on this page: each entry lands on its section (the fold's entry on the fold, still closed)
    entries, anchors = facts["entries"], facts["anchors"]
    assert len(entries) == len(sitebuild.REQUIRED_SECTIONS) - len(AFTER_NOTEBOOK) + 1, (
        f"{page}: on-this-page has {len(entries)} entries"
    )
    _click_through_contents(driver, page, entries, anchors, fold)

    # the notebook and toy links reach real files through the same server
    for href, status in facts["opens"]:
        assert status == 200, f"{page}: {href} answered {status}"


def _click_through_contents(driver, page: str, entries: list, anchors: list, fold) -> None:
    """Each contents entry clicked where a reader sees it, landing on its section; then the fold
    (still closed) opens on its summary, and a self-check answer inside it starts collapsed, opens
    on a click on its question, and closes again. Each read after a click says where the click
    took the page and where the next click goes (`CONTENTS_STEP`)."""
    step = reads.script(reads.CONTENTS_STEP_BODY)
    state = driver.execute_script(step, None, entries[0] if entries else None, None)
    for i, anchor in enumerate(anchors):
        assert state["point"], (
            f"{page}: the contents entry #{anchor} is not visible where a reader would click it"
        )
        _click_at(driver, state["point"])
        last = i + 1 == len(entries)
        state = driver.execute_script(
            step, anchor, None if last else entries[i + 1], fold if last else None
        )
        _assert_landed(state["landed"], page, anchor, "")
    if not entries:
        state = driver.execute_script(step, None, None, fold)
    assert not state["foldOpen"], f"{page}: the contents entry opened the fold"

    state["summary"].click()
    opened = driver.execute_script(reads.script(reads.FOLD_OPENED_BODY), fold)
    assert all(opened["fold"]), page
    assert opened["count"], f"{page}: no self-check <details>"
    first, answer = opened["first"], opened["answer"]
    assert opened["state"] == [False, False], f"{page}: answer shown before a click"
    summary, read_state = opened["summary"], reads.script(reads.SELF_CHECK_STATE_BODY)
    summary.click()
    assert driver.execute_script(read_state, first, answer) == [True, True], (
        f"{page}: the question did not open"
    )
    summary.click()
    assert not driver.execute_script(read_state, first, answer)[0], (
        f"{page}: the question did not close"
    )


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
