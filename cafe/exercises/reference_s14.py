"""Session 14's host reading, judged by the properties the lesson states on generated turns.

A host reading has no single right answer (a count, a share, a score all work), so
`check_reading` (`cafe.exercises.s14`) holds the learner's `my_reading` to what the governor
relies on, on turns drawn here: a turn that verified nothing reads None, whatever it read or
wrote; a turn whose tests ran reads a number; and of two turns alike but for how many of the same
suite passed, the greener reads strictly higher. The turns vary what the cases hold still: reads
and edits before the run, suites of 1 to 12 tests, pytest's session header and failure lines
before its summary, warnings in the summary, the suite run more than once in a turn (each earlier
run passing no more than the last: the lesson's reading is "the best verify-state it has", so
never a sum of runs), and the last run one a hook ran itself (`forced`: it verified all the same).

Turns whose later run is redder than an earlier one (`falling_turns`) are never compared: which
run speaks then is the learner's call. The lesson's own host reports "the best verify-state it
has" (`passing_tests` reads the best run), a held-out reader read the last run (the till the turn
leaves), and the notebook asks only for "a number that rises as the till gets greener", which
holds for both (decided 7 Dec 2026, evening: docs/notes/checker-mutation.md). Such a turn still
verified something, so it reads a number, never None.

A turn is described here as plain data (`Turn`); `cafe.exercises.s14` builds the `TurnView`
from it. This module imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Turn", "pytest_output", "quiet_turns", "greener_pairs", "falling_turns"]

# What a turn may do before its test run (no verification): read a file, write one.
_QUIET = ("read", "edit")


@dataclass(frozen=True)
class Turn:
    """A turn: the quiet calls before the run, then (unless `total` is 0) runs of the suite: one
    for each of `earlier` (how many passed), then the last with `passed` of `total` passing, run
    by a hook itself when `forced`."""

    before: tuple[str, ...]
    total: int = 0
    passed: int = 0
    header: bool = False
    warnings: int = 0
    earlier: tuple[int, ...] = ()
    forced: bool = False

    def __str__(self) -> str:
        done = ", ".join(self.before) or "nothing"
        if not self.total:
            return f"a turn that did {done} and ran no tests"
        extra = (", its header printed" if self.header else "") + (
            f", {self.warnings} warnings" if self.warnings else ""
        )
        runs = "".join(f"tests with {n} of {self.total} passing, then " for n in self.earlier)
        last = f"{'a forced run' if self.forced else 'tests'} with {self.passed} of {self.total}"
        return f"a turn: {done}, then {runs}{last} passing{extra}"


def pytest_output(turn: Turn, passed: int | None = None) -> str:
    """What pytest prints for one of the turn's runs (the last, unless `passed` says how many
    passed in an earlier one): header and failure lines, then the summary."""
    passed = turn.passed if passed is None else passed
    failed = turn.total - passed
    lines = []
    if turn.header:
        lines += [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0",
            f"collected {turn.total} items",
            "",
            "check_bill.py " + "." * passed + "F" * failed + " [100%]",
        ]
    lines += [f"FAILED check_bill.py::test_split_{n} - assert 999 == 1000" for n in range(failed)]
    counts = [f"{failed} failed"] if failed else []
    counts += [f"{passed} passed"] if passed else []
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


def _pair(
    before: tuple[str, ...],
    total: int,
    low: int,
    gap: int,
    header: bool,
    warn: int,
    runs: tuple[tuple[int, ...], tuple[int, ...]],
    forced: tuple[bool, bool],
) -> Any:
    low = low % total  # 0 to total - 1 passing...
    high = low + 1 + gap % (total - low)  # ...then more, up to all of them
    # earlier runs of the same suite pass no more than the turn's last: its best run is its last
    earlier = (tuple(n % (low + 1) for n in runs[0]), tuple(n % (high + 1) for n in runs[1]))
    return (
        Turn(before, total, low, header, warn, earlier[0], forced[0]),
        Turn(before, total, high, header, warn, earlier[1], forced[1]),
    )


def greener_pairs() -> Any:
    """(turn, greener turn): the same calls and suite, more of it passing in the second."""
    from hypothesis import strategies as st

    runs = st.lists(st.integers(0, 12), max_size=2).map(tuple)
    return st.builds(
        _pair,
        _before(),
        st.integers(1, 12),
        st.integers(0, 12),
        st.integers(0, 12),
        st.booleans(),
        st.sampled_from((0, 0, 2)),
        st.tuples(runs, runs),
        st.tuples(st.booleans(), st.booleans()),
    )


def falling_turns() -> Any:
    """Turns whose suite ran two or three times, an earlier run passing more than the last (a
    later edit made the till redder): any reading that is a number holds here."""
    from hypothesis import strategies as st

    @st.composite
    def falling(draw: Any) -> Turn:
        total = draw(st.integers(1, 12))
        last = draw(st.integers(0, total - 1))
        earlier = draw(st.lists(st.integers(0, total), max_size=1))
        at = draw(st.integers(0, len(earlier)))
        earlier.insert(at, draw(st.integers(last + 1, total)))  # the greener run, before the last
        return Turn(
            draw(_before()),
            total,
            last,
            draw(st.booleans()),
            draw(st.sampled_from((0, 0, 2))),
            tuple(earlier),
            draw(st.booleans()),
        )

    return falling()
