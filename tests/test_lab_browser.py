"""The learner's real screen: a session notebook in JupyterLab, in headless Chromium, used by hand.

For each notebook in `LAB_CASES` the test starts the course's own JupyterLab on loopback (see
`tests/lab.py`), opens a copy of the notebook, runs every cell from the Run menu, and then does what
a learner does:

1. clicks an option on a predict widget: the progress file records exactly that prediction, and
   the outcome cell, run again, shows it beside the outcome;
2. finds no trace of a reveal's answer in the page, flips the switch and finds it, flips it back
   and finds it gone;
3. leaves the your-turn stub alone and reads "not attempted yet"; types a wrong answer into the
   stub's cell, runs it and the compare cell, and reads the checker's own complaint about it.

Screenshots of each step go to `$CAFE_SCREENSHOT_DIR/lab` when that is set, else to the test's
temporary folder; the folder is printed. A new session joins by adding one `LabCase` line.

Like the site's browser test this one needs Chromium and chromedriver; see `tests/browser.py` for
when a missing browser fails the run and when it skips.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from browser import chromium_driver
from cafe.course.reveals import load_answer
from lab import LabPage, cell_index, notebook_cells, running_lab

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class LabCase:
    notebook: str           # notebooks/<notebook>.ipynb
    predict: str            # a predict key whose widget has at most four options (toggle buttons)
    option: str             # the option the learner clicks
    reveal: str             # a reveal key whose content is an answer text (cafe/data/answers)
    stub: str               # the your-turn function's name
    check: str              # the checker its compare cell uses, as a dotted name
    wrong: str              # one line of code defining it wrongly (the checker must complain)


LAB_CASES = [
    LabCase("s04-schema", "s04.never_in_json_mode", "not_json", "s04.why_dropped",
            "my_failures_from", "cafe.exercises.s04.check_failures_from",
            "def my_failures_from(error): return [str(e) for e in error.errors()]"),
    LabCase("s05-consent-gate", "s05.partial_drafts", "0", "s05.why_ask", "within_consent",
            "cafe.exercises.s05.check_within_consent", "def within_consent(ticket, spec): return True"),
    LabCase("s06-detect", "s06.bound", "no ticket at all", "s06.why_bound", "my_rule",
            "cafe.exercises.s06.check_detection_rule", "def my_rule(): return None"),
    LabCase("s07-repair-loop", "s07.stop_reason", "no ticket: the cap stops it", "s07.why_exhausted",
            "my_repair_ticket", "cafe.exercises.s07.check_repair_loop",
            "def my_repair_ticket(spec, generate, cap=3): return None"),
    LabCase("s08-tracing", "s08.replay", "same ending, same hash", "s08.why_hash",
            "my_replay_client", "cafe.exercises.s08.check_replay_client", "def my_replay_client(trace): return None"),
    LabCase("s09-shift-report", "s09.no_ticket", "7 to 10", "s09.why_no_ticket",
            "summarize", "cafe.exercises.s09.check_summarize", "def summarize(runs): return {}"),
    LabCase("s10-failure-taxonomy", "s10.biggest_pile", "systematic on unsafe", "s10.why_circle",
            "my_classify", "cafe.exercises.s10.check_classify", "def my_classify(run): return 'drifting'"),
    LabCase("s11-cost-routing", "s11.cheapest", "cheap 1 then strong 2", "s11.why_cap_free",
            "expected_cost", "cafe.exercises.s11.check_expected_cost", "def expected_cost(p, price, cap): return price * cap"),
    LabCase("s12-model-judge", "s12.kappa", "about 0.95", "s12.why_kappa",
            "my_calibrate", "cafe.exercises.s12.check_calibrate",
            "def my_calibrate(judge, labelled): return {'tp': 0, 'fn': 0, 'tn': 0, 'fp': 0, 'unparsed': 0, 'kappa': 1.0}"),
    LabCase("s13-stall-detection", "s13.blind_thrash", "no", "s13.why_signature_streak",
            "my_fold", "cafe.exercises.s13.check_fold_diagnostic", "def my_fold(state, dispatch): return state"),
    LabCase("s15-run-monitors", "s15.suite_green", "fast tier only", "s15.green_coverage",
            "my_tier", "cafe.exercises.s15.check_verification_tier", "def my_tier(command): return 'slow'"),
]


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
    assert case.check.rsplit(".", 1)[-1] in compare_source, f"the compare cell does not use {case.check}"
    check = _resolve(case.check)
    namespace: dict[str, Any] = {}
    exec(case.wrong, namespace)  # noqa: S102 - the test's own one-line fixture
    problems = list(check(namespace[case.stub]))
    assert problems, f"the wrong answer for {case.stub} passes its checker; pick a wronger one"
    return problems[0]


def _shots(tmp_path: Path) -> Path:
    base = os.environ.get("CAFE_SCREENSHOT_DIR")
    return Path(base) / "lab" if base else tmp_path / "screenshots"


@pytest.mark.parametrize("case", LAB_CASES, ids=lambda case: case.notebook)
def test_notebook_in_jupyterlab_records_clicks_reveals_on_demand_and_checks_the_stub(case: LabCase, tmp_path: Path):
    notebook = ROOT / "notebooks" / f"{case.notebook}.ipynb"
    cells = notebook_cells(notebook)
    code_cells = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
    predict_cell = cell_index(cells, rf"course\.predict\(\s*\"{re.escape(case.predict)}\"")
    handle = re.search(rf"(\w+)\s*=\s*course\.predict\(\s*\"{re.escape(case.predict)}\"",
                       "".join(cells[predict_cell]["source"])).group(1)
    outcome_cell = cell_index(cells, rf"show_outcome\(\s*{handle}\b", after=predict_cell)
    stub_cell = cell_index(cells, rf"def {case.stub}\(")
    compare_cell = cell_index(cells, rf"course\.compare\(\s*{case.stub}\b", after=stub_cell)
    complaint = _expected_complaint(case, "".join(cells[compare_cell]["source"]))
    answer = _marker(load_answer(case.reveal))
    shots = _shots(tmp_path)
    print(f"\nscreenshots: {shots}")

    with running_lab(notebook, tmp_path / "lab") as lab, chromium_driver(tmp_path / "chromium") as driver:
        page = LabPage(driver, lab, notebook.name, shots)
        page.open()
        page.run_all(code_cells)
        page.screenshot("1-ran-all")

        # 1. a prediction clicked in the browser is the one recorded, and shown beside the outcome
        page.click_prediction(case.predict, case.option)
        session, name = case.predict.split(".", 1)
        recorded = page.wait(f"the progress file to record {case.predict}",
                             lambda: lab.progress().get("predictions", {}).get(case.predict), 30)
        assert recorded["value"] == case.option
        page.screenshot("2-prediction-clicked")
        shown = page.run_cell(outcome_cell)
        assert f"[outcome {case.predict}]" in shown and f"you predicted: {case.option!r}" in shown, shown
        page.show(outcome_cell)
        page.screenshot("3-outcome-beside-prediction")

        # 2. the reveal's answer is nowhere until its switch is flipped, and gone again after
        assert answer not in page.body_text(), f"{case.reveal}'s answer is on the page before the flip"
        switch = page.reveal_switch(case.reveal)
        page.screenshot("4-reveal-closed")
        switch.click()
        page.wait(f"{case.reveal}'s answer after the flip", lambda: answer in page.body_text(), 30)
        page.screenshot("5-reveal-open")
        switch.click()
        page.wait(f"{case.reveal}'s answer to go when flipped back", lambda: answer not in page.body_text(), 30)

        # 3. the stub is "not attempted yet"; a wrong answer gets the checker's own complaint
        assert "not attempted yet" in page.output(compare_cell), page.output(compare_cell)
        page.replace_source(stub_cell, case.wrong)
        page.run_cell(stub_cell)
        verdict = page.run_cell(compare_cell)
        assert "failed" in verdict and complaint[:80] in " ".join(verdict.split()), (complaint, verdict)
        page.show(stub_cell)
        page.screenshot("6-checker-complaint")
