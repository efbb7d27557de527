"""Session 16's notebook ends on a harness a learner may copy: it must hold up as the reference does.

The notebook builds its harness in five steps and grades the last one (`PACED`) on its own seed
with eight scenarios, and on one fresh seed. The grader a learner runs from the command line draws
fresh seeds, and its scenarios cycle through all nine kinds (`SCENARIO_KINDS`), the endpoint
outage included, which the notebook's eight at seed 16 never hold. This test runs the notebook's
code cells, offline in a scratch folder, up to the cell that writes `PACED`, then grades that
harness on 10 seeds of nine scenarios, every kind on every seed. The reference harness passes the
same seeds and more (`tests/test_capstone.py`), so a property broken here is a notebook that
teaches a harness the grader fails.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from spoilers import notebook_cells

from cafe.capstone.grader import check, load_harness
from cafe.capstone.scenarios import SCENARIO_KINDS, scenarios

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "sessions" / "s16-capstone" / "notebook.py"
SEEDS = range(10)


def notebook_harness_source() -> str:
    """The `PACED` source the notebook builds, from running its code cells in order."""
    namespace: dict = {"__name__": "__notebook__"}
    for cell in notebook_cells(NOTEBOOK.read_text(encoding="utf-8")):
        if cell.kind != "code" or not cell.source.strip():
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(cell.source, f"{NOTEBOOK} cell", "exec"), namespace)
        if "PACED" in namespace:
            return namespace["PACED"]
    raise AssertionError("the s16 notebook no longer defines PACED: update this test")


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("capstone-notebook")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setenv("CAFE_HOME", str(folder / "home"))
        patch.setenv("CAFE_HEADLESS", "1")
        source = notebook_harness_source()
    path = folder / "paced.py"
    path.write_text(source, encoding="utf-8")
    return path


def test_every_seed_here_holds_every_kind():
    for seed in SEEDS:
        assert {s.kind for s in scenarios(seed, len(SCENARIO_KINDS))} == set(SCENARIO_KINDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_notebooks_last_harness_holds_every_property_on_every_kind(paced: Path, seed: int):
    verdict = check(load_harness(paced), seed, len(SCENARIO_KINDS))
    assert verdict.passed, f"seed {seed}: the notebook's last harness fails\n{verdict.render()}"
