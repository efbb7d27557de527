"""Session 09, the shift report: many orders in, one account of how they ended and what they cost.

Read the files in this order:

- `records.py`: `RunRecord`, one order as the report counts it, and its closed set of endings
  (`ENDINGS`: the loop's three stop reasons, then front of house's `sent_back`);
- `summary.py`: counting endings and cost, checked to add up (`summarize`);
- `text.py`: the summary as plain text (`render_text`);
- `shift.py`: a shift, many orders past front of house and through the repair loop, each kept as
  a record;
- `traces.py`: the same records read back from trace files;
- `banked.py`: every number the learner banked, across sessions;
- `figures.py`: the report drawn, for the notebook and as one HTML page.
- `listening.py`: when a live shift stops asking an endpoint that has gone quiet (`Listener`).

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
    endings_figure,
    failures_figure,
    figure_svg,
    render_html,
    shift_figures,
    write_html,
)
from cafe.report.records import (
    ENDINGS,
    SENT_BACK,
    STOP_ORDER,
    Ending,
    Price,
    RunRecord,
    record_from_result,
    record_from_sent_back,
)
from cafe.report.shift import (
    PRACTICE_PRICES,
    SHIFT_ORDERS,
    NotReached,
    run_shift,
    scripted_drafter,
    synthetic_runs,
    ticking,
)
from cafe.report.summary import (
    PER_TOKENS,
    TOP_DEFAULT,
    ShiftSummary,
    cost_by_ending,
    count_endings,
    run_cost,
    summarize,
)
from cafe.report.text import (
    render_text,
)
from cafe.report.traces import (
    NO_MODEL,
    read_shift,
    record_from_trace,
)

__all__ = [
    "BankedCheckpoint",
    "BankedView",
    "ENDINGS",
    "Ending",
    "NO_MODEL",
    "NotReached",
    "PER_TOKENS",
    "PRACTICE_PRICES",
    "Price",
    "RUNS_AXIS",
    "RunRecord",
    "SENT_BACK",
    "SHIFT_ORDERS",
    "STOP_ORDER",
    "ShiftSummary",
    "TOP_DEFAULT",
    "VALUE_CHARS",
    "attempts_figure",
    "banked_checkpoints",
    "cost_by_ending",
    "cost_figure",
    "count_endings",
    "endings_figure",
    "failures_figure",
    "figure_svg",
    "read_shift",
    "record_from_result",
    "record_from_sent_back",
    "record_from_trace",
    "render_banked_text",
    "render_html",
    "render_text",
    "run_cost",
    "run_shift",
    "scripted_drafter",
    "shift_figures",
    "summarize",
    "synthetic_runs",
    "ticking",
    "write_html",
]
