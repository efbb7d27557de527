"""No prediction is answered before it is asked: not by the lesson's opening, the notebook's text
above the predict cell, or a heading (see `tests/spoilers.py` for the rule).

Each session's notebook source runs once, headless and offline, with its own progress file; the
outcomes `show_outcome` saved there are the answers that must not appear early.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from samples import notebook_outcomes
from spoilers import find_spoilers

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = sorted(path.parent.name for path in ROOT.glob("sessions/s[0-9][0-9]-*/notebook.py"))

SPOILED_LESSON = """# Session 99

## The hook

The run ends on retries_exhausted after three attempts.

## Build (in the notebook, predict first)

Predict the stop reason.
"""

SPOILED_NOTEBOOK = """# %% [markdown]
# ## Why it ends on retries_exhausted

# %% [markdown]
# Watch the cap stop it: the reason will be `retries_exhausted`.

# %%
guess = course.predict("s99.stop_reason", "Which stop reason?", options=["passed", "retries_exhausted"])
"""


@pytest.mark.parametrize("folder", SESSIONS)
def test_spoilers_none_in_the_session_before_its_predictions(folder: str):
    outcomes = notebook_outcomes(folder)
    assert outcomes, f"{folder}'s notebook saved no outcomes: does it call course.show_outcome?"
    lesson = (ROOT / "sessions" / folder / "lesson.md").read_text(encoding="utf-8")
    notebook = (ROOT / "sessions" / folder / "notebook.py").read_text(encoding="utf-8")
    assert find_spoilers(outcomes, lesson, notebook) == []


def test_spoilers_found_in_a_lesson_a_notebook_text_and_a_heading():
    found = find_spoilers(
        {"s99.stop_reason": "retries_exhausted"}, SPOILED_LESSON, SPOILED_NOTEBOOK
    )
    assert [line.split(": the ")[1].split(" ")[0] for line in found] == [
        "lesson",
        "notebook's",
        "heading",
    ]


def test_spoilers_ignore_short_outcomes_that_any_text_contains():
    assert (
        find_spoilers(
            {"s99.turns": "3", "s99.ok": "yes"},
            "## The hook\n\n3 yes\n",
            '# %%\na = course.predict("s99.turns", "?")\nb = course.predict("s99.ok", "?")\n',
        )
        == []
    )


def test_spoilers_found_after_the_build_section_are_fine():
    lesson = "## The hook\n\nA loop.\n\n## Build (in the notebook, predict first)\n\nIt ends on retries_exhausted.\n"
    notebook = '# %%\nguess = course.predict("s99.stop_reason", "?")\n'
    assert find_spoilers({"s99.stop_reason": "retries_exhausted"}, lesson, notebook) == []
