"""Tests for cafe/governor/facts.py: the host-supplied facts, as pure functions and as plug-in checks.

The scenario tests plug the checks into session 13's detector and drive a scripted agent in a
real workbench: its edits are real writes and its test runs are real pytest runs.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from cafe.endpoint.client.chat import make_client
from cafe.governor import facts
from cafe.governor.facts import (
    HOST_FACT_PATTERNS,
    HostFacts,
    ProgressCheck,
    ProgressState,
    RemediationCheck,
    RemediationInfo,
    fold_progress,
    no_net_progress_cut,
    remediation_due,
)
from cafe.loop.agent import TurnView
from cafe.stall import run_with_stall, stall_config
from cafe.stories.scenarios import scenario_replies
from cafe.world.workbench import open_workbench

ASK = [{"role": "user", "content": "The till's split is wrong; please fix it."}]
AWARE = stall_config(repair_aware=True)


def run_scenario(name, config=None, *, max_turns=None, rounds=6, **kw):
    replies = scenario_replies(name, rounds=rounds)
    with open_workbench() as bench:
        return run_with_stall(
            make_client(replies),
            ASK,
            bench.tools,
            verify=bench.verify,
            config=config,
            max_turns=max_turns or len(replies),
            **kw,
        )


def patterns(run):
    return [(w.turn, w.pattern) for w in run.warnings]


def test_progress_signal_number_above_high_water_is_an_advance():
    state = fold_progress(ProgressState(), 2, wrote=False)
    assert (state.high_water, state.flat_streak, state.advanced) == (2, 0, True)
    state = fold_progress(replace(state, flat_streak=5, wrote_while_flat=True), 3, wrote=True)
    assert (state.high_water, state.flat_streak, state.wrote_while_flat, state.advanced) == (
        3,
        0,
        False,
        True,
    )


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
    assert no_net_progress_cut(ProgressState(high_water=3, flat_streak=12), 3).startswith(
        "long stall"
    )
    assert no_net_progress_cut(ProgressState(high_water=3, flat_streak=11), 3) is None
    assert no_net_progress_cut(ProgressState(high_water=3, flat_streak=12), 2) is None
    assert "4 times" in no_net_progress_cut(ProgressState(high_water=3, flat_streak=0), 4)


def test_progress_signal_bad_return_raises_type_error():
    for bad in ("3", True, float("nan")):
        with pytest.raises(TypeError, match="progress_signal"):
            facts.read_progress_value(bad)
    assert facts.read_progress_value(2) == 2.0 and facts.read_progress_value(None) is None


def test_remediation_is_due_only_on_an_advancing_repeated_failure():
    assert remediation_due(failing=True, streak=2, advanced=True)
    assert remediation_due(failing=True, streak=5, advanced=True)
    assert not remediation_due(failing=True, streak=1, advanced=True)
    assert not remediation_due(failing=True, streak=2, advanced=False)
    assert not remediation_due(failing=False, streak=2, advanced=True)


def test_ask_remediation_insists_on_a_bool():
    info = RemediationInfo((), "session", "abc")
    assert facts.ask_remediation(lambda i: True, info) is True
    assert facts.ask_remediation(lambda i: False, info) is False
    assert facts.ask_remediation(lambda i: None, info) is False  # the reference's "not delivered"
    with pytest.raises(TypeError, match="remediation_delivered returned 1"):
        facts.ask_remediation(lambda i: 1, info)


def test_check_callback_accepts_functions_and_none_only():
    facts.check_callback("progress_signal", None)
    facts.check_callback("remediation_delivered", print)
    with pytest.raises(TypeError, match="progress_signal must be a function"):
        facts.check_callback("progress_signal", 3)
    with pytest.raises(ValueError, match="not a host callback"):
        facts.check_callback("pace", None)


def test_host_fact_defaults_are_the_designs():
    assert (
        facts.VERIFY_STATE_STREAK_DEFAULT,
        facts.VERIFY_STATE_STALL_TURNS_DEFAULT,
        facts.VERIFY_STATE_RECURRENCE_HARD_DEFAULT,
        facts.NO_VERIFIER_PROGRESS_LIMIT_DEFAULT,
        facts.STALL_DELIVERED_FIX_AFTER,
    ) == (3, 12, 4, 3, 2)


# --- the configuration and the checks it builds --------------------------------------------


def test_host_facts_defaults_and_checks_in_order():
    facts_off = HostFacts()
    assert (
        facts_off.verify_state_streak,
        facts_off.verify_state_stall_turns,
        facts_off.verify_state_recurrence_hard,
        facts_off.no_verifier_progress_limit,
    ) == (3, 12, 4, 3)
    assert facts_off.checks() == ()
    both = HostFacts(
        progress_signal=lambda view: None, remediation_delivered=lambda info: False
    ).checks()
    assert [type(c) for c in both] == [RemediationCheck, ProgressCheck]
    assert set().union(*(c.patterns for c in both)) == HOST_FACT_PATTERNS
    assert (
        HostFacts(progress_signal=print).checks()[0]
        is not HostFacts(progress_signal=print).checks()[0]
    )


@pytest.mark.parametrize("name", ["progress_signal", "remediation_delivered"])
def test_non_callable_callback_is_rejected_when_the_config_is_built(name):
    with pytest.raises(TypeError, match=f"{name} must be a function"):
        HostFacts(**{name: "host_passing_test_count"})
    assert getattr(HostFacts(**{name: None}), name) is None


def test_host_facts_threshold_must_be_a_positive_whole_number():
    with pytest.raises(ValueError, match="verify_state_streak"):
        HostFacts(verify_state_streak=0)
    with pytest.raises(ValueError, match="no_verifier_progress_limit"):
        HostFacts(no_verifier_progress_limit=True)


# --- host facts: progress_signal ------------------------------------------------------------


def passing_tests(view: TurnView):
    """A host's progress_signal: the passing-test count from this turn's last test run, if any."""
    runs = [r.output for r in view.dispatch if r.name == "run_tests"]
    if not runs:
        return None
    found = re.search(r"(\d+) passed", runs[-1])
    return int(found.group(1)) if found else 0


def test_progress_signal_write_axis_cut_stops_the_thrash_in_a_run():
    check = ProgressCheck(passing_tests)  # works without repair_aware
    memory = []
    run = run_scenario(
        "thrash",
        max_turns=12,
        checks=[check],
        after_turn=[lambda view: memory.append(check.progress)],
    )
    # turn 1: 3 passing, the first number ever: an advance. Turn 2: an edit and no test run, None:
    # flat, with a write. Turn 3: 3 again, at the mark: flat. Turn 4: another edit, None: the third
    # flat turn with writes landing, so the cut comes right after turn 4's tools ran.
    assert [(p.high_water, p.flat_streak, p.wrote_while_flat, p.advanced) for p in memory] == [
        (3, 0, False, True),
        (3, 1, True, False),
        (3, 2, True, False),
        (3, 3, True, False),
    ]
    assert patterns(run) == [(4, "no_net_progress")]
    assert run.stop_reason == "stuck" and run.result.detail.startswith(
        "no_net_progress: write axis"
    )
    assert run.result.turns[-1].turn == 4


def test_progress_signal_long_stall_cuts_pure_retries_in_a_run():
    # retest_only never writes, so the write axis stays quiet; the passing count sits at 3 while the
    # same failure comes back every turn. The check decides right after a turn, with that turn's
    # failure folded in: the fourth sighting is turn 4's own test run.
    recurring = run_scenario(
        "retest_only", AWARE, rounds=8, checks=HostFacts(progress_signal=passing_tests).checks()
    )
    assert patterns(recurring) == [(4, "stuck_same_diagnostic"), (4, "no_net_progress")]
    assert (
        recurring.result.detail
        == "no_net_progress: long stall: the same failure has come back 4 times in a row"
    )
    flat_facts = HostFacts(
        progress_signal=passing_tests, verify_state_stall_turns=2, verify_state_recurrence_hard=99
    )
    flat = run_scenario("retest_only", AWARE, rounds=8, checks=flat_facts.checks())
    assert patterns(flat) == [(3, "no_net_progress")]
    assert "same failure for 3 turns and no verifier advance for 2" in flat.result.detail


def test_hard_recurrence_counts_a_failure_over_the_run_not_only_in_a_row():
    # A, B, A, B, ...: the streak never passes 1, but A's fourth sighting is a hard recurrence
    # (a whole run of it: test_stall_reference.py, "hard recurrence counts ... over the RUN")
    flat = ProgressState(high_water=0, flat_streak=1)
    why = no_net_progress_cut(flat, 1, recurrences=4)
    assert why is not None and "4 times in this run" in why
    assert no_net_progress_cut(flat, 1, recurrences=3) is None


def test_progress_signal_advance_resets_the_flat_streak_in_a_run():
    facts = HostFacts(progress_signal=passing_tests, no_verifier_progress_limit=4)
    run = run_scenario("productive", AWARE, checks=facts.checks())
    assert run.stop_reason == "done" and run.warnings == ()
    assert run.failure_state.same_diagnostic_streak == 0


def test_write_axis_cut_cannot_see_an_error_that_changed():
    # The passing count stays at 3 while the productive repair turns 999 into 1002: to a host signal
    # that only counts passing tests, that is three flat turns with writes, and the default cuts it.
    run = run_scenario(
        "productive", AWARE, checks=HostFacts(progress_signal=passing_tests).checks()
    )
    assert patterns(run) == [(4, "no_net_progress")] and run.stop_reason == "stuck"


# --- host facts: remediation_delivered -------------------------------------------------------


def test_remediation_delivered_true_trips_one_turn_sooner():
    calls: list[RemediationInfo] = []

    def landed(info: RemediationInfo) -> bool:
        calls.append(info)
        return True

    run = run_scenario("same_turn_thrash", AWARE, checks=[RemediationCheck(landed)], rounds=4)
    assert patterns(run)[0] == (
        3,
        "delivered_fix_not_landing",
    )  # streak 2, one turn before the nudge at 3
    assert (
        calls[0].session_id == "session"
        and calls[0].signature == run.timeline[2].failure_state.last_diagnostic_signature
    )
    assert [r.name for r in calls[0].prev_dispatch] == ["write_file", "run_tests"]
    # asked again on every turn the streak advances, and the host's answer outranks
    # stuck_same_diagnostic; only the first text is sent, and the run is not stopped for it
    assert patterns(run) == [(turn, "delivered_fix_not_landing") for turn in (3, 4, 5, 6)]
    assert [w.sent for w in run.warnings] == [True, False, False, False]
    assert run.stop_reason == "max_turns" and len(calls) == 4


def test_remediation_delivered_false_changes_nothing():
    run = run_scenario(
        "same_turn_thrash", AWARE, checks=[RemediationCheck(lambda i: False)], rounds=4
    )
    assert patterns(run) == [(4, "stuck_same_diagnostic")]


def test_remediation_delivered_works_without_repair_aware():
    seen = []
    run = run_scenario(
        "same_turn_thrash",
        checks=[RemediationCheck(lambda info: seen.append(info) or True)],
        rounds=4,
        session_id="till-42",
    )
    assert patterns(run) == [(turn, "delivered_fix_not_landing") for turn in (3, 4, 5, 6)]
    assert run.stop_reason == "max_turns" and {info.session_id for info in seen} == {"till-42"}
    assert run.current_failure is None  # the hand-back itself is a repair-aware feature


def test_remediation_delivered_is_not_asked_on_a_turn_the_blind_detector_warned():
    # retest_only repeats the same call: with repair_aware off the blind repeated_error trips on
    # turns 4, 5 and 6 (the third in a row stops the run), so the host is not asked then
    asked = []
    run = run_scenario(
        "retest_only", checks=[RemediationCheck(lambda info: asked.append(info) or False)]
    )
    assert patterns(run) == [(4, "repeated_error"), (5, "repeated_error"), (6, "repeated_error")]
    assert len(asked) == 1  # turn 3 only (streak 2); turns 4 to 6 belong to the blind warning


def test_remediation_delivered_bad_return_raises_type_error():
    with pytest.raises(TypeError, match="remediation_delivered returned 'yes'"):
        run_scenario("same_turn_thrash", checks=[RemediationCheck(lambda info: "yes")], rounds=3)


def test_remediation_delivered_is_not_asked_on_a_first_failure():
    asked = []
    run_scenario("productive", checks=[RemediationCheck(lambda info: asked.append(info) or True)])
    assert asked == []
