"""Session 13's unsettled mutmut survivor, settled as a hole (docs/notes/checker-mutation.md,
7 Dec 2026 morning): `signature_by_rules` with its clock pattern no longer matching ISO 8601's
`T` passed, because the checker's only log clock was Python logging's ("2026-11-30 12:00:01,204").

The lesson counts "clocks move" among the run-to-run noise a signature masks, so `check_signature`
now also tries one failure logged at two moments with the clock in every shape a log line's
clock takes (`reference_s13.logged_pairs`); the mutant's mistake is banked as
`bank_s13.clock_with_a_space_only`. These tests hold the generator to the course's own rule: the
course's `failure_signature` gives each generated pair one signature, so the checker asks nothing
the lesson's rule does not, and the generator reaches the shapes the mutant missed.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, find, given, settings

from cafe.exercises.reference_s13 import logged_pairs
from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature

SEEDED = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def course_signature(output: str) -> str:
    return failure_signature(ToolResult("c", "run_tests", {}, False, output, "verify"))


@SEEDED
@given(logged_pairs())
def test_the_course_s_signature_counts_each_generated_logged_pair_as_one_failure(pair):
    first, second, clocks = pair
    assert course_signature(first) == course_signature(second), clocks


def test_logged_pairs_reach_an_iso_clock_and_a_date_that_moves_at_midnight():
    def iso_across_midnight(pair: tuple[str, str, Any]) -> bool:
        first, later = pair[2]
        return "T" in first and first[:10] != later[:10]

    find(logged_pairs(), iso_across_midnight, settings=SEEDED)
