"""The shift report drawn: matplotlib figures for the notebook, and one HTML page to open or send.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
`cafe.report` computes a `ShiftSummary`; this module shows it. It adds:

- four figures, each with a title and labelled axes with their units: `endings_figure`,
  `attempts_figure`, `cost_figure`, `failures_figure` (and `shift_figures` for all four);
- `figure_svg`: a figure as inline SVG text, the same every run for the same figure;
- `render_html` / `write_html`: a self-contained page (tables, the four figures inline, the
  slowest and costliest runs linked to their traces, the banked checkpoints) with no file beside it.

matplotlib is imported inside the functions that draw, so `import cafe` stays light. The figures
are `matplotlib.figure.Figure` objects made without pyplot: no global figure list, no backend to
choose, nothing left open between calls.

What it leaves out: interactive dashboards, and plotting over time across shifts (collect the
summaries, then plot them the same way).
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from cafe.endpoint.secrets.redaction import redact
from cafe.report.banked import BankedView
from cafe.report.records import ENDINGS, RunRecord
from cafe.report.summary import ShiftSummary
from cafe.report.text import render_text

__all__ = [
    "RUNS_AXIS",
    "endings_figure",
    "attempts_figure",
    "cost_figure",
    "failures_figure",
    "shift_figures",
    "figure_svg",
    "render_html",
    "write_html",
]

# The y-axis of every count: what is counted, and its unit.
RUNS_AXIS = "runs (count)"
# Each figure's size in inches: narrow enough for a notebook column and a laptop's HTML page.
_SIZE = (6.0, 3.2)
# A fixed salt for the ids inside each SVG, so the same figure draws the same text every time.
_SVG_SALT = "cafe-shift-report"
# The size of the category names under the bars: at matplotlib's default size, the four endings
# ("retries_exhausted", "policy_violation", ...) run into each other in a figure this wide.
_CATEGORY_FONT = "small"


def _figure(title: str, xlabel: str, ylabel: str, left: float = 0.12) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=_SIZE)
    # Fixed margins, wide enough for the longest label: a layout engine would find them for us,
    # at twice the drawing time, and the page draws four figures.
    figure.subplots_adjust(left=left, right=0.97, bottom=0.17, top=0.9)
    axes = figure.add_subplot()
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure, axes


def _bars(axes: Any, labels: list[str], values: list[float], label: str, fmt: str = "%g") -> None:
    bars = axes.bar(labels, values, label=label, color="#4c72b0")
    axes.tick_params(axis="x", labelsize=_CATEGORY_FONT)
    axes.bar_label(bars, fmt=fmt)
    axes.margins(y=0.15)


def endings_figure(summary: ShiftSummary) -> Any:
    """Orders per ending: one bar for each of `ENDINGS`, empty ones included."""
    figure, axes = _figure(f"How the {summary.runs} orders ended", "ending", RUNS_AXIS)
    _bars(axes, list(summary.endings), [float(n) for n in summary.endings.values()], "runs")
    return figure


def attempts_figure(summary: ShiftSummary) -> Any:
    """Runs by the attempt that passed, then a bar for each way of not passing: the cap ran out
    ("exhausted"), refused ("blocked"), sent back to the customer before any draft ("sent back")."""
    figure, axes = _figure(
        "Attempts to pass", "attempt that passed, or how the run ended", RUNS_AXIS
    )
    _bars(
        axes,
        list(summary.attempts_to_pass),
        [float(n) for n in summary.attempts_to_pass.values()],
        "runs",
    )
    return figure


def cost_figure(summary: ShiftSummary) -> Any:
    """What the shift's priced runs cost, split by how they ended. Says so when nothing is priced."""
    currency = summary.currency or "no currency"
    figure, axes = _figure("Where the cost went", "ending", f"cost ({currency})")
    if summary.cost is None:
        axes.text(
            0.5,
            0.5,
            "no price table given: no cost to draw",
            ha="center",
            va="center",
            transform=axes.transAxes,
        )
        return figure
    _bars(axes, list(ENDINGS), [summary.cost_by_ending[e] for e in ENDINGS], "cost", "%.4f")
    return figure


def failures_figure(summary: ShiftSummary) -> Any:
    """Failed checks by name, most frequent at the top."""
    figure, axes = _figure("Failed checks", "failures (count)", "check", left=0.27)
    if not summary.failures_by_check:
        axes.text(0.5, 0.5, "no check failed", ha="center", va="center", transform=axes.transAxes)
        return figure
    names = list(summary.failures_by_check)[::-1]
    bars = axes.barh(
        names, [summary.failures_by_check[n] for n in names], label="failures", color="#dd8452"
    )
    axes.bar_label(bars, fmt="%g")
    axes.margins(x=0.15)
    return figure


def shift_figures(summary: ShiftSummary) -> dict[str, Any]:
    """All four figures, by name."""
    return {
        "endings": endings_figure(summary),
        "attempts to pass": attempts_figure(summary),
        "cost": cost_figure(summary),
        "failed checks": failures_figure(summary),
    }


def figure_svg(figure: Any) -> str:
    """The figure as an `<svg>` element to inline in HTML (no XML header, no date stamp)."""
    import io

    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": _SVG_SALT, "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


# --- the HTML page --------------------------------------------------------------------------

# The page's only styling, inline so the file needs nothing beside it: a readable column, ruled tables.
_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}"
    "table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .6rem;"
    "text-align:left}td.n{text-align:right}figure{margin:1rem 0}pre{background:#f6f6f6;padding:.6rem}"
    # a phone: figures shrink to the column, long lines wrap, a wide table scrolls in its own box
    "figure svg{width:100%;height:auto;max-width:576px}pre{white-space:pre-wrap;overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto}td a{overflow-wrap:anywhere}"
)


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>'


def _trace_link(run: RunRecord, base: Path | None) -> str:
    """A link to the run's trace file: relative to the page's folder when both are known."""
    if not run.trace:
        return "no trace recorded"
    target = Path(run.trace)
    if base is not None:
        try:
            target = Path(os.path.relpath(target.resolve(), base.resolve()))
        except ValueError:  # another drive on Windows: keep the path as given
            pass
    href, shown = redact(target.as_posix()), redact(run.trace)  # a folder named with the key
    return f'<a href="{html.escape(href, quote=True)}">{html.escape(shown)}</a>'


def _runs_table(rows: list[tuple[RunRecord, str]], what: str, base: Path | None) -> str:
    return _table(
        ["run", what, "ended", "attempts", "trace"],
        [
            [
                html.escape(run.run_id),
                html.escape(value),
                html.escape(run.ending),
                str(run.attempts),
                _trace_link(run, base),
            ]
            for run, value in rows
        ],
    )


def _banked_section(banked: BankedView | None) -> str:
    if banked is None:
        return ""
    rows = [
        [
            html.escape(c.session),
            html.escape(c.name),
            html.escape(c.model or "not given"),
            f"<code>{html.escape(c.value_text())}</code>",
            html.escape(c.saved_at or ""),
        ]
        for c in banked.checkpoints
    ]
    table = (
        _table(["session", "checkpoint", "model", "value", "saved"], rows)
        if rows
        else "<p>No checkpoints banked yet.</p>"
    )
    problems = "".join(f"<li>{html.escape(p)}</li>" for p in banked.problems)
    return f"<h2>Banked checkpoints</h2>{table}" + (
        f"<p>Not shown:</p><ul>{problems}</ul>" if problems else ""
    )


def render_html(
    summary: ShiftSummary,
    banked: BankedView | None = None,
    *,
    title: str = "Shift report",
    base: str | Path | None = None,
) -> str:
    """The whole report as one HTML page: text summary, tables, figures inline as SVG, checkpoints.

    `base` is the folder the page will be saved in; trace links are then written relative to it.
    """
    folder = None if base is None else Path(base)
    counts = _table(
        ["ending", "orders"],
        [[html.escape(e), str(n)] for e, n in summary.endings.items()]
        + [["<b>total</b>", f"<b>{sum(summary.endings.values())}</b>"]],
    )
    figures = "".join(
        f"<figure>{figure_svg(figure)}</figure>" for figure in shift_figures(summary).values()
    )
    slowest = _runs_table(
        [(run, f"{run.seconds:.2f} s") for run in summary.slowest], "time", folder
    )
    money = summary.currency or ""
    costliest = _runs_table(
        [(run, f"{cost:.4f} {money}") for run, cost in summary.costliest], "cost", folder
    )
    notes = "".join(f"<li>{html.escape(redact(note))}</li>" for note in summary.notes)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
        f"<pre>{html.escape(render_text(summary))}</pre>"
        + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
        + f"<h2>How the orders ended</h2>{counts}<h2>Figures</h2>{figures}"
        + (f"<h2>Slowest runs</h2>{slowest}" if summary.slowest else "")
        + (f"<h2>Costliest runs</h2>{costliest}" if summary.costliest else "")
        + _banked_section(banked)
        + "</body></html>\n"
    )


def write_html(
    path: str | Path,
    summary: ShiftSummary,
    banked: BankedView | None = None,
    *,
    title: str = "Shift report",
) -> Path:
    """Write `render_html(...)` to `path` (folders made as needed) and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        render_html(summary, banked, title=title, base=target.parent), encoding="utf-8"
    )
    return target
