"""Session 14's host reading, judged by the properties the lesson states on generated turns.

A host reading has no single right answer (a count, a share, a score all work), so
`check_reading` (`cafe.exercises.s14`) holds the learner's `my_reading` to what the governor
relies on, on turns drawn here: a turn that verified nothing reads None, whatever it read or
wrote; a turn whose tests ran reads a number; and of two turns alike but for how many of the same
suite passed, the greener reads strictly higher. The turns vary what the cases hold still: reads
and edits before the run, suites of 1 to 12 tests, pytest's session header and failure lines
before its summary, warnings in the summary.

A turn is described here as plain data (`Turn`); `cafe.exercises.s14` builds the `TurnView`
from it. This module imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Turn", "pytest_output", "quiet_turns", "greener_pairs"]

# What a turn may do before its test run (no verification): read a file, write one.
_QUIET = ("read", "edit")


@dataclass(frozen=True)
class Turn:
    """A turn: the quiet calls before the run, then (unless `total` is 0) one run of the suite
    with `passed` of `total` tests passing."""

    before: tuple[str, ...]
    total: int = 0
    passed: int = 0
    header: bool = False
    warnings: int = 0

    def __str__(self) -> str:
        done = ", ".join(self.before) or "nothing"
        if not self.total:
            return f"a turn that did {done} and ran no tests"
        extra = (", its header printed" if self.header else "") + (
            f", {self.warnings} warnings" if self.warnings else ""
        )
        return f"a turn: {done}, then tests with {self.passed} of {self.total} passing{extra}"


def pytest_output(turn: Turn) -> str:
    """What pytest prints for the turn's run: header and failure lines, then the summary."""
    failed = turn.total - turn.passed
    lines = []
    if turn.header:
        lines += [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0",
            f"collected {turn.total} items",
            "",
            "check_bill.py " + "." * turn.passed + "F" * failed + " [100%]",
        ]
    lines += [f"FAILED check_bill.py::test_split_{n} - assert 999 == 1000" for n in range(failed)]
    counts = [f"{failed} failed"] if failed else []
    counts += [f"{turn.passed} passed"] if turn.passed else []
    counts += [f"{turn.warnings} warnings"] if turn.warnings else []
    summary = ", ".join(counts) + " in 0.02s"
    lines.append(f"=== {summary} ===" if turn.header else summary)
    return "\n".join(lines)


def _before() -> Any:
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(_QUIET), max_size=3).map(tuple)


def quiet_turns() -> Any:
    """Turns of one to four reads and edits and no test run."""
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(_QUIET), min_size=1, max_size=4).map(lambda b: Turn(tuple(b)))


def _pair(before: tuple[str, ...], total: int, low: int, gap: int, header: bool, warn: int) -> Any:
    low = low % total  # 0 to total - 1 passing...
    high = low + 1 + gap % (total - low)  # ...then more, up to all of them
    return (Turn(before, total, low, header, warn), Turn(before, total, high, header, warn))


def greener_pairs() -> Any:
    """(turn, greener turn): the same calls and suite, more of it passing in the second."""
    from hypothesis import strategies as st

    return st.builds(
        _pair,
        _before(),
        st.integers(1, 12),
        st.integers(0, 12),
        st.integers(0, 12),
        st.booleans(),
        st.sampled_from((0, 0, 2)),
    )
