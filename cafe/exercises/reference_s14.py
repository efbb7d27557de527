"""Session 14's host reading, judged by the properties the lesson states on generated turns.

A host reading has no single right answer (a count, a share, a score all work), so
`check_reading` (`cafe.exercises.s14`) holds the learner's `my_reading` to what the governor
relies on, on turns drawn here: a turn that verified nothing reads None, whatever it read or
wrote; a turn whose tests ran reads a number; and of two turns alike but for how many of the same
suite passed, the greener reads strictly higher. The turns vary what the cases hold still: reads
and edits before and after the runs (reads of notes and of an old log that quote a run among
them: what a file says passed is no verification), suites of 1 to 12 tests, pytest's session
header and failure lines before its summary, warnings in the summary, the suite run more than
once in a turn (each earlier run passing no more than the last: the lesson's reading is "the best
verify-state it has", so never a sum of runs), and the last run one a hook ran itself (`forced`:
it verified all the same).

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

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "Turn",
    "QUIET_CALLS",
    "pytest_output",
    "quiet_turns",
    "greener_pairs",
    "falling_turns",
]

# What a turn may do besides running its tests (no verification): read a file, write one, or read
# a file that quotes a test run (notes, an old run's log). A call's output is no verification
# whatever it says: only a verify result speaks (QUIET_CALLS: what each one is and returns).
_QUIET = ("read", "edit", "read notes.md", "read pytest.log")


@dataclass(frozen=True)
class Turn:
    """A turn: the quiet calls before the run, then (unless `total` is 0) runs of the suite: one
    for each of `earlier` (how many passed), then the last with `passed` of `total` passing, run
    by a hook itself when `forced`; then the quiet calls `after` it."""

    before: tuple[str, ...]
    total: int = 0
    passed: int = 0
    header: bool = False
    warnings: int = 0
    earlier: tuple[int, ...] = ()
    forced: bool = False
    after: tuple[str, ...] = ()

    def __str__(self) -> str:
        done = ", ".join(_said(name) for name in self.before) or "nothing"
        if not self.total:
            return f"a turn that did {done} and ran no tests"
        extra = (", its header printed" if self.header else "") + (
            f", {self.warnings} warnings" if self.warnings else ""
        )
        runs = "".join(f"tests with {n} of {self.total} passing, then " for n in self.earlier)
        last = f"{'a forced run' if self.forced else 'tests'} with {self.passed} of {self.total}"
        later = "".join(f", then {_said(name)}" for name in self.after)
        return f"a turn: {done}, then {runs}{last} passing{extra}{later}"


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


# (tool, its path argument, its kind, what it returns) for each quiet call. The notes and the old
# log quote test runs of more tests than any generated suite holds: a reading taken from them is
# a reading of no run of this turn.
QUIET_CALLS: Mapping[str, tuple[str, str, Literal["observe", "mutate"], str]] = MappingProxyType(
    {
        "read": ("read_file", "bill.py", "observe", "def split(...)"),
        "edit": ("write_file", "bill.py", "mutate", "wrote bill.py"),
        "read notes.md": ("read_file", "notes.md", "observe", "yesterday: 14 passed, all green"),
        "read pytest.log": (
            "read_file",
            "pytest.log",
            "observe",
            "FAILED check_bill.py::test_tip - assert 0 == 1\n=== 1 failed, 13 passed in 0.31s ===",
        ),
    }
)


def _said(name: str) -> str:
    """A quiet call as a counterexample shows it: with what it returned when that quotes a run."""
    output = QUIET_CALLS[name][3]
    return f"{name} ({output.splitlines()[-1].strip('= ')!r})" if "passed" in output else name


def _before() -> Any:
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(_QUIET), max_size=3).map(tuple)


def quiet_turns() -> Any:
    """Turns of one to three reads and edits (of notes and logs that quote runs, too) and no test
    run: all 84 of them, which a search of a few hundred draws runs through."""
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(_QUIET), min_size=1, max_size=3).map(lambda b: Turn(tuple(b)))


def _pair(
    before: tuple[str, ...],
    total: int,
    low: int,
    gap: int,
    header: bool,
    warn: int,
    runs: tuple[tuple[int, ...], tuple[int, ...]],
    forced: tuple[bool, bool],
    after: tuple[str, ...] = (),
) -> Any:
    low = low % total  # 0 to total - 1 passing...
    high = low + 1 + gap % (total - low)  # ...then more, up to all of them
    # earlier runs of the same suite pass no more than the turn's last: its best run is its last
    earlier = (tuple(n % (low + 1) for n in runs[0]), tuple(n % (high + 1) for n in runs[1]))
    return (
        Turn(before, total, low, header, warn, earlier[0], forced[0], after),
        Turn(before, total, high, header, warn, earlier[1], forced[1], after),
    )


def greener_pairs() -> Any:
    """(turn, greener turn): the same calls and suite, more of it passing in the second; quiet
    calls before the runs and, now and then, after them."""
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
        _before(),
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
            draw(_before()),
        )

    return falling()
