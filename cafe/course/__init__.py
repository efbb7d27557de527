"""The machinery that runs the course's notebooks (no harness code lives here).

- `cafe.course.predictions`  predict first, then show the outcome beside the prediction;
- `cafe.course.reveals`      the reveal switch: an answer or a function's source, read only when flipped;
- `cafe.course.toolkit`      compare a your-turn function with its check; bank a checkpoint;
- `cafe.course.live`         live cells: an endpoint problem is one line, and the notebook goes on;
- `cafe.course.progress`     the progress file you own: where it lives, atomic writes, damage set aside;
- `cafe.course.strict`       strict mode for instructors: `CAFE_STRICT=1` fails a cell whose exercise failed;
- `cafe.course.grading`      for instructors: `cafe grade` and the learner's hand-in (a package; not re-exported);
- `cafe.course.cells`        what every cell shares: the course key, headless text, scrubbed printing;
- `cafe.course.syllabus`     the session map, declared once: numbers, slugs, topics and modules.

Notebooks write `from cafe import course` and call `course.predict(...)`, `course.reveal(...)` and
so on: each module's public names for notebooks are re-exported here.

Importing this inside a Jupyter kernel does one more thing, on purpose: it guards the kernel's
sinks (what a cell prints, the value it shows, a traceback) so that no secret reaches a cell's
output or the saved notebook (`cafe.endpoint.secrets.notebook.guard_kernel`). It runs at import
because a notebook imports `cafe.course` in its first code cell, and the guard must be up before
the first live cell prints what an endpoint sent back. Outside a kernel it does nothing.
"""

from __future__ import annotations

from cafe.course.cells import HEADLESS_VARIABLE, Counted, headless, print_table
from cafe.course.live import LiveBatch, LiveStory, each_live, live_story
from cafe.course.predictions import Prediction, predict, show_outcome
from cafe.course.progress import (
    HOME_VARIABLE,
    PROGRESS_FILE,
    load_progress,
    progress_path,
    save_progress,
)
from cafe.course.reveals import Reveal, answers_path, reveal, reveal_now
from cafe.course.strict import STRICT_VARIABLE, StrictModeError, is_strict
from cafe.course.toolkit import (
    COMPARE_STATUSES,
    SOURCES,
    CompareResult,
    CompareStatus,
    Source,
    checkpoint,
    compare,
)
from cafe.endpoint.secrets.notebook import guard_kernel

__all__ = [
    # cafe.course.cells
    "HEADLESS_VARIABLE",
    "headless",
    "print_table",
    "Counted",
    # cafe.course.live
    "LiveStory",
    "LiveBatch",
    "live_story",
    "each_live",
    # cafe.course.predictions
    "Prediction",
    "predict",
    "show_outcome",
    # cafe.course.progress
    "HOME_VARIABLE",
    "PROGRESS_FILE",
    "progress_path",
    "load_progress",
    "save_progress",
    # cafe.course.reveals
    "Reveal",
    "answers_path",
    "reveal",
    "reveal_now",
    # cafe.course.strict
    "STRICT_VARIABLE",
    "StrictModeError",
    "is_strict",
    # cafe.course.toolkit
    "COMPARE_STATUSES",
    "CompareStatus",
    "CompareResult",
    "compare",
    "checkpoint",
    "Source",
    "SOURCES",
]

# Scrub a notebook kernel's output before the first live cell runs (see the module docstring).
guard_kernel()
