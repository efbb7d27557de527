"""Where a prediction's answer must not appear before the learner has made it.

`find_spoilers(outcomes, lesson, notebook)` lists every place that gives away an outcome: the
lesson before its Build section (the hook, the promise, the theory), the notebook's markdown above
the cell that asks for the prediction, and any heading, lesson or notebook. `outcomes` maps a
prediction key to the outcome the notebook's run produced (as `show_outcome` saved it).

Only outcomes long enough to be telling are checked: more than one word, or over 8 characters
("3" or "yes" appear in every text by chance; "retries_exhausted" does not).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

BUILD_HEADING = "## Build"
TELLING_CHARS = 8


@dataclass(frozen=True)
class Cell:
    kind: str  # "markdown" or "code"
    text: str


def notebook_cells(source: str) -> list[Cell]:
    """The cells of a jupytext percent-format notebook source, in order (markdown comments unwrapped)."""
    cells: list[Cell] = []
    for chunk in re.split(r"^# %%", source, flags=re.M)[1:]:
        header, _, body = chunk.partition("\n")
        if "[markdown]" in header:
            body = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#")
                for line in body.splitlines()
            )
            cells.append(Cell("markdown", body))
        else:
            cells.append(Cell("code", body))
    return cells


def shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def telling(outcome: str) -> bool:
    return len(outcome.split()) > 1 or len(outcome) > TELLING_CHARS


def _squash(text: str) -> str:
    """Case and spacing folded, markdown emphasis and code marks dropped: how a reader sees text."""
    return " ".join(re.sub(r"[`*_]", "", text).casefold().split())


def _contains(text: str, outcome: str) -> bool:
    needle = _squash(outcome.replace("_", ""))
    return needle in _squash(text.replace("_", ""))


def _headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"#{1,6} ", line)]


def find_spoilers(outcomes: dict[str, Any], lesson: str, notebook: str) -> list[str]:
    """Each place an outcome appears before its prediction is asked for, as a readable line."""
    before_build = lesson.split(BUILD_HEADING, 1)[0]
    cells = notebook_cells(notebook)
    headings = _headings(lesson) + [
        h for cell in cells if cell.kind == "markdown" for h in _headings(cell.text)
    ]
    found = []
    for key, value in sorted(outcomes.items()):
        outcome = shown(value)
        if not telling(outcome):
            continue
        asked = next(
            (
                i
                for i, cell in enumerate(cells)
                if cell.kind == "code"
                and re.search(rf"predict\(\s*\"{re.escape(key)}\"", cell.text)
            ),
            None,
        )
        if asked is None:
            found.append(f"{key}: no cell asks for this prediction (its outcome is {outcome!r})")
            continue
        if _contains(before_build, outcome):
            found.append(
                f"{key}: the lesson states the outcome {outcome!r} before its Build section"
            )
        above = "\n".join(cell.text for cell in cells[:asked] if cell.kind == "markdown")
        if _contains(above, outcome):
            found.append(
                f"{key}: the notebook's text above the prediction states the outcome {outcome!r}"
            )
        for heading in headings:
            if _contains(heading, outcome):
                found.append(
                    f"{key}: the heading {heading.strip()!r} states the outcome {outcome!r}"
                )
    return found
