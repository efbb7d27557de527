"""Session 02's fixture invariant, written apart from `cafe.evals.fixture_problems`, and the lists
of checks to try it on.

`check_fixture_problems` (`cafe.exercises.s02`) hands a learner's `fixture_problems` generated
lists of checks over whole numbers, one list after another, and compares the checks it names with
`broken_checks` on each. The judges below are the kinds a learner's function must tell apart:
sound, vacuous, upside down, crashing, answering False or an empty text where a pass is None,
True or a list where a finding (text) is due, and, for a missing fixture (None), judges that pass
None, fail it, or crash on it, so only a test of the fixture itself finds every one. `tests/test_heldout_c_s00_s03.py` holds `broken_checks` to the library.
The last four functions are how the checker reads a learner's answer: which checks its problems
name (outside the questions they quote), how many broken checks they account for when two share a
name (a problem each), and whether it changed the list it was handed.
This module imports nothing from `cafe` (only `cafe.exercises.sNN` may): `Check` is passed in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "JUDGES",
    "accounted",
    "broken_checks",
    "call_sequences",
    "changed",
    "named_in",
    "shown_calls",
    "unquoted",
]


def odd_fails(n: int) -> str | None:
    """Sound on 2 and 3: a finding for an odd number (and a TypeError for None)."""
    return None if n % 2 == 0 else f"{n} is odd"


def none_passes(n: int | None) -> str | None:
    """As `odd_fails`, but passes None: a missing passing fixture looks like a pass."""
    return None if n is None else odd_fails(n)


def none_fails(n: int | None) -> str | None:
    """As `odd_fails`, but fails None: a missing failing fixture looks like a catch."""
    return "nothing to judge" if n is None else odd_fails(n)


def always_passes(n: Any) -> None:
    """Vacuous: it cannot fail."""
    return None


def false_for_even(n: int) -> Any:
    """False where a pass is None: no finding, and no None either."""
    return False if n % 2 == 0 else f"{n} is odd"


def blank_for_even(n: int) -> str:
    """An empty text where a pass is None: it is not None, so the passing fixture fails."""
    return "" if n % 2 == 0 else f"{n} is odd"


def yes_for_odd(n: int) -> Any:
    """Sound on its passing fixture, True on its failing one: truthy, and still no finding."""
    return None if n % 2 == 0 else True


def listed_for_odd(n: int) -> Any:
    """A list holding the finding on its failing fixture: something, but not text."""
    return None if n % 2 == 0 else [f"{n} is odd"]


def crashes_on_odd(n: int) -> str | None:
    """Raises on its failing fixture."""
    if n % 2:
        raise KeyError("a field the observation does not have")
    return None


def divides_by_zero_on_odd(n: int) -> str | None:
    """Raises ZeroDivisionError on its failing fixture (the checker's sample of a crash)."""
    if n % 2:
        raise ZeroDivisionError("the judge divided by zero")
    return None


def key_error_on_even(n: int) -> str | None:
    """Raises KeyError on its passing fixture, and finds an odd number."""
    if n % 2 == 0:
        raise KeyError("the judge looked up a field the observation does not have")
    return f"{n} is odd"


JUDGES: tuple[Callable[[Any], Any], ...] = (
    odd_fails,
    none_passes,
    none_fails,
    always_passes,
    false_for_even,
    blank_for_even,
    yes_for_odd,
    listed_for_odd,
    crashes_on_odd,
)


def _sound_on(judge: Callable[[Any], Any], fixture: Any, must_fail: bool) -> bool:
    """Whether the judge does on `fixture` what the fixture's role asks: None to pass it, a
    finding (text that says something) to fail it; a crash or any other answer does neither."""
    if fixture is None:
        return False  # a missing fixture, whatever the judge would make of None
    try:
        said = judge(fixture)
    except Exception:
        return False
    if not must_fail:
        return said is None
    return isinstance(said, str) and bool(said.strip())


def broken_checks(checks: Sequence[Any]) -> tuple[str, ...]:
    """The names of the checks that break the invariant, in order."""
    return tuple(
        c.name
        for c in checks
        if not (_sound_on(c.judge, c.passes, False) and _sound_on(c.judge, c.fails, True))
    )


def call_sequences(make_check: Callable[..., Any]) -> Any:
    """One to three lists, handed in one after another, of zero to three checks named c1, c2, c3
    (so a name comes back in a later call, and often twice in one list: names are not identities,
    so a broken check may share its name with a sound one, or with another broken one); each check
    a judge from `JUDGES`, a passing fixture of 2, 0, 3 or None and a failing one of 3, 2 or None.
    No judge answers an empty text on its failing fixture: whether that is a finding the lesson
    does not say."""
    from hypothesis import strategies as st

    def build(name: str, judge: Callable[[Any], Any], passes: Any, fails: Any) -> Any:
        if judge is blank_for_even and fails == 2:
            fails = 3
        return make_check(name, "Is it even?", judge, passes, fails)

    one = st.builds(
        build,
        st.sampled_from(("c1", "c2", "c3")),
        st.sampled_from(JUDGES),
        st.sampled_from((2, 0, 3, None)),
        st.sampled_from((3, 2, None)),
    )
    checks = st.lists(one, max_size=3)
    return st.lists(checks, min_size=1, max_size=3).map(lambda calls: tuple(map(tuple, calls)))


def shown_calls(calls: Sequence[Sequence[Any]]) -> str:
    """The lists handed in, in words: "the calls [c1: none_passes, passes=None, fails=3]"."""
    said = [
        ", ".join(
            f"{c.name}: {c.judge.__name__}, passes={c.passes!r}, fails={c.fails!r}" for c in checks
        )
        for checks in calls
    ]
    return "the calls " + "; then ".join(f"[{checks}]" for checks in said)


# --- how the checker reads what a learner's function said and did ---------------------------


def unquoted(problem: str, checks: Sequence[Any]) -> str:
    """A problem with every check's question taken out: a message may quote the question it
    asks ("always_ok (Is it even?): ..."), and a word of it is not a check it names."""
    for question in sorted({c.question for c in checks}, key=len, reverse=True):
        problem = problem.replace(question, " ")
    return problem


def named_in(found: list[str], checks: Sequence[Any]) -> frozenset[str]:
    """The checks a list of problems names, as whole words (so 'even' is not in 'always_ok'),
    outside the questions the problems quote."""
    said = [unquoted(p, checks) for p in found]
    return frozenset(c.name for c in checks if any(re.search(rf"\b{c.name}\b", p) for p in said))


def accounted(found: list[str], checks: Sequence[Any]) -> tuple[str, ...]:
    """The broken checks a list of problems accounts for, as `broken_checks` names them (in the
    list's order), and each sound check it names. Names are not identities: a problem names a
    check by its name, so a name stands for as many broken checks as there are problems naming
    it; two broken checks called c1 need two problems naming c1 (one each, or more), and a
    problem naming c1 beside a broken c1 and a sound c1 accounts for the broken one."""
    said = [unquoted(p, checks) for p in found]
    naming = Counter(
        name for p in said for name in {c.name for c in checks} if re.search(rf"\b{name}\b", p)
    )
    broken = set(broken_checks(checks))
    out: list[str] = []
    for check in checks:
        if broken_checks([check]):
            if naming[check.name]:
                naming[check.name] -= 1
                out.append(check.name)
        elif check.name not in broken and naming[check.name] and check.name not in out:
            out.append(check.name)  # a sound check named (once, however many are called so)
    return tuple(out)


def changed(given: Sequence[Any], checks: Sequence[Any]) -> str | None:
    """What became of the caller's list, if the learner's function changed it; else None."""
    if len(given) == len(checks) and all(a is b for a, b in zip(given, checks)):
        return None
    return (
        f"the list handed in held {[c.name for c in checks]} and now holds "
        f"{[getattr(c, 'name', c) for c in given]}: the caller's checks are the caller's; "
        "read them, never pop, remove or reorder them"
    )
