"""Held-out reader I (7 Dec 2026 afternoon, sessions 11-15): the generated pairs that close its
session-13 wrong-way verdict reach the input they were built for, and ask nothing the lesson's
rule does not (docs/notes/checker-mutation.md, "7 Dec 2026 (afternoon): reader I, sessions
11-15"). Sessions 12 and 15 have theirs in tests/test_exercises_s12.py and s15.py.

- s13 signature: "a different call in the assertion" includes the same wrong value read through
  another index or key (`assert shares[0] == 334` against `shares[1]`). The pairs
  `different_failures` draws of that kind are two failures by the course's own
  `failure_signature` (tests/test_heldout_f_generators.py holds every drawn pair to it), and a
  signature that masks every `[n]` is found on them.
"""

from __future__ import annotations

from banks.bank_s13 import bracketed_numbers_masked, right_assert_lines, signature_by_rules
from hypothesis import HealthCheck, Phase, find, settings

from cafe.exercises.reference_s13 import different_failures
from cafe.exercises.s13 import check_signature
from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature

REACH = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate],
)


def _course_signature(output: str) -> str:
    return failure_signature(ToolResult("c", "run_tests", {}, False, output, "verify"))


def test_different_failures_reach_two_subscripts_alike_but_for_an_index():
    first, second, label = find(
        different_failures(),
        lambda pair: "another subscript:" in pair[2] and "[0]" in pair[0] + pair[1],
        settings=REACH,
    )
    assert _course_signature(first) != _course_signature(second), label
    assert [line for line in first.splitlines() if line.startswith("E ")] == [
        line for line in second.splitlines() if line.startswith("E ")
    ]


def test_signature_masking_every_bracketed_number_is_found_and_right_ones_pass():
    (problem,) = check_signature(bracketed_numbers_masked)
    assert "share the signature" in problem and "another subscript" in problem
    assert check_signature(signature_by_rules) == []
    assert check_signature(right_assert_lines) == []
