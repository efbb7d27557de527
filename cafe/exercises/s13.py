"""Session 13's your-turn checker: a learner's `fold_diagnostic`, compared case by case.

The notebook's exercise asks for the current-failure fold (`cafe.failure_state.fold_diagnostic`);
`check_fold_diagnostic` runs a learner's version over the cases that matter and lists what
differs. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cafe.failure_state import FailureState, fold_diagnostic
from cafe.loop import ToolResult

__all__ = ["check_fold_diagnostic"]


def _result(name: str, ok: bool, output: str, kind: str) -> ToolResult:
    return ToolResult("c", name, {}, ok, output, kind)  # type: ignore[arg-type]


def check_fold_diagnostic(fold: Callable[[FailureState, Sequence[ToolResult]], FailureState]) -> list[str]:
    """Problems with a learner's fold; empty when every case holds."""
    fail_a = _result("run_tests", False, "E   assert 999 == 1000", "verify")
    fail_a_moved = _result("run_tests", False, "check_bill.py:23: E   assert 999 == 1000", "verify")
    fail_a_here = _result("run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify")
    fail_b = _result("run_tests", False, "E   assert 1002 == 1000", "verify")
    passed = _result("run_tests", True, "4 passed", "verify")
    edit = _result("write_file", True, "wrote bill.py", "mutate")
    read = _result("read_file", True, "def split(...)", "observe")
    live = fold_diagnostic(FailureState(), [fail_a])
    twice = fold_diagnostic(live, [fail_a])
    owed = fold_diagnostic(twice, [edit])
    cases = [
        ("a first failure", FailureState(), [fail_a]),
        ("the same failure again", live, [fail_a]),
        ("the same failure after an edit", owed, [fail_a]),
        ("the same failure, moved two lines", fold_diagnostic(FailureState(), [fail_a_here]), [fail_a_moved]),
        ("a different failure", twice, [fail_b]),
        ("an edit on a live failure", twice, [edit]),
        ("an edit and a re-test in one turn", twice, [edit, fail_a]),
        ("a clean pass after an edit", owed, [passed]),
        ("a turn that only reads", twice, [read]),
        ("an empty turn", twice, []),
    ]
    problems = []
    for label, start, dispatch in cases:
        expected = fold_diagnostic(start, dispatch)
        got = fold(start, list(dispatch))
        if got != expected:
            problems.append(f"{label}: expected {expected}, got {got}")
    return problems
