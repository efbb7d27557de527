"""Tests for cafe/stall/detector.py: stall detection on real evidence (the host facts that plug in: test_facts.py).

The scenario tests mirror the cases the design this session follows was proven on. Each one drives a
scripted agent through the loop against a real workbench: its edits are real writes and its
test runs are real pytest runs, so every signature below comes from pytest's own output.

Many of them replay the same scenario (under several configurations, or with a detector and
without), so `run_scenario` runs through tests/run_memo.py: a copy of one prepared workbench (the
same files and starting commit `open_workbench` makes), and a pytest run already seen on the very
same bytes and environment answered with that real run's result. The first run of each tree is
real, so every signature still comes from pytest's own output (tests/test_honest_endings.py
shows the memo answers only for a tree it has seen).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from run_memo import RunMemo, prepared_workbench

from cafe.endpoint.client.chat import make_client
from cafe.loop.agent import ToolResult, TurnView, run_loop
from cafe.loop.tools import ToolOutput, tool
from cafe.stall.checks import StallReading, Trip
from cafe.stall.config import STALL_KNOB_DEFAULTS, stall_config
from cafe.stall.detector import STALL_PATTERNS, STALL_STOP_REASONS, StallDetector
from cafe.stall.evidence import failure_snippet
from cafe.stall.failure_state import CurrentFailure, FailureState, fold_diagnostic
from cafe.stall.memory import DetectorState, reset_action
from cafe.stall.repeats import REPEAT_SAME_ERROR, REPEAT_SAME_OBSERVATION, RepeatCounters
from cafe.stall.run import run_with_stall
from cafe.stall.verify import VERIFY_STOP_REASONS, VerifyEntrypoint
from cafe.stories.scenarios import scenario_replies
from cafe.world.workbench import open_workbench
from work import grows_linearly

ASK = [{"role": "user", "content": "The till's split is wrong; please fix it."}]
FAIL_A = ToolResult("c", "run_tests", {}, False, "E   assert 999 == 1000", "verify")
EDIT = ToolResult("c", "write_file", {}, True, "wrote 10 characters", "mutate")
READ = ToolResult("c", "read_file", {}, True, "text", "observe")
_DURATION = re.compile(r" in \d+(?:\.\d+)?s")
# The real pytest runs of this file's scenarios, for the runs that replay them (module docstring).
MEMO = RunMemo()


def run_scenario(name, config=None, *, max_turns=None, rounds=6, max_verify_attempts=3, **kw):
    replies = scenario_replies(name, rounds=rounds)
    with prepared_workbench() as bench:
        tools = MEMO.tools(bench.tools, bench.root)
        return run_with_stall(
            make_client(replies),
            ASK,
            tools,
            verify=next(t for t in tools if t.name == "run_tests"),
            config=config,
            max_turns=max_turns or len(replies),
            max_verify_attempts=max_verify_attempts,
            **kw,
        )


def patterns(run):
    return [(w.turn, w.pattern) for w in run.warnings]


def streaks(run):
    return [s.failure_state.same_diagnostic_streak for s in run.timeline]


def steady(messages):
    """A transcript with pytest's timings removed, for comparing two runs."""
    return [
        {
            **m,
            "content": _DURATION.sub("", m["content"])
            if isinstance(m.get("content"), str)
            else m.get("content"),
        }
        for m in messages
    ]


def outcome(result):
    """Everything a run did, timings aside: how it ended, every turn's calls, results and nudges,
    the transcript, and the checks it spent."""
    turns = [
        (
            t.turn,
            t.text,
            [(c.name, dict(c.arguments)) for c in t.calls],
            [(r.name, r.ok, r.kind, r.forced, _DURATION.sub("", r.output)) for r in t.dispatch],
            [(n.source, _DURATION.sub("", n.text)) for n in t.nudges],
        )
        for t in result.turns
    ]
    return (result.stop_reason, result.detail, result.text, turns, steady(result.messages))


AWARE = stall_config(repair_aware=True)
AWARE_NO_MANDATE = stall_config(repair_aware=True, post_edit_reverify=False)


# --- configuration: knobs, defaults, flat vs nested ------------------------------------------


def test_stall_knob_defaults_are_the_designs_and_read_only():
    assert STALL_KNOB_DEFAULTS == {
        "repair_aware": False,
        "stuck_same_diagnostic_after": 3,
        "post_edit_reverify": True,
        "no_net_progress_extend_guard": False,
        "no_net_progress_extend_after": 3,
        "no_net_progress_hard_cap_after": 16,
        "reserved_terminal_verify": False,
        "reserved_terminal_verify_iterations": 2,
        "repeat_same_error": 3,
        "repeat_same_observation": 4,
        "inject_feedback": True,
        "max_feedback": 1,
        "hard_stop_after_trips": 3,
    }
    config = stall_config()
    assert {k: getattr(config, k) for k in STALL_KNOB_DEFAULTS} == STALL_KNOB_DEFAULTS
    assert (REPEAT_SAME_ERROR, REPEAT_SAME_OBSERVATION) == (3, 4)
    with pytest.raises(TypeError):
        STALL_KNOB_DEFAULTS["repair_aware"] = True  # type: ignore[index]


def test_stall_config_accepts_knobs_nested_under_repair_diagnostics():
    config = stall_config(
        {"repair_diagnostics": {"repair_aware": True, "stuck_same_diagnostic_after": 5}}
    )
    assert config.repair_aware is True and config.stuck_same_diagnostic_after == 5


def test_stall_config_flat_knob_wins_over_nested():
    config = stall_config(
        {
            "stuck_same_diagnostic_after": 2,
            "repair_diagnostics": {"repair_aware": True, "stuck_same_diagnostic_after": 7},
        }
    )
    assert config.stuck_same_diagnostic_after == 2
    assert config.repair_aware is True  # the nested block still supplies the knobs it alone sets
    assert stall_config({"repair_aware": False}, repair_aware=True).repair_aware is True


def test_stall_config_unknown_keys_are_refused_by_name():
    with pytest.raises(ValueError, match="stuck_after"):
        stall_config({"stuck_after": 3})
    with pytest.raises(ValueError, match="progress_signal.*plug in as checks"):
        stall_config({"progress_signal": None})  # host facts are plug-in checks, not knobs


def test_stall_config_wrong_types_are_refused():
    with pytest.raises(TypeError, match="repair_aware"):
        stall_config(repair_aware="yes")
    with pytest.raises(ValueError, match="stuck_same_diagnostic_after"):
        stall_config(stuck_same_diagnostic_after=0)
    with pytest.raises(ValueError, match="no_net_progress_hard_cap_after"):
        stall_config(no_net_progress_hard_cap_after=True)
    with pytest.raises(ValueError, match="repeat_same_observation must be .* at least 2"):
        stall_config(repeat_same_observation=1)
    assert stall_config(max_feedback=0).max_feedback == 0  # silent: trips are recorded, not sent


# --- scenarios in the real workbench ---------------------------------------------------------


def test_edit_retest_thrash_trips_exactly_once():
    run = run_scenario("thrash", AWARE_NO_MANDATE, max_turns=12)
    assert patterns(run) == [(6, "stuck_same_diagnostic")]
    nudge = run.result.turns[5].nudges[0]
    assert nudge.source == "stuck_same_diagnostic"
    assert "assert 999 == 1000" in nudge.text  # the nudge quotes the failing evidence
    assert nudge.text in [m["content"] for m in run.result.messages]
    assert streaks(run)[:8] == [
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
    ]  # edits hold the streak, failures advance it
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
    with_mandate = run_scenario(
        "productive", AWARE
    )  # the forced re-check and the model's own re-test agree
    assert (
        with_mandate.warnings == ()
        and with_mandate.stop_reason == "done"
        and max(streaks(with_mandate)) == 2
    )
    signatures = {
        s.failure_state.last_diagnostic_signature
        for s in run.timeline
        if s.failure_state.last_diagnostic_class == "fail"
    }
    assert len(signatures) == 2  # 999 == 1000, then 1002 == 1000


def test_success_clears_current_failure():
    run = run_scenario("productive", AWARE)
    assert run.stop_reason == "done" and run.current_failure is None
    assert (
        run.failure_state.last_diagnostic_class is None
        and run.failure_state.same_diagnostic_streak == 0
    )


def test_stuck_stop_carries_current_failure():
    config = stall_config(
        repair_aware=True, no_net_progress_extend_guard=True, no_net_progress_hard_cap_after=3
    )
    run = run_scenario("retest_only", config)
    assert run.stop_reason == "stuck"
    assert run.result.detail.startswith("no_net_progress_hard_cap")
    failure = run.current_failure
    assert isinstance(failure, CurrentFailure)
    block = failure.as_dict()
    assert set(block) == {"class", "signature", "snippet", "same_diagnostic_streak"}
    assert block["class"] == "fail" and block["same_diagnostic_streak"] == 3
    assert "assert 999 == 1000" in block["snippet"]  # the output itself, head and tail
    assert failure_snippet(block["snippet"]).startswith("assert 999 == 1000")  # what a nudge quotes
    assert block["signature"] == run.timeline[-1].failure_state.last_diagnostic_signature


def test_budget_stop_also_names_what_is_failing():
    run = run_scenario("thrash", AWARE_NO_MANDATE, max_turns=5)
    assert run.stop_reason == "max_turns"
    assert run.current_failure is not None and "999" in run.current_failure.snippet


def test_action_reset_preserves_the_model_in_a_run():
    # thrash alternates write_file and run_tests, so every turn is a new action for the blind counters,
    # and still the failure model keeps counting the same failure
    run = run_scenario("thrash", AWARE_NO_MANDATE, max_turns=8)
    assert streaks(run)[-1] == 4


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["thrash", "productive", "varied_failures", "retest_only"])
def test_repair_aware_off_is_a_no_op(scenario):
    every_knob = stall_config(
        repair_aware=False,
        stuck_same_diagnostic_after=2,
        post_edit_reverify=True,
        no_net_progress_extend_guard=True,
        no_net_progress_extend_after=2,
        no_net_progress_hard_cap_after=2,
        reserved_terminal_verify=True,
        reserved_terminal_verify_iterations=5,
    )
    off = run_scenario(scenario, every_knob, rounds=3)
    default = run_scenario(scenario, None, rounds=3)
    replies = scenario_replies(scenario, rounds=3)
    with prepared_workbench() as bench:
        tools = MEMO.tools(bench.tools, bench.root)
        verifier = VerifyEntrypoint(next(t for t in tools if t.name == "run_tests"))
        plain = run_loop(
            make_client(replies),
            ASK,
            tools,
            before_finish=[verifier.before_finish],
            after_turn=[verifier.after_turn],
            stop_reasons=verifier.stop_reasons,
            max_turns=len(replies),
        )
    assert outcome(off.result) == outcome(default.result)
    assert off.current_failure is None is default.current_failure
    for run in (off, default):  # the blind detector stays silent: the same run as no detector
        assert outcome(run.result) == outcome(plain)
        assert run.warnings == ()


def test_blind_detector_misses_the_thrash_but_catches_pure_retries():
    assert run_scenario("thrash", None, max_turns=12).warnings == ()  # the gap repair-aware closes
    blind = run_scenario("retest_only", None)
    assert patterns(blind) == [(4, "repeated_error"), (5, "repeated_error"), (6, "repeated_error")]
    # the first is sent, the next two are recorded; the third in a row stops the run
    assert [(w.sent, w.consecutive_trips, w.stopped) for w in blind.warnings] == [
        (True, 1, False),
        (False, 2, False),
        (False, 3, True),
    ]
    assert blind.stop_reason == "stuck" and len(blind.result.turns) == 6
    assert [n.source for t in blind.result.turns for n in t.nudges] == ["repeated_error"]


def test_timeline_records_the_blind_counter_one_turn_behind():
    thrash = run_scenario("thrash", None, max_turns=12)
    # alternating calls: each one differs from the call before it, so nothing ever counts up
    assert {(s.same_error, s.same_observation) for s in thrash.timeline} == {(0, 1)}
    retries = run_scenario("retest_only", None)
    assert [(s.same_error, s.pattern) for s in retries.timeline][:4] == [
        (0, None),  # turn 1: run_tests has no result yet
        (1, None),
        (2, None),
        (REPEAT_SAME_ERROR, "repeated_error"),  # turn 4: it failed the same way three times
    ]


def test_repair_aware_suppresses_the_blind_repeated_failure_trip():
    run = run_scenario("retest_only", AWARE)
    assert patterns(run) == [(4, "stuck_same_diagnostic")]  # not also repeated_error


def test_stuck_trip_needs_the_streak_to_go_up_not_only_to_stand_at_the_threshold():
    # threshold 2: the thrash's second failure trips on turn 4; on turn 5 an edit turn holds the
    # streak at 2 (not advanced) and on turn 6 it moves on to 3: neither trips again
    run = run_scenario(
        "thrash",
        stall_config(repair_aware=True, post_edit_reverify=False, stuck_same_diagnostic_after=2),
        max_turns=8,
    )
    assert patterns(run) == [(4, "stuck_same_diagnostic")]
    assert streaks(run)[3:6] == [2, 2, 3]


@pytest.mark.slow
def test_fold_lag_trips_one_turn_after_the_nth_failure():
    for threshold in (2, 3, 4):
        run = run_scenario(
            "retest_only", stall_config(repair_aware=True, stuck_same_diagnostic_after=threshold)
        )
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
    assert forced == [2]


def test_reserved_terminal_verify_checks_an_edit_in_the_last_turns():
    config = stall_config(
        repair_aware=True, post_edit_reverify=False, reserved_terminal_verify=True
    )
    run = run_scenario("edit_then_done", config, max_turns=2)
    forced = [(t.turn, r.name) for t in run.result.turns for r in t.dispatch if r.forced]
    assert forced == [(2, "run_tests")]


def test_hard_cap_trips_on_varied_failures_and_survives_successful_edits():
    config = stall_config(
        repair_aware=True,
        post_edit_reverify=False,
        no_net_progress_extend_guard=True,
        no_net_progress_hard_cap_after=4,
    )
    run = run_scenario("varied_failures", config)
    assert patterns(run) == [(8, "no_net_progress_hard_cap")]  # failing checks on turns 1, 3, 5, 7
    assert run.stop_reason == "stuck" and max(streaks(run)) == 1  # never the same failure twice
    assert run.current_failure is not None


def test_hard_cap_counts_a_failing_check_in_the_same_turn_as_an_edit():
    # every turn of same_turn_thrash edits and re-tests: the edit does not excuse the red check
    config = stall_config(
        repair_aware=True,
        post_edit_reverify=False,
        no_net_progress_extend_guard=True,
        no_net_progress_hard_cap_after=3,
    )
    run = run_scenario("same_turn_thrash", config, rounds=4)
    assert patterns(run) == [
        (4, "no_net_progress_hard_cap")
    ]  # it outranks stuck_same_diagnostic on turn 4


def test_hard_cap_is_off_without_the_guard():
    config = stall_config(
        repair_aware=True, post_edit_reverify=False, no_net_progress_hard_cap_after=2
    )
    assert run_scenario("varied_failures", config).warnings == ()


def test_extension_is_refused_once_the_same_failure_holds():
    detector = StallDetector(stall_config(repair_aware=True, no_net_progress_extend_guard=True))
    replies = scenario_replies("retest_only", rounds=3)
    allowed = []
    with open_workbench() as bench:
        run_with_stall(
            make_client(replies),
            ASK,
            bench.tools,
            max_turns=4,
            detector=detector,
            observers=[lambda view: allowed.append(detector.extension_allowed())],
        )
    assert allowed == [True, True, True, False]
    assert StallDetector(AWARE).extension_allowed()  # without the guard, always allowed


def test_stall_patterns_are_the_declared_closed_set():
    assert STALL_PATTERNS == {
        "stuck_same_diagnostic",
        "no_net_progress_hard_cap",
        "repeated_error",
        "repeated_same_observation",
    }  # plug-in checks declare their own


def test_reset_action_preserves_failure_state():
    failing = fold_diagnostic(fold_diagnostic(FailureState(), [FAIL_A]), [FAIL_A])
    state = DetectorState(
        failure_state=failing, repeats=RepeatCounters("x", "out", True, True, 2, 0)
    )
    after = reset_action(state)
    assert after.failure_state == state.failure_state and after.repeats == RepeatCounters()


class _Always:
    """A plug-in check that trips its one pattern at a chosen seam, and records what it saw."""

    patterns = frozenset({"always"})

    def __init__(self, seam, stop=False, pattern="always"):
        self.seam, self.stop, self.pattern, self.seen = seam, stop, pattern, []

    def on_fold(self, reading):
        return self._maybe("on_fold", reading)

    def on_results(self, reading):
        return self._maybe("on_results", reading)

    def _maybe(self, seam, reading):
        self.seen.append((seam, reading))
        return Trip(self.pattern, "plug-in says so", self.stop) if seam == self.seam else None


def test_plug_in_check_at_the_fold_takes_the_turn_from_the_stuck_nudge():
    check = _Always("on_fold")
    run = run_scenario("retest_only", AWARE, checks=[check])
    assert patterns(run) == [
        (turn, "always") for turn in range(1, 8)
    ]  # never stuck_same_diagnostic
    assert all(isinstance(reading, StallReading) for _, reading in check.seen)


def test_a_trip_after_a_clean_call_never_adds_up_to_a_stop():
    # repair-aware, every proposed call trips nothing in the blind core, and that resets the count
    # before the fold's trip is counted: one trip in a row, turn after turn, and one text sent
    run = run_scenario("retest_only", AWARE, checks=[_Always("on_fold")])
    assert {w.consecutive_trips for w in run.warnings} == {1}
    assert [w.sent for w in run.warnings] == [True] + [False] * 6
    assert run.stop_reason == "max_turns"  # the verify entrypoint refused the claimed finish
    hard = run_scenario(
        "retest_only",
        stall_config(repair_aware=True, hard_stop_after_trips=1),
        checks=[_Always("on_fold")],
    )
    assert hard.stop_reason == "stuck" and len(hard.result.turns) == 1


def test_plug_in_check_after_the_turn_sees_this_turns_results_and_may_stop():
    check = _Always("on_results", stop=True)
    run = run_scenario("retest_only", AWARE, checks=[check])
    assert patterns(run) == [(1, "always")] and run.result.detail == "always: plug-in says so"
    seam, reading = check.seen[-1]
    assert seam == "on_results" and [r.name for r in reading.view.dispatch] == ["run_tests"]


def test_plug_in_check_returning_an_undeclared_pattern_is_refused():
    with pytest.raises(TypeError, match="one of its patterns"):
        run_scenario("retest_only", AWARE, checks=[_Always("on_fold", pattern="made_up")])


def test_run_with_stall_refuses_a_detector_and_its_parts_together():
    with pytest.raises(ValueError, match="either a detector"):
        run_with_stall(make_client(["done"]), ASK, [], detector=StallDetector(), config=AWARE)


def test_check_fold_diagnostic_passes_the_reference_and_fails_a_stub():
    from banks.bank_s13 import right_by_hand

    from cafe.exercises.s13 import check_fold_diagnostic

    assert check_fold_diagnostic(right_by_hand) == []  # a learner's own fold
    refused = check_fold_diagnostic(fold_diagnostic)  # the course's own is not the learner's work
    assert refused and "write your own" in refused[0], refused
    problems = check_fold_diagnostic(lambda model, dispatch: model)
    assert problems and all(":" in p for p in problems)
    with pytest.raises(NotImplementedError):
        check_fold_diagnostic(lambda model, dispatch: (_ for _ in ()).throw(NotImplementedError()))


def test_check_fold_diagnostic_fails_a_streak_that_edits_reset():
    from dataclasses import replace

    from banks.bank_s13 import right_by_hand

    from cafe.exercises.s13 import check_fold_diagnostic

    def edit_keyed(state, dispatch):  # the earlier design the lesson warns about
        folded = right_by_hand(state, dispatch)
        edited = any(r.kind == "mutate" and r.ok for r in dispatch)
        return replace(folded, same_diagnostic_streak=0) if edited else folded

    problems = check_fold_diagnostic(edit_keyed)
    assert any(
        p.startswith("an edit on a live failure: same_diagnostic_streak should be 2, got 0")
        for p in problems
    ), problems


def test_check_fold_diagnostic_fails_an_edit_that_hides_the_check_run_after_it():
    from banks.bank_s13 import right_by_hand

    from cafe.exercises.s13 import check_fold_diagnostic

    def edit_first(state, dispatch):  # the old rule: any turn with an edit is an edit
        if any(r.kind == "mutate" and r.ok for r in dispatch) and all(r.ok for r in dispatch):
            return right_by_hand(state, [r for r in dispatch if r.kind == "mutate"])
        return right_by_hand(state, dispatch)

    problems = check_fold_diagnostic(edit_first)
    assert any(
        p.startswith(
            "an edit and a passing re-test in one turn: last_diagnostic_class should be 'pass'"
        )
        for p in problems
    ), problems


def test_check_signature_passes_the_detector_and_fails_raw_and_digit_blind_hashes():
    import hashlib
    import re

    from cafe.exercises.s13 import SIGNATURE_PAIRS, check_signature
    from cafe.stall.evidence import failure_signature

    assert (
        check_signature(
            lambda out: failure_signature(ToolResult("c", "run_tests", {}, False, out, "verify"))
        )
        == []
    )
    raw = check_signature(lambda output: hashlib.sha256(output.encode()).hexdigest())
    assert len(raw) == sum(same for *_, same in SIGNATURE_PAIRS) and all(
        "signatures differ" in p for p in raw
    )
    blind = check_signature(lambda output: re.sub(r"\d+", "N", output))
    assert blind[0].startswith(
        "a different wrong total: two different failures share the signature"
    )


def test_reserved_terminal_verify_does_not_repeat_a_check_the_turn_already_ran():
    detector = StallDetector(stall_config(repair_aware=True, reserved_terminal_verify=True))
    failing = fold_diagnostic(FailureState(), [FAIL_A])
    detector.state = replace(
        detector.state, failure_state=fold_diagnostic(failing, [EDIT])
    )  # an edit unchecked
    checked = TurnView(9, 10, (), (), (FAIL_A,), 0.0)
    unchecked = TurnView(9, 10, (), (), (READ,), 0.0)
    assert detector.reverify(unchecked) is None  # no verify entrypoint: nothing to force
    with open_workbench() as bench:
        detector.verifier = VerifyEntrypoint(bench.verify)
        assert detector.reverify(checked) is None
        assert detector.reverify(unchecked) is not None
        early = TurnView(3, 10, (), (), (READ,), 0.0)
        assert detector.reverify(early) is None  # outside the reserved last turns


def test_post_edit_reverify_reads_the_turn_in_the_order_it_ran():
    from cafe.loop.tools import ToolOutput, tool

    def check() -> ToolOutput:
        """The run's check."""
        return ToolOutput(True, "4 passed")

    def verifier() -> VerifyEntrypoint:
        return VerifyEntrypoint(tool(check, kind="verify"))

    def view(*results: ToolResult) -> TurnView:
        return TurnView(2, 10, (), (), results, 0.0)

    passed = ToolResult("c", "run_tests", {}, True, "4 passed", "verify")
    refused = ToolResult("c", "write_file", {}, False, "no such folder: src/", "mutate")
    live = StallDetector(AWARE, verifier=verifier())
    live.state = replace(live.state, failure_state=fold_diagnostic(FailureState(), [FAIL_A]))
    assert live.reverify(view(EDIT, passed)) is None  # the check after the edit verified it
    assert live.reverify(view(FAIL_A, EDIT)) is not None  # an edit after the red: unchecked
    # an edit after a green check is unchecked too: the green run cannot vouch for it (reader V s41)
    assert live.reverify(view(passed, EDIT)) is not None
    fresh = StallDetector(AWARE, verifier=verifier())
    assert fresh.reverify(view(refused, EDIT)) is None  # a refused write is no live failure
    assert fresh.reverify(view(passed, EDIT)) is None  # nothing failing: nothing owed


def test_stall_plug_ins_declare_their_stop_reasons():
    assert STALL_STOP_REASONS == {"stuck"} and VERIFY_STOP_REASONS == {"verify_failed"}
    assert StallDetector.stop_reasons == STALL_STOP_REASONS


@pytest.mark.slow
def test_s13_notebook_stub_is_not_attempted_and_the_reference_passes():
    from samples import run_notebook_source

    from cafe import course
    from cafe.exercises.s13 import check_fold_diagnostic

    namespace = run_notebook_source("s13-stall-detection")
    assert course.compare(namespace["my_fold"], check_fold_diagnostic).status == "not_attempted"
    from banks.bank_s13 import right_by_hand

    assert course.compare(right_by_hand, check_fold_diagnostic).status == "passed"
    assert course.compare(fold_diagnostic, check_fold_diagnostic).status == "failed"
    from cafe.exercises.s13 import check_signature

    assert course.compare(namespace["my_signature"], check_signature).status == "not_attempted"


def test_stall_detector_works_the_same_against_a_live_endpoint():
    from cafe.endpoint.server.serve import running_server

    replies = scenario_replies("same_turn_thrash", rounds=4)
    env = {
        "COURSE_MODE": "live",
        "CAFE_BASE_URL": "",
        "CAFE_API_KEY": "sk-local-test-key",
        "CAFE_MODEL": "cafe-scripted",
    }
    with running_server(script=replies) as server, open_workbench() as bench:
        client = make_client(environ={**env, "CAFE_BASE_URL": server.base_url})
        run = run_with_stall(
            client,
            ASK,
            bench.tools,
            verify=bench.verify,
            config=AWARE,
            model="cafe-scripted",
            max_turns=len(replies),
        )
    assert patterns(run) == [(4, "stuck_same_diagnostic")]
    assert run.current_failure is not None and "assert 999 == 1000" in run.current_failure.snippet


def test_run_with_stall_work_grows_linearly_with_the_turns():
    from types import SimpleNamespace

    from cafe.loop.tools import tool

    def create(**request):
        # built as the SDK builds a reply from an endpoint's JSON, so chat() reads it as one
        from openai.types.chat import ChatCompletion

        call = {
            "id": None,
            "type": "function",
            "function": {"name": "run_tests", "arguments": "{}"},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return ChatCompletion.construct(
            id="c",
            object="chat.completion",
            created=0,
            model="instant",
            choices=[{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        )

    def run_tests() -> str:
        """A check that always fails the same way."""
        raise AssertionError("assert 999 == 1000")

    instant = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    failing = tool(run_tests, kind="verify")

    def stalled(turns):
        def call():
            run = run_with_stall(
                instant,
                ASK,
                [failing],
                model="instant",
                max_turns=turns,
                config=stall_config(repair_aware=True, stuck_same_diagnostic_after=turns + 1),
            )
            # repair-aware (blind patterns off), threshold never reached
            assert len(run.result.turns) == turns

        return call

    assert grows_linearly(stalled, 50)


def test_a_key_in_a_failing_output_never_reaches_a_nudge_a_warning_or_the_stop(monkeypatch):
    from cafe.monitors.recovery import excerpt

    key = "sk-cafe-" + "k3y" * 12
    monkeypatch.setenv("CAFE_API_KEY", key)

    def run_tests() -> ToolOutput:
        """Run the tests."""
        return ToolOutput(False, f"E   RuntimeError: the endpoint refused {key}\n1 failed")

    check = tool(run_tests, kind="verify")
    replies = [{"content": None, "tool_calls": [{"name": "run_tests", "arguments": {}}]}] * 6
    for config, ending in ((AWARE, "stuck"), (stall_config(), "stuck")):
        hard = stall_config(
            repair_aware=config.repair_aware,
            no_net_progress_extend_guard=True,
            no_net_progress_hard_cap_after=4,
        )
        run = run_with_stall(
            make_client(replies + ["Done."]), ASK, [check], verify=check, config=hard, max_turns=7
        )
        said = [n.text for t in run.result.turns for n in t.nudges]
        said += [w.message for w in run.warnings] + [run.result.detail]
        said += [run.current_failure.snippet] if run.current_failure else []
        assert run.stop_reason == ending and said
        assert not any(key in text or key[:12] in text for text in said), said
    claims = run_with_stall(make_client(["Done."] * 3), ASK, [check], verify=check, max_turns=3)
    told = [n.text for t in claims.result.turns for n in t.nudges]
    assert claims.stop_reason == "verify_failed" and len(told) == 2
    assert all("the endpoint refused" in text and key[:12] not in text for text in told)
    assert key not in excerpt(f"run_tests: {key}")
