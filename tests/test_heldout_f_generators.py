"""Held-out reader F (7 Dec 2026, sessions 12-15): the generated inputs that now close its
wrong-way verdicts ask nothing the lesson's rule does not, and reach the inputs they were built
for (docs/notes/checker-mutation.md, "7 Dec 2026 (morning): reader F, sessions 12-15").

- s13 signature: every pair `reference_s13.different_failures` draws (another test, price,
  checksum, order, case) is two failures by the course's own `failure_signature`, so a learner's
  signature is asked to tell apart only what the lesson's rules tell apart.
- s13 fold: with checks a hook forced among the generated results, the reference fold still
  agrees with the course's `fold_diagnostic` ("marked `forced`, so the detector folds it like any
  other evidence").
- s15 tier and s12 calibrate: the agreement with the library is in
  tests/test_exercise_references.py (the same strategies); here, that they reach the attached
  flags and the unsteady judge at all.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from cafe.exercises.reference_s12 import judge_days
from cafe.exercises.reference_s13 import different_failures, fold, turns
from cafe.exercises.reference_s15 import labelled_commands
from cafe.judge.grading import Grade
from cafe.judge.labelled import labelled_tickets
from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature
from cafe.stall.failure_state import FailureState, fold_diagnostic

SEEDED = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
# For "the strategy reaches X": the first such draw will do (shrinking it would only cost time).
REACH = settings(SEEDED, phases=[Phase.generate])


def course_signature(output: str) -> str:
    return failure_signature(ToolResult("c", "run_tests", {}, False, output, "verify"))


@SEEDED
@given(different_failures())
def test_the_course_s_signature_tells_each_generated_pair_of_failures_apart(pair):
    first, second, label = pair
    assert course_signature(first) != course_signature(second), label


@pytest.mark.parametrize("kind", ["test", "price", "checksum", "order", "case"])
def test_different_failures_reach_every_kind_the_lesson_names(kind):
    find(different_failures(), lambda pair: f"another {kind}:" in pair[2], settings=REACH)


def _result(name: str, ok: bool, output: str, kind: Any) -> ToolResult:
    return ToolResult("c", name, {}, ok, output, kind)


def _forced(name: str, ok: bool, output: str, kind: Any) -> ToolResult:
    return ToolResult("c", name, {}, ok, output, kind, forced=True)


@SEEDED
@given(turns(_result, _forced))
def test_reference_fold_agrees_with_fold_diagnostic_on_turns_with_forced_checks(case):
    history, turn = case
    state = FailureState()
    for earlier in history:
        state = fold_diagnostic(state, earlier)
    assert fold(state, turn, FailureState, failure_signature) == fold_diagnostic(state, turn)


def test_generated_turns_reach_a_forced_re_test_after_an_edit():
    def mandated(case: Any) -> bool:
        _, turn = case
        kinds = [(r.kind, r.forced) for r in turn]
        return ("mutate", False) in kinds and kinds[-1] == ("verify", True)

    find(turns(_result, _forced), mandated, settings=REACH)


@pytest.mark.parametrize("flag", ["-run=", "-k", "-m"])
def test_generated_commands_reach_a_flag_with_its_value_attached(flag):
    def attached(labelled: tuple[str, Any]) -> bool:
        return any(w.startswith(flag) and w != flag for w in labelled[0].split())

    find(labelled_commands(), attached, settings=REACH)


def test_generated_days_reach_an_unsteady_judge_on_a_ticket_it_passed():
    pool = tuple(labelled_tickets(24, 0.5, seed=5))

    def unsteady_pass(day: Any) -> bool:
        judge, item = day.judge(), day.labelled()[0]
        first = judge(item.spec, item.ticket)
        verdict = first.verdict if isinstance(first, Grade) else first
        return day.unsteady and verdict == "pass" and judge(item.spec, item.ticket) == "fail"

    find(judge_days(pool, Grade), unsteady_pass, settings=REACH)
