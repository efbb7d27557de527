"""Tests for cafe/stall/repeats.py: the blind repeat counters, per proposed call (inside a running
detector: test_stall.py; against the reference cases: test_stall_reference.py)."""

from __future__ import annotations

from cafe.loop.turns import ToolCall, ToolResult
from cafe.stall.repeats import (
    REPEAT_PATTERNS,
    REPEAT_SAME_ERROR,
    REPEAT_SAME_OBSERVATION,
    RepeatCounters,
    call_key,
    count_call,
    outside_the_model,
    repeat_trip,
)

TEST = ToolCall("c", "run_tests", {}, "{}")
READ = ToolCall("c", "read_file", {"path": "bill.py"}, '{"path": "bill.py"}')
RED = ToolResult("c", "run_tests", {}, False, "E   assert 999 == 1000 (took 12ms)", "verify")
RED_SLOWER = ToolResult("c", "run_tests", {}, False, "E   assert 999 == 1000 (took 40ms)", "verify")
OTHER_RED = ToolResult("c", "run_tests", {}, False, "E   assert 1002 == 1000", "verify")
TEXT = ToolResult("c", "read_file", {"path": "bill.py"}, True, "def split(...)", "observe")


def count(*steps: tuple[ToolCall, tuple[ToolResult, ...]]) -> RepeatCounters:
    """Fold (proposed call, previous turn's results) steps, in order."""
    counters = RepeatCounters()
    for call, prev in steps:
        counters = count_call(counters, call, prev)
    return counters


def test_same_call_failing_the_same_way_trips_repeated_error_after_three_failures():
    # turn 1 proposes the call (no result yet); turns 2, 3, 4 propose it again after it failed
    counters = count((TEST, ()), (TEST, (RED,)), (TEST, (RED_SLOWER,)), (TEST, (RED,)))
    assert counters.same_error == REPEAT_SAME_ERROR == 3  # the timing is noise, not a change
    assert repeat_trip(counters, "run_tests")[0] == "repeated_error"
    assert repeat_trip(count((TEST, ()), (TEST, (RED,)), (TEST, (RED,))), "run_tests") is None


def test_same_call_answering_the_same_trips_repeated_same_observation_on_the_fourth_ask():
    steps = [(READ, ())] + [(READ, (TEXT,))] * 3
    counters = count(*steps)
    assert counters.same_observation == REPEAT_SAME_OBSERVATION == 4  # this ask counted
    assert repeat_trip(counters, "read_file")[0] == "repeated_same_observation"
    assert repeat_trip(count(*steps[:3]), "read_file") is None


def test_a_changed_answer_starts_the_count_again_at_one():
    counters = count((TEST, ()), (TEST, (RED,)), (TEST, (RED,)), (TEST, (OTHER_RED,)))
    assert counters.same_error == 1


def test_a_different_call_starts_the_counters_again():
    counters = count((TEST, ()), (TEST, (RED,)), (TEST, (RED,)), (READ, (RED,)))
    assert (counters.same_error, counters.same_observation) == (0, 1)
    assert repeat_trip(counters, "read_file") is None


def test_the_outcome_is_the_same_tools_first_result_and_never_a_forced_check():
    forced = ToolResult("v", "run_tests", {}, True, "4 passed", "verify", forced=True)
    counters = count((TEST, ()), (TEST, (forced, RED)), (TEST, (forced, RED)))
    assert counters.same_error == 2 and counters.last_failed
    # a turn of [edit, test]: the test call's outcome is the previous turn's test result
    assert call_key(TEST) != call_key(READ)


def test_repeat_patterns_are_the_declared_closed_set():
    assert REPEAT_PATTERNS == {"repeated_error", "repeated_same_observation"}


def test_outside_the_model_keeps_repeated_error_for_a_tool_that_is_not_a_check():
    write = ToolCall("c", "write_file", {"path": "src/bill.py"}, '{"path": "src/bill.py"}')
    refused = ToolResult("c", "write_file", {}, False, "no such folder: src/", "mutate")
    assert outside_the_model("repeated_error", write, (refused,))
    assert not outside_the_model("repeated_error", TEST, (RED,))  # a check: the model's
    assert not outside_the_model("repeated_same_observation", READ, (TEXT,))
    assert not outside_the_model("repeated_error", write, ())  # nothing known about it yet
