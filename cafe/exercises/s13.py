"""Session 13's your-turn checkers: the current-failure fold, then a failure signature of your own.

1. `check_fold_diagnostic` runs a learner's fold (the notebook's `my_fold`, the mechanism of
   `cafe.stall.failure_state.fold_diagnostic`) over the cases that matter and names each field that
   differs, so a plausible wrong fold (a streak reset by edits, an edit that hides the check run
   after it, a refused write taken for the bug's failure) fails with a specific complaint. Each
   case's expected state comes from `cafe.exercises.reference_s13.fold`, written apart from the
   library; then the learner's fold is compared with it on generated turns folded from generated
   states, checks and writes a hook forced among them, edits through two tools (`write_epoch`
   counts every successful `mutate` result). The course's `fold_diagnostic` is refused.
2. `check_signature` runs a learner's `my_signature(output)`, written any way they like, over
   pairs of real-looking test output: pairs that are one failure seen twice must share a
   signature, pairs that are two failures must not; then over generated pairs of two different
   wrong totals of any length (`reference_s13.total_pairs`) and of two failures of each other
   kind the lesson names (another test, price, checksum of any width, order or case:
   `reference_s13.different_failures`), which must not share one; of one failure seen twice under
   each kind of run-to-run noise the notebook names, drawn across its range (any line, duration,
   temporary folder, worker, address, colour: `reference_s13_pairs.noise_pairs`), and logged at
   two moments, its clock in every shape a log line's takes (`reference_s13.logged_pairs`),
   which must share one; and last, the hand-picked outputs again in a fresh Python process with
   another hash seed (`reference_s13_process`), in reverse order after two failures never signed
   before (signed here the other way round), which must give the signatures they gave here: a
   signature is a function of the failure's text alone, whatever was signed before it.

Notebook: notebooks/s13-stall-detection.ipynb. Lesson: sessions/s13-stall-detection/lesson.md.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    shown,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_broken, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s13 import (
    assertion_output,
    described,
    different_failures,
    fold,
    logged_pairs,
    total_pairs,
    turns,
)
from cafe.exercises.reference_s13_pairs import SIGNATURE_PAIRS, noise_pairs
from cafe.exercises.reference_s13_process import in_fresh_process
from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature
from cafe.stall.failure_state import FailureState, fold_diagnostic
from cafe.world.processes import without_secrets

__all__ = ["SIGNATURE_PAIRS", "FOLD_IDEA", "check_fold_diagnostic", "check_signature"]


def _result(name: str, ok: bool, output: str, kind: str, forced: bool = False) -> ToolResult:
    return ToolResult("c", name, {}, ok, output, kind, forced)  # type: ignore[arg-type]


def _forced(name: str, ok: bool, output: str, kind: str) -> ToolResult:
    """A check a hook ran itself (the post-edit re-verify): folded like any other evidence."""
    return _result(name, ok, output, kind, forced=True)


def _differences(expected: FailureState, got: FailureState) -> str:
    """Which fields differ, in words: 'same_diagnostic_streak should be 3, got 1; ...'."""
    wrong = [
        f"{f.name} should be {getattr(expected, f.name)!r}, got {getattr(got, f.name)!r}"
        for f in fields(FailureState)
        if getattr(expected, f.name) != getattr(got, f.name)
    ]
    return "; ".join(wrong)


_NEW = "a different signature starts the streak again at 1"
_SAME = "the same signature as the live failure adds one to the streak"
_HOLD = "an edit keeps the diagnosis: it is evidence of a try, not of a fix"
_OWED = "an edit on top of a live failure owes a re-verify; only a check after it pays it"
_FIRST = "the first failing check decides the turn, so an edit cannot hide a failed re-test"
_ORDER = "results are read in the order they ran: a check after the edit is the edit verified"
_LATER = "results are read in the order they ran: an edit after the turn's last check is unchecked"
_STILL = "with no edit between them, a passing check cannot hide a failing one"
_TOOL = "a failing tool that is not a check is about that tool, not the bug: nothing changes"
_EPOCH = "write_epoch counts successful mutate results only"


def _expected(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """The reference's state after one turn (`reference_s13.fold`), never the library's."""
    found: FailureState = fold(state, dispatch, FailureState, failure_signature)
    return found


FOLD_IDEA = (
    "read the turn in order: the last stretch that ran a check speaks (its first failure, else "
    "a pass); the same signature adds one; an edit after the last check is owed a re-verify; "
    "a result a hook ran itself (forced) counts like any other, its write in write_epoch too"
)


def _start(history: Sequence[Sequence[ToolResult]]) -> FailureState:
    state = FailureState()
    for turn in history:
        state = _expected(state, turn)
    return state


def _generated_fold(fold_fn: Callable[..., object]) -> str | None:
    """The smallest generated (earlier turns, turn) where the learner's fold differs; the earlier
    turns may be a run of up to 15 failing alike, since a streak has no cap."""
    kept: list[Any] = [None, None]  # the last history folded and its state: each is asked twice

    def start(history: Any) -> FailureState:
        if kept[0] is not history:  # runs of up to 15 turns: fold each once
            kept[:] = [history, _start(history)]
        return kept[1]

    found = first_difference(
        lambda case: fold_fn(start(case[0]), list(case[1])),
        lambda case: _expected(start(case[0]), case[1]),
        built_once(turns, _result, _forced),
        idea=FOLD_IDEA,
        frozen=True,
    )
    if found is None:
        return None
    history, turn = found.given
    words = " / ".join("[" + ", ".join(map(described, t)) + "]" for t in history) or "nothing"
    given = Described(f"after {words}, the turn [{', '.join(map(described, turn))}]")
    return counterexample(given, found.returned, found.expected, found.idea)


def _fold_cases() -> list[tuple[str, FailureState, list[ToolResult], str]]:
    """(case, start state, one turn's results, the idea it tests), built from one failing test."""
    fail_a = _result("run_tests", False, "E   assert 999 == 1000", "verify")
    fail_a_moved = _result("run_tests", False, "check_bill.py:23: E   assert 999 == 1000", "verify")
    fail_a_here = _result("run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify")
    fail_b = _result("run_tests", False, "E   assert 1002 == 1000", "verify")
    passed = _result("run_tests", True, "4 passed", "verify")
    edit = _result("write_file", True, "wrote bill.py", "mutate")
    refused = _result("write_file", False, "no such folder: src/", "mutate")
    missing = _result("read_file", False, "FileNotFoundError: bil.py", "observe")
    read = _result("read_file", True, "def split(...)", "observe")
    live = _expected(FailureState(), [fail_a])
    twice = _expected(live, [fail_a])
    owed = _expected(twice, [edit])
    green = _expected(live, [passed])
    moved_from = _expected(FailureState(), [fail_a_here])
    return [
        ("a first failure", FailureState(), [fail_a], _NEW),
        ("the same failure again", live, [fail_a], _SAME),
        ("the same failure after an edit", owed, [fail_a], _SAME + "; an edit does not reset it"),
        ("the same failure, moved two lines", moved_from, [fail_a_moved], _SAME),
        ("a different failure", twice, [fail_b], _NEW),
        ("an edit on a live failure", twice, [edit], _OWED),
        ("an edit before anything was tested", FailureState(), [edit], _HOLD + "; nothing is owed"),
        ("an edit after a clean pass", green, [edit], _HOLD + "; nothing failing, nothing owed"),
        ("an edit and a failing re-test in one turn", twice, [edit, fail_a], _FIRST),
        ("an edit and a passing re-test in one turn", twice, [edit, passed], _ORDER),
        ("a failing test and then an edit in one turn", twice, [fail_a, edit], _LATER),
        ("a passing test and then an edit in one turn", twice, [passed, edit], _LATER),
        ("a red test, a fix, a green test in one turn", twice, [fail_a, edit, passed], _ORDER),
        ("two failing checks in one turn, a new one first", live, [fail_b, fail_a], _FIRST),
        ("a red test, a read, a green test, no edit", twice, [fail_a, read, passed], _STILL),
        ("a red test, an edit, the same red test", twice, [fail_a, edit, fail_a], _ORDER),
        ("an edit and a failing re-test while one is owed", owed, [edit, fail_a], _OWED),
        ("a refused write on a live failure", twice, [refused], _TOOL + "; " + _EPOCH),
        ("a refused write while a re-verify is owed", owed, [refused], _TOOL),
        ("a missing file before anything was tested", FailureState(), [missing], _TOOL),
        (
            "a red test and a refused write in one turn",
            twice,
            [fail_a, refused],
            _SAME + "; the refused write beside it is about the write",
        ),
        ("a clean pass after an edit", owed, [passed], "a clean pass clears the failure"),
        ("a turn that only reads", twice, [read], "a quiet turn changes nothing"),
        ("an empty turn", twice, [], "a quiet turn changes nothing"),
    ]


def check_fold_diagnostic(
    fold: Callable[[FailureState, Sequence[ToolResult]], FailureState],
) -> list[str]:
    """Problems with a learner's fold, one per case that differs; empty when every case holds."""
    if is_library(fold, fold_diagnostic, trial=_fold_cases()[0][1:3]):
        return [library_answer("fold_diagnostic")]
    problems = []
    for label, start, dispatch, idea in _fold_cases():
        expected = _expected(start, dispatch)
        got = call(fold, start, list(dispatch))
        if isinstance(got, Raised):
            problems.append(got.problem(label))
        elif not isinstance(got, FailureState):
            problems.append(wrong_type(label, got, "a new FailureState"))
        elif got != expected:
            problems.append(f"{label}: {_differences(expected, got)}\n  ({idea})")
    found = None if problems else _generated_fold(fold)
    return [found] if found else problems


def _signature_problem(label: str, a: object, b: object, same: bool) -> str | None:
    for value in (a, b):
        if isinstance(value, Raised):
            return value.problem(label)
        if not isinstance(value, str):
            return wrong_type(label, value, "text (a str): the signature")
    if same and a != b:
        return (
            f"{label}: one failure seen twice, but the signatures differ ({shown(a, 40)} and "
            f"{shown(b, 40)}),\n  so the streak would start again at 1 (mask what changes between runs)"
        )
    if not same and a == b:
        return (
            f"{label}: two different failures share the signature {shown(a, 40)},\n  so an agent "
            "that moved on would be told it is stuck (mask only what cannot be the failure)"
        )
    return None


def _totals() -> Any:
    """Two different wrong totals of one assertion (`total_pairs`), each run and its label."""
    return total_pairs().map(
        lambda t: (
            assertion_output(t[0], t[2]),
            assertion_output(t[1], t[2]),
            f"two wrong totals, E assert {t[0]} == {t[2]} and E assert {t[1]} == {t[2]}",
        )
    )


def _clocks() -> Any:
    """One failure logged at two moments (`logged_pairs`), each run and its label."""
    return logged_pairs().map(
        lambda p: (
            p[0],
            p[1],
            f"one failure logged at {p[2][0]} and at {p[2][1]} ({shown(p[0], 50)})",
        )
    )


def _generated_pairs(signature: Callable[[str], str], pairs: Any, same: bool) -> str | None:
    """The smallest generated (first run, second run, label) whose signatures break the rule:
    different for one failure seen twice (`same`), or equal for two failures."""

    def both(given: tuple[str, str, str]) -> tuple[str, str]:
        return signature(given[0]), signature(given[1])

    def broken(given: tuple[str, str, str], got: object) -> bool:
        return not isinstance(got, tuple) or (got[0] == got[1]) is not same

    found = first_broken(both, pairs, broken)
    if found is None:
        return None
    (_, _, label), got = found
    first_got, second_got = got if isinstance(got, tuple) else (got, got)
    return _signature_problem(label, first_got, second_got, same)


# Two failures no check in this process has signed yet: two wrong totals, new at each check.
_UNSIGNED = itertools.count(1)


def _unsigned() -> tuple[str, str]:
    total = 987_654_321 - 2 * next(_UNSIGNED)
    return f"E   assert {total} == 1000", f"E   assert {total - 1} == 1000"


def _fresh_process(signature: Callable[[str], str]) -> str | None:
    """The first output whose signature differs in a fresh Python process with another hash seed
    (`reference_s13_process`), in words; None when every one matches, or when the function could
    not be sent there (the check is then skipped). A signature is a function of the failure's text
    alone, whatever was signed before it: the child signs the hand-picked outputs in reverse order
    after two failures never signed before, and this process signs those two the other way round."""
    outputs = list(dict.fromkeys(text for _, *pair, _ in SIGNATURE_PAIRS for text in pair))
    first, second = _unsigned()
    there = in_fresh_process(
        signature, [first, second, *outputs[::-1]], without_secrets(os.environ)
    )
    if there is None:
        return None
    here_second, here_first = call(signature, second), call(signature, first)
    for output, (how, answer) in zip(outputs, there[2:][::-1], strict=True):
        here = call(signature, output)
        if how != "returned" or answer != here:
            got = shown(answer, 40) if how == "returned" else f"raised {answer}"
            return (
                f"one failure in two fresh processes, {shown(output, 50)}: the signature is "
                f"{shown(here, 40)} here and {got} in a fresh Python,\n  so the same failure seen "
                "from another process (a resumed run, a grader) looks new (Python picks a new hash "
                "seed for each process: hash() and a set's order change with it; hashlib does not)"
            )
    for output, other, here, (how, answer) in zip(
        (first, second), (second, first), (here_first, here_second), there[:2], strict=True
    ):
        if how != "returned" or answer != here:
            got = shown(answer, 40) if how == "returned" else f"raised {answer}"
            return (
                f"one failure signed in two processes, {shown(output, 50)}: the signature is "
                f"{shown(here, 40)} here, after {shown(other, 30)}, and {got} in a fresh Python "
                "that signed it first,\n  so a failure would look new or old by what the process "
                "met before (a signature is a function of the failure's text alone: no counter, "
                "no memory of earlier calls)"
            )
    return None


def check_signature(signature: Callable[[str], str]) -> list[str]:
    """Problems with a learner's signature over `SIGNATURE_PAIRS`, then on generated pairs: wrong
    totals and the lesson's other kinds of two failures apart, one failure under each kind of
    run-to-run noise and its log clocks together, and the same signature in a fresh process;
    empty when every pair holds."""
    problems = []
    for label, first, second, same in SIGNATURE_PAIRS:
        problem = _signature_problem(label, call(signature, first), call(signature, second), same)
        if problem:
            problems.append(problem)
    if problems:
        return problems
    found = (
        _generated_pairs(signature, built_once(_totals), False)
        or _generated_pairs(signature, built_once(different_failures), False)
        or _generated_pairs(signature, built_once(noise_pairs), True)
        or _generated_pairs(signature, built_once(_clocks), True)
        or _fresh_process(signature)
    )
    return [found] if found else []
