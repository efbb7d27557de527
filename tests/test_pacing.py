"""Tests for cafe/governor/pacing.py: the pace governor's host side, driving the real loop on a fake clock."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import ScriptedClient
from cafe.governor.pace import EXTEND_REASON, PACE_CHECK_REASON, PacePolicy
from cafe.governor.pacing import (
    PACE_CHECK_NOTE,
    PACE_STOP_REASONS,
    PaceGovernor,
    TurnClock,
    passing_tests,
    verify_state_of,
    wall_timeout,
)
from cafe.loop.agent import Nudge, Stop, ToolResult, TurnView, run_loop
from cafe.loop.tools import ToolOutput, tool
from cafe.stall import StallDetector, VerifyEntrypoint, run_with_stall, stall_config
from cafe.stories.scenarios import scenario_replies
from cafe.world.workbench import open_workbench

# --- PaceGovernor: the host side, driving the real loop ------------------------------------

TARGETS = ("total", "tax", "receipt", "tip", "change")


def till_run(edits, *, hooks, step=10.0, max_turns=12, governor=None):
    """Run the real loop on a tiny in-memory till. Each scripted turn either rewrites till.py
    with the next value of `edits` and runs the check (which counts how many of TARGETS the file
    mentions), or, for a None, only reads the file. Then the scripted model says it is done."""
    files = {"till.py": ""}

    def write_file(content: str) -> str:
        """Replace till.py."""
        files["till.py"] = content
        return "written"

    def read_file() -> str:
        """Read till.py."""
        return files["till.py"]

    def run_tests() -> ToolOutput:
        """Run the till's tests."""
        passing = sum(t in files["till.py"] for t in TARGETS)
        return ToolOutput(
            passing == len(TARGETS), f"{passing} passed, {len(TARGETS) - passing} failed"
        )

    replies = []
    for content in edits:
        if content is None:
            replies.append({"tool_calls": [{"name": "read_file", "arguments": {}}]})
        else:
            replies.append(
                {
                    "tool_calls": [
                        {"name": "write_file", "arguments": {"content": content}},
                        {"name": "run_tests", "arguments": {}},
                    ]
                }
            )
    replies.append("done")
    clock = TurnClock(step)
    if governor is not None:  # the host reads its own runner: the passing-test count
        governor.reading = lambda view: next(
            (float(r.output.split()[0]) for r in view.dispatch if r.kind == "verify"), None
        )
        hooks = [*hooks, governor]
    return run_verified(
        ScriptedClient(replies),
        [{"role": "user", "content": "fix the till"}],
        [tool(write_file, kind="mutate"), tool(read_file), tool(run_tests, kind="verify")],
        tool(run_tests, kind="verify"),
        observers=[clock.tick],
        after_turn=hooks,
        clock=clock,
        max_turns=max_turns,
    )


def run_verified(client, messages, tools, verify, *, after_turn=(), **options):
    """`run_loop` with a verify entrypoint, and a pace governor's (or a timeout's) stop reason."""
    verifier = VerifyEntrypoint(verify)
    return run_loop(
        client,
        messages,
        tools,
        before_finish=[verifier.before_finish],
        after_turn=[verifier.after_turn, *after_turn],
        stop_reasons=PACE_STOP_REASONS | verifier.stop_reasons,
        **options,
    )


def asked(governor):
    return [(t.turn, t.decision.action, t.decision.reason) for t in governor.turns if t.decision]


STEADY = [
    "total",
    "total tax",
    "total tax receipt",
    "total tax receipt tip",
    "total tax receipt tip change",
]


def test_pace_governor_cuts_busy_run_whose_verifier_never_moves():
    governor = PaceGovernor(30_000)
    result = till_run(
        ["total", "total v2", "total v3", "total v4", "total v5"], hooks=[], governor=governor
    )
    assert result.stop_reason == "cut"
    assert "no_verifier_progress" in result.detail
    # 10 s per turn, 30 s budget: asked at turn 3 (turn 1's first reading counts as a rise, so the
    # window shows progress and the run is extended to 60 s), then at turn 6, with writes only.
    assert asked(governor) == [(3, "extend", EXTEND_REASON), (6, "cut", "no_verifier_progress")]
    last = governor.turns[-1].observation
    assert last.made_progress is True and last.verifier_signature_unchanged is True


def test_pace_governor_extends_steady_run_silently_until_it_finishes():
    governor = PaceGovernor(20_000, expected_total_ms=60_000)
    result = till_run(STEADY, hooks=[], governor=governor)
    assert result.stop_reason == "done"
    assert asked(governor) == [(2, "extend", EXTEND_REASON), (4, "extend", EXTEND_REASON)]
    assert governor.extends_used == 2 and governor.deadline_ms == 60_000
    assert all(not record.nudges for record in result.turns)  # extensions are silent


def test_wall_timeout_kills_the_same_steady_run():
    result = till_run(STEADY, hooks=[wall_timeout(20_000)])
    assert result.stop_reason == "cut" and "fixed timeout" in result.detail
    assert len(result.turns) == 2


def test_pace_governor_sends_pace_check_past_the_estimate_then_cuts():
    # 5 s a turn, 10 s checkpoints, a 10 s estimate: past it from 20 s. One target every two turns.
    governor = PaceGovernor(10_000, expected_total_ms=10_000, policy={"pace_check_max": 1})
    edits = ["total", "total", "total tax", "total tax", "total tax receipt", "total tax receipt"]
    result = till_run(edits, hooks=[], governor=governor, step=5.0)
    assert asked(governor) == [
        (2, "extend", EXTEND_REASON),
        (4, "pace_check", PACE_CHECK_REASON),
        (6, "cut", "pace_check_budget_exhausted"),
    ]
    nudges = [n for record in result.turns for n in record.nudges]
    assert [n.text for n in nudges] == [PACE_CHECK_NOTE] and nudges[0].source == "pace_check"
    assert result.stop_reason == "cut" and "pace_check_budget_exhausted" in result.detail


def test_pace_governor_proceeds_on_a_done_turn_past_the_deadline():
    governor = PaceGovernor(10_000, expected_total_ms=100_000)
    result = till_run(["total tax receipt tip change"], hooks=[], governor=governor)
    assert asked(governor) == [(1, "proceed", None)]
    assert governor.turns[0].observation.done is True
    assert result.stop_reason == "done"


def test_pace_governor_before_deadline_never_asks():
    governor = PaceGovernor(1_000_000)
    result = till_run(STEADY, hooks=[], governor=governor)
    assert result.stop_reason == "done"
    assert all(t.decision is None and t.observation is None for t in governor.turns)


def test_pace_governor_window_resets_after_extend():
    # Progress before the first checkpoint buys an extension; reading only afterwards is no
    # progress in the new window, even though the run's best reading is still 1.
    governor = PaceGovernor(10_000, expected_total_ms=100_000)
    result = till_run(["total", None, None], hooks=[], governor=governor)
    assert asked(governor) == [
        (1, "extend", EXTEND_REASON),
        (2, "cut", "no_progress_at_checkpoint"),
    ]
    assert result.stop_reason == "cut"


def test_pace_governor_extension_guard_turns_extend_into_cut():
    allowed = PaceGovernor(10_000, expected_total_ms=100_000, extension_allowed=lambda: True)
    till_run(STEADY, hooks=[], governor=allowed)
    assert asked(allowed)[0] == (1, "extend", EXTEND_REASON)
    guarded = PaceGovernor(10_000, expected_total_ms=100_000, extension_allowed=lambda: False)
    result = till_run(STEADY, hooks=[], governor=guarded)
    assert asked(guarded) == [(1, "cut", "no_verifier_progress")]
    assert guarded.turns[0].observation.verifier_signature_unchanged is True
    assert result.stop_reason == "cut"


@pytest.mark.slow
def test_workbench_stall_guard_feeds_the_governor():
    # A host whose own signature is useless (a call id: "moved" every turn) would keep extending
    # the thrash; the real StallDetector's no-net-progress guard knows the failure has held.
    def governed_thrash(guard: bool):
        detector = StallDetector(stall_config(repair_aware=True, no_net_progress_extend_guard=True))
        governor = PaceGovernor(
            30_000,
            reading=passing_tests,
            signature=lambda result: result.call_id,
            extension_allowed=detector.extension_allowed if guard else None,
        )
        with open_workbench() as bench:
            clock = TurnClock(10.0)
            detector.verifier = VerifyEntrypoint(bench.verify)
            run = run_with_stall(
                ScriptedClient(scenario_replies("thrash")),
                [{"role": "user", "content": "fix"}],
                bench.tools,
                detector=detector,
                observers=[clock.tick],
                after_turn=[governor],
                stop_reasons=governor.stop_reasons,
                clock=clock,
                max_turns=12,
            )
        return run, governor

    _, unguarded = governed_thrash(False)
    assert asked(unguarded)[:2] == [
        (3, "extend", EXTEND_REASON),
        (6, "pace_check", PACE_CHECK_REASON),
    ]
    run, guarded = governed_thrash(True)
    assert asked(guarded) == [(3, "extend", EXTEND_REASON), (6, "cut", "no_verifier_progress")]
    assert run.stop_reason == "cut"


def test_pace_governor_env_blame_is_a_host_fact():
    governor = PaceGovernor(
        10_000, expected_total_ms=100_000, env_blame=lambda view: view.turn == 1
    )
    till_run(STEADY, hooks=[], governor=governor)
    assert asked(governor) == [(1, "cut", "env_blame_without_infra")]


def test_pace_governor_rejects_bad_settings():
    with pytest.raises(ValueError, match="budget_ms"):
        PaceGovernor(0)
    with pytest.raises(TypeError, match="budget_ms"):
        PaceGovernor("30s")
    with pytest.raises(ValueError, match="checkpoint_ms"):
        PaceGovernor(10, checkpoint_ms=-1)
    with pytest.raises(ValueError, match="did you mean 'extend_max'"):
        PaceGovernor(10, policy={"extend_maximum": 2})
    with pytest.raises(ValueError, match="extend_max"):
        PaceGovernor(10, policy={"extend_max": -2})


def test_pace_governor_takes_policy_record_or_dict_alike():
    as_dict = PaceGovernor(10, policy={"extend_max": 3})
    as_record = PaceGovernor(10, policy=PacePolicy(extend_max=3))
    assert as_dict.policy == as_record.policy == PacePolicy(extend_max=3, pace_check_max=2)
    assert PaceGovernor(10).policy == PacePolicy()


# --- readings and the clock -----------------------------------------------------------------


def _view(*results):
    return TurnView(
        turn=1,
        max_turns=5,
        calls=(),
        prev_dispatch=(),
        dispatch=tuple(results),
        elapsed=0.0,
    )


def _result(kind, ok, output):
    return ToolResult("c1", "run_tests" if kind == "verify" else "write_file", {}, ok, output, kind)


def test_passing_tests_reads_pytest_summary():
    assert (
        passing_tests(_view(_result("verify", False, "F...\n1 failed, 3 passed in 0.02s"))) == 3.0
    )
    assert passing_tests(_view(_result("verify", True, "....\n4 passed in 0.01s"))) == 4.0
    assert passing_tests(_view(_result("verify", False, "E\n1 error in 0.01s"))) == 0.0


def test_passing_tests_none_without_verification():
    assert passing_tests(_view()) is None
    assert passing_tests(_view(_result("mutate", True, "wrote 10 characters"))) is None


def test_verify_state_of_clean_or_broken_or_none():
    assert verify_state_of(_view(_result("verify", True, "ok"))) == 1.0
    assert verify_state_of(_view(_result("verify", False, "no"))) == 0.0
    assert verify_state_of(_view(_result("mutate", True, "wrote"))) is None


def test_turn_clock_moves_only_on_tick():
    clock = TurnClock(2.5)
    assert clock() == clock() == 0.0
    clock.tick(_view())
    clock.tick(_view())
    assert clock() == 5.0


@pytest.mark.parametrize(
    "bad, error",
    [
        (0, ValueError),
        (-1, ValueError),
        (math.inf, ValueError),
        (True, TypeError),
        ("10", TypeError),
    ],
)
def test_turn_clock_rejects_non_positive_step(bad, error):
    with pytest.raises(error, match="seconds_per_turn"):
        TurnClock(bad)


# --- the lesson's story, on the real workbench (real files, real pytest) --------------------


def _bench_run(scenario, hook):
    with open_workbench() as bench:
        clock = TurnClock(10.0)
        return run_verified(
            ScriptedClient(scenario_replies(scenario)),
            [{"role": "user", "content": "fix"}],
            bench.tools,
            bench.verify,
            observers=[clock.tick],
            after_turn=[hook],
            clock=clock,
            max_turns=20,
        )


def test_workbench_steady_repair_cut_by_timeout_but_finished_under_governor():
    assert _bench_run("productive", wall_timeout(30_000)).stop_reason == "cut"
    governor = PaceGovernor(30_000, reading=passing_tests)
    result = _bench_run("productive", governor)
    assert result.stop_reason == "done"
    assert asked(governor) == [(3, "extend", EXTEND_REASON), (6, "proceed", None)]


def test_workbench_thrash_cut_for_no_verifier_progress():
    # edits that leave pytest saying the same thing: writes, same signature, same count
    governor = PaceGovernor(30_000, reading=passing_tests)
    result = _bench_run("thrash", governor)
    assert result.stop_reason == "cut" and "no_verifier_progress" in result.detail
    assert asked(governor) == [(3, "extend", EXTEND_REASON), (6, "cut", "no_verifier_progress")]


def test_workbench_varied_failures_moves_signature_so_governor_cuts_late():
    # every edit changes the failure: the signature moves, so the governor keeps extending and
    # then nudging, and cuts only when its pace checks are spent
    governor = PaceGovernor(30_000, reading=passing_tests)
    result = _bench_run("varied_failures", governor)
    assert [t.reading for t in governor.turns if t.reading is not None] == [3.0] * 6
    assert [a for _, a, _ in asked(governor)] == ["extend", "pace_check", "pace_check", "cut"]
    assert result.stop_reason == "cut" and "pace_check_budget_exhausted" in result.detail


def test_pace_governor_custom_signature_is_used():
    seen = []
    governor = PaceGovernor(
        10_000,
        expected_total_ms=100_000,
        signature=lambda result: seen.append(result.name) or "always the same",
    )
    till_run(["total", "total tax"], hooks=[], governor=governor)
    assert seen and set(seen) == {"run_tests"}


# --- PaceGovernor property: whatever the run does, the host side keeps its bounds ------------

_turn_facts = st.lists(
    st.tuples(st.booleans(), st.one_of(st.none(), st.integers(0, 4)), st.booleans()),
    min_size=1,
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(
    facts=_turn_facts,
    step=st.sampled_from([3.0, 10.0, 25.0]),
    extend_max=st.integers(0, 3),
    pace_check_max=st.integers(0, 2),
)
def test_pace_governor_property_bounds_hold(facts, step, extend_max, pace_check_max):
    def reading(view):  # the verify result's text is its passing count; None without a verify
        return next((float(r.output) for r in view.dispatch if r.kind == "verify"), None)

    governor = PaceGovernor(
        20_000,
        expected_total_ms=40_000,
        policy={"extend_max": extend_max, "pace_check_max": pace_check_max},
        reading=reading,
        signature=lambda result: result.output,
    )
    deadlines, nudges, stopped = [governor.deadline_ms], 0, None
    for turn, (wrote, passing, verified) in enumerate(facts, start=1):
        results = []
        if wrote:
            results.append(ToolResult(f"w{turn}", "write_file", {}, True, "wrote", "mutate"))
        if verified and passing is not None:
            results.append(
                ToolResult(f"v{turn}", "run_tests", {}, passing == 4, str(passing), "verify")
            )
        deadline_before = governor.deadline_ms
        verdict = governor(TurnView(turn, 99, (), (), tuple(results), turn * step))
        record = governor.turns[-1]
        # asked exactly when the armed deadline had passed
        assert (record.decision is not None) == (turn * step * 1000 >= deadline_before)
        deadlines.append(governor.deadline_ms)
        if isinstance(verdict, Nudge):
            nudges += 1
            assert verdict.source == "pace_check" and record.decision.action == "pace_check"
        if isinstance(verdict, Stop):
            assert verdict.reason == "cut" and record.decision.action == "cut"
            assert record.decision.reason in verdict.detail
            stopped = turn
            break
    assert deadlines == sorted(deadlines), "the deadline never moves back"
    assert governor.extends_used <= extend_max and governor.pace_checks_used <= pace_check_max
    assert nudges == governor.pace_checks_used
    if stopped is None:
        assert all(t.decision is None or t.decision.action != "cut" for t in governor.turns)
