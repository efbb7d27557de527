"""cafe.report.figures: each figure has its title, labelled axes with units and the expected series;
the HTML page is one self-contained file; `import cafe.report.figures` does not import matplotlib."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import matplotlib
import pytest

from cafe.report.banked import banked_checkpoints
from cafe.report.figures import (
    RUNS_AXIS,
    attempts_figure,
    cost_figure,
    endings_figure,
    failures_figure,
    figure_svg,
    render_html,
    write_html,
)
from cafe.report.records import ENDINGS, Price, RunRecord
from cafe.report.summary import summarize

matplotlib.use("Agg")

PRICES = {"m": Price(2.0, 10.0, currency="EUR")}
RUNS = [
    RunRecord("a", "passed", 1, "m", 100, 10, seconds=1.0),
    RunRecord("b", "passed", 2, "m", 200, 20, seconds=2.0, failures={"missing_field": 1}),
    RunRecord(
        "c",
        "retries_exhausted",
        3,
        "m",
        300,
        30,
        seconds=3.0,
        failures={"sold_out": 3},
        trace="traces/run <c>.jsonl",
    ),
    RunRecord("d", "policy_violation", 0, "m", 0, 0, failures={"unsafe": 1}),
    RunRecord("e", "sent_back", 0, "m", 0, 0, failures={"unsafe": 1}),
]


def _bars(figure):
    (axes,) = figure.axes
    labels = [tick.get_text() for tick in axes.get_xticklabels()]
    return axes, dict(zip(labels, [patch.get_height() for patch in axes.patches]))


def _labels_apart(figure) -> bool:
    """The category names under the bars do not touch: at least one character's width between any two."""
    figure.draw_without_rendering()
    (axes,) = figure.axes
    boxes = [(label.get_window_extent(), len(label.get_text())) for label in axes.get_xticklabels()]
    return all(
        right.x0 - left.x1 >= left.width / size
        for (left, size), (right, _) in zip(boxes, boxes[1:])
    )


def test_endings_figure_has_a_bar_per_named_ending_and_labelled_axes():
    axes, bars = _bars(endings_figure(summarize(RUNS)))
    assert bars == {"passed": 2, "retries_exhausted": 1, "policy_violation": 1, "sent_back": 1}
    assert list(bars) == list(ENDINGS)
    assert axes.get_title() == "How the 5 orders ended"
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("ending", RUNS_AXIS)
    assert "(count)" in axes.get_ylabel()


def test_endings_and_cost_figures_keep_the_four_ending_names_apart():
    summary = summarize(RUNS, PRICES)
    assert _labels_apart(endings_figure(summary)) and _labels_apart(cost_figure(summary))


def test_attempts_figure_shows_the_distribution_with_a_bar_for_each_way_of_not_passing():
    axes, bars = _bars(attempts_figure(summarize(RUNS)))
    assert bars == {"1": 1, "2": 1, "3": 0, "exhausted": 1, "blocked": 1, "sent back": 1}
    assert axes.get_title() == "Attempts to pass" and axes.get_ylabel() == RUNS_AXIS
    assert _labels_apart(attempts_figure(summarize(RUNS)))


def test_cost_figure_splits_cost_by_ending_in_the_price_table_currency():
    summary = summarize(RUNS, PRICES)
    axes, bars = _bars(cost_figure(summary))
    assert bars == pytest.approx(dict(summary.cost_by_ending))
    assert axes.get_ylabel() == "cost (EUR)" and axes.get_title() == "Where the cost went"


def test_cost_figure_without_prices_says_there_is_nothing_to_draw():
    (axes,) = cost_figure(summarize(RUNS)).axes
    assert not axes.patches and "no price table" in axes.texts[0].get_text()


def test_failures_figure_has_a_bar_per_check_most_frequent_on_top():
    (axes,) = failures_figure(summarize(RUNS)).axes
    names = [tick.get_text() for tick in axes.get_yticklabels()]
    widths = [patch.get_width() for patch in axes.patches]
    assert dict(zip(names, widths)) == {"sold_out": 3, "unsafe": 2, "missing_field": 1}
    assert names[-1] == "sold_out"
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("failures (count)", "check")


def test_figure_svg_is_inline_svg_and_the_same_every_time():
    first, second = (figure_svg(endings_figure(summarize(RUNS))) for _ in range(2))
    assert first.startswith("<svg") and first == second
    assert "retries_exhausted" in first  # text stays text, so the page can be searched


def test_render_html_is_self_contained_escaped_and_links_traces(tmp_path):
    banked = banked_checkpoints(
        {
            "checkpoints": {
                "s07": {"a": {"value": 1, "model": "cafe-scripted"}},
                "s42": {"b": {"value": 2}},
            }
        }
    )
    traced = (
        RUNS[:2]
        + [replace(RUNS[2], trace=str(tmp_path / "out" / "traces" / "run <c>.jsonl"))]
        + RUNS[3:]
    )
    path = write_html(tmp_path / "out" / "report.html", summarize(traced, PRICES), banked)
    page = path.read_text(encoding="utf-8")
    assert page.count("<svg") == 4
    assert 'href="traces/run &lt;c&gt;.jsonl"' in page and "<c>" not in page  # relative to the page
    assert "src=" not in page and "<link" not in page and "<script" not in page  # nothing fetched
    assert "cafe-scripted" in page and "no session 42" in page


def test_render_html_without_a_folder_links_the_trace_as_recorded():
    assert 'href="traces/run &lt;c&gt;.jsonl"' in render_html(summarize(RUNS, PRICES))


def test_render_html_empty_shift_still_renders_with_its_note():
    page = render_html(summarize([]))
    assert "no runs" in page and page.count("<svg") == 4


def test_importing_the_figures_module_does_not_import_matplotlib():
    code = "import sys, cafe.report.figures, cafe.report.shift, cafe.report.banked; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
