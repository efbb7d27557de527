"""Session 13's reference fold, written apart from `cafe.stall.failure_state`, and the turns to
try it on. `check_fold_diagnostic` (`cafe.exercises.s13`) takes each case's expected state from
`fold`, not the library's `fold_diagnostic`, then compares the learner's fold with it on
generated turns (`turns`): checks that fail with one of two errors or pass, edits that land or
are refused (through either of two tools, or run by a hook itself), reads, in any order, folded
from any state, and from runs of up to 15 turns failing alike, since a streak has no cap: a fold
that stops counting at some number is wrong past it. `tests/test_exercise_references.py` holds
`fold` to the library on the same turns.

The rule as the lesson states it: results are read in the order they ran; a landed edit ends a
stretch, and the last stretch that ran a check speaks for the turn (its first failing check, else
a pass); a failure with the live signature adds one to the streak, another starts at 1; an edit
after the turn's last check is owed a re-verify; a pass with no edit after it clears everything
but the write count (the only way a failure is cleared); a turn whose edit no check followed,
with no check at all or only passing ones before it, keeps the diagnosis and owes a re-verify
only on a live failure; anything else changes nothing.

`check_signature` holds a learner's signature to the lesson's rule on generated output too: two
different wrong totals (`total_pairs`, of any length: a bill of £1,000 is 100000 pence, and a
long number is data, not an object's address) are two failures, so their signatures differ; and
one failure logged at two moments (`logged_pairs`, the clock in every shape a log line's clock
takes: a time alone or after a date, the date joined by a space or ISO 8601's `T`, with or
without a fraction, bare or bracketed, first on the line or after its level word, the date
moving at midnight) is one failure, so its signatures match ("clocks move", the lesson's list
of run-to-run noise). This module imports nothing from `cafe` (only `cafe.exercises.sNN` may):
the state's record and the signature function are passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

__all__ = ["RESULTS", "fold", "described", "turns", "assertion_output", "total_pairs"]
__all__ += ["logged_output", "logged_pairs", "FORCED", "pytest_run", "different_failures"]


def _landed(result: Any) -> bool:
    return bool(result.kind == "mutate" and result.ok)


def _speaking_checks(dispatch: Sequence[Any]) -> list[Any]:
    """The checks of the last stretch (between landed edits) that ran any."""
    stretches: list[list[Any]] = [[]]
    for result in dispatch:
        if _landed(result):
            stretches.append([])
        elif result.kind == "verify":
            stretches[-1].append(result)
    return next((s for s in reversed(stretches) if s), [])


def _unchecked_edit(dispatch: Sequence[Any]) -> bool:
    """A landed edit comes after the turn's last check."""
    last_check = max((n for n, r in enumerate(dispatch) if r.kind == "verify"), default=-1)
    return any(_landed(r) for r in dispatch[last_check + 1 :])


def fold(
    state: Any, dispatch: Sequence[Any], make: Callable[..., Any], signature: Callable[[Any], str]
) -> Any:
    """The state after one turn. `make(class, signature, epoch, streak, edited, owed)` builds a
    state; `signature(result)` is the failure's signature."""
    epoch = state.write_epoch + sum(_landed(r) for r in dispatch)
    checks = _speaking_checks(dispatch)
    failing = [r for r in checks if not r.ok]
    if failing:
        sign = signature(failing[0])
        again = state.last_diagnostic_class == "fail" and state.last_diagnostic_signature == sign
        owed = _unchecked_edit(dispatch)
        streak = state.same_diagnostic_streak + 1 if again else 1
        return make("fail", sign, epoch, streak, owed, owed)
    if checks and not _unchecked_edit(dispatch):
        return make("pass", None, epoch, 0, False, False)
    if epoch == state.write_epoch:
        return state  # nothing checked, nothing landed
    live = state.last_diagnostic_class == "fail"
    return make(
        state.last_diagnostic_class,
        state.last_diagnostic_signature,
        epoch,
        state.same_diagnostic_streak,
        state.edit_since_failure or live,
        state.reverify_owed or live,
    )


# The results a generated turn is made of: (how a problem names it, tool, ok, output, kind).
RESULTS: tuple[tuple[str, str, bool, str, str], ...] = (
    ("red A", "run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify"),
    ("red A moved", "run_tests", False, "check_bill.py:23: E   assert 999 == 1000", "verify"),
    ("red B", "run_tests", False, "E   assert 1002 == 1000", "verify"),
    ("green", "run_tests", True, "4 passed", "verify"),
    ("edit", "write_file", True, "wrote bill.py", "mutate"),
    ("patch", "apply_patch", True, "patched bill.py", "mutate"),
    ("refused write", "write_file", False, "no such folder: src/", "mutate"),
    ("read", "read_file", True, "def split(...)", "observe"),
    ("failed read", "read_file", False, "FileNotFoundError: bil.py", "observe"),
)


# Results a hook ran itself (the post-edit re-verify, the check on a claimed finish), marked
# `forced`: the lesson says the detector "folds it like any other evidence", and `write_epoch`
# counts "every successful `mutate` call", a write the harness ran too.
FORCED: tuple[tuple[str, str, bool, str, str], ...] = (
    ("forced red A", "run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify"),
    ("forced green", "run_tests", True, "4 passed", "verify"),
    ("forced edit", "write_file", True, "wrote bill.py", "mutate"),
)


def described(result: Any) -> str:
    """How a problem names one generated result ('red A', 'edit', 'forced green', ...)."""
    key = (result.name, result.ok, result.output, result.kind)
    rows = FORCED if getattr(result, "forced", False) else RESULTS
    return next((label for label, *rest in rows if tuple(rest) == key), result.name)


def turns(
    result: Callable[[str, bool, str, str], Any],
    forced: Callable[[str, bool, str, str], Any] | None = None,
) -> Any:
    """(earlier turns, turn): up to three turns to fold from an empty state first, or 4 to 15 that
    each fail red A again (after none to two edits or reads), then the turn the fold is judged
    on, of zero to five results in any order. `result(name, ok, output, kind)` builds one tool
    result; `forced`, when given, builds a result a hook ran (`FORCED`)."""
    from hypothesis import strategies as st

    rows = [(row, result) for row in RESULTS]
    rows += [(row, forced) for row in FORCED] if forced is not None else []
    built = st.sampled_from(rows).map(lambda pair: pair[1](*pair[0][1:]))
    turn = st.lists(built, max_size=5)
    quiet = st.sampled_from([(r, made) for r, made in rows if r[4] != "verify"])
    red = st.sampled_from([(r, made) for r, made in rows if r[0].endswith(("red A", "A moved"))])
    again = st.tuples(st.lists(quiet, max_size=2), red).map(lambda t: [*t[0], t[1]])
    streak = st.lists(again.map(lambda t: [made(*r[1:]) for r, made in t]), min_size=4, max_size=15)
    return st.tuples(st.one_of(st.lists(turn, max_size=3), streak), turn)


def assertion_output(total: int, expected: int) -> str:
    """A failing test's output as pytest prints it: the wrong total against the one expected."""
    failing = f"check_bill.py:21: in test_split\nE   assert {total} == {expected}"
    return f"{failing}\n1 failed, 3 passed in 0.02s"


def total_pairs() -> Any:
    """(a wrong total, another, the total expected): two failures of one assertion, the totals of
    any length up to ten digits and, most often, alike but for their last digits."""
    from hypothesis import strategies as st

    return st.builds(
        lambda total, step, expected: (total, total + step, expected),
        st.integers(0, 10**9),
        st.one_of(st.integers(1, 99), st.integers(1, 10**6)),
        st.integers(0, 10**9),
    )


# How a log line puts its clock: first on the line (Python logging's own format), in brackets,
# or right after the level word; "{clock}" is filled with the time, "{line}" with the message.
_LOG_LINES = (
    "{clock} ERROR {line}",
    "[{clock}] ERROR {line}",
    "ERROR {clock} {line}",
    "ERROR [{clock}] {line}",
)
# Between a log line's date and its time: a space (Python logging) or ISO 8601's "T".
_DATE_TIME = (" ", "T")
_DAY = 86_400  # seconds in a day: a clock passing midnight moves its date too


def logged_output(form: str, clock: str, total: int, expected: int) -> str:
    """A failure logged by the code under test, then pytest's summary: `form` from `_LOG_LINES`."""
    line = form.format(clock=clock, line=f"total {total} != {expected}")
    return f"{line}\n1 failed, 3 passed in 0.02s"


def _clock(day: str, joined: str, second: int, fraction: str) -> str:
    """The clock `second` seconds after midnight on `day` ("" for a time alone): the day after
    once `second` passes midnight."""
    moment = datetime.fromisoformat(day or "2026-01-01") + timedelta(seconds=second)
    time = moment.strftime("%H:%M:%S") + fraction
    return f"{moment.date().isoformat()}{joined}{time}" if day else time


def logged_pairs() -> Any:
    """(the first output, the second, the two clocks): one failure logged twice, a second to ten
    minutes apart (often just before midnight, so the date moves too), its clock in each shape a
    log line's clock takes (see the module's docstring)."""
    from hypothesis import strategies as st

    def pair(form: str, day: str, joined: str, at: tuple[int, int], fractions: Any, n: int) -> Any:
        first, later = at[0], at[0] + at[1]
        clocks = [_clock(day, joined, s, f) for s, f in zip((first, later), fractions, strict=True)]
        return (
            logged_output(form, clocks[0], n, 1000),
            logged_output(form, clocks[1], n, 1000),
            (clocks[0], clocks[1]),
        )

    fraction = st.one_of(
        st.just(""), st.builds("{}{:03d}".format, st.sampled_from(",."), st.integers(0, 999))
    )
    # any second of the day, or one of the last ten minutes before midnight
    second = st.one_of(st.integers(0, _DAY - 1), st.integers(_DAY - 600, _DAY - 1))
    return st.builds(
        pair,
        st.sampled_from(_LOG_LINES),
        st.sampled_from(("", "2026-11-30", "2026-12-31")),
        st.sampled_from(_DATE_TIME),
        st.tuples(second, st.integers(1, 600)),
        st.tuples(fraction, fraction),
        st.integers(0, 10**6),
    )


# --- two failures the lesson tells apart -------------------------------------------------------

_TESTS = ("test_split", "test_split_rounds_down", "test_tip", "test_total_in_pence")
_ITEMS = ("latte", "scone", "flat white", "tea")


def pytest_run(test: str, said: str, source: str = "") -> str:
    """One failing test as pytest prints it: its header, where it failed, the source line it
    failed on (`>`, when given), the assertion's E line, the short summary, the totals."""
    shown = f">       {source}\n" if source else ""
    return (
        f"{'_' * 12} {test} {'_' * 12}\ncheck_bill.py:21: in {test}\n{shown}E       {said}\n"
        f"{'=' * 12} short test summary info {'=' * 12}\nFAILED check_bill.py::{test} - {said}\n"
        "1 failed, 3 passed in 0.02s"
    )


def _pair(kind: str, first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, str, str]:
    """(first run, second run, the label a problem shows): two pytest runs, each (test, E line[,
    source line]), and the first line where the two differ."""
    runs = pytest_run(*first), pytest_run(*second)
    lines = zip(*(run.splitlines() for run in runs))
    one, other = next((pair for pair in lines if len(set(pair)) > 1), ("", ""))
    return runs[0], runs[1], f"two failures, {kind}: {one.strip()!r} and {other.strip()!r}"


def _cased(word: str, upper: list[bool]) -> str:
    return "".join(c.upper() if up else c for c, up in zip(word, upper + [False] * len(word)))


def _swapped(values: list[int], i: int, j: int) -> list[int]:
    swapped = list(values)
    swapped[i], swapped[j] = values[j], values[i]
    return swapped


def _failing(draw: tuple[Any, ...]) -> bool:
    """Two wrong values and the one expected: both wrong (a test fails only then), not alike."""
    *wrong, want = draw
    return want not in wrong and wrong[0] != wrong[1]


# How each kind of failure with a wrong value words its E line, from the value and the one
# expected, and the test it fails in.
_SAID: dict[str, tuple[str, Callable[[Any, Any], str]]] = {
    "another price": ("test_prices", lambda got, want: f"AssertionError: latte {got} != {want}"),
    "another checksum": (
        "test_receipt",
        lambda got, want: f"AssertionError: checksum {got} != {want}",
    ),
    "another order": ("test_split", lambda got, want: f"assert {got} == {want}"),
    "another case": ("test_menu", lambda got, want: f"assert {got!r} == {want!r}"),
}


def _two_values(kind: str, draw: tuple[Any, Any, Any]) -> tuple[str, str, str]:
    """Two runs of one test, failing with two wrong values (a, b) against the one expected."""
    test, said = _SAID[kind]
    a, b, want = draw
    return _pair(kind, (test, said(a, want)), (test, said(b, want)))


def _two_tests(names: tuple[str, str], total: int) -> tuple[str, str, str]:
    """Two tests failing on one assertion."""
    said = f"assert {total} == 1000"
    return _pair("another test", (names[0], said), (names[1], said))


def _two_subscripts(draw: tuple[str, tuple[str, str], int, int]) -> tuple[str, str, str]:
    """One wrong value read through two subscripts: pytest's source line `assert shares[0] ==
    334` against `shares[1]` (E lines alike). Another index is another expression under test."""
    name, (one, other), got, want = draw
    said = f"assert {got} == {want}"
    first, second = (f"assert {name}[{at}] == {want}" for at in (one, other))
    return _pair("another subscript", ("test_split", said, first), ("test_split", said, second))


def _checksums() -> Any:
    """Two wrong checksums and the one expected, of any width, with "0x", zero-padded or bare."""
    from hypothesis import strategies as st

    sums = st.one_of(st.integers(0, 2**32 - 1), st.integers(2**28, 2**64 - 1))  # up to 16 digits
    form = st.sampled_from(("{:#x}", "{:#010x}", "{:08x}"))
    return st.builds(lambda f, *values: tuple(map(f.format, values)), form, sums, sums, sums)


def different_failures() -> Any:
    """(first run, second run, label): two different failures of every kind the lesson names,
    everything else alike. Another test failing on the same assertion; another wrong price (the
    lesson's `latte 3.40 != 3.60`: a decimal in the test's data is no timing); another checksum
    of any width, with `0x` or bare (a hex number not after "at" stays, `0xdeadbeef` as much as
    `0x2`); a list with two items swapped (a list's order is data; only a set's is noise); a
    name in another case (the test's own string); the same wrong value read through another
    index or key (`shares[0]` or `shares[1]`: "a different call in the assertion", however like
    a `[gw0]` worker or `[ 50%]` progress it looks)."""
    from hypothesis import strategies as st

    names = st.sampled_from(_TESTS)
    two_tests = st.tuples(names, names).filter(lambda pair: pair[0] != pair[1])
    price = st.integers(0, 2000).map(lambda cents: f"{cents / 100:.2f}")
    upper = st.lists(st.booleans())
    # a wrong split (the right one is largest share first), and the same with two shares swapped
    shares = st.lists(st.integers(0, 1000), min_size=3, max_size=6, unique=True).flatmap(
        lambda v: st.tuples(st.permutations(v), *[st.integers(0, len(v) - 1)] * 2).map(
            lambda d: (d[0], _swapped(d[0], d[1], d[2]), sorted(v)[::-1])
        )
    )
    # two casings of one menu item, against the item as the menu spells it
    cased = st.builds(
        lambda item, a, b: (_cased(item, a), _cased(item, b), item),
        st.sampled_from(_ITEMS),
        upper,
        upper,
    )
    values = {
        "another price": st.tuples(price, price, price),
        "another checksum": _checksums(),
        "another order": shares,
        "another case": cased,
    }
    index = st.one_of(st.integers(-3, 20).map(str), st.sampled_from(_ITEMS).map(repr))
    subscripts = st.tuples(
        st.sampled_from(("shares", "bill", "totals")),
        st.tuples(index, index).filter(lambda pair: pair[0] != pair[1]),
        st.integers(0, 1000),
        st.integers(0, 1000),
    ).filter(lambda draw: draw[2] != draw[3])
    return st.one_of(
        st.builds(_two_tests, two_tests, st.integers(0, 999)),
        subscripts.map(_two_subscripts),
        *[draws.filter(_failing).map(partial(_two_values, kind)) for kind, draws in values.items()],
    )
