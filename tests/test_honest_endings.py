"""A red run never ends `done`: a property checked over every story and every mode.

For each of session 15's stories under each monitor configuration (and, slow, each of session
13's scenarios under the stall detector), the run's last verification is found in its turns. If
it failed, the run must not end with a success reason, and its stop detail must not say that
anything passed. The monitors' message ceilings are checked on the same runs.
"""

from __future__ import annotations

import itertools

import pytest

import cafe
from cafe.loop.turns import RunResult
from cafe.monitors.gate import MESSAGE_CEILINGS, VERIFY_SOURCE
from cafe.monitors.run import MonitorConfig, run_with_monitors
from cafe.monitors.tiers import read_verification
from cafe.stall import run_with_stall, stall_config
from cafe.stories.monitor_stories import STORIES, TASK, story_replies, story_timeout
from cafe.stories.scenarios import SCENARIOS, scenario_replies
from cafe.world.workbench import open_workbench

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
    with open_workbench() as bench:
        return run_with_monitors(
            cafe.make_client(story_replies(name)),
            TASK,
            bench,
            config=config,
            max_turns=30,
            command_timeout_s=story_timeout(name),
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
    with open_workbench() as bench:
        run = run_with_stall(
            cafe.make_client(replies),
            TASK,
            bench.tools,
            verify=bench.verify,
            config=stall_config(**knobs),
            max_turns=len(replies),
        )
    assert_honest(run.result, forced=True)
