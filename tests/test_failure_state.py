"""Tests for cafe/stall/failure_state.py: the current-failure model, a pure fold over each turn's results."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature
from cafe.stall.failure_state import (
    FailureState,
    classify_turn,
    clear_current_failure,
    fold_diagnostic,
)


def result(output, ok=False, kind="verify", name="run_tests"):
    return ToolResult("c", name, {}, ok, output, kind)


# --- the fold --------------------------------------------------------------------------------

FAIL_A = result("E   assert 999 == 1000")
FAIL_B = result("E   assert 1002 == 1000")
PASS = result("4 passed", ok=True)
EDIT = result("wrote 10 characters", ok=True, kind="mutate", name="write_file")
READ = result("text", ok=True, kind="observe", name="read_file")
REFUSED = result("no such folder: src/", kind="mutate", name="write_file")
BROKEN_READ = result("FileNotFoundError: nope.py", kind="observe", name="read_file")


def fold_all(*turns):
    state = FailureState()
    for dispatch in turns:
        state = fold_diagnostic(state, dispatch)
    return state


def test_fold_same_signature_across_edits_increments_streak():
    model = fold_all([FAIL_A], [EDIT], [FAIL_A], [EDIT], [FAIL_A])
    assert (model.last_diagnostic_class, model.same_diagnostic_streak, model.write_epoch) == (
        "fail",
        3,
        2,
    )


def test_fold_productive_edit_resets_streak():
    model = fold_all([FAIL_A], [FAIL_A], [EDIT], [FAIL_B])
    assert model.same_diagnostic_streak == 1
    assert model.last_diagnostic_signature == failure_signature(FAIL_B)


def test_fold_classifies_a_turn_by_its_first_failing_check():
    assert classify_turn([EDIT, FAIL_A]) == ("fail", FAIL_A)
    model = fold_all([FAIL_A], [EDIT, FAIL_A])
    assert model.same_diagnostic_streak == 2 and model.write_epoch == 1


def test_fold_edit_on_a_live_failure_owes_a_reverify_and_keeps_the_state():
    before = fold_all([FAIL_A])
    after = fold_diagnostic(before, [EDIT])
    assert after.reverify_owed and after.edit_since_failure and after.write_epoch == 1
    assert (after.last_diagnostic_signature, after.same_diagnostic_streak) == (
        before.last_diagnostic_signature,
        1,
    )
    assert not fold_diagnostic(after, [FAIL_A]).reverify_owed  # the re-test paid the debt


def test_fold_pass_after_an_edit_in_the_same_turn_clears_the_state():
    # the results are read in the order they ran: the check saw the edit and passed
    after = fold_all([FAIL_A], [EDIT, PASS])
    assert after == FailureState("pass", None, 1, 0, False, False)


def test_fold_edit_after_a_check_in_the_same_turn_is_still_unchecked():
    after = fold_all([FAIL_A], [FAIL_A, EDIT])
    assert (after.last_diagnostic_class, after.same_diagnostic_streak) == ("fail", 2)
    assert after.reverify_owed and after.edit_since_failure


def test_fold_pass_then_edit_on_a_live_failure_keeps_it_and_owes_a_reverify():
    # reader V's s40: a green check cannot vouch for an edit made after it
    live = fold_all([FAIL_A])
    after = fold_diagnostic(live, [PASS, EDIT])
    assert classify_turn([PASS, EDIT]) == ("edit", EDIT)
    assert after == FailureState("fail", live.last_diagnostic_signature, 1, 1, True, True)
    assert fold_diagnostic(after, [PASS]) == FailureState("pass", None, 1, 0, False, False)
    # the same shape after a fix verified green earlier in the turn
    assert fold_diagnostic(live, [FAIL_A, EDIT, PASS, EDIT]) == replace(after, write_epoch=2)


def test_fold_pass_then_edit_with_nothing_failing_owes_nothing():
    green = fold_all([PASS])
    assert fold_diagnostic(green, [PASS, EDIT]) == replace(green, write_epoch=1)
    assert fold_diagnostic(FailureState(), [PASS, EDIT]) == FailureState(write_epoch=1)


def test_fold_latest_checked_stretch_of_a_turn_decides_it():
    assert classify_turn([FAIL_A, EDIT, PASS]) == ("pass", PASS)
    assert classify_turn([PASS, EDIT, FAIL_B]) == ("fail", FAIL_B)
    assert classify_turn([FAIL_A, EDIT, FAIL_B, EDIT]) == ("fail", FAIL_B)
    assert classify_turn([EDIT, FAIL_B, FAIL_A]) == ("fail", FAIL_B)  # first failing in a stretch
    assert classify_turn([EDIT, PASS, FAIL_A]) == ("fail", FAIL_A)  # a pass cannot hide it


def test_fold_failing_tool_that_is_not_a_check_leaves_the_live_failure_alone():
    live = fold_all([FAIL_A], [FAIL_A])
    for other in (REFUSED, BROKEN_READ):
        assert classify_turn([other]) == ("quiet", None)
        assert fold_diagnostic(live, [other]) == live
        assert fold_diagnostic(FailureState(), [other]) == FailureState()
    # a red test alternating with a refused write: the streak keeps counting
    assert fold_all([FAIL_A], [REFUSED], [FAIL_A], [REFUSED], [FAIL_A]).same_diagnostic_streak == 3


def test_fold_clean_pass_on_a_non_edit_turn_clears_the_state():
    model = fold_all([FAIL_A], [EDIT], [PASS])
    assert model == FailureState("pass", None, 1, 0, False, False)


def test_fold_reads_and_empty_turns_change_nothing():
    model = fold_all([FAIL_A], [FAIL_A])
    assert fold_diagnostic(model, [READ]) == model
    assert fold_diagnostic(model, []) == model


def test_clear_current_failure_keeps_only_the_epoch():
    assert clear_current_failure(fold_all([FAIL_A], [EDIT], [FAIL_A])) == FailureState(
        write_epoch=1
    )


dispatches = st.lists(
    st.sampled_from([FAIL_A, FAIL_B, PASS, EDIT, READ, REFUSED, BROKEN_READ]), max_size=4
)


def _deciding_check(dispatch):
    """An oracle written apart from classify_turn: the checks that ran after the last successful
    edit before the turn's last check; the first failing one of them, else the first of them."""
    checks = [i for i, r in enumerate(dispatch) if r.kind == "verify"]
    if not checks:
        return None
    edits = [i for i in range(checks[-1]) if dispatch[i] is EDIT]
    since = [dispatch[i] for i in checks if i > (edits[-1] if edits else -1)]
    return next((r for r in since if not r.ok), since[0])


def _edit_after_last_check(dispatch):
    """Apart from the library: a successful edit ran after the turn's last check."""
    checks = [i for i, r in enumerate(dispatch) if r.kind == "verify"]
    return any(r is EDIT for r in dispatch[(checks[-1] + 1 if checks else 0) :])


@settings(max_examples=200, deadline=None)
@given(st.lists(dispatches, max_size=12))
def test_fold_invariants_hold_for_any_turn_sequence(turns):
    model = FailureState()
    for dispatch in turns:
        before = model
        model = fold_diagnostic(before, dispatch)
        kind, deciding = classify_turn(dispatch)
        expected = _deciding_check(dispatch)
        if expected is not None and not expected.ok:
            assert (kind, deciding) == ("fail", expected)
        elif expected is not None and not _edit_after_last_check(dispatch):
            assert (kind, deciding) == ("pass", expected)
        # a failing tool that is not a check is not evidence about the bug
        kept = [r for r in dispatch if r.ok or r.kind == "verify"]
        assert fold_diagnostic(before, kept) == fold_diagnostic(before, dispatch)
        assert model.write_epoch == before.write_epoch + sum(r is EDIT for r in dispatch)
        assert model.same_diagnostic_streak >= 0
        if kind == "fail":
            assert model.last_diagnostic_class == "fail" and model.same_diagnostic_streak >= 1
            assert model.last_diagnostic_signature == failure_signature(deciding)
            same = (
                before.last_diagnostic_class == "fail"
                and before.last_diagnostic_signature == model.last_diagnostic_signature
            )
            assert model.same_diagnostic_streak == (
                before.same_diagnostic_streak + 1 if same else 1
            )
        elif kind == "pass":
            assert model == FailureState("pass", None, model.write_epoch, 0, False, False)
        elif kind == "quiet":
            assert model == before
        else:  # an edit keeps the diagnosis
            assert (
                model.last_diagnostic_class,
                model.last_diagnostic_signature,
                model.same_diagnostic_streak,
            ) == (
                before.last_diagnostic_class,
                before.last_diagnostic_signature,
                before.same_diagnostic_streak,
            )
        assert fold_diagnostic(before, dispatch) == model  # pure: same input, same output


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([EDIT, READ]), max_size=3), st.integers(min_value=1, max_value=8))
def test_fold_same_failure_between_any_non_failing_turns_keeps_counting(between, repeats):
    turns = []
    for _ in range(repeats):
        turns += [[FAIL_A], between]
    assert fold_all(*turns).same_diagnostic_streak == repeats


# --- the clearing rule, on generated turns ---------------------------------------------------


def _oracle_fold(state, dispatch):
    """The rule written from the specification and the lesson, apart from the library: the
    latest stretch (between successful edits) that ran a check speaks for the turn; its first
    failing check is the turn's failure; a failure is cleared only by a verification pass with
    no edit after it in the same turn; an edit after the last check owes a re-verify on a live
    failure, and otherwise keeps the model as it was."""
    epoch = state.write_epoch + sum(r is EDIT for r in dispatch)
    spoken = _deciding_check(dispatch)
    unchecked = _edit_after_last_check(dispatch)
    if spoken is not None and not spoken.ok:
        signature = failure_signature(spoken)
        again = (state.last_diagnostic_class, state.last_diagnostic_signature) == (
            "fail",
            signature,
        )
        streak = state.same_diagnostic_streak + 1 if again else 1
        return FailureState("fail", signature, epoch, streak, unchecked, unchecked)
    if spoken is not None and not unchecked:
        return FailureState("pass", None, epoch, 0, False, False)
    if unchecked:
        live = state.last_diagnostic_class == "fail"
        return replace(
            state,
            write_epoch=epoch,
            edit_since_failure=state.edit_since_failure or live,
            reverify_owed=state.reverify_owed or live,
        )
    return state


turn_results = st.lists(
    st.sampled_from([FAIL_A, FAIL_B, PASS, EDIT, READ, REFUSED, BROKEN_READ]), max_size=6
)


@settings(max_examples=300, deadline=None)
@given(st.lists(turn_results, max_size=10))
def test_fold_clears_a_failure_only_on_a_pass_with_no_edit_after_it(turns):
    model = FailureState()
    for dispatch in turns:
        before, model = model, fold_diagnostic(model, dispatch)
        assert model == _oracle_fold(before, dispatch)
        if before.last_diagnostic_class == "fail" and model.last_diagnostic_class != "fail":
            assert any(r.kind == "verify" for r in dispatch)
            assert not _edit_after_last_check(dispatch)  # cleared by a check nothing followed
        if _edit_after_last_check(dispatch) and model.last_diagnostic_class == "fail":
            assert model.reverify_owed and model.edit_since_failure


def test_fold_reader_v_rows_s40_and_s09():
    live = fold_all([FAIL_A])
    s40 = fold_diagnostic(live, [PASS, EDIT])  # green, then an edit nobody checked
    assert (s40.last_diagnostic_class, s40.same_diagnostic_streak, s40.reverify_owed) == (
        "fail",
        1,
        True,
    )
    s09 = fold_diagnostic(live, [EDIT, PASS])  # the course's choice: the check saw the edit
    assert s09 == FailureState("pass", None, 1, 0, False, False)
