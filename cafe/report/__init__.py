"""Session 09, the shift report: many runs in, one account of how they ended and what they cost.

Read the files in this order:

- `summary.py`: `RunRecord`, counting stop reasons and cost (`summarize`, `render_text`);
- `shift.py`: a shift, many orders through the repair loop, each kept as a record;
- `traces.py`: the same records read back from trace files;
- `banked.py`: every number the learner banked, across sessions;
- `figures.py`: the report drawn, for the notebook and as one HTML page.

Lesson: sessions/s09-shift-report/lesson.md. Notebook: notebooks/s09-shift-report.ipynb.
"""

from __future__ import annotations

from cafe.report.banked import (
    VALUE_CHARS,
    BankedCheckpoint,
    BankedView,
    banked_checkpoints,
    render_banked_text,
)
from cafe.report.figures import (
    RUNS_AXIS,
    attempts_figure,
    cost_figure,
    failures_figure,
    figure_svg,
    render_html,
    shift_figures,
    stop_reason_figure,
    write_html,
)
from cafe.report.shift import (
    PRACTICE_PRICES,
    SHIFT_ORDERS,
    run_shift,
    scripted_drafter,
    synthetic_runs,
    ticking,
)
from cafe.report.summary import (
    PER_TOKENS,
    STOP_ORDER,
    TOP_DEFAULT,
    Price,
    RunRecord,
    ShiftSummary,
    cost_by_stop_reason,
    count_stop_reasons,
    record_from_result,
    render_text,
    run_cost,
    summarize,
)
from cafe.report.traces import (
    NO_MODEL,
    read_shift,
    record_from_trace,
)

__all__ = [
    "BankedCheckpoint",
    "BankedView",
    "NO_MODEL",
    "PER_TOKENS",
    "PRACTICE_PRICES",
    "Price",
    "RUNS_AXIS",
    "RunRecord",
    "SHIFT_ORDERS",
    "STOP_ORDER",
    "ShiftSummary",
    "TOP_DEFAULT",
    "VALUE_CHARS",
    "attempts_figure",
    "banked_checkpoints",
    "cost_by_stop_reason",
    "cost_figure",
    "count_stop_reasons",
    "failures_figure",
    "figure_svg",
    "read_shift",
    "record_from_result",
    "record_from_trace",
    "render_banked_text",
    "render_html",
    "render_text",
    "run_cost",
    "run_shift",
    "scripted_drafter",
    "shift_figures",
    "stop_reason_figure",
    "summarize",
    "synthetic_runs",
    "ticking",
    "write_html",
]
