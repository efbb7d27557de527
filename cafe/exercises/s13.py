"""Session 13's your-turn checkers: the current-failure fold, then a failure signature of your own.

1. `check_fold_diagnostic` runs a learner's fold (the notebook's `my_fold`, the mechanism of
   `cafe.stall.failure_state.fold_diagnostic`) over the cases that matter and names each field that
   differs, so a plausible wrong fold (a streak reset by edits, a pass that hides an edit, a
   re-verify paid by a failed write) fails with a specific complaint.
2. `check_signature` runs a learner's `my_signature(output)`, written any way they like, over
   pairs of real-looking test output: pairs that are one failure seen twice must share a
   signature, pairs that are two failures must not.

Notebook: notebooks/s13-stall-detection.ipynb. Lesson: sessions/s13-stall-detection/lesson.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields

from cafe.loop.agent import ToolResult
from cafe.stall.failure_state import FailureState, fold_diagnostic

__all__ = ["SIGNATURE_PAIRS", "check_fold_diagnostic", "check_signature"]

# Pairs of test output for `check_signature`: (what the pair is, first, second, same failure?).
# Written for this course from pytest's and Python's own output shapes.
SIGNATURE_PAIRS: tuple[tuple[str, str, str, bool], ...] = (
    (
        "the failing line moved down two lines",
        "check_bill.py:21: in test_split\nE   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "check_bill.py:23: in test_split\nE   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        True,
    ),
    (
        "the same run, a little slower",
        "E   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "E   assert 999 == 1000\n1 failed, 3 passed in 0.31s",
        True,
    ),
    (
        "the same run in another temporary folder",
        "/tmp/pytest-of-ana/pytest-12/till/check_bill.py:21: AssertionError\nE   assert 999 == 1000",
        "/tmp/pytest-of-ana/pytest-13/till/check_bill.py:21: AssertionError\nE   assert 999 == 1000",
        True,
    ),
    (
        "a different wrong total",
        "check_bill.py:21: in test_split\nE   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "check_bill.py:21: in test_split\nE   assert 1002 == 1000\n1 failed, 3 passed in 0.02s",
        False,
    ),
    (
        "a different missing file in the temporary folder",
        "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/pytest-of-ana/pytest-12/config.json'",
        "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/pytest-of-ana/pytest-12/data.csv'",
        False,
    ),
    (
        "a different test failing",
        "FAILED check_bill.py::test_split - assert 999 == 1000",
        "FAILED check_bill.py::test_tip - assert 999 == 1000",
        False,
    ),
)


def _result(name: str, ok: bool, output: str, kind: str) -> ToolResult:
    return ToolResult("c", name, {}, ok, output, kind)  # type: ignore[arg-type]


def _differences(expected: FailureState, got: object) -> str:
    """Which fields differ, in words: 'same_diagnostic_streak should be 3, got 1; ...'."""
    if not isinstance(got, FailureState):
        return f"should return a FailureState, got {type(got).__name__}"
    wrong = [
        f"{f.name} should be {getattr(expected, f.name)!r}, got {getattr(got, f.name)!r}"
        for f in fields(FailureState)
        if getattr(expected, f.name) != getattr(got, f.name)
    ]
    return "; ".join(wrong)


def check_fold_diagnostic(
    fold: Callable[[FailureState, Sequence[ToolResult]], FailureState],
) -> list[str]:
    """Problems with a learner's fold, one line per case that differs; empty when every case holds."""
    fail_a = _result("run_tests", False, "E   assert 999 == 1000", "verify")
    fail_a_moved = _result("run_tests", False, "check_bill.py:23: E   assert 999 == 1000", "verify")
    fail_a_here = _result("run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify")
    fail_b = _result("run_tests", False, "E   assert 1002 == 1000", "verify")
    passed = _result("run_tests", True, "4 passed", "verify")
    edit = _result("write_file", True, "wrote bill.py", "mutate")
    refused = _result("write_file", False, "no such folder: src/", "mutate")
    read = _result("read_file", True, "def split(...)", "observe")
    live = fold_diagnostic(FailureState(), [fail_a])
    twice = fold_diagnostic(live, [fail_a])
    owed = fold_diagnostic(twice, [edit])
    cases = [
        ("a first failure", FailureState(), [fail_a]),
        ("the same failure again", live, [fail_a]),
        ("the same failure after an edit", owed, [fail_a]),
        (
            "the same failure, moved two lines",
            fold_diagnostic(FailureState(), [fail_a_here]),
            [fail_a_moved],
        ),
        ("a different failure", twice, [fail_b]),
        ("an edit on a live failure", twice, [edit]),
        ("an edit and a failing re-test in one turn", twice, [edit, fail_a]),
        ("an edit and a passing re-test in one turn", twice, [edit, passed]),
        ("a refused write while a re-verify is owed", owed, [refused]),
        ("a clean pass after an edit", owed, [passed]),
        ("a turn that only reads", twice, [read]),
        ("an empty turn", twice, []),
    ]
    problems = []
    for label, start, dispatch in cases:
        expected = fold_diagnostic(start, dispatch)
        got = fold(start, list(dispatch))
        if got != expected:
            problems.append(f"{label}: {_differences(expected, got)}")
    return problems


def check_signature(signature: Callable[[str], str]) -> list[str]:
    """Problems with a learner's signature over `SIGNATURE_PAIRS`; empty when every pair holds."""
    problems = []
    for label, first, second, same in SIGNATURE_PAIRS:
        a, b = signature(first), signature(second)
        if not isinstance(a, str) or not isinstance(b, str):
            return [f"{label}: my_signature should return text (a str), got {type(a).__name__}"]
        if same and a != b:
            problems.append(
                f"{label}: one failure seen twice, but the signatures differ, so the streak "
                "would start again at 1 (mask what changes between runs)"
            )
        if not same and a == b:
            problems.append(
                f"{label}: two different failures share a signature, so an agent that moved "
                "on would be told it is stuck (mask only what cannot be the failure)"
            )
    return problems
