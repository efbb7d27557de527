"""Seconds to report a shift: `summarize`, `render_text` and the HTML page, as the shift grows.

    python benchmarks/report_speed.py                  # 1,000 to 100,000 runs
    python benchmarks/report_speed.py --runs 10000     # one size

The runs are made up by `cafe.report.shift.synthetic_runs` (a fixed seed, so every machine measures the
same shift). For each size it prints the best of three timings of `summarize` (with a price
table), of `render_text`, and, up to 10,000 runs, of `render_html` (the four figures drawn with
matplotlib cost the same whatever the size; the top-run tables stay short). The issue's target: a
shift of 10,000 runs reports in under 2 s. The growth column divides each summarize time by the
one before it; with ten times the runs each step, about 10 is linear.
`tests/test_shift.py` checks the same ratio.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from cafe.report.figures import render_html
from cafe.report.shift import PRACTICE_PRICES, synthetic_runs
from cafe.report.summary import render_text, summarize

# The target for a 10,000-run shift, end to end (summary, text and the HTML page).
TARGET_SECONDS = 2.0
SIZES = (1_000, 10_000, 100_000)


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, help="measure one shift size only")
    sizes = (parser.parse_args().runs,) if parser.parse_args().runs else SIZES
    print(f"{'runs':>8} {'summarize s':>12} {'text s':>8} {'html s':>8} {'growth':>7}")
    previous = None
    for size in sizes:
        runs = synthetic_runs(size)
        summary = summarize(runs, PRACTICE_PRICES)
        took = best_of(lambda runs=runs: summarize(runs, PRACTICE_PRICES))
        text = best_of(lambda summary=summary: render_text(summary))
        page = (
            f"{best_of(lambda summary=summary: render_html(summary), repeat=1):>8.3f}"
            if size <= 10_000
            else f"{'-':>8}"
        )
        growth = f"{took / previous:>7.1f}" if previous else f"{'':>7}"
        print(f"{size:>8,} {took:>12.4f} {text:>8.4f} {page} {growth}")
        previous = took
    print(f"target: a 10,000-run shift reports (summary, text, HTML) in under {TARGET_SECONDS} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
