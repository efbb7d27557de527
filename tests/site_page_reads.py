"""What `test_site_browser.py` reads from a page, as JavaScript: one round trip a page and width.

Each WebDriver command is a round trip through chromedriver and the browser (about 9 ms of
processor time), and the site test made about 2,600 of them. Reads do not need to be separate
trips: `PAGE_READ` returns, in one object, everything a page's assertions need at one width, and
the test asserts on it in Python with the messages it had. Clicks, taps and navigation stay
WebDriver commands, one at a time, since what they check is that a reader's action works; the
script that reads where the next click lands also says where the last one took the page
(`CONTENTS_STEP`).

"Shown" is Selenium's own `isDisplayed` atom (the script `WebElement.is_displayed()` sends), so a
section counts as shown or hidden by the same rule as before; `is_shown_js()` loads it from the
installed selenium.
"""

from __future__ import annotations

import functools
import pkgutil

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

# The reads, as functions the scripts below share.
FUNCTIONS = (
    WHERE_SEEN
    + """
    // Where a section stands after its contents entry was clicked: the location's hash, the
    // section's top, and the window's height.
    function landed(anchor) {
      const el = document.getElementById(anchor);
      return [location.hash, el ? el.getBoundingClientRect().top : null, window.innerHeight];
    }
    // Text that sits on the screen edge: headings, paragraphs, list items, summaries outside a box
    // that scrolls on its own (code blocks and figure tables may run past the edge inside that box).
    function touching(margin) {
      const w = document.documentElement.clientWidth, out = [];
      for (const el of document.querySelectorAll('h1, h2, h3, p, li, dt, dd, summary, td')) {
        if (el.closest('pre, .scroll:not(.stack)') || el.getClientRects().length === 0) continue;
        const r = el.getBoundingClientRect();
        if (r.left < margin || r.right > w - margin)
          out.push(`${el.tagName} '${el.textContent.trim().slice(0, 30)}' spans ${Math.round(r.left)}..${Math.round(r.right)}`);
      }
      return out.slice(0, 5);
    }
    // Prose tables still wider than their box.
    function squeezed() {
      return Array.from(document.querySelectorAll('.scroll.stack'))
        .filter(box => box.scrollWidth > box.clientWidth + 1).length;
    }
    // The layout viewport's width, the page's scroll width, and the first elements past the edge.
    function sideways() {
      const w = document.documentElement.clientWidth, out = [];
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.right > w + 1) out.push(el.tagName + '.' + el.className);
      }
      return [w, Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
              out.slice(0, 5)];
    }
    // The drawing's scale (rendered width over its viewBox, which dot writes in points), the
    // smallest label's rendered size in px, and whether its box scrolls sideways.
    function diagram() {
      const s = document.querySelector('figure.diagram svg'); if (!s) return null;
      const box = s.closest('.diagram-box'), w = s.getBoundingClientRect().width;
      const perPt = w / s.viewBox.baseVal.width;
      const sizes = Array.from(s.querySelectorAll('text')).map(t => parseFloat(t.getAttribute('font-size') || '14'));
      return [perPt * 3 / 4, Math.min(...sizes) * perPt, box.scrollWidth > box.clientWidth + 1];
    }
    function headStatus(href) { return fetch(href, {method: 'HEAD'}).then(r => r.status); }
    function entries() { return Array.from(document.querySelectorAll('nav.toc a')); }
"""
)

# Everything one page's checks read at one width; arguments[0] says which parts: {margin, phone,
# links: [css], lesson, diagram}. A link: [how many match, the first's href, on top, the first].
PAGE_READ_BODY = """
    const spec = arguments[0], out = {title: document.title};
    if (spec.phone) out.sideways = sideways();
    out.touching = touching(spec.margin);
    out.squeezed = squeezed();
    out.links = spec.links.map(css => {
      const found = document.querySelectorAll(css);
      return found.length ? [found.length, found[0].href, whereSeen(found[0]) !== null, found[0]]
                          : [0, null, false, null];
    });
    if (spec.lesson && !spec.phone) {
      out.current = document.querySelectorAll('nav.modules li.current').length;
      const mod = document.querySelector('nav.modules li a');
      out.module = mod ? [mod.href, mod] : null;  // on top: its own round trip (see the test)
      const fold = document.querySelector('details.after-notebook');
      const inside = fold ? Array.from(fold.querySelectorAll('section.lesson-section')) : [];
      out.fold = fold;
      out.foldState = fold ? [fold.hasAttribute('open'), inside.map(el => isShown(el))] : null;
      out.entries = entries();
      out.anchors = out.entries.map(a => a.href.split('#')[1]);
      out.opens = await Promise.all(Array.from(document.querySelectorAll('dd.open a'),
                                               a => headStatus(a.href).then(s => [a.href, s])));
    }
    if (spec.diagram) {
      out.diagram = diagram();
      const a = document.querySelector('figure.diagram figcaption a.full-size');
      if (spec.phone) out.fullSize = a ? [a.innerText, await headStatus(a.href)] : null;
    }
    if (spec.lesson && spec.phone) {
      out.top = document.querySelector('.lesson-section h2').getBoundingClientRect().top;
      out.folds = Array.from(document.querySelectorAll('details.fold'), d => d.hasAttribute('open'));
      const all = entries();
      out.contentsOnTop = all.some(el => whereSeen(el) !== null);
      out.entryCount = all.length;
      window.scrollTo(0, 0);
      const s = document.querySelector('#page-on-this-page > summary');
      out.summaryPoint = s ? whereSeen(s) : null;
      out.last = all.length ? [all[all.length - 1].href.split('#')[1], all[all.length - 1]] : null;
    }
    return out;"""

# After a contents entry's click: where it took the page (arguments[0], the anchor, or null before
# the first click), and where the next entry (arguments[1], or null) would be clicked. With the
# fold (arguments[2]): whether it is still closed, and its summary, centred for the click on it.
CONTENTS_STEP_BODY = """
    const [anchor, next, fold] = arguments, out = {};
    out.landed = anchor === null ? null : landed(anchor);
    out.point = next ? whereSeen(next) : null;
    if (fold) {
      out.foldOpen = fold.hasAttribute('open');
      out.summary = fold.querySelector('summary');
      out.summary.scrollIntoView({block: 'center'});
    }
    return out;"""

# Once the fold is open: it is, its first section shows, and the first self-check answer is
# hidden; that question's summary comes back centred for the click on it.
FOLD_OPENED_BODY = """
    const fold = arguments[0], inside = fold.querySelector('section.lesson-section');
    const details = document.querySelectorAll('details.self-check'), out = {count: details.length};
    out.fold = [fold.hasAttribute('open'), inside !== null && isShown(inside)];
    if (details.length) {
      const first = details[0], answer = first.querySelector('.answer');
      out.first = first; out.answer = answer;
      out.state = [first.hasAttribute('open'), isShown(answer)];
      out.summary = first.querySelector('summary');
      out.summary.scrollIntoView({block: 'center'});
    }
    return out;"""

# A self-check's state: [open, its answer shown].
SELF_CHECK_STATE_BODY = "return [arguments[0].hasAttribute('open'), isShown(arguments[1])];"


@functools.cache
def is_shown_js() -> str:
    """`const isShown = <selenium's isDisplayed atom>;`, from the installed selenium."""
    atom = pkgutil.get_data("selenium.webdriver.remote", "isDisplayed.js")
    assert atom is not None, "selenium's isDisplayed.js atom is missing"
    return f"const isShown = ({atom.decode('utf8')});\n"


def script(body: str, asynchronous: bool = False) -> str:
    """`body` with the shared functions in scope, and `isShown` where it uses it (the atom is
    16 kB of script to send and parse); `asynchronous` for a body that awaits."""
    shown = is_shown_js() if "isShown" in body else ""
    if asynchronous:
        # an arrow function sees the outer function's `arguments`
        return f"return (async () => {{{shown}{FUNCTIONS}{body}}})();"
    return shown + FUNCTIONS + body
