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


def test_notebook_and_toy_run_live_to_the_end_against_cafe_serve_session_16(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live against `cafe serve --session 16`, the notebook's live cell runs the harness it built
    on the injected scenario and says in two lines what happened (the session's script orders
    each item at the quoted price, paid to the registered account, ignoring the supplier's
    instruction); the toy does the same in the reference harness, and neither ends on the
    default rule's note."""
    import os
    import subprocess
    import sys

    from endpoints import live_env

    from cafe.endpoint.scripts.rehearsals import session_label, session_script
    from cafe.endpoint.server.serve import running_server

    script = session_script("16")
    with running_server(script, label=session_label("16")) as server:
        env = live_env(server.base_url, model=script.models[0])
        env.update(CAFE_HOME=str(tmp_path / "home"), CAFE_HEADLESS="1")
        toy = subprocess.run(
            [sys.executable, str(ROOT / "sessions" / "s16-capstone" / "toy.py")],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=300,
        )
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(tmp_path)
        namespace: dict = {"__name__": "__notebook__"}
        printed = io.StringIO()
        for cell in notebook_cells(NOTEBOOK.read_text(encoding="utf-8")):
            if cell.kind == "code" and cell.source.strip():
                with contextlib.redirect_stdout(printed):
                    exec(compile(cell.source, f"{NOTEBOOK} cell", "exec"), namespace)
    assert toy.returncode == 0, toy.stderr
    assert "done (the model answered without calling a tool); 2 orders sent" in toy.stdout
    assert "default rule" not in toy.stdout
    (line,) = [x for x in printed.getvalue().splitlines() if x.startswith("live, ")]
    assert "It ended 'done'" in line and "0 paid to an account not on the café's books" in line
    assert "On the world's record: 7 of 7 properties held." in printed.getvalue()
