"""What the lab browser tests do to each session notebook: the `LabCase` list, and the learner's steps.

`tests/test_lab_browser.py` and `tests/test_lab_browser_late.py` each work a share of `LAB_CASES`
(split at `LATE_FROM`), so under `pytest -n auto --dist loadfile` the two files run on two workers
at once. Each file starts one JupyterLab and one Chromium for all its notebooks (`lab_and_browser`);
every notebook still opens on a freshly loaded page, with a kernel of its own and no progress file
(`tests/lab.py::open_notebook`). A new session joins by adding one `LabCase` line here.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from browser import chromium_driver, locate_browser
from lab import Lab, LabPage, LabTimeout, cell_index, notebook_cells, open_notebook, running_lab

from cafe.course.reveals import load_answer

ROOT = Path(__file__).resolve().parent.parent
RECORD_S = 30.0  # a click's effect on the progress file or the page


@dataclass(frozen=True)
class LabCase:
    notebook: str  # notebooks/<notebook>.ipynb
    predict: str  # a predict key whose widget has at most four options (toggle buttons)
    option: str  # the option the learner clicks
    reveal: str  # a reveal key whose content is an answer text (cafe/data/answers)
    stub: str  # the your-turn function's name
    check: str  # the checker its compare cell uses, as a dotted name
    wrong: str  # one line of code defining it wrongly (the checker must complain)

    @property
    def session(self) -> int:
        return int(self.notebook[1:3])


LAB_CASES = [
    LabCase(
        "s04-schema",
        "s04.json_mode_parses",
        "2 or 3",
        "s04.why_dropped",
        "my_failures_from",
        "cafe.exercises.s04.check_failures_from",
        "def my_failures_from(error): return [str(e) for e in error.errors()]",
    ),
    LabCase(
        "s05-consent-gate",
        "s05.drafts_asked",
        "front of house sends it back before any draft",
        "s05.why_ask",
        "within_consent",
        "cafe.exercises.s05.check_within_consent",
        "def within_consent(ticket, spec): return True",
    ),
    LabCase(
        "s06-detect",
        "s06.what_reaches_kitchen",
        "no ticket at all",
        "s06.why_bound",
        "my_rule",
        "cafe.exercises.s06.check_detection_rule",
        "def my_rule(): return None",
    ),
    LabCase(
        "s07-repair-loop",
        "s07.stop_reason",
        "no ticket: the cap stops it",
        "s07.why_exhausted",
        "my_repair_ticket",
        "cafe.exercises.s07.check_repair_loop",
        "def my_repair_ticket(spec, generate, cap=3): return None",
    ),
    LabCase(
        "s08-tracing",
        "s08.replay",
        "same ending, same hash",
        "s08.why_hash",
        "my_replay_client",
        "cafe.exercises.s08.check_replay_client",
        "def my_replay_client(trace): return None",
    ),
    LabCase(
        "s09-shift-report",
        "s09.no_ticket",
        "9 to 14",
        "s09.why_no_ticket",
        "summarize",
        "cafe.exercises.s09.check_summarize",
        "def summarize(runs): return {}",
    ),
    LabCase(
        "s10-failure-taxonomy",
        "s10.biggest_pile",
        "systematic on unsafe",
        "s10.why_circle",
        "my_classify",
        "cafe.exercises.s10.check_classify",
        "def my_classify(run): return 'drifting'",
    ),
    LabCase(
        "s11-cost-routing",
        "s11.cheapest",
        "cheap 1 then strong 2",
        "s11.why_cap_free",
        "expected_cost",
        "cafe.exercises.s11.check_expected_cost",
        "def expected_cost(p, price, cap): return price * cap",
    ),
    LabCase(
        "s12-model-judge",
        "s12.kappa",
        "about 0.95",
        "s12.why_kappa",
        "my_calibrate",
        "cafe.exercises.s12.check_calibrate",
        "def my_calibrate(judge, labelled): return {'tp': 0, 'fn': 0, 'tn': 0, 'fp': 0, 'unparsed': 0, 'kappa': 1.0}",
    ),
    LabCase(
        "s13-stall-detection",
        "s13.blind_thrash",
        "no",
        "s13.why_signature_streak",
        "my_fold",
        "cafe.exercises.s13.check_fold_diagnostic",
        "def my_fold(state, dispatch): return state",
    ),
    LabCase(
        "s15-run-monitors",
        "s15.suite_green",
        "fast tier only",
        "s15.green_coverage",
        "my_tier",
        "cafe.exercises.s15.check_verification_tier",
        "def my_tier(command): return 'slow'",
    ),
]
# The first session `test_lab_browser_late.py` works, chosen so the two files take about the same
# time: measured one after the other, sessions 04-10 took 79 s and 11-15 took 77 s (session 13's
# notebook runs real pytest, 15's runs the monitors; each took 20-45 s, the others 10-12 s).
LATE_FROM = 11
EARLY_CASES = [case for case in LAB_CASES if case.session < LATE_FROM]
LATE_CASES = [case for case in LAB_CASES if case.session >= LATE_FROM]


@contextmanager
def lab_and_browser(tmp: Path) -> Iterator[tuple[Lab, Any]]:
    """One JupyterLab and one headless Chromium, for a test file to work its notebooks in turn.
    Without a browser this skips (or fails) before the server starts; the browser quits first."""
    locate_browser()
    with running_lab(tmp / "lab") as lab, chromium_driver(tmp / "chromium") as driver:
        yield lab, driver


def _marker(text: str) -> str:
    """A stretch of an answer long enough to be unmistakable, short enough to survive wrapping."""
    words = text.split()
    return " ".join(words[: min(len(words), 6)])


def _resolve(dotted: str) -> Callable[..., Any]:
    """`cafe.exercises.s07.check_x` -> the function, importing the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            target: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise AssertionError(f"cannot import {dotted}")


def _expected_complaint(case: LabCase, compare_source: str) -> str:
    """What the checker says about the wrong answer, asked here, outside the browser."""
    assert case.check.rsplit(".", 1)[-1] in compare_source, (
        f"the compare cell does not use {case.check}"
    )
    check = _resolve(case.check)
    namespace: dict[str, Any] = {}
    exec(case.wrong, namespace)  # noqa: S102 - the test's own one-line fixture
    problems = list(check(namespace[case.stub]))
    assert problems, f"the wrong answer for {case.stub} passes its checker; pick a wronger one"
    return problems[0]


@dataclass(frozen=True)
class CaseCells:
    """Where, in the notebook file, the cells a case works are (indices, in file order)."""

    code: tuple[int, ...]  # every code cell
    outcome: int  # the cell showing the predict widget's outcome
    stub: int  # the your-turn stub
    compare: int  # the cell comparing the stub with its checker


def _case_cells(case: LabCase, cells: list[dict[str, Any]]) -> CaseCells:
    predict = cell_index(cells, rf"course\.predict\(\s*\"{re.escape(case.predict)}\"")
    handle = re.search(
        rf"(\w+)\s*=\s*course\.predict\(\s*\"{re.escape(case.predict)}\"",
        "".join(cells[predict]["source"]),
    ).group(1)
    stub = cell_index(cells, rf"def {case.stub}\(")
    return CaseCells(
        code=tuple(i for i, cell in enumerate(cells) if cell["cell_type"] == "code"),
        outcome=cell_index(cells, rf"show_outcome\(\s*{handle}\b", after=predict),
        stub=stub,
        compare=cell_index(cells, rf"course\.compare\(\s*{case.stub}\b", after=stub),
    )


def shots_folder(tmp_path: Path) -> Path:
    """`$CAFE_SCREENSHOT_DIR/lab` when that is set, else the test's temporary folder."""
    base = os.environ.get("CAFE_SCREENSHOT_DIR")
    return Path(base) / "lab" if base else tmp_path / "screenshots"


def every_step_shot() -> bool:
    """Screenshots of every step only when asked for with `$CAFE_SCREENSHOT_DIR`; a failure's
    screenshot is taken either way (six a notebook cost about a second on a busy machine)."""
    return bool(os.environ.get("CAFE_SCREENSHOT_DIR"))


def _prediction_is_recorded_and_shown(page: LabPage, case: LabCase, at: CaseCells) -> None:
    """1. a prediction clicked in the browser is the one recorded, and shown beside the outcome."""
    predictions = page.lab.progress().get("predictions", {})
    assert case.predict not in predictions, (
        f"{case.predict} is recorded before the click: {predictions}"
    )
    page.click_prediction(case.predict, case.option)
    recorded = page.wait(
        f"the progress file to record {case.predict}",
        lambda: page.lab.progress().get("predictions", {}).get(case.predict),
        RECORD_S,
    )
    assert recorded["value"] == case.option
    page.step_shot("2-prediction-clicked")
    shown = page.run_cell(at.outcome)
    assert f"[outcome {case.predict}]" in shown and f"you predicted: {case.option!r}" in shown, (
        shown
    )
    page.show(at.outcome)
    page.step_shot("3-outcome-beside-prediction")


def _reveal_opens_on_demand(page: LabPage, case: LabCase) -> None:
    """2. the reveal's answer is nowhere until its switch is flipped, and gone again after."""
    answer = _marker(load_answer(case.reveal))
    assert answer not in page.body_text(), f"{case.reveal}'s answer is on the page before the flip"
    switch = page.reveal_switch(case.reveal)
    page.step_shot("4-reveal-closed")
    switch.click()
    page.wait(
        f"{case.reveal}'s answer after the flip", lambda: answer in page.body_text(), RECORD_S
    )
    page.step_shot("5-reveal-open")
    switch.click()
    page.wait(
        f"{case.reveal}'s answer to go when flipped back",
        lambda: answer not in page.body_text(),
        RECORD_S,
    )


def _checker_complains_about_a_wrong_stub(
    page: LabPage, case: LabCase, at: CaseCells, complaint: str
) -> None:
    """3. the stub is "not attempted yet"; a wrong answer gets the checker's own complaint."""
    assert "not attempted yet" in page.output(at.compare), page.output(at.compare)
    page.replace_source(at.stub, case.wrong)
    page.run_cell(at.stub)
    verdict = page.run_cell(at.compare)
    said = " ".join(complaint.split())[:80]  # both sides with their whitespace collapsed
    assert "failed" in verdict and said in " ".join(verdict.split()), (complaint, verdict)
    page.show(at.stub)
    page.step_shot("6-checker-complaint")


def work_the_notebook(case: LabCase, lab: Lab, driver: Any, shots: Path) -> None:
    """Open the case's notebook, run every cell from the Run menu, then do what a learner does."""
    notebook = ROOT / "notebooks" / f"{case.notebook}.ipynb"
    cells = notebook_cells(notebook)
    at = _case_cells(case, cells)
    complaint = _expected_complaint(case, "".join(cells[at.compare]["source"]))
    page = open_notebook(driver, lab, notebook, shots, every_step_shot())
    try:
        page.run_all(list(at.code))
        page.step_shot("1-ran-all")
        _prediction_is_recorded_and_shown(page, case, at)
        _reveal_opens_on_demand(page, case)
        _checker_complains_about_a_wrong_stub(page, case, at, complaint)
    except Exception as failure:  # a screenshot of any failure (a LabTimeout took its own)
        if not isinstance(failure, LabTimeout):
            with suppress(Exception):  # a browser that died takes none; the failure still shows
                page.screenshot("failed")
        raise
