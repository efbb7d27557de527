"""Session 15's your-turn checkers: the tier of a command, then the restore gate.

1. `check_verification_tier` checks the notebook's `my_tier(command)`: "fast", "slow", or None
   when the command verifies nothing, over `TIER_TABLE`, real commands read both ways (checks and
   non-checks, narrowed and whole-suite runs, masked-looking chains). Each wrong row is named with
   the rule it breaks.
2. `check_can_restore` checks the notebook's `my_can_restore(at_green, at_abort, captured)`, the
   gate before an automatic restore, over `RESTORE_CASES`: it must say yes only when every path
   changed since green can be put back from what the harness captured.

Notebook: notebooks/s15-run-monitors.ipynb. Lesson: sessions/s15-run-monitors/lesson.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cafe.monitors.snapshots import ABSENT, AT_HEAD

__all__ = ["TIER_TABLE", "RESTORE_CASES", "check_verification_tier", "check_can_restore"]

# (command, expected answer, the rule that decides it). The answers follow the rules the session
# teaches; tests/test_exercises_s15.py checks that `cafe.monitors.tiers` gives every one of them.
TIER_TABLE: tuple[tuple[str, str | None, str], ...] = (
    ("pytest", "slow", "bare pytest runs the whole suite"),
    ("pytest -k split", "fast", "-k narrows pytest to matching tests"),
    (
        "pytest check_bill.py::test_split_shares_add_up_to_the_bill",
        "fast",
        "a test id (::) is one test",
    ),
    (
        "python -m pytest -q tests/test_bill.py",
        "fast",
        "python -m pytest is pytest, and an argument ending in .py narrows the run",
    ),
    ("ruff check .", "fast", "linters are always fast"),
    ("mypy cafe", "fast", "type checkers are always fast"),
    ("tsc --noEmit", "fast", "type checkers are always fast"),
    ("cargo test", "slow", "cargo test with no test name is the whole suite"),
    ("cargo test split_adds_up", "fast", "cargo test with a name runs that test"),
    ("cargo test -p till", "slow", "-p names a package, not a test: an option's value is no name"),
    ("go test -run TestSplit ./...", "fast", "go test -run picks tests"),
    ("go vet ./...", "fast", "go vet is a linter: fast"),
    ("npm test", "slow", "npm test is the project's whole suite"),
    ("make", "slow", "make is slow"),
    ("make check", "slow", "make is always slow: by convention `make check` is the whole suite"),
    ("./run-tests.sh", "slow", "a script named for tests verifies; unknown means slow"),
    ("PYTHONPATH=. pytest -k split", "fast", "leading VAR=value assignments are stripped"),
    ("ruff check . && pytest", "slow", "a chain is as slow as its slowest piece"),
    ("pip install pytest", None, "install is a non-verify word: nothing is checked"),
    ("git checkout check_bill.py", None, "checkout is a non-verify word"),
    (
        "cat check_bill.py",
        None,
        "cat only shows a file, whatever it names; and check_bill.py is not the whole word check",
    ),
    ("which pytest", None, "which only names a program: it never runs one"),
    ("ls -la", None, "no marker: not a verification"),
    ("sed -i 's/a/b/' bill.py", None, "an edit is not a check"),
)

# (at_green, at_abort, captured, expected, why). A fingerprint maps path -> hash for paths that
# differ from HEAD (None: not a git repository); captured maps path -> what the harness can put back.
RESTORE_CASES: tuple[tuple[Any, Any, dict[str, str], bool, str], ...] = (
    (
        {},
        {"bill.py": "b2"},
        {"bill.py": AT_HEAD},
        True,
        "the harness's own edit of a clean file can be undone",
    ),
    (
        {"bill.py": "b1"},
        {"bill.py": "b2"},
        {"bill.py": "b1"},
        True,
        "the capture holds the green-time content",
    ),
    ({}, {}, {}, True, "nothing changed since green: nothing to put back"),
    (
        {},
        {"bill.py": "b2", "check_bill.py": "c2"},
        {"bill.py": AT_HEAD},
        False,
        "check_bill.py changed behind the harness's back (a sed -i): no capture, so no restore",
    ),
    (
        {},
        {"bill.py": "b2", "notes.txt": "n1"},
        {"bill.py": AT_HEAD},
        False,
        "a file a redirect created since green is a mutation too",
    ),
    (
        {"bill.py": "b1"},
        {"bill.py": "b2"},
        {"bill.py": "b0"},
        False,
        "the capture is not what the file held at green (something edited it first)",
    ),
    (
        {"mine.txt": "m1"},
        {"mine.txt": "m1", "bill.py": "b2"},
        {"bill.py": AT_HEAD},
        True,
        "work dirty before the run hashes the same twice: not a mutation, not a target",
    ),
    (
        {"pytest.ini": ABSENT},
        {"pytest.ini": "p1"},
        {"pytest.ini": ABSENT},
        True,
        "deleted at green, re-created by the harness: delete it again",
    ),
    (
        None,
        {"bill.py": "b2"},
        {"bill.py": AT_HEAD},
        False,
        "no sample at green (not a repository, say): nothing can be proven",
    ),
    ({}, None, {}, False, "no sample at the abort: nothing can be proven"),
)


def check_verification_tier(fn: Callable[[str], Any]) -> list[str]:
    """Problems with `my_tier(command)`; empty when every row of `TIER_TABLE` comes out right."""
    problems = []
    for command, expected, why in TIER_TABLE:
        got = fn(command)
        if got != expected:
            problems.append(f"{command!r}: you said {got!r}, the answer is {expected!r} ({why})")
    return problems


def check_can_restore(fn: Callable[[Any, Any, dict[str, str]], Any]) -> list[str]:
    """Problems with `my_can_restore(at_green, at_abort, captured)` over `RESTORE_CASES`."""
    problems = []
    for at_green, at_abort, captured, expected, why in RESTORE_CASES:
        got = fn(at_green, at_abort, dict(captured))
        if not isinstance(got, bool):
            problems.append(f"return True or False, not {got!r}")
            break
        if got is not expected:
            problems.append(
                f"at_green={at_green}, at_abort={at_abort}, captured={captured}: you said {got}, "
                f"the answer is {expected}: {why}"
            )
    return problems
