"""Tests for cafe/facts.py: the host-supplied facts, as pure functions.

The same facts inside a running loop (a real workbench, a scripted agent) are tested in
tests/test_stall.py, where the detector consults them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from cafe import facts
from cafe.facts import ProgressState, RemediationInfo, fold_progress, no_net_progress_cut, remediation_due


def test_progress_signal_number_above_high_water_is_an_advance():
    state = fold_progress(ProgressState(), 2, wrote=False)
    assert (state.high_water, state.flat_streak, state.advanced) == (2, 0, True)
    state = fold_progress(replace(state, flat_streak=5, wrote_while_flat=True), 3, wrote=True)
    assert (state.high_water, state.flat_streak, state.wrote_while_flat, state.advanced) == (3, 0, False, True)


def test_progress_signal_at_or_below_high_water_or_none_is_flat():
    state = fold_progress(ProgressState(), 3, wrote=False)
    for value in (3, 1, None):
        state = fold_progress(state, value, wrote=False)
        assert not state.advanced and state.high_water == 3
    assert state.flat_streak == 3 and not state.wrote_while_flat
    assert fold_progress(state, None, wrote=True).wrote_while_flat


def test_progress_signal_first_number_ever_is_an_advance_even_zero():
    assert fold_progress(ProgressState(), 0, wrote=False).advanced


def test_write_axis_cut_needs_a_write_during_the_flat_stretch():
    flat = ProgressState(high_water=3, flat_streak=3)
    assert no_net_progress_cut(flat, 0) is None
    assert no_net_progress_cut(replace(flat, wrote_while_flat=True), 0).startswith("write axis")
    assert no_net_progress_cut(replace(flat, flat_streak=2, wrote_while_flat=True), 0) is None


def test_long_stall_cut_needs_both_the_streak_and_the_flat_verifier():
    assert no_net_progress_cut(ProgressState(high_water=3, flat_streak=12), 3).startswith("long stall")
    assert no_net_progress_cut(ProgressState(high_water=3, flat_streak=11), 3) is None
    assert no_net_progress_cut(ProgressState(high_water=3, flat_streak=12), 2) is None
    assert "4 times" in no_net_progress_cut(ProgressState(high_water=3, flat_streak=0), 4)


def test_progress_signal_bad_return_raises_type_error():
    for bad in ("3", True, float("nan")):
        with pytest.raises(TypeError, match="progress_signal"):
            facts.read_progress_value(bad)
    assert facts.read_progress_value(2) == 2.0 and facts.read_progress_value(None) is None


def test_remediation_is_due_only_on_an_advancing_repeated_failure_no_warning_this_turn():
    assert remediation_due(failing=True, streak=2, advanced=True, warned_this_turn=False)
    assert remediation_due(failing=True, streak=5, advanced=True, warned_this_turn=False)
    assert not remediation_due(failing=True, streak=1, advanced=True, warned_this_turn=False)
    assert not remediation_due(failing=True, streak=2, advanced=False, warned_this_turn=False)
    assert not remediation_due(failing=True, streak=2, advanced=True, warned_this_turn=True)
    assert not remediation_due(failing=False, streak=2, advanced=True, warned_this_turn=False)


def test_ask_remediation_insists_on_a_bool():
    info = RemediationInfo((), "session", "abc")
    assert facts.ask_remediation(lambda i: True, info) is True
    assert facts.ask_remediation(lambda i: False, info) is False
    with pytest.raises(TypeError, match="remediation_delivered returned 1"):
        facts.ask_remediation(lambda i: 1, info)


def test_check_callback_accepts_functions_and_none_only():
    facts.check_callback("progress_signal", None)
    facts.check_callback("remediation_delivered", print)
    with pytest.raises(TypeError, match="progress_signal must be a function"):
        facts.check_callback("progress_signal", 3)
    with pytest.raises(ValueError, match="not a host callback"):
        facts.check_callback("pace", None)


def test_host_fact_defaults_are_the_references():
    assert (facts.VERIFY_STATE_STREAK_DEFAULT, facts.VERIFY_STATE_STALL_TURNS_DEFAULT,
            facts.VERIFY_STATE_RECURRENCE_HARD_DEFAULT, facts.NO_VERIFIER_PROGRESS_LIMIT_DEFAULT,
            facts.STALL_DELIVERED_FIX_AFTER) == (3, 12, 4, 3, 2)
