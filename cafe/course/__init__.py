"""The machinery that runs the course's notebooks (no harness code lives here).

- `cafe.course.toolkit`   predict, show_outcome, compare, checkpoint: the four notebook mechanics;
- `cafe.course.reveals`   the reveal switch: an answer or a function's source, read only when flipped;
- `cafe.course.progress`  the progress file you own: where it lives, atomic writes, damage set aside;
- `cafe.course.cells`     what the notebook cells share: the course key, headless text, widget display;
- `cafe.course.syllabus`  the session map, declared once: numbers, slugs, topics and modules.

Notebooks write `from cafe import course` and call `course.predict(...)`, `course.reveal(...)` and
so on: the toolkit's public names are re-exported here.
"""

from __future__ import annotations

from cafe.course.toolkit import (
    COMPARE_STATUSES,
    HEADLESS_VARIABLE,
    HOME_VARIABLE,
    PROGRESS_FILE,
    CompareResult,
    CompareStatus,
    Prediction,
    Reveal,
    answers_path,
    checkpoint,
    compare,
    headless,
    load_progress,
    predict,
    progress_path,
    reveal,
    reveal_now,
    save_progress,
    show_outcome,
)

__all__ = [
    "HOME_VARIABLE",
    "HEADLESS_VARIABLE",
    "PROGRESS_FILE",
    "COMPARE_STATUSES",
    "CompareStatus",
    "CompareResult",
    "Prediction",
    "Reveal",
    "headless",
    "progress_path",
    "load_progress",
    "save_progress",
    "answers_path",
    "predict",
    "show_outcome",
    "reveal",
    "reveal_now",
    "compare",
    "checkpoint",
]
