"""Session 15's your-turn checkers: the tier of a command, then the restore gate.

1. `check_verification_tier` checks the notebook's `my_tier(command)`: "fast", "slow", or None
   when the command verifies nothing, over `TIER_TABLE` and `TIER_HELD_OUT`, real commands read
   both ways (checks and non-checks, narrowed and whole-suite runs, chains). The notebook shows
   only `TIER_EXAMPLES` (commands, no answers) and never imports either table, so a function that
   looks answers up instead of reading the command fails on the rows it has never seen. Each
   wrong row is named with the rule it breaks. Then commands drawn from the lesson's rules
   (`cafe.exercises.reference_s15.labelled_commands`: chains of linters, narrowed and
   whole-suite runs and commands that check nothing, with stray spaces, `VAR=value` words,
   launchers (`python3 -m` too), command words given by their path (`.venv/bin/pytest`), flags
   with their value attached, and options whose value looks like a test id or a file) must come
   out as their pieces say; so must chains holding a look-or-name command word (`cat`, `which`,
   `grep`, `git`) before marker words (`looking_commands`, `git bisect run make` among them): it
   never verifies, whatever follows it. The course's `verification_tier` is refused.
2. `check_can_restore` checks the notebook's `my_can_restore(at_green, at_abort, captured)`, the
   gate before an automatic restore, over `RESTORE_CASES`: it must say yes only when every path
   changed since green can be put back from what the harness captured; then on generated
   samples and captures, against `reference_s15.restorable`. The course's `can_restore` is
   refused.

Both exercises ask for a mechanism the course already has, so, as in the other sessions, the
course's own function (or a wrapper round it) is refused, and the notebook says so.

Notebook: notebooks/s15-run-monitors.ipynb. Lesson: sessions/s15-run-monitors/lesson.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cafe.exercises.feedback import (
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s15 import (
    every_piece,
    labelled_commands,
    looking_commands,
    restorable,
    restore_cases,
)
from cafe.monitors.runners import segment_tier, verification_tier
from cafe.monitors.snapshots import ABSENT, AT_HEAD, can_restore, mutated_since

__all__ = [
    "TIER_TABLE",
    "TIER_HELD_OUT",
    "TIER_EXAMPLES",
    "RESTORE_CASES",
    "TIER_IDEA",
    "RESTORE_IDEA",
    "check_verification_tier",
    "check_can_restore",
]

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

# More rows of the same rules, never shown before the compare cell: a classifier that reads the
# command gets them right; one that looks the visible rows up does not.
TIER_HELD_OUT: tuple[tuple[str, str | None, str], ...] = (
    ("pytest -m smoke", "fast", "-m narrows pytest to marked tests"),
    ("pytest tests/test_bill.py::test_tip", "fast", "a test id (::) is one test"),
    ("python -m pytest tests/", "slow", "a folder is not one test: the whole suite under it"),
    ("pytest -x tests", "slow", "-x stops at the first failure; it does not narrow"),
    ("ruff check . ; pytest -q", "slow", "a ';' chain is as slow as its slowest verifying piece"),
    ("mypy --strict cafe && ruff check .", "fast", "two fast pieces make a fast chain"),
    ("pytest -k split && echo done", "fast", "a piece that verifies nothing has no tier"),
    ("flake8 bill.py", "fast", "linters are always fast"),
    ("go test ./...", "slow", "go test without -run is the whole suite"),
    ("go test -run TestTip ./...", "fast", "go test -run picks tests"),
    ("cargo test -p till split", "fast", "-p's value is no name, but split is one"),
    ("CI=1 npm test", "slow", "VAR=value stripped, then npm test: the whole suite"),
    ("make test", "slow", "make is always slow, whatever its target"),
    ("npm install", None, "install is a non-verify word"),
    ("git add tests/", None, "add is a non-verify word, and git only manages files"),
    ("pip uninstall pytest", None, "uninstall is a non-verify word"),
    ("poetry add pytest", None, "add is a non-verify word: pytest is being installed, not run"),
    ("python bill.py", None, "no marker: running a program is not a check"),
    ("cd till && pytest -q", "slow", "cd verifies nothing; the pytest after it is the whole suite"),
    ("echo testing", None, "testing is not the whole word test"),
    ("grep -r pytest .", None, "grep only looks, whatever it looks for"),
    ("cat tests/test_bill.py", None, "cat only shows a file, whatever it names"),
)

# The commands the notebook prints before its compare cell: commands only, never the answers.
TIER_EXAMPLES: tuple[str, ...] = tuple(command for command, _, _ in TIER_TABLE[:6])
# A wrong classifier can miss most of 43 rows; this many are shown, then a count of the rest.
SHOWN_PROBLEMS = 8
# The idea a generated command or restore case bears on, shown under its counterexample.
TIER_IDEA = (
    "read the command piece by piece (split on &, |, ;): a piece with a marker word verifies, "
    "one with a non-verify word or a looking command does not; a command word is its file's name "
    "(.venv/bin/pytest is pytest) and a launcher reads as what it starts (python3 -m pytest is "
    "pytest); pytest is fast only when narrowed (-k, -m, ::, a .py file), a flag's value attached "
    "or not (-ksplit, -run=TestSplit), and an option's value narrows nothing (-W "
    "error::UserWarning); the chain is as slow as its slowest verifying piece"
)
RESTORE_IDEA = (
    "every path whose content differs between the two samples (missing means as at HEAD) needs "
    "a capture equal to what it held at green; no sample at either end proves nothing"
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
    (
        {"bill.py": "b1"},
        {},
        {},
        False,
        "bill.py went back to HEAD since green: a change too, and nothing captured its green bytes",
    ),
    (
        {"bill.py": "b1"},
        {},
        {"bill.py": "b1"},
        True,
        "bill.py went back to HEAD since green, and the capture holds its green-time content",
    ),
    (
        {},
        {"bill.py": "b2"},
        {"bill.py": AT_HEAD, "notes.txt": AT_HEAD},
        True,
        "a capture of a path that did not change is never needed, and never in the way",
    ),
    (
        {},
        {"bill.py": "b2"},
        {"bill.py": ABSENT},
        False,
        "bill.py existed at green (as at HEAD): a capture saying it was absent is the wrong content",
    ),
)


def check_verification_tier(fn: Callable[[str], Any]) -> list[str]:
    """Problems with `my_tier(command)`; empty when every row of `TIER_TABLE` and `TIER_HELD_OUT`
    comes out right. At most `SHOWN_PROBLEMS` rows are named, then how many more are wrong."""
    trial = (TIER_TABLE[0][0],)
    # The exercise refuses the tier's own mechanism (verification_tier and the segment_tier it
    # is built on), not every lesson function: asking `is_verification_command` whether a piece
    # verifies is using the lesson, and the tier is still the learner's own.
    if is_library(fn, verification_tier, segment_tier, trial=trial):
        return [library_answer("verification_tier")]
    problems = []
    for command, expected, why in TIER_TABLE + TIER_HELD_OUT:
        got = call(fn, command)
        if isinstance(got, Raised):
            problems.append(got.problem(repr(command)))
        elif got is not None and not isinstance(got, str):
            problems.append(wrong_type(repr(command), got, '"fast", "slow" or None'))
        elif got != expected:
            problems.append(mismatch(repr(command), got, expected, why))
    if len(problems) > SHOWN_PROBLEMS:
        more = len(problems) - SHOWN_PROBLEMS
        problems = [*problems[:SHOWN_PROBLEMS], f"... and {more} more rows wrong"]
    if problems:
        return problems
    for command, expected in every_piece():  # then each piece alone, then generated chains
        got = call(fn, command)
        if isinstance(got, Raised):
            return [got.problem(repr(command))]
        if got != expected:
            return [mismatch(repr(command), got, expected, TIER_IDEA)]
    found = first_difference(
        lambda pair: fn(pair[0]),
        lambda pair: pair[1],
        built_once(labelled_commands),
        idea=TIER_IDEA,
    ) or first_difference(  # a look-or-name word never verifies, whatever markers follow it
        lambda pair: fn(pair[0]),
        lambda pair: pair[1],
        built_once(looking_commands),
        idea=TIER_IDEA,
        examples=100,
    )
    return (
        [counterexample(found.given[0], found.returned, found.expected, found.idea)]
        if found
        else []
    )


def check_can_restore(fn: Callable[[Any, Any, dict[str, str]], Any]) -> list[str]:
    """Problems with `my_can_restore(at_green, at_abort, captured)` over `RESTORE_CASES`."""
    if is_library(fn, can_restore, mutated_since, trial=RESTORE_CASES[0][:3]):
        return [library_answer("can_restore")]
    problems = []
    for at_green, at_abort, captured, expected, why in RESTORE_CASES:
        case = f"at_green={at_green}, at_abort={at_abort}, captured={captured}"
        got = call(fn, at_green, at_abort, dict(captured))
        if isinstance(got, Raised):
            problems.append(got.problem(case))
        elif not isinstance(got, bool):
            problems.append(wrong_type(case, got, "True or False"))
            break  # the same type on every case: once is enough
        elif got is not expected:
            problems.append(mismatch(case, got, expected, why))
    if problems:
        return problems
    found = first_difference(
        fn,
        lambda green, abort, captured: restorable(green, abort, captured, AT_HEAD),
        built_once(restore_cases, ABSENT, AT_HEAD),
        idea=RESTORE_IDEA,
        unpack=True,
    )
    return (
        [counterexample(found.given, found.returned, found.expected, found.idea)] if found else []
    )
