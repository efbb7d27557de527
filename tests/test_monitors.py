"""Run monitors wired into the loop (cafe/monitors/run.py) and the four stories (cafe/stories/monitor_stories.py),
on the real workbench: real writes, real git, real pytest runs (few of them: one to three a story)."""

from __future__ import annotations

import pytest
import run_monitor_rows

import cafe
from cafe.monitors.run import (
    MONITOR_PREFIXES,
    MONITOR_SOURCES,
    OBJECTIVES_SHOWN,
    TRUNCATION_PREFIX,
    MonitorConfig,
    RunMonitors,
    monitor_config,
    residual_objectives,
    run_with_monitors,
    truncation_notice,
)
from cafe.stories.monitor_stories import TASK, story_replies, story_timeout
from cafe.world.workbench import Todo, open_workbench

ALL_ON = MonitorConfig("advisory", 4, "advisory")


def story(name: str, config: MonitorConfig, max_turns: int = 30):
    with open_workbench() as bench:
        run = run_with_monitors(
            cafe.make_client(story_replies(name)),
            TASK,
            bench,
            config=config,
            max_turns=max_turns,
            command_timeout_s=story_timeout(name),
        )
        return run, bench.changed_files(), (bench.root / "bill.py").read_text()


def test_config_defaults_are_all_off():
    config = MonitorConfig()
    assert (
        config.verification_tiers,
        config.progress_stall_threshold,
        config.safe_state_abort,
    ) == ("off", None, "off")


def test_config_from_settings_clamps_the_threshold_and_refuses_unknown_keys():
    assert monitor_config({"progress_stall_threshold": 1}).progress_stall_threshold == 2
    with pytest.raises(ValueError, match="progress_stall_threshold"):
        monitor_config({"stall_threshold": 4})
    with pytest.raises(ValueError, match="blocking"):
        monitor_config({"verification_tiers": "on"})


@pytest.mark.parametrize(
    "todos, expected",
    [
        ((), ""),
        ((Todo("a", done=True),), ""),
        (
            (Todo("a"), Todo("b", done=True), Todo("c")),
            "Objectives still outstanding (2):\n- a\n- c",
        ),
    ],
)
def test_residual_objectives_lists_only_open_items_and_nothing_for_an_empty_board(todos, expected):
    assert residual_objectives(todos) == expected


def test_residual_objectives_shows_ten_then_how_many_more():
    block = residual_objectives([Todo(f"item {i}") for i in range(13)]).splitlines()
    assert (
        block[0] == "Objectives still outstanding (13):" and len(block) == 1 + OBJECTIVES_SHOWN + 1
    )
    assert block[-1] == "+3 more"


@pytest.mark.parametrize("todos", [(), (Todo("fix the split"),)])
def test_truncation_notice_keeps_its_fixed_prefix_first(todos):
    notice = truncation_notice(16, todos)
    assert notice.startswith(f"{TRUNCATION_PREFIX} Max agent turns (16) reached.")
    assert notice.splitlines()[0] == truncation_notice(
        16
    )  # the objectives only ever add lines after it


def test_write_file_captures_and_run_command_does_not():
    with open_workbench() as bench:
        monitors = RunMonitors(bench)
        tools = {t.name: t for t in monitors.tools}
        tools["write_file"].function(path="bill.py", content="x = 1\n")
        tools["run_command"].function(command="echo hi > notes.txt")
        assert len(monitors.store) == 1 and (bench.root / "notes.txt").read_text() == "hi\n"
        assert set(bench.changed_files()) == {"bill.py", "notes.txt"}


def test_run_command_timeout_ends_the_command_and_reads_as_a_timeout():
    with open_workbench() as bench:
        run_command = {t.name: t for t in RunMonitors(bench, command_timeout_s=0.5).tools}[
            "run_command"
        ]
        out = run_command.function(command="sleep 5; echo late")
        assert not out.ok and "did not finish within 0.5 seconds" in out.text


def test_progress_reads_the_latched_green_so_edit_then_green_cycles_still_stall():
    # The gate's status goes stale on every edit (tiers on); the progress monitor must not read
    # that one, or each edit-then-green cycle would look like a fresh turn to green and reset its
    # count forever.
    from cafe.loop.agent import ToolResult, TurnView
    from cafe.monitors.gate import TierState, fold_tiers, verification_status

    edit = ToolResult(
        "e", "write_file", {"path": "bill.py", "content": "x"}, True, "wrote", "mutate"
    )
    green = ToolResult("t", "run_command", {"command": "pytest"}, True, "4 passed")
    with open_workbench() as bench:
        monitors = RunMonitors(bench, MonitorConfig(progress_stall_threshold=2))
        turns = [(edit,), (green,), (edit,), (green,), (edit,)]
        sources = [
            (nudge := monitors.progress.after_turn(TurnView(t, 30, (), (), results, 0.0)))
            and nudge.source
            for t, results in enumerate(turns, start=1)
        ]
    assert sources == [None, None, None, "stall", None]
    tier_green = []
    state = TierState()
    for results in turns:
        state = fold_tiers(state, results)
        tier_green.append(verification_status(state, "advisory") == "verified_green")
    assert tier_green == [
        False,
        True,
        False,
        True,
        False,
    ]  # reading this, turn 4 would look like progress


def test_story_explorer_twenty_reads_never_trip_the_stall_checkpoint():
    run, changed, _ = story("explorer", ALL_ON)
    assert run.stop_reason == "done" and run.counts["[stall]"] == 0 and run.counts["[budget]"] == 1
    assert changed == ("bill.py",) and run.open_objectives == ()


def test_story_fast_finisher_is_sent_for_the_full_suite_once_and_runs_it():
    run, _, bill = story("fast_finisher", MonitorConfig(verification_tiers="advisory"))
    assert (
        run.stop_reason == "done"
        and run.counts["[verify-before-done]"] == 1
        and "full suite" in run.messages[0]
    )
    assert [c.name for t in run.result.turns for c in t.calls][-1] == "run_tests"


def test_story_fast_finisher_with_tiers_off_finishes_on_the_fast_check():
    run, _, _ = story("fast_finisher", MonitorConfig())
    assert run.stop_reason == "done" and len(run.result.turns) == 4 and run.messages == ()


def test_story_thrasher_two_stalls_two_budget_notices_and_the_open_objectives():
    run, _, _ = story("thrasher", ALL_ON, max_turns=16)
    assert (
        run.stop_reason == "max_turns"
        and run.counts["[stall]"] == 2
        and run.counts["[budget]"] == 2
    )
    # three edits of one file with nothing run since: the gate's one mid-run nudge (turn 9)
    mid_run = [
        (t.turn, n.source)
        for t in run.result.turns
        for n in t.nudges
        if "code edits have landed" in n.text
    ]
    assert mid_run == [(9, "verify_tiers")]
    assert run.counts["[verify-before-done]"] == 2  # and the finish question on turn 16
    assert run.verification == "unverified"
    assert (
        run.notice.startswith(TRUNCATION_PREFIX)
        and "Objectives still outstanding (3):" in run.notice
    )
    assert run.open_objectives == (
        "fix the bill split",
        "add a test for odd amounts",
        "tell the manager",
    )


def test_story_default_config_sends_nothing_but_the_plain_finish_question():
    run, _, _ = story("thrasher", MonitorConfig(), max_turns=16)
    assert {tag: n for tag, n in run.counts.items() if n} == {"[verify-before-done]": 1}
    assert "no check has run since your code edits" in run.messages[0]
    assert run.stop_reason == "max_turns" and "Objectives still outstanding (3):" in run.notice


@pytest.mark.slow
def test_story_streak_after_green_auto_restores_and_the_suite_passes_again():
    run, changed, bill = story("streak_after_green", MonitorConfig(safe_state_abort="auto"))
    assert run.aborts[0].turn == 9 and run.aborts[0].restored == ("bill.py",)
    assert run.stop_reason == "done" and run.verification == "verified_green"
    assert "divmod" in bill and changed == ("bill.py",) and run.result.turns[9].dispatch[0].ok
    assert run.counts["[recovery]"] == 1 and run.counts["[safe-state]"] == 1


@pytest.mark.slow
def test_story_streak_with_a_shell_side_edit_auto_declines_and_the_red_run_ends_verify_failed():
    run, changed, bill = story("streak_shell_edit", MonitorConfig(safe_state_abort="auto"))
    assert run.aborts[0].turn == 9 and run.aborts[0].declined and run.aborts[0].restored == ()
    assert (run.aborts[0].reason, run.aborts[0].path) == ("uncaptured_change", "check_bill.py")
    assert "+ 1" in bill and changed == ("bill.py", "check_bill.py")
    assert all(m.startswith(MONITOR_PREFIXES) for m in run.messages)
    # the suite is still red at the end: the gate says so once, then the run ends, not "done"
    assert run.stop_reason == "verify_failed" and run.verification == "verified_red"
    assert "passed" not in run.result.detail and "last check failed" in run.result.detail
    assert run.counts["[verify-before-done]"] == 1


def test_progress_monitor_keeps_its_last_reading_when_git_cannot_read_the_tree(monkeypatch):
    # git gone mid-run (or the repository broken by a command): the progress boundary must not
    # let the RuntimeError out of the run; it keeps git's last reading and the edit tool's writes
    def git_is_gone():
        raise RuntimeError("git ls-tree could not run: no such file")

    with open_workbench() as bench:
        replies = story_replies("thrasher")
        monitors = RunMonitors(bench, MonitorConfig(progress_stall_threshold=4))
        monkeypatch.setattr(bench, "changed_files", git_is_gone)
        run = run_with_monitors(
            cafe.make_client(replies), TASK, bench, max_turns=16, monitors=monitors
        )
    assert run.stop_reason == "max_turns" and len(run.result.turns) == 16
    assert run.counts["[stall]"] >= 1  # the monitor still read bill.py's rewrites as barren


def test_monitor_messages_are_counted_by_their_source_not_their_text():
    assert set(MONITOR_SOURCES) == {"verify_tiers", "stall", "budget", "recovery", "safe_state"}
    assert MONITOR_PREFIXES == tuple(MONITOR_SOURCES.values())


def test_serve_session_15_replays_the_fast_finisher_by_turn_over_http():
    # cafe serve --session 15 answers from cafe/data/serve/s15.json: the same replies as the story,
    # so the notebook's live cells and the toy read over real HTTP as they do offline.
    import json

    import openai

    from cafe.endpoint.scripts.rehearsals import SCRIPTS_DIR, session_script
    from cafe.endpoint.server.serve import running_server
    from cafe.endpoint.settings.config import OFFLINE_MODEL

    data = json.loads((SCRIPTS_DIR / "s15.json").read_text(encoding="utf-8"))
    assert data["by_turn"] is True and data["replies"] == story_replies("fast_finisher"), (
        "cafe/data/serve/s15.json is out of step with story_replies('fast_finisher'): regenerate it"
    )
    with running_server(session_script("15")) as server, open_workbench() as bench:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0)
        run = run_with_monitors(
            client,
            TASK,
            bench,
            config=MonitorConfig(verification_tiers="advisory"),
            model=OFFLINE_MODEL,
        )
    assert run.stop_reason == "done" and run.counts["[verify-before-done]"] == 1


@pytest.mark.parametrize(
    "case, titles, expected",
    run_monitor_rows.RESIDUAL_ROWS,
    ids=[row[0][:70] for row in run_monitor_rows.RESIDUAL_ROWS],
)
def test_residual_row_matches_the_reference(case, titles, expected):
    assert residual_objectives([Todo(title) for title in titles]) == (expected or "")
