"""Tests for cafe/stall.py: stall detection on real evidence (the facts it consults: test_facts.py).

The scenario tests mirror the reference implementation's conformance cases. Each one drives a
scripted agent through the loop against a real workbench: its edits are real writes and its
test runs are real pytest runs, so every signature below comes from pytest's own output.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe import facts
from cafe.endpoint.client import make_client
from cafe.facts import RemediationInfo
from cafe.loop import ToolResult, TurnView, run_loop
from cafe.stall import (MAX_STALL_WARNINGS, REPAIR_DEFAULTS, REPEATED_FAILURE_AFTER, STALL_PATTERNS,
                        CurrentFailure, DetectorState, FailureModel, StallConfig, StallDetector, classify_turn,
                        clear_current_failure, failure_signature, failure_snippet, fold_diagnostic,
                        normalize_evidence, reset_action, run_with_stall, stall_config)
from cafe.workbench import edited_bill, open_workbench, project_file, scenario_replies

ASK = [{"role": "user", "content": "The till's split is wrong; please fix it."}]
_DURATION = re.compile(r" in \d+(?:\.\d+)?s")


def run_scenario(name, config=None, *, max_turns=None, rounds=6, max_verify_attempts=3, **kw):
    replies = scenario_replies(name, rounds=rounds)
    with open_workbench() as bench:
        return run_with_stall(make_client(replies), ASK, bench.tools, verify=bench.verify, config=config,
                              max_turns=max_turns or len(replies), max_verify_attempts=max_verify_attempts, **kw)


def patterns(run):
    return [(w.turn, w.pattern) for w in run.warnings]


def streaks(run):
    return [s.model.same_diagnostic_streak for s in run.timeline]


def steady(messages):
    """A transcript with pytest's timings removed, for comparing two runs."""
    return [{**m, "content": _DURATION.sub("", m["content"]) if isinstance(m.get("content"), str) else m.get("content")}
            for m in messages]


def outcome(result):
    """Everything a run did, timings aside: how it ended, every turn's calls, results and nudges,
    the transcript, and the checks it spent."""
    turns = [(t.turn, t.text, [(c.name, dict(c.arguments)) for c in t.calls],
              [(r.name, r.ok, r.kind, r.forced, _DURATION.sub("", r.output)) for r in t.dispatch], t.nudges)
             for t in result.turns]
    return (result.stop_reason, result.detail, result.text, result.verify_attempts, turns, steady(result.messages))


AWARE = stall_config(repair_aware=True)
AWARE_NO_MANDATE = stall_config(repair_aware=True, post_edit_reverify=False)


# --- configuration: knobs, defaults, flat vs nested ------------------------------------------


def test_repair_knob_defaults_are_the_references():
    assert REPAIR_DEFAULTS == {"repair_aware": False, "stuck_same_diagnostic_after": 3, "post_edit_reverify": True,
                               "no_net_progress_extend_guard": False, "no_net_progress_extend_after": 3,
                               "no_net_progress_hard_cap_after": 16, "reserved_terminal_verify": False,
                               "reserved_terminal_verify_iterations": 2}
    config = stall_config()
    assert {k: getattr(config, k) for k in REPAIR_DEFAULTS} == REPAIR_DEFAULTS
    assert (config.verify_state_streak, config.verify_state_stall_turns, config.verify_state_recurrence_hard,
            config.no_verifier_progress_limit) == (3, 12, 4, 3)
    assert facts.STALL_DELIVERED_FIX_AFTER == 2 and REPEATED_FAILURE_AFTER == 3


def test_stall_config_accepts_knobs_nested_under_repair_diagnostics():
    config = stall_config({"repair_diagnostics": {"repair_aware": True, "stuck_same_diagnostic_after": 5}})
    assert config.repair_aware is True and config.stuck_same_diagnostic_after == 5


def test_stall_config_flat_knob_wins_over_nested():
    config = stall_config({"stuck_same_diagnostic_after": 2,
                           "repair_diagnostics": {"repair_aware": True, "stuck_same_diagnostic_after": 7}})
    assert config.stuck_same_diagnostic_after == 2
    assert config.repair_aware is True  # the nested block still supplies the knobs it alone sets
    assert stall_config({"repair_aware": False}, repair_aware=True).repair_aware is True


def test_stall_config_unknown_keys_are_refused_by_name():
    with pytest.raises(ValueError, match="stuck_after"):
        stall_config({"stuck_after": 3})
    with pytest.raises(ValueError, match="progress_signal"):
        stall_config({"repair_diagnostics": {"progress_signal": None}})  # callbacks are not repair knobs


def test_stall_config_wrong_types_are_refused():
    with pytest.raises(TypeError, match="repair_aware"):
        stall_config(repair_aware="yes")
    with pytest.raises(ValueError, match="stuck_same_diagnostic_after"):
        stall_config(stuck_same_diagnostic_after=0)
    with pytest.raises(ValueError, match="no_net_progress_hard_cap_after"):
        stall_config(no_net_progress_hard_cap_after=True)


@pytest.mark.parametrize("name", ["progress_signal", "remediation_delivered"])
def test_non_callable_callback_is_rejected_when_the_config_is_built(name):
    with pytest.raises(TypeError, match=f"{name} must be a function"):
        stall_config({name: "host_passing_test_count"})
    with pytest.raises(TypeError, match=name):
        StallConfig(**{name: 42})
    assert getattr(stall_config({name: None}), name) is None
    assert callable(getattr(stall_config({name: lambda info: None}), name))


# --- signatures ------------------------------------------------------------------------------

PYTEST_FAILURE = """\
...F
_____ test_split _____
check_bill.py:21: in test_split
    assert sum(shares) == 1000
E   assert 999 == 1000
1 failed, 3 passed in 0.02s
"""


def result(output, ok=False, kind="verify", name="run_tests"):
    return ToolResult("c", name, {}, ok, output, kind)


def test_signature_ignores_moved_lines():
    moved = PYTEST_FAILURE.replace("check_bill.py:21:", "check_bill.py:24:")
    assert failure_signature(result(moved)) == failure_signature(result(PYTEST_FAILURE))
    tb = 'File "bill.py", line 34, in split\nZeroDivisionError'
    assert failure_signature(result(tb)) == failure_signature(result(tb.replace("34", "40")))
    assert normalize_evidence("bill.py:12:5: E501") == "bill.py:<line>: E501"


def test_signature_ignores_temporary_paths_ansi_whitespace_and_timings():
    base = failure_signature(result(PYTEST_FAILURE))
    in_tmp = PYTEST_FAILURE.replace("check_bill.py:21", "/tmp/cafe-workbench-ab12/till/check_bill.py:21")
    in_other_tmp = PYTEST_FAILURE.replace("check_bill.py:21", "/tmp/cafe-workbench-zz99/till/check_bill.py:21")
    assert failure_signature(result(in_tmp)) == failure_signature(result(in_other_tmp))
    coloured = PYTEST_FAILURE.replace("E   assert", "\x1b[31mE   assert\x1b[0m")
    assert failure_signature(result(coloured)) == base
    spaced = PYTEST_FAILURE.replace("\n", "\r\n  ").replace("    assert", "\tassert")
    assert failure_signature(result(spaced)) == base
    assert failure_signature(result(PYTEST_FAILURE.replace("0.02s", "1.75s"))) == base


def test_temp_root_is_read_on_first_use_not_at_import():
    # STYLE 7: nothing reads the environment (here TMPDIR, through tempfile) when cafe is imported.
    probe = ("import tempfile; calls = []; real = tempfile.gettempdir; "
             "tempfile.gettempdir = lambda: calls.append(1) or real(); "
             "import cafe.stall; assert calls == [], 'read at import'; "
             "assert cafe.stall.normalize_evidence(real() + '/w1/bill.py:3') == '<tmp>/bill.py:<line>'; "
             "assert calls == [1], calls")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_signature_changes_with_a_different_error_or_tool():
    base = failure_signature(result(PYTEST_FAILURE))
    assert failure_signature(result(PYTEST_FAILURE.replace("999", "1002"))) != base
    assert failure_signature(result(PYTEST_FAILURE, name="read_file")) != base
    assert len(base) == 64 and int(base, 16) >= 0  # SHA-256, hex


def test_signature_from_real_pytest_output_survives_moved_lines_and_new_folders():
    with open_workbench() as bench:
        first = bench.run_tests()
        bench.write_file("check_bill.py", "# moved down two lines\n\n" + project_file("check_bill.py"))
        moved = bench.run_tests()
    with open_workbench() as other:
        elsewhere = other.run_tests()
        other.write_file("bill.py", edited_bill("ceil"))
        different = other.run_tests()
    assert "check_bill.py:21" in first.text and "check_bill.py:23" in moved.text
    sig = failure_signature(result(first.text))
    assert failure_signature(result(moved.text)) == sig
    assert failure_signature(result(elsewhere.text)) == sig
    assert failure_signature(result(different.text)) != sig


def test_failure_snippet_quotes_pytest_error_lines():
    assert failure_snippet(PYTEST_FAILURE) == "assert 999 == 1000"
    assert failure_snippet("no E lines\nlast words") == "no E lines; last words"
    assert len(failure_snippet("E " + "x" * 1000)) <= 240


# --- the fold --------------------------------------------------------------------------------

FAIL_A = result("E   assert 999 == 1000")
FAIL_B = result("E   assert 1002 == 1000")
PASS = result("4 passed", ok=True)
EDIT = result("wrote 10 characters", ok=True, kind="mutate", name="write_file")
READ = result("text", ok=True, kind="observe", name="read_file")


def fold_all(*turns):
    model = FailureModel()
    for dispatch in turns:
        model = fold_diagnostic(model, dispatch)
    return model


def test_fold_same_signature_across_edits_increments_streak():
    model = fold_all([FAIL_A], [EDIT], [FAIL_A], [EDIT], [FAIL_A])
    assert (model.last_diagnostic_class, model.same_diagnostic_streak, model.write_epoch) == ("fail", 3, 2)


def test_fold_productive_edit_resets_streak():
    model = fold_all([FAIL_A], [FAIL_A], [EDIT], [FAIL_B])
    assert model.same_diagnostic_streak == 1
    assert model.last_diagnostic_signature == failure_signature(FAIL_B)


def test_fold_classifies_a_turn_by_its_first_failing_result():
    assert classify_turn([EDIT, FAIL_A]) == ("fail", FAIL_A)
    model = fold_all([FAIL_A], [EDIT, FAIL_A])
    assert model.same_diagnostic_streak == 2 and model.write_epoch == 1


def test_fold_edit_on_a_live_failure_owes_a_reverify_and_keeps_the_model():
    before = fold_all([FAIL_A])
    after = fold_diagnostic(before, [EDIT])
    assert after.reverify_owed and after.edit_since_failure and after.write_epoch == 1
    assert (after.last_diagnostic_signature, after.same_diagnostic_streak) == (before.last_diagnostic_signature, 1)
    assert not fold_diagnostic(after, [FAIL_A]).reverify_owed  # the re-test paid the debt


def test_fold_edit_turn_with_a_passing_check_still_owes_a_reverify():
    after = fold_all([FAIL_A], [EDIT, PASS])  # the edit's turn: its success is not verification
    assert after.last_diagnostic_class == "fail" and after.reverify_owed


def test_fold_clean_pass_on_a_non_edit_turn_clears_the_model():
    model = fold_all([FAIL_A], [EDIT], [PASS])
    assert model == FailureModel("pass", None, 1, 0, False, False)


def test_fold_reads_and_empty_turns_change_nothing():
    model = fold_all([FAIL_A], [FAIL_A])
    assert fold_diagnostic(model, [READ]) == model
    assert fold_diagnostic(model, []) == model


def test_reset_action_preserves_failure_model():
    state = DetectorState(model=fold_all([FAIL_A], [FAIL_A]), last_action="x", same_error=2, same_observation=1)
    after = reset_action(state)
    assert after.model == state.model
    assert (after.last_action, after.same_error, after.same_observation) == (None, 0, 0)


def test_clear_current_failure_keeps_only_the_epoch():
    assert clear_current_failure(fold_all([FAIL_A], [EDIT], [FAIL_A])) == FailureModel(write_epoch=1)


dispatches = st.lists(st.sampled_from([FAIL_A, FAIL_B, PASS, EDIT, READ]), max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(dispatches, max_size=12))
def test_fold_invariants_hold_for_any_turn_sequence(turns):
    model = FailureModel()
    for dispatch in turns:
        before = model
        model = fold_diagnostic(before, dispatch)
        kind, deciding = classify_turn(dispatch)
        assert model.write_epoch == before.write_epoch + sum(r is EDIT for r in dispatch)
        assert model.same_diagnostic_streak >= 0
        if kind == "fail":
            assert model.last_diagnostic_class == "fail" and model.same_diagnostic_streak >= 1
            assert model.last_diagnostic_signature == failure_signature(deciding)
            same = before.last_diagnostic_class == "fail" and before.last_diagnostic_signature == model.last_diagnostic_signature
            assert model.same_diagnostic_streak == (before.same_diagnostic_streak + 1 if same else 1)
        elif kind == "pass":
            assert model == FailureModel("pass", None, model.write_epoch, 0, False, False)
        elif kind == "quiet":
            assert model == before
        else:  # an edit keeps the diagnosis
            assert (model.last_diagnostic_class, model.last_diagnostic_signature, model.same_diagnostic_streak) == \
                (before.last_diagnostic_class, before.last_diagnostic_signature, before.same_diagnostic_streak)
        assert fold_diagnostic(before, dispatch) == model  # pure: same input, same output


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([EDIT, READ]), max_size=3), st.integers(min_value=1, max_value=8))
def test_fold_same_failure_between_any_non_failing_turns_keeps_counting(between, repeats):
    turns = []
    for _ in range(repeats):
        turns += [[FAIL_A], between]
    assert fold_all(*turns).same_diagnostic_streak == repeats


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=999), st.integers(min_value=1, max_value=999),
       st.sampled_from(["", "\x1b[1m", "\x1b[31;1m"]), st.sampled_from([" ", "\t", "\n  "]))
def test_signature_is_invariant_to_noise(line_a, line_b, ansi, gap):
    text_a = f"check_bill.py:{line_a}: in test{gap}E{gap}assert 999 == 1000"
    text_b = f"{ansi}check_bill.py:{line_b}: in test\x1b[0m E assert 999 == 1000"
    assert failure_signature(result(text_a)) == failure_signature(result(text_b))


# --- scenarios in the real workbench ---------------------------------------------------------


def test_edit_retest_thrash_trips_exactly_once():
    run = run_scenario("thrash", AWARE_NO_MANDATE, max_turns=12)
    assert patterns(run) == [(6, "stuck_same_diagnostic")]
    nudge = run.result.turns[5].nudges[0]
    assert nudge.source == "stuck_same_diagnostic"
    assert "assert 999 == 1000" in nudge.text  # the nudge quotes the failing evidence
    assert nudge.text in [m["content"] for m in run.result.messages]
    assert streaks(run)[:8] == [0, 1, 1, 2, 2, 3, 3, 4]  # edits hold the streak, failures advance it
    assert run.stop_reason == "max_turns"


def test_edit_retest_thrash_with_the_default_reverify_trips_exactly_once_sooner():
    run = run_scenario("thrash", AWARE, max_turns=12)
    # the forced re-check after each edit is the failure's second sighting, so the trip comes on turn 4
    assert patterns(run) == [(4, "stuck_same_diagnostic")]
    assert [t.turn for t in run.result.turns if any(r.forced for r in t.dispatch)] == [2, 4, 6]


def test_edit_and_test_same_turn_thrash_trips():
    run = run_scenario("same_turn_thrash", AWARE, rounds=4)
    assert patterns(run) == [(4, "stuck_same_diagnostic")]
    assert streaks(run)[:4] == [0, 1, 2, 3]


def test_productive_edit_resets_streak_and_never_trips():
    run = run_scenario("productive", AWARE_NO_MANDATE)
    assert run.warnings == ()
    assert run.stop_reason == "done"
    assert max(streaks(run)) == 1  # every failure was a new one
    with_mandate = run_scenario("productive", AWARE)  # the forced re-check and the model's own re-test agree
    assert with_mandate.warnings == () and with_mandate.stop_reason == "done" and max(streaks(with_mandate)) == 2
    signatures = {s.model.last_diagnostic_signature for s in run.timeline if s.model.last_diagnostic_class == "fail"}
    assert len(signatures) == 2  # 999 == 1000, then 1002 == 1000


def test_success_clears_current_failure():
    run = run_scenario("productive", AWARE)
    assert run.stop_reason == "done" and run.current_failure is None
    assert run.model.last_diagnostic_class is None and run.model.same_diagnostic_streak == 0


def test_stuck_stop_carries_current_failure():
    config = stall_config(repair_aware=True, no_net_progress_extend_guard=True, no_net_progress_hard_cap_after=3)
    run = run_scenario("retest_only", config)
    assert run.stop_reason == "stuck"
    assert run.result.detail.startswith("no_net_progress_hard_cap")
    failure = run.current_failure
    assert isinstance(failure, CurrentFailure)
    block = failure.as_dict()
    assert set(block) == {"class", "signature", "snippet", "same_diagnostic_streak"}
    assert block["class"] == "fail" and block["same_diagnostic_streak"] == 3
    assert block["snippet"].startswith("assert 999 == 1000")
    assert block["signature"] == run.timeline[-1].model.last_diagnostic_signature


def test_budget_stop_also_names_what_is_failing():
    run = run_scenario("thrash", AWARE_NO_MANDATE, max_turns=5)
    assert run.stop_reason == "max_turns"
    assert run.current_failure is not None and "999" in run.current_failure.snippet


def test_action_reset_preserves_the_model_in_a_run():
    # thrash alternates write_file and run_tests, so every turn is a new action for the blind counters,
    # and still the failure model keeps counting the same failure
    run = run_scenario("thrash", AWARE_NO_MANDATE, max_turns=8)
    assert streaks(run)[-1] == 4


@pytest.mark.parametrize("scenario", ["thrash", "productive", "varied_failures", "retest_only"])
def test_repair_aware_off_is_a_no_op(scenario):
    every_knob = stall_config(repair_aware=False, stuck_same_diagnostic_after=1, post_edit_reverify=True,
                              no_net_progress_extend_guard=True, no_net_progress_extend_after=1,
                              no_net_progress_hard_cap_after=1, reserved_terminal_verify=True,
                              reserved_terminal_verify_iterations=5)
    off = run_scenario(scenario, every_knob, rounds=3)
    default = run_scenario(scenario, None, rounds=3)
    replies = scenario_replies(scenario, rounds=3)
    with open_workbench() as bench:
        plain = run_loop(make_client(replies), ASK, bench.tools, verify=bench.verify, max_turns=len(replies))
    assert outcome(off.result) == outcome(default.result)
    assert off.warnings == default.warnings and off.current_failure is None is default.current_failure
    if scenario == "retest_only":  # the blind detector trips here, with or without the knobs
        assert [w.pattern for w in off.warnings] == ["repeated_error"]
        return
    for run in (off, default):  # elsewhere it stays silent: the same run as no detector at all
        assert outcome(run.result) == outcome(plain)
        assert run.warnings == ()


def test_blind_detector_misses_the_thrash_but_catches_pure_retries():
    assert run_scenario("thrash", None, max_turns=12).warnings == ()  # the gap repair-aware closes
    blind = run_scenario("retest_only", None)
    assert patterns(blind) == [(4, "repeated_error"), (5, "repeated_error")]
    assert blind.stop_reason == "stuck" and MAX_STALL_WARNINGS == 1


def test_timeline_records_the_blind_counter_one_turn_behind():
    thrash = run_scenario("thrash", None, max_turns=12)
    assert [s.same_action_repeats for s in thrash.timeline] == [0] + [1] * 11  # alternating actions
    retries = run_scenario("retest_only", None)
    assert [(s.same_action_repeats, s.pattern) for s in retries.timeline][:4] == [
        (0, None), (1, None), (2, None), (REPEATED_FAILURE_AFTER, "repeated_error")]


def test_repair_aware_suppresses_the_blind_repeated_failure_trip():
    run = run_scenario("retest_only", AWARE)
    assert patterns(run) == [(4, "stuck_same_diagnostic")]  # not also repeated_error


def test_stuck_trip_needs_the_streak_to_go_up_not_just_a_new_failure():
    # with a threshold of 1 the first failure trips; the productive repair's second, different
    # failure leaves the streak at 1 (reset, not advanced), so it does not trip again
    run = run_scenario("productive", stall_config(repair_aware=True, post_edit_reverify=False,
                                                  stuck_same_diagnostic_after=1))
    assert patterns(run) == [(2, "stuck_same_diagnostic")] and run.stop_reason == "done"


def test_fold_lag_trips_one_turn_after_the_nth_failure():
    for threshold in (2, 3, 4):
        run = run_scenario("retest_only", stall_config(repair_aware=True, stuck_same_diagnostic_after=threshold))
        assert patterns(run) == [(threshold + 1, "stuck_same_diagnostic")]


def test_post_edit_reverify_forces_a_check_after_an_edit():
    on = run_scenario("edit_then_done", AWARE)
    off = run_scenario("edit_then_done", AWARE_NO_MANDATE)
    forced_on = [(r.name, r.ok) for r in on.result.turns[1].dispatch if r.forced]
    assert forced_on == [("run_tests", True)]
    assert not any(r.forced for r in off.result.turns[1].dispatch)
    assert "post-edit re-verify" in on.result.messages[5]["content"]
    assert on.stop_reason == off.stop_reason == "done"


def test_post_edit_reverify_is_bounded_by_max_verify_attempts():
    run = run_scenario("thrash", AWARE, max_turns=10, max_verify_attempts=1)
    forced = [t.turn for t in run.result.turns for r in t.dispatch if r.forced]
    assert forced == [2] and run.result.verify_attempts == 1


def test_reserved_terminal_verify_checks_an_edit_in_the_last_turns():
    config = stall_config(repair_aware=True, post_edit_reverify=False, reserved_terminal_verify=True)
    run = run_scenario("edit_then_done", config, max_turns=2)
    forced = [(t.turn, r.name) for t in run.result.turns for r in t.dispatch if r.forced]
    assert forced == [(2, "run_tests")]


def test_hard_cap_trips_on_varied_failures_and_survives_successful_edits():
    config = stall_config(repair_aware=True, post_edit_reverify=False, no_net_progress_extend_guard=True,
                          no_net_progress_hard_cap_after=4)
    run = run_scenario("varied_failures", config)
    assert patterns(run) == [(8, "no_net_progress_hard_cap")]  # failing checks on turns 1, 3, 5, 7
    assert run.stop_reason == "stuck" and max(streaks(run)) == 1  # never the same failure twice
    assert run.current_failure is not None


def test_hard_cap_counts_a_failing_check_in_the_same_turn_as_an_edit():
    # every turn of same_turn_thrash edits and re-tests: the edit does not excuse the red check
    config = stall_config(repair_aware=True, post_edit_reverify=False, no_net_progress_extend_guard=True,
                          no_net_progress_hard_cap_after=3)
    run = run_scenario("same_turn_thrash", config, rounds=4)
    assert patterns(run) == [(4, "no_net_progress_hard_cap")]  # it outranks stuck_same_diagnostic on turn 4


def test_hard_cap_is_off_without_the_guard():
    config = stall_config(repair_aware=True, post_edit_reverify=False, no_net_progress_hard_cap_after=2)
    assert run_scenario("varied_failures", config).warnings == ()


def test_extension_is_refused_once_the_same_failure_holds():
    detector = StallDetector(stall_config(repair_aware=True, no_net_progress_extend_guard=True))
    replies = scenario_replies("retest_only", rounds=3)
    allowed = []
    with open_workbench() as bench:
        run_with_stall(make_client(replies), ASK, bench.tools, max_turns=4, detector=detector,
                       observers=[lambda view: allowed.append(detector.extension_allowed())])
    assert allowed == [True, True, True, False]
    assert StallDetector(AWARE).extension_allowed()  # without the guard, always allowed


# --- host facts: progress_signal ------------------------------------------------------------


def passing_tests(view: TurnView):
    """A host's progress_signal: the passing-test count from this turn's last test run, if any."""
    runs = [r.output for r in view.dispatch if r.name == "run_tests"]
    if not runs:
        return None
    found = re.search(r"(\d+) passed", runs[-1])
    return int(found.group(1)) if found else 0


def test_progress_signal_write_axis_cut_stops_the_thrash_in_a_run():
    detector = StallDetector(stall_config(progress_signal=passing_tests))  # works without repair_aware
    memory = []
    run = run_scenario("thrash", max_turns=12, detector=detector,
                       after_turn=[lambda view: memory.append(detector.state.progress)])
    # turn 1: 3 passing, the first number ever: an advance. Turn 2: an edit and no test run, None:
    # flat, with a write. Turn 3: 3 again, at the mark: flat. Turn 4: another edit, None: the third
    # flat turn with writes landing, so the cut comes right after turn 4's tools ran.
    assert [(p.high_water, p.flat_streak, p.wrote_while_flat, p.advanced) for p in memory] == [
        (3, 0, False, True), (3, 1, True, False), (3, 2, True, False), (3, 3, True, False)]
    assert patterns(run) == [(4, "no_net_progress")]
    assert run.stop_reason == "stuck" and run.result.detail.startswith("no_net_progress: write axis")
    assert run.result.turns[-1].turn == 4


def test_progress_signal_long_stall_cuts_pure_retries_in_a_run():
    # retest_only never writes, so the write axis stays quiet; the passing count sits at 3 while the
    # same failure comes back every turn. (The detector reads the streak a turn behind: the lag.)
    aware = dict(repair_aware=True, progress_signal=passing_tests)
    recurring = run_scenario("retest_only", stall_config(**aware), rounds=8)
    assert patterns(recurring) == [(4, "stuck_same_diagnostic"), (5, "no_net_progress")]
    assert recurring.result.detail == "no_net_progress: long stall: the same failure has come back 4 times"
    flat = run_scenario("retest_only", stall_config(**aware, verify_state_stall_turns=2,
                                                    verify_state_recurrence_hard=99), rounds=8)
    assert patterns(flat) == [(4, "stuck_same_diagnostic"), (4, "no_net_progress")]
    assert "same failure for 3 turns and no verifier advance for 3" in flat.result.detail


def test_progress_signal_advance_resets_the_flat_streak_in_a_run():
    config = stall_config(repair_aware=True, progress_signal=passing_tests, no_verifier_progress_limit=4)
    run = run_scenario("productive", config)
    assert run.stop_reason == "done" and run.warnings == ()
    assert run.model.same_diagnostic_streak == 0


def test_write_axis_cut_cannot_see_an_error_that_changed():
    # The passing count stays at 3 while the productive repair turns 999 into 1002: to a host signal
    # that only counts passing tests, that is three flat turns with writes, and the default cuts it.
    run = run_scenario("productive", stall_config(repair_aware=True, progress_signal=passing_tests))
    assert patterns(run) == [(4, "no_net_progress")] and run.stop_reason == "stuck"


# --- host facts: remediation_delivered -------------------------------------------------------


def test_remediation_delivered_true_trips_one_turn_sooner():
    calls: list[RemediationInfo] = []

    def landed(info: RemediationInfo) -> bool:
        calls.append(info)
        return True

    run = run_scenario("same_turn_thrash", stall_config(repair_aware=True, remediation_delivered=landed), rounds=4)
    assert patterns(run)[0] == (3, "delivered_fix_not_landing")  # streak 2, one turn before the nudge at 3
    assert calls[0].session_id == "session" and calls[0].signature == run.timeline[2].model.last_diagnostic_signature
    assert [r.name for r in calls[0].prev_dispatch] == ["write_file", "run_tests"]
    # asked again when the streak advances to 3, and the host's answer outranks stuck_same_diagnostic;
    # a second trip in the same run is past MAX_STALL_WARNINGS: the run stops as stuck
    assert patterns(run) == [(3, "delivered_fix_not_landing"), (4, "delivered_fix_not_landing")]
    assert run.stop_reason == "stuck" and len(calls) == 2


def test_remediation_delivered_false_changes_nothing():
    run = run_scenario("same_turn_thrash", stall_config(repair_aware=True, remediation_delivered=lambda i: False),
                       rounds=4)
    assert patterns(run) == [(4, "stuck_same_diagnostic")]


def test_remediation_delivered_works_without_repair_aware():
    seen = []
    run = run_scenario("same_turn_thrash", stall_config(remediation_delivered=lambda info: seen.append(info) or True),
                       rounds=4, session_id="till-42")
    assert patterns(run) == [(3, "delivered_fix_not_landing"), (4, "delivered_fix_not_landing")]
    assert run.stop_reason == "stuck" and {info.session_id for info in seen} == {"till-42"}
    assert run.current_failure is None  # the hand-back itself is a repair-aware feature


def test_remediation_delivered_is_not_asked_on_a_turn_the_blind_detector_warned():
    # retest_only repeats the same call: with repair_aware off the blind repeated_error trips on
    # turn 4, the turn the streak advances to 3, so the host is not asked then
    asked = []
    run = run_scenario("retest_only", stall_config(remediation_delivered=lambda info: asked.append(info) or False))
    assert patterns(run) == [(4, "repeated_error"), (5, "repeated_error")]
    assert len(asked) == 1  # turn 3 only (streak 2); turns 4 and 5 belong to the blind warning


def test_remediation_delivered_bad_return_raises_type_error():
    with pytest.raises(TypeError, match="remediation_delivered returned 'yes'"):
        run_scenario("same_turn_thrash", stall_config(remediation_delivered=lambda info: "yes"), rounds=3)


def test_remediation_delivered_is_not_asked_on_a_first_failure():
    asked = []
    run_scenario("productive", stall_config(remediation_delivered=lambda info: asked.append(info) or True))
    assert asked == []


def test_stall_patterns_are_the_declared_closed_set():
    assert STALL_PATTERNS == {"stuck_same_diagnostic", "delivered_fix_not_landing", "no_net_progress_hard_cap",
                              "no_net_progress", "repeated_error", "repeated_same_observation"}


def test_check_fold_diagnostic_passes_the_reference_and_fails_a_stub():
    from cafe.stall import check_fold_diagnostic

    assert check_fold_diagnostic(fold_diagnostic) == []
    problems = check_fold_diagnostic(lambda model, dispatch: model)
    assert problems and all(":" in p for p in problems)
    with pytest.raises(NotImplementedError):
        check_fold_diagnostic(lambda model, dispatch: (_ for _ in ()).throw(NotImplementedError()))


def test_reserved_terminal_verify_does_not_repeat_a_check_the_turn_already_ran():
    detector = StallDetector(stall_config(repair_aware=True, reserved_terminal_verify=True))
    detector.state = replace(detector.state, model=fold_all([FAIL_A], [EDIT]))  # an edit still unchecked
    checked = TurnView(9, 10, (), (), (FAIL_A,), 0.0, 1, True)
    unchecked = TurnView(9, 10, (), (), (READ,), 0.0, 1, True)
    assert detector.reverify(checked) is None
    assert detector.reverify(unchecked) is not None
    early = TurnView(3, 10, (), (), (READ,), 0.0, 1, True)
    assert detector.reverify(early) is None  # outside the reserved last turns


def test_s13_notebook_stub_is_not_attempted_and_the_reference_passes():
    from cafe import course
    from cafe.stall import check_fold_diagnostic
    from samples import run_notebook_source

    namespace = run_notebook_source("s13-stall-detection")
    assert course.compare(namespace["my_fold"], check_fold_diagnostic).status == "not_attempted"
    assert course.compare(fold_diagnostic, check_fold_diagnostic).status == "passed"


def test_stall_detector_works_the_same_against_a_live_endpoint():
    from cafe.endpoint.serve import running_server

    replies = scenario_replies("same_turn_thrash", rounds=4)
    env = {"COURSE_MODE": "live", "CAFE_BASE_URL": "", "CAFE_API_KEY": "sk-local-test-key", "CAFE_MODEL": "cafe-scripted"}
    with running_server(script=replies) as server, open_workbench() as bench:
        client = make_client(environ={**env, "CAFE_BASE_URL": server.base_url})
        run = run_with_stall(client, ASK, bench.tools, verify=bench.verify, config=AWARE, model="cafe-scripted",
                             max_turns=len(replies))
    assert patterns(run) == [(4, "stuck_same_diagnostic")]
    assert run.current_failure is not None and run.current_failure.snippet.startswith("assert 999 == 1000")
