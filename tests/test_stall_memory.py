"""Tests for cafe/stall/memory.py: the hard cap's count of failing checks, folded turn by turn."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.loop.turns import ToolResult
from cafe.stall.memory import DetectorState, fold_turn


def result(output, ok=False, kind="verify", name="run_tests"):
    return ToolResult("c", name, {}, ok, output, kind)


FAIL_A = result("E   assert 999 == 1000")
FAIL_B = result("E   assert 1002 == 1000")
PASS = result("4 passed", ok=True)
EDIT = result("wrote 10 characters", ok=True, kind="mutate", name="write_file")
READ = result("text", ok=True, kind="observe", name="read_file")
REFUSED = result("no such folder: src/", kind="mutate", name="write_file")


def count(*turns):
    state = DetectorState()
    for dispatch in turns:
        state, _, _ = fold_turn(state, dispatch)
    return state.failing_verify_turns


def _oracle_count(before, dispatch):
    """The cap's rule, apart from the library: the turn's speaking checks are the checks after
    the last successful edit before its last check. A failing one counts the turn; all passing,
    with no successful edit after the last check, is a clean pass and resets the count; anything
    else (no check, or a green check followed by an edit) leaves it."""
    checks = [i for i, r in enumerate(dispatch) if r.kind == "verify"]
    if not checks:
        return before
    edits = [i for i, r in enumerate(dispatch) if r is EDIT]
    cut = max((i for i in edits if i < checks[-1]), default=-1)
    if any(not dispatch[i].ok for i in checks if i > cut):
        return before + 1
    return before if any(i > checks[-1] for i in edits) else 0


def test_hard_cap_count_resets_on_a_clean_pass_only():
    assert count([FAIL_A], [FAIL_B], [PASS]) == 0
    assert count([FAIL_A], [FAIL_B], [EDIT, PASS]) == 0  # the check saw the edit (lesson 13)
    assert count([FAIL_A], [FAIL_B], [PASS, EDIT]) == 2  # reader V s42: the edit is unchecked
    assert count([FAIL_A], [FAIL_B], [PASS, EDIT], [FAIL_A]) == 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([FAIL_A, FAIL_B, PASS, EDIT, READ, REFUSED]), max_size=5)))
def test_hard_cap_count_follows_the_clearing_rule_on_any_turns(turns):
    state, expected = DetectorState(), 0
    for dispatch in turns:
        state, _, _ = fold_turn(state, dispatch)
        expected = _oracle_count(expected, dispatch)
        assert state.failing_verify_turns == expected
