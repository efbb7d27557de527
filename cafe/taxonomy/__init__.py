"""Session 10, error analysis: every run that did not pass, sorted into exactly one failure class.

Read the files in this order:

- `runs.py`: `Run`, one order of a shift and how it ended (a result, an endpoint failure, or
  sent back to the customer before any draft), also read back from a trace (`run_from_trace`);
- `classes.py`: the five failure classes, the test for each, and `classify` / `code`;
- `sorting.py`: a shift through front of house and the loop (`run_shift`), sorted and counted
  (`sort_runs`, `Taxonomy`), and the pile to fix first (`first_fix`).

The practice shift whose answer is known is on the stories shelf (`cafe/stories/practice_shift.py`).

Lesson: sessions/s10-failure-taxonomy/lesson.md. Notebook: notebooks/s10-failure-taxonomy.ipynb.
"""

from __future__ import annotations

from cafe.taxonomy.classes import (
    CLASS_TESTS,
    FAILURE_CLASSES,
    FailureClass,
    FailureKey,
    attempt_keys,
    changes,
    class_tests,
    classify,
    code,
    comes_back,
    failure_key,
    holds_throughout,
)
from cafe.taxonomy.runs import (
    Run,
    run_from_trace,
)
from cafe.taxonomy.sorting import (
    EXAMPLES_PER_CLASS,
    Runner,
    Taxonomy,
    first_fix,
    run_shift,
    sort_runs,
)

__all__ = [
    "CLASS_TESTS",
    "EXAMPLES_PER_CLASS",
    "FAILURE_CLASSES",
    "FailureClass",
    "FailureKey",
    "Run",
    "Runner",
    "Taxonomy",
    "attempt_keys",
    "changes",
    "class_tests",
    "classify",
    "code",
    "comes_back",
    "failure_key",
    "first_fix",
    "holds_throughout",
    "run_from_trace",
    "run_shift",
    "sort_runs",
]
