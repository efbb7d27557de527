"""The learner's real screen, for the later sessions in `LAB_CASES`: see `tests/test_lab_browser.py`.

The same test over the rest of the cases (`tests/lab_cases.py` splits them at `LATE_FROM`), in a
file of its own so that `pytest -n auto --dist loadfile` runs the two halves on two workers at once.

Session 16, the capstone, is here too, with a test of its own: its exercise is not a stub cell but
the harness file the notebook writes (`CAPSTONE_CASE`). Its first two steps are the others' (a
prediction clicked is recorded and shown beside the outcome; a reveal opens only on demand); its
third saves a wrong harness in that file, as a learner's editor does, and reads the checkpoint
cell's verdict: the grader's board on a fresh seed, banked in the progress file, the same the
grader gives outside the browser on that seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab import Lab
from lab_cases import (
    CAPSTONE_CASE,
    LATE_CASES,
    LabCase,
    lab_and_browser,
    shots_folder,
    work_the_capstone,
    work_the_notebook,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, Any]]:
    with lab_and_browser(tmp_path_factory.mktemp("lab-browser")) as lab_and_driver:
        yield lab_and_driver


@pytest.mark.parametrize("case", LATE_CASES, ids=lambda case: case.notebook)
def test_notebook_in_jupyterlab_records_clicks_reveals_on_demand_and_checks_the_stub(
    case: LabCase, lab_browser: tuple[Lab, Any], tmp_path: Path
):
    shots = shots_folder(tmp_path)
    print(f"\nscreenshots (of each step with CAFE_SCREENSHOT_DIR set, else of a failure): {shots}")
    work_the_notebook(case, *lab_browser, shots)


def test_capstone_in_jupyterlab_records_clicks_reveals_on_demand_and_grades_the_harness_file(
    lab_browser: tuple[Lab, Any], tmp_path: Path
):
    shots = shots_folder(tmp_path)
    print(f"\nscreenshots (of each step with CAFE_SCREENSHOT_DIR set, else of a failure): {shots}")
    work_the_capstone(CAPSTONE_CASE, *lab_browser, shots)
