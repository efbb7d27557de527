"""Tests for cafe/stall/repeats.py: the blind repeat counters (inside a running detector: test_stall.py)."""

from __future__ import annotations

from cafe.loop.agent import ToolResult
from cafe.stall.repeats import (
    REPEAT_PATTERNS,
    REPEATED_FAILURE_AFTER,
    RepeatCounters,
    action_key,
    count_repeats,
    repeat_trip,
)

RED = ToolResult("c", "run_tests", {}, False, "E   assert 999 == 1000 (took 12ms)", "verify")
RED_SLOWER = ToolResult("c", "run_tests", {}, False, "E   assert 999 == 1000 (took 40ms)", "verify")
READ = ToolResult("c", "read_file", {"path": "bill.py"}, True, "def split(...)", "observe")


def fold(*turns, failed=True):
    counters = RepeatCounters()
    for dispatch in turns:
        counters = count_repeats(counters, dispatch, failed=failed)
    return counters


def test_same_action_same_normalised_failure_counts_up_and_trips_at_three():
    counters = fold([RED], [RED_SLOWER], [RED])
    assert counters.same_error == REPEATED_FAILURE_AFTER == 3
    assert repeat_trip(counters)[0] == "repeated_error"


def test_a_different_action_starts_the_counters_again():
    counters = count_repeats(fold([RED], [RED]), [READ], failed=False)
    assert (counters.same_error, counters.same_observation) == (0, 1)
    assert repeat_trip(counters) is None


def test_an_empty_turn_changes_nothing_and_forced_checks_are_not_the_models_action():
    counters = fold([RED], [RED])
    assert count_repeats(counters, [], failed=False) == counters
    forced = ToolResult("v", "run_tests", {}, False, RED.output, "verify", forced=True)
    assert action_key([RED, forced]) == action_key([RED])


def test_repeated_same_observation_trips_for_non_failing_repeats():
    counters = fold([READ], [READ], [READ], failed=False)
    assert repeat_trip(counters)[0] == "repeated_same_observation" and counters.longest == 3
    assert REPEAT_PATTERNS == {"repeated_error", "repeated_same_observation"}
