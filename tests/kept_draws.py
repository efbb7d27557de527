"""What a seeded Hypothesis search draws, to audit the inputs `cafe.exercises.search` keeps.

Shared by tests/test_exercise_banks.py (every checker's strategies, on the reference's run) and
tests/test_generated_replay.py (generated conditions)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import find
from hypothesis.errors import NoSuchExample

from cafe.exercises import search


def shown(value: Any) -> str:
    """`repr` with object addresses left out. Two draws are compared by what they show, not by
    `==`: a float may be nan (nan != nan) and a record without `__eq__` equals only itself."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def draws_of(strategy: Any, seeded: Any) -> list[Any]:
    """Every value the real seeded search gives a condition that is never True, in order."""
    drawn: list[Any] = []

    def never(value: Any) -> bool:
        drawn.append(value)
        return False

    with search.fixed_draws(), pytest.raises(NoSuchExample):
        find(strategy, never, settings=seeded)
    return drawn
