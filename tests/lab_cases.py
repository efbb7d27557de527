"""What the lab browser tests do to each session notebook: the `LabCase` list, and the learner's steps.

`tests/test_lab_browser.py` and `tests/test_lab_browser_late.py` each work a share of `LAB_CASES`
(split at `LATE_FROM`), so under `pytest -n auto --dist loadfile` the two files run on two workers
at once. Each file starts one JupyterLab and one Chromium for all its notebooks (`lab_and_browser`);
every notebook opens in the same JupyterLab page, alone on it, with a fresh copy, a kernel of its
own and no progress file (`tests/lab.py::open_notebook`). A new session joins by adding one
`LabCase` line here. Session 16, whose exercise is a file rather than a stub cell, has
`CAPSTONE_CASE` and `work_the_capstone` instead.
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
# time. With one page for all of a file's notebooks, each costs its own run and the learner's steps
# (measured one file after the other on a busy machine, 6 Dec 2026: sessions 04-09 about 156 s,
# 10-15 and the capstone about 133 s; session 13's notebook runs real pytest, 15's runs the
# monitors). Sessions 04-10 against 11-16 came out at 176 s against 113 s.
LATE_FROM = 10
EARLY_CASES = [case for case in LAB_CASES if case.session < LATE_FROM]
LATE_CASES = [case for case in LAB_CASES if case.session >= LATE_FROM]


@dataclass(frozen=True)
class CapstoneCase:
    """Session 16's case. Its exercise is not a stub cell but a file the notebook writes and
    grades (`work/capstone/harness.py`; under `CAFE_HOME` outside a course folder, as here), so the
    third step saves a harness in that file, as a learner's editor does, and runs the checkpoint
    cell, which grades a file the learner changed on a fresh seed and banks the verdict."""

    notebook: str
    predict: str
    option: str
    reveal: str
    wrong: str  # a harness file a learner might save: the grader must fail it


CAPSTONE_CASE = CapstoneCase(
    "s16-capstone",
    "s16.empty_holds",
    "four",
    "s16.empty_green",
    'def run_restock(env):\n    raise NotImplementedError("my harness, not written yet")\n',
)


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


def _code_cells(cells: list[dict[str, Any]]) -> tuple[int, ...]:
    return tuple(i for i, cell in enumerate(cells) if cell["cell_type"] == "code")


def _outcome_cell(cells: list[dict[str, Any]], key: str) -> int:
    """The cell that shows prediction `key`'s outcome: the first after its predict cell that
    passes the predict widget's handle to `show_outcome`."""
    predict = cell_index(cells, rf"course\.predict\(\s*\"{re.escape(key)}\"")
    handle = re.search(
        rf"(\w+)\s*=\s*course\.predict\(\s*\"{re.escape(key)}\"",
        "".join(cells[predict]["source"]),
    ).group(1)
    return cell_index(cells, rf"show_outcome\(\s*{handle}\b", after=predict)


def _case_cells(case: LabCase, cells: list[dict[str, Any]]) -> CaseCells:
    stub = cell_index(cells, rf"def {case.stub}\(")
    return CaseCells(
        code=_code_cells(cells),
        outcome=_outcome_cell(cells, case.predict),
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


def _prediction_is_recorded_and_shown(
    page: LabPage, case: LabCase | CapstoneCase, outcome: int
) -> None:
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
    shown = page.run_cell(outcome)
    assert f"[outcome {case.predict}]" in shown and f"you predicted: {case.option!r}" in shown, (
        shown
    )
    page.show(outcome)
    page.step_shot("3-outcome-beside-prediction")


def _reveal_opens_on_demand(page: LabPage, case: LabCase | CapstoneCase) -> None:
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


def _grader_judges_the_learners_harness(
    page: LabPage, case: CapstoneCase, cells: list[dict[str, Any]]
) -> None:
    """3. for the capstone: untouched, the checkpoint cell says the file is still the notebook's;
    with a harness the learner saved there, it shows the grader's board on a fresh seed and banks
    that verdict, the one the grader gives outside the browser on the seed the cell banked."""
    from cafe.capstone.grader import check, load_harness
    from cafe.capstone.workshop import board

    setup = cell_index(cells, r"N_SCENARIOS = \d+")
    harness = Path(re.search(r"your harness file: (\S+)", page.output(setup)).group(1))
    scenarios = int(re.search(r"N_SCENARIOS = (\d+)", "".join(cells[setup]["source"])).group(1))
    at = cell_index(cells, r"course\.checkpoint\(\s*\"s16\",\s*\"your_harness\"")
    assert "the file is still the notebook's" in page.output(at), page.output(at)
    banked_before = page.lab.progress().get("checkpoints", {}).get("s16", {})
    assert "your_harness" not in banked_before, f"a verdict banked before any file: {banked_before}"
    harness.write_text(case.wrong, encoding="utf-8")
    shown = " ".join(page.run_cell(at).split())
    banked = page.wait(
        "the progress file to bank s16.your_harness",
        lambda: page.lab.progress().get("checkpoints", {}).get("s16", {}).get("your_harness"),
        RECORD_S,
    )["value"]
    verdict = check(load_harness(harness), banked["seed"], scenarios)
    assert verdict.failed and banked["failed"] == sorted(verdict.failed), (banked, verdict.failed)
    assert board(verdict) in shown, (board(verdict), shown)
    page.show(at)
    page.step_shot("6-grader-verdict")


def work_the_capstone(case: CapstoneCase, lab: Lab, driver: Any, shots: Path) -> None:
    """`work_the_notebook` for session 16: the same first two steps, then the harness file graded."""
    notebook = ROOT / "notebooks" / f"{case.notebook}.ipynb"
    cells = notebook_cells(notebook)
    outcome = _outcome_cell(cells, case.predict)
    page = open_notebook(driver, lab, notebook, shots, every_step_shot())
    try:
        page.run_all(list(_code_cells(cells)))
        page.step_shot("1-ran-all")
        _prediction_is_recorded_and_shown(page, case, outcome)
        _reveal_opens_on_demand(page, case)
        _grader_judges_the_learners_harness(page, case, cells)
    except Exception as failure:  # a screenshot of any failure (a LabTimeout took its own)
        if not isinstance(failure, LabTimeout):
            with suppress(Exception):
                page.screenshot("failed")
        raise


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
        _prediction_is_recorded_and_shown(page, case, at.outcome)
        _reveal_opens_on_demand(page, case)
        _checker_complains_about_a_wrong_stub(page, case, at, complaint)
    except Exception as failure:  # a screenshot of any failure (a LabTimeout took its own)
        if not isinstance(failure, LabTimeout):
            with suppress(Exception):  # a browser that died takes none; the failure still shows
                page.screenshot("failed")
        raise
