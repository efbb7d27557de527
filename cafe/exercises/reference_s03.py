"""Session 03's never-drop rule, written apart from `cafe.context.fit_sections`, and the section
sets to try it on.

`check_fit_sections` (`cafe.exercises.s03`) compares the learner's `fit_sections` with `fitted`
on generated sets after its hand-picked cases; `tests/test_exercise_references.py` holds `fitted`
to the library on the same sets. This module imports nothing from `cafe` (only
`cafe.exercises.sNN` may): `Section` is passed in to build the sets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["fitted", "safety_minimum", "section_sets"]


def safety_minimum(sections: Sequence[Any]) -> int:
    """The tokens of the safety sections together: no budget below it can be met."""
    return sum(s.tokens for s in sections if s.required)


def fitted(sections: Sequence[Any], budget: int) -> tuple[Any, ...]:
    """The sections kept in `budget`: optional ones leave lowest priority first until the rest
    fit, safety ones never; ValueError naming the safety minimum when even they do not fit."""
    floor = safety_minimum(sections)
    if budget < floor:
        raise ValueError(f"the safety sections need {floor} tokens; {budget} is not enough")
    dropped: set[int] = set()
    by_priority = sorted(
        (n for n, s in enumerate(sections) if not s.required), key=lambda n: sections[n].priority
    )
    for n in by_priority:
        if sum(s.tokens for i, s in enumerate(sections) if i not in dropped) <= budget:
            break
        dropped.add(n)
    return tuple(s for i, s in enumerate(sections) if i not in dropped)


def section_sets(make_section: Callable[[str, int, int, bool], Any]) -> Any:
    """(sections, budget): 1 to 6 sections, distinct names and priorities, 1 to 30 tokens each,
    safety ones anywhere; budgets at, one either side of, and far below the safety minimum, at
    each point where one more drop makes the rest fit, and above the whole."""
    from hypothesis import strategies as st

    names = ("rules", "prices", "story", "allergens", "weather", "menu", "specials", "jokes")

    def build(rows: list[tuple[int, int, bool]], pick: int, shift: int) -> Any:
        sections = tuple(
            make_section(names[n], tokens, priority, required)
            for n, (tokens, priority, required) in enumerate(rows)
        )
        floor, whole = safety_minimum(sections), sum(s.tokens for s in sections)
        marks = [floor, whole, floor // 2, 0]
        running = whole
        for s in sorted((s for s in sections if not s.required), key=lambda s: s.priority):
            running -= s.tokens
            marks.append(running)
        return sections, max(0, marks[pick % len(marks)] + shift)

    row = st.tuples(st.integers(1, 30), st.integers(1, 100), st.booleans())
    rows = st.lists(row, min_size=1, max_size=6, unique_by=lambda r: r[1])
    return st.builds(build, rows, st.integers(0, 9), st.integers(-1, 1))
