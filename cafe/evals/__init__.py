"""Session 02, evals you can trust: checks proven by fixtures, and pass rates with their uncertainty.

Read the files in this order:

- `checks.py`: a `Check` with a fixture it passes and one it fails, `fixture_problems`, the Wilson
  interval behind every rate (`wilson_interval`), and scoring observations into an `EvalReport`;
- `ticket_checks.py`: the café's five checks in that form (`session_checks`);
- `run.py`: the labelled orders (`load_cases`) and session 01's loop run over each (`run_order`,
  `run_eval`);
- `compare.py`: two rates compared: the difference with its interval, and one of three verdicts;
- `experiment.py`: `cafe experiment NN`, a notebook's comparison run on many orders with seeds,
  resumable, with intervals; `experiment_program.py` starts it, and `experiment_arms.py` holds
  this session's live arms (each later session's package holds its own).

The scripted waiter that plays the model in these stories is on the stories shelf
(`cafe/stories/waiter.py`).

Lesson: sessions/s02-evals/lesson.md. Notebook: notebooks/s02-evals.ipynb.
"""

from __future__ import annotations

from cafe.evals.checks import (
    Z_95,
    Case,
    Check,
    EvalReport,
    Line,
    Observation,
    Rate,
    findings_check,
    fixture_problems,
    merge_lines,
    registry,
    score_observations,
    uncovered,
    wilson_interval,
)
from cafe.evals.run import (
    EVAL_MAX_TURNS,
    ORDERS_PATH,
    WAITER_PROMPT,
    load_cases,
    run_eval,
    run_order,
)
from cafe.evals.ticket_checks import (
    first_try_no_sold_out,
    labelled_observations,
    session_checks,
)

__all__ = [
    "Case",
    "Check",
    "EVAL_MAX_TURNS",
    "EvalReport",
    "Line",
    "ORDERS_PATH",
    "Observation",
    "Rate",
    "WAITER_PROMPT",
    "Z_95",
    "findings_check",
    "first_try_no_sold_out",
    "fixture_problems",
    "labelled_observations",
    "load_cases",
    "merge_lines",
    "registry",
    "run_eval",
    "run_order",
    "score_observations",
    "session_checks",
    "uncovered",
    "wilson_interval",
]
