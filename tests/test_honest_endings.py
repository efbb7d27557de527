"""A red run never ends `done`: a property checked over every story and every mode.

For each of session 15's stories under each monitor configuration (and, slow, each of session
13's scenarios under the stall detector), the run's last verification is found in its turns. If
it failed, the run must not end with a success reason, and its stop detail must not say that
anything passed. The monitors' message ceilings are checked on the same runs.

The stories replay the same trees under eighteen configurations, so the runs go through
tests/run_memo.py: each workbench is a copy of one prepared repository (the same files and
starting commit `open_workbench` makes), and a pytest run or a command timeout already seen on
the very same bytes, command and environment is answered with the real run's result instead of
being run or waited out again. Every other tool call is real, and the first run of each tree is
real, so each configuration still meets the real results. `test_run_memo_*` below show the memo
answers only for a tree it has seen.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from run_memo import RunMemo, prepared_workbench, tree_digest

import cafe
from cafe.loop.turns import RunResult
from cafe.monitors.gate import MESSAGE_CEILINGS, VERIFY_SOURCE
from cafe.monitors.run import MonitorConfig, RunMonitors, run_with_monitors
from cafe.monitors.tiers import read_verification
from cafe.stall import run_with_stall, stall_config
from cafe.stories.monitor_stories import STORIES, TASK, story_replies, story_timeout
from cafe.stories.scenarios import SCENARIOS, scenario_replies

# Every mode of every switch, three configurations; the slow test below runs the other fifteen
# of the full product, so the two together cover all eighteen once.
EVERY_MODE = [
    MonitorConfig(),
    MonitorConfig("advisory", 4, "advisory"),
    MonitorConfig("blocking", 4, "auto"),
]
FULL_PRODUCT = [
    MonitorConfig(tiers, threshold, abort)
    for tiers, threshold, abort in itertools.product(
        ("off", "advisory", "blocking"), (None, 4), ("off", "advisory", "auto")
    )
]
THE_REST = [config for config in FULL_PRODUCT if config not in EVERY_MODE]
# The real runs of this file's stories, for the runs that replay them (see the module docstring).
MEMO = RunMemo()


def last_verification_failed(result: RunResult, *, forced: bool) -> bool | None:
    """Whether the run's last verification failed (None when nothing verified anything). With
    `forced`, a check a hook ran counts too (session 13's verify entrypoint is the run's check)."""
    outcome = None
    for turn in result.turns:
        for r in turn.dispatch:
            check = read_verification(r)
            if check is not None:
                outcome = not check.passed
            elif forced and r.forced and r.kind == "verify":
                outcome = not r.ok
    return outcome


def assert_honest(result: RunResult, *, forced: bool = False) -> None:
    if last_verification_failed(result, forced=forced):
        assert result.stop_reason != "done", result.detail
        assert "passed" not in result.detail, result.detail


def run_story(name: str, config: MonitorConfig):
    timeout_s = story_timeout(name)
    with prepared_workbench() as bench:
        monitors = RunMonitors(bench, config, command_timeout_s=timeout_s)
        monitors.tools = MEMO.tools(monitors.tools, bench.root, command_timeout_s=timeout_s)
        return run_with_monitors(
            cafe.make_client(story_replies(name)), TASK, bench, max_turns=30, monitors=monitors
        )


def check_story(name: str, config: MonitorConfig) -> None:
    run = run_story(name, config)
    assert_honest(run.result)
    if run.stop_reason == "done":
        assert run.verification in ("no_code_edited", "verified_green", "fast_green_only")
    finish = [
        n for t in run.result.turns for n in t.nudges if n.source == VERIFY_SOURCE and t.calls == ()
    ]
    assert len(finish) <= MESSAGE_CEILINGS[config.verification_tiers]
    mid_run = [n for t in run.result.turns for n in t.nudges if "code edits have landed" in n.text]
    assert len(mid_run) <= (0 if config.verification_tiers == "off" else 1)


@pytest.mark.parametrize(
    "name, config",
    [(name, config) for name in sorted(STORIES) for config in EVERY_MODE],
    ids=lambda value: value if isinstance(value, str) else "-".join(map(str, vars(value).values())),
)
def test_no_story_ends_done_on_a_red_check_in_any_mode(name, config):
    check_story(name, config)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, config",
    [(name, config) for name in sorted(STORIES) for config in THE_REST],
    ids=lambda value: value if isinstance(value, str) else "-".join(map(str, vars(value).values())),
)
def test_no_story_ends_done_on_a_red_check_in_any_configuration(name, config):
    check_story(name, config)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, knobs",
    [
        (name, knobs)
        for name in sorted(SCENARIOS)
        for knobs in (
            {},
            {"repair_aware": True},
            {"repair_aware": True, "no_net_progress_extend_guard": True},
        )
    ],
    ids=str,
)
def test_no_stall_scenario_ends_done_on_a_red_check(name, knobs):
    replies = scenario_replies(name)
    with prepared_workbench() as bench:
        tools = MEMO.tools(bench.tools, bench.root)
        run = run_with_stall(
            cafe.make_client(replies),
            TASK,
            tools,
            verify=next(t for t in tools if t.name == "run_tests"),
            config=stall_config(**knobs),
            max_turns=len(replies),
        )
    assert_honest(run.result, forced=True)


# --- the memo the stories run through answers only for trees it has seen ----------------------


# The memo tests' command timeouts: a `true` finishes well inside the longer on a loaded machine
# (the streak stories' own figure, cafe/stories/monitor_stories.py); a `sleep 10` never finishes
# inside either, so the shorter keeps the waits short.
FINISHES_S, SLEEP_TIMES_OUT_S = 1.5, 0.3


def _memo_tools(memo: RunMemo, bench, timeout_s: float = FINISHES_S) -> dict:
    monitors = RunMonitors(bench, command_timeout_s=timeout_s)
    return {t.name: t for t in memo.tools(monitors.tools, bench.root, command_timeout_s=timeout_s)}


def test_run_memo_replays_a_pytest_run_only_on_the_same_bytes():
    """A copy of the prepared workbench gets the first copy's answer; one byte changed gets a
    real run; the bytes restored get the stored answer again."""
    memo = RunMemo()
    with prepared_workbench() as first, prepared_workbench() as second:
        red = _memo_tools(memo, first)["run_tests"].function()
        assert (memo.real_runs, memo.replays) == (1, 0) and not red.ok
        assert _memo_tools(memo, second)["run_tests"].function() == red  # a copy: same bytes
        assert (memo.real_runs, memo.replays) == (1, 1)
        bill = Path(second.root, "bill.py")
        text = bill.read_bytes()
        bill.write_bytes(text.replace(b"1", b"2", 1))  # one byte
        assert tree_digest(second.root) != tree_digest(first.root)
        _memo_tools(memo, second)["run_tests"].function()
        assert (memo.real_runs, memo.replays) == (2, 1)
        bill.write_bytes(text)  # the bytes it has seen again
        assert _memo_tools(memo, second)["run_tests"].function() == red
        assert (memo.real_runs, memo.replays) == (2, 2)


def test_run_memo_replays_only_a_timeout_and_only_on_the_same_bytes():
    """A command that finishes always runs; a timeout is replayed for the same command, timeout
    and tree only, and the replay still says the command did not finish."""
    memo = RunMemo()
    with prepared_workbench() as bench:
        run_command = _memo_tools(memo, bench)["run_command"].function
        assert run_command(command="true").ok and run_command(command="true").ok
        assert (memo.real_runs, memo.replays) == (2, 0)  # a finished command always runs
        sleep = _memo_tools(memo, bench, SLEEP_TIMES_OUT_S)["run_command"].function
        hung = sleep(command="sleep 10")
        assert not hung.ok and f"did not finish within {SLEEP_TIMES_OUT_S:g} seconds" in hung.text
        assert sleep(command="sleep 10") == hung
        assert (memo.real_runs, memo.replays) == (3, 1)
        other = _memo_tools(memo, bench, 0.2)["run_command"].function(command="sleep 10")
        assert "did not finish within 0.2 seconds" in other.text
        assert (memo.real_runs, memo.replays) == (4, 1)  # another timeout: a real run
        Path(bench.root, "notes.txt").write_text("x")
        assert sleep(command="sleep 10") == hung
        assert (memo.real_runs, memo.replays) == (5, 1)  # another tree: a real run


def test_run_memo_never_stores_a_run_that_changed_the_tree():
    """A replay could not make the change the run made, so such a run is never replayed."""
    memo = RunMemo()
    with prepared_workbench() as bench:
        Path(bench.root, "conftest.py").write_text("open('made.txt', 'w').close()\n")
        run_tests = _memo_tools(memo, bench)["run_tests"].function
        for _ in range(2):
            assert not run_tests().ok
            Path(bench.root, "made.txt").unlink()  # the run made it: the tree is as before
        assert (memo.real_runs, memo.replays) == (2, 0)
