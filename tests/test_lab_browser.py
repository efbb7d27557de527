"""The learner's real screen: a session notebook in JupyterLab, in headless Chromium, used by hand.

For each notebook of the earlier sessions in `LAB_CASES` (`tests/lab_cases.py`; the later ones are
`tests/test_lab_browser_late.py`'s, so the two files run side by side) the test opens a copy of the
notebook in the course's own JupyterLab on loopback (see `tests/lab.py`), runs every cell from the
Run menu, and then does what a learner does:

1. clicks an option on a predict widget: the progress file, empty of it before, records exactly
   that prediction, and the outcome cell, run again, shows it beside the outcome;
2. finds no trace of a reveal's answer in the page, flips the switch and finds it, flips it back
   and finds it gone;
3. leaves the your-turn stub alone and reads "not attempted yet"; types a wrong answer into the
   stub's cell, runs it and the compare cell, and reads the checker's own complaint about it.

One JupyterLab and one Chromium serve the whole file, and one page: each notebook after the first
opens in the JupyterLab page already loaded, as a learner opens their next notebook, once the last
one's tab is closed and its kernel shut down (`tests/lab.py::open_notebook`). Each still starts
from its own fresh copy, with a new kernel, no progress file and no other notebook on the page, so
every step reads only this notebook's cells and this kernel's records, as on a freshly loaded page
(loading the page again cost 8 to 10 s a notebook and checked nothing more).

With `$CAFE_SCREENSHOT_DIR` set, screenshots of each step go to `$CAFE_SCREENSHOT_DIR/lab`;
without it only a failure's screenshot is taken, in the test's temporary folder (a screenshot
costs time, six a notebook). The folder is printed. A new session joins by adding one `LabCase`
line to `tests/lab_cases.py`.

Like the site's browser test this one needs Chromium and chromedriver; see `tests/browser.py` for
when a missing browser fails the run and when it skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab import Lab
from lab_cases import EARLY_CASES, LabCase, lab_and_browser, shots_folder, work_the_notebook

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, Any]]:
    with lab_and_browser(tmp_path_factory.mktemp("lab-browser")) as lab_and_driver:
        yield lab_and_driver


@pytest.mark.parametrize("case", EARLY_CASES, ids=lambda case: case.notebook)
def test_notebook_in_jupyterlab_records_clicks_reveals_on_demand_and_checks_the_stub(
    case: LabCase, lab_browser: tuple[Lab, Any], tmp_path: Path
):
    shots = shots_folder(tmp_path)
    print(f"\nscreenshots (of each step with CAFE_SCREENSHOT_DIR set, else of a failure): {shots}")
    work_the_notebook(case, *lab_browser, shots)
