"""What a learner owes is read from the course's own notebooks, never from the submission.

Reader CC (8 Dec 2026, finding 1): `COURSE_NOTEBOOKS` pointed at `cafe/notebooks`, a folder that
does not exist (the grading package had moved one level down), so `course_items` fell back on
the learner's notebook: a learner who deleted a compare cell owed nothing for it, and the
gradebook had no row for that exercise at all. The rule (gradebook.py): an exercise the course's
notebook asks for that the run never reached is `not_run`, never left out.

The oracle reads each course notebook's keys with its own pattern, written here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cafe.course.grading.command import COURSE_NOTEBOOKS
from cafe.course.grading.gradebook import course_items

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("s[0-9][0-9]-*.ipynb"))


def _keys(notebook: Path, call: str) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    found = re.findall(rf"{call}\([^)]*?key=[\"'](s\d\d\.[\w.]+)[\"']", text, flags=re.S)
    return list(dict.fromkeys(found))


def test_the_oracle_finds_the_exercises_the_sessions_ask_for():
    assert sum(len(_keys(n, "compare")) for n in NOTEBOOKS) >= 30


def test_the_course_notebooks_folder_is_the_repository_s():
    assert COURSE_NOTEBOOKS.resolve() == (ROOT / "notebooks").resolve()
    assert {p.name for p in NOTEBOOKS} <= {p.name for p in COURSE_NOTEBOOKS.glob("*.ipynb")}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_emptied_by_the_learner_still_owes_every_exercise(notebook, tmp_path):
    owed = _keys(notebook, r"compare")
    emptied = tmp_path / notebook.name
    emptied.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["print(1)"]}]}))
    exercises, _ = course_items(emptied, COURSE_NOTEBOOKS)
    assert set(owed) <= set(exercises), (notebook.name, sorted(set(owed) - set(exercises)))


@pytest.mark.parametrize(
    "case", [str.upper, str.title, str.swapcase], ids=["upper", "title", "swap"]
)
def test_a_course_notebook_handed_in_under_another_letter_case_still_owes_its_exercises(
    case, tmp_path
):
    """Reader CC (e2e-case-name): 'S00-SETUP.IPYNB' found no course copy and owed nothing."""
    notebook = ROOT / "notebooks" / "s00-setup.ipynb"
    emptied = tmp_path / case(notebook.name)
    emptied.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["print(1)"]}]}))
    exercises, _ = course_items(emptied, COURSE_NOTEBOOKS)
    assert set(_keys(notebook, "compare")) <= set(exercises)
