"""Counting the work a call does, so that a growth test compares counts, never clocks.

A test of "linear, not quadratic" used to time a function at two sizes and compare the times. On a
loaded two-core machine the ratio moved from 4x to 29x for the same linear code: a timer measures
the machine as much as the work. `steps(call)` counts instead: the Python bytecode instructions
the call runs (`sys.settrace` with opcode events) plus each call it makes into C (`sys.setprofile`
sees those). The count is the same on an idle and a busy machine, run after run. The garbage
collector is held off during the count: a collection that happens to fall inside the call runs
other objects' finalizers in this thread, and once added enough steps to a regex scan of about
thirty steps to read as 5x growth in a full run (test_shapes, 6 Dec 2026). The call's own objects
are still freed as it drops them; only cycles wait for the collector.

What it cannot see: the work inside one C call. A regular expression that backtracks over the
whole text costs one C call however long it runs. Those patterns are timed by
`benchmarks/detect_speed.py`, which prints each scanner's growth and exits 1 over the limit; run it
when a scanner changes (docs/AUTHORING.md).

`grows_linearly(make, size)` is the test's question: the steps at 4x the size are at most
`GROWTH_LIMIT` times the steps at the size. Linear work gives about 4, quadratic 16.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["GROWTH_LIMIT", "steps", "growth", "grows_linearly", "on_text"]

# Linear work is 4x at 4x the size; a fixed start-up cost makes the small size look dearer, so
# linear code measures a little under 4. 5 leaves room for a term such as n log n at these sizes
# (4.4x from 1,000 to 4,000) and stays far under quadratic work's 16x. Counts do not jitter, so
# no room for noise is needed.
GROWTH_LIMIT = 5.0


def steps(call: Callable[[], Any]) -> int:
    """Bytecode instructions plus calls into C that `call()` runs, in this thread."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            count += 1
        return trace

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "c_call":
            count += 1

    collecting = gc.isenabled()
    gc.disable()
    old_trace, old_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(trace)
    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(old_profile)
        sys.settrace(old_trace)
        if collecting:
            gc.enable()
    return count


def growth(make: Callable[[int], Callable[[], Any]], size: int, factor: int = 4) -> float:
    """Steps of `make(size * factor)()` over steps of `make(size)()`.

    `make(n)` builds the input of size `n` and returns the call to count, so building the input is
    not counted. One uncounted call on a quarter of the size comes first: a first call may import a
    module or fill a cache once, and that is not growth. Each size is then counted on its first
    call, so a cache keyed on the input cannot answer it.
    """
    make(max(1, size // 4))()
    small, large = steps(make(size)), steps(make(size * factor))
    return large / max(small, 1)


def grows_linearly(make: Callable[[int], Callable[[], Any]], size: int) -> bool:
    """Whether the work at 4x `size` is at most `GROWTH_LIMIT` times the work at `size`."""
    return growth(make, size) <= GROWTH_LIMIT


def on_text(
    run: Callable[[str], Any], texts: Callable[[int], dict[str, str]], name: str
) -> Callable[[int], Callable[[], Any]]:
    """A `make` for `growth`: `run` on the text called `name` among `texts(n)`, built uncounted."""

    def make(n: int) -> Callable[[], Any]:
        text = texts(n)[name]
        return lambda: run(text)

    return make
