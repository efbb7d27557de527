"""The checkers' search gives one verdict wherever it runs, and a verdict for any function.

`cafe.exercises.search` promises three things a held-out reader found broken:

- the same function gets the same verdict whatever else is imported: Hypothesis draws now and then
  a constant from the "local" code imported so far, so a learner's file (or the suite's banks)
  holding the very value where a function goes wrong used to change the verdict;
- a check writes no `.hypothesis/` folder into the folder it runs in (the learner's notebooks);
- a function that answers one input two ways (a random draw, a count kept between calls) gets a
  verdict that says so, instead of Hypothesis's `Flaky` error stopping the notebook cell.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from cafe.course.toolkit import compare
from cafe.exercises import search
from cafe.exercises.generated import NOT_REPEATABLE, first_broken, first_difference

ROOT = Path(__file__).resolve().parent.parent

# Values a function might go wrong at, one of each kind Hypothesis gathers from local code.
ODD_VALUES = [48611, "zq-odd-latte", 0.3141]
STRATEGIES = {int: st.integers(), str: st.text(), float: st.floats(allow_nan=False)}


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No kept inputs: each search below draws for real."""
    monkeypatch.setattr(search, "_drawn", {})


@pytest.mark.usefixtures("fresh")
@pytest.mark.parametrize("odd", ODD_VALUES, ids=repr)
def test_the_verdict_does_not_depend_on_the_constants_of_imported_code(
    odd: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    strategy = STRATEGIES[type(odd)]

    def wrong_at_odd(value: Any) -> bool:
        return value != odd

    before = first_difference(wrong_at_odd, lambda value: True, strategy, idea="")
    # a learner's own module holding the very value, imported between two checks
    (tmp_path / "learner_notes.py").write_text(f"FAVOURITE = {odd!r}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("learner_notes")
    monkeypatch.setattr(search, "_drawn", {})
    after = first_difference(wrong_at_odd, lambda value: True, strategy, idea="")
    assert before == after


def test_a_check_writes_no_hypothesis_folder_where_it_runs(tmp_path: Path) -> None:
    # a fresh process: Hypothesis caches its table of characters once per process, on first use
    program = textwrap.dedent(
        """
        from hypothesis import strategies as st
        from cafe.exercises.generated import first_difference
        print(first_difference(str.upper, str.upper, st.text(), idea=""))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    ran = subprocess.run(
        [sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "None"
    assert list(tmp_path.iterdir()) == []


class Unsteady:
    """A learner's function whose answer to one input changes between calls: right on odd calls,
    one too many on even calls, for lists of three or more."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, numbers: list[int]) -> int:
        self.calls += 1
        return sum(numbers) + (len(numbers) > 2 and self.calls % 2 == 0)


NUMBERS = st.lists(st.integers(0, 9), max_size=6)


@pytest.mark.usefixtures("fresh")
def test_a_function_that_answers_one_input_two_ways_is_told_so() -> None:
    found = first_difference(Unsteady(), sum, NUMBERS, idea="each number counted once")
    assert found is not None
    assert len(found.given) > 2
    assert found.idea in ("each number counted once", NOT_REPEATABLE)


@pytest.mark.usefixtures("fresh")
def test_an_unsteady_function_gets_a_verdict_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    monkeypatch.setenv("CAFE_HEADLESS", "1")

    def check(fn: Any) -> list[str]:
        found = first_difference(fn, sum, NUMBERS, idea="each number counted once")
        return [f"{found.given}: {found.idea}"] if found else []

    result = compare(Unsteady(), check)
    assert result.status == "failed"


@pytest.mark.usefixtures("fresh")
def test_a_property_check_shows_the_answer_that_broke_it() -> None:
    found = first_broken(Unsteady(), NUMBERS, lambda numbers, got: got != sum(numbers))
    assert found is not None
    numbers, got = found
    assert got != sum(numbers)
