"""The capstone notebook's workshop: where the harness file lives, a step written without losing
the learner's own file, and the verdict's one-line board."""

from __future__ import annotations

from pathlib import Path

import pytest

from cafe.capstone.grader import Failure, Verdict
from cafe.capstone.properties import PROPERTIES
from cafe.capstone.scenarios import scenarios
from cafe.capstone.workshop import STEP_MARK, board, harness_path, write_harness
from cafe.endpoint.settings.environment import ROOT_MARKER

STEP = f'{STEP_MARK}\n"""a step"""\n'


def test_harness_path_in_a_course_folder_is_its_work_capstone_file(tmp_path: Path) -> None:
    (tmp_path / ROOT_MARKER).write_text("", encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    found = harness_path({}, start=tmp_path / "notebooks")
    assert found == tmp_path / "work" / "capstone" / "harness.py"


def test_harness_path_headless_is_under_cafe_home_never_work(tmp_path: Path) -> None:
    (tmp_path / ROOT_MARKER).write_text("", encoding="utf-8")
    home = tmp_path / "home"
    found = harness_path({"CAFE_HEADLESS": "1", "CAFE_HOME": str(home)}, start=tmp_path)
    assert found == home / "capstone" / "harness.py"


def test_harness_path_outside_any_course_folder_is_under_cafe_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    found = harness_path({"CAFE_HOME": str(home)}, start=tmp_path / "elsewhere")
    assert found == home / "capstone" / "harness.py"


def test_write_harness_replaces_a_step_the_notebook_wrote(tmp_path: Path) -> None:
    path = tmp_path / "capstone" / "harness.py"
    assert write_harness(path, STEP) == "wrote harness.py"
    assert write_harness(path, STEP + "# two\n") == "wrote harness.py"
    assert path.read_text(encoding="utf-8").endswith("# two\n")
    assert sorted(p.name for p in path.parent.iterdir()) == ["harness.py"]


def test_write_harness_keeps_the_learners_own_file_under_another_name(tmp_path: Path) -> None:
    path = tmp_path / "harness.py"
    path.write_text("def run_restock(env): ...\n", encoding="utf-8")
    (tmp_path / "harness-yours-1.py").write_text("older\n", encoding="utf-8")
    said = write_harness(path, STEP)
    assert said == "wrote harness.py (your own file was kept as harness-yours-2.py)"
    kept = (tmp_path / "harness-yours-2.py").read_text(encoding="utf-8")
    assert kept == "def run_restock(env): ...\n"
    assert path.read_text(encoding="utf-8") == STEP


def test_write_harness_refuses_a_source_without_the_mark(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="starts with"):
        write_harness(tmp_path / "harness.py", "def run_restock(env): ...\n")
    assert not (tmp_path / "harness.py").exists()


def test_board_names_every_property_in_order_ok_or_fail() -> None:
    scenario = scenarios(1, 1)[0]
    verdict = Verdict(1, 1, (Failure("stall", 1, scenario, "failed again"),))
    assert board(verdict) == " · ".join(
        f"{'FAIL' if name == 'stall' else 'ok'} {name}" for name in PROPERTIES
    )
    assert "FAIL" not in board(Verdict(1, 1, ()))
