"""The failure ladder: the recovery checkpoint (cafe/monitors/recovery.py, rung 2, always on) and
when the safe-state abort fires (`abort_decision` in cafe/monitors/safe_state.py, rung 3).

The reference's cases are rows (tests/run_monitor_rows.py: RECOVERY_ROWS, SAFE_STATE_ROWS).
"""

from __future__ import annotations

import pytest
import run_monitor_rows as rows

from cafe.loop.turns import ToolResult, TurnView
from cafe.monitors.recovery import (
    EXCERPT_CHARS,
    MAX_EXCERPTS,
    RECOVERY_PREFIX,
    RecoveryCheckpoint,
    abort_due,
    fold_streak,
)
from cafe.monitors.run import MonitorConfig, RunMonitors
from cafe.monitors.safe_state import SAFE_STATE_PREFIX, abort_decision
from cafe.world.workbench import open_workbench

ERROR = ToolResult(
    "e", "read_file", {"path": "receipt.py"}, False, "There is no file 'receipt.py' in the project."
)
TIMEOUT = ToolResult(
    "s", "run_command", {"command": "sleep 5"}, False, "the command did not finish within 1 seconds"
)
OK = ToolResult("r", "read_file", {"path": "bill.py"}, True, "...")
OUTCOMES = {"error": ERROR, "timeout": TIMEOUT, "ok": OK}


def view(*results: ToolResult, turn: int = 1) -> TurnView:
    return TurnView(turn, 30, (), (), tuple(results), 0.0)


@pytest.mark.parametrize(
    "results, streak",
    [
        ([ERROR], 1),
        ([TIMEOUT], 2),
        ([ERROR, TIMEOUT, ERROR], 4),
        ([ERROR, ERROR, OK], 0),
        ([ERROR, OK, ERROR], 1),
    ],
)
def test_streak_error_adds_one_timeout_two_and_any_success_clears_it(results, streak):
    assert fold_streak(0, results) == streak


@pytest.mark.parametrize(
    "case, threshold, steps", rows.RECOVERY_ROWS, ids=[r[0][:70] for r in rows.RECOVERY_ROWS]
)
def test_recovery_row_matches_the_reference(case, threshold, steps):
    checkpoint, pending = RecoveryCheckpoint(threshold), []
    for step in steps:
        if isinstance(step, str):
            pending.append(OUTCOMES[step])
            continue
        kind, expected = step
        if kind == "poll":
            sent = checkpoint.after_turn(view(*pending))
            assert (0 if sent is None else 1) == expected, step
        elif kind == "due":
            checkpoint.fold(view(*pending))
            assert abort_due(checkpoint.streak.weight, threshold) is expected, step
        else:  # "says"
            assert expected in checkpoint.sent[-1], step
        pending = []


def test_recovery_message_quotes_the_last_five_failures_short_and_counts_calls():
    checkpoint = RecoveryCheckpoint()
    long = ToolResult("x", "run_command", {}, False, "boom " + "x" * 400)
    checkpoint.fold(view(*[long] * 7))
    text = checkpoint.send().text
    quoted = [line for line in text.splitlines() if line.startswith("- ")]
    assert text.startswith(f"{RECOVERY_PREFIX} 7 tool calls in a row have failed")
    assert len(quoted) == MAX_EXCERPTS and all(len(line) - 2 <= EXCERPT_CHARS for line in quoted)


def test_forced_checks_are_not_the_agents_failures():
    gate = ToolResult("g", "run_tests", {}, False, "1 failed", "verify", forced=True)
    checkpoint = RecoveryCheckpoint()
    assert checkpoint.after_turn(view(gate, gate, gate)) is None and checkpoint.streak.weight == 0


# --- rung 3: when the abort fires -----------------------------------------------------------


def _decide_row(boundaries) -> None:
    """The reference's engine, boundary by boundary, with `abort_decision` as its four gates."""
    green_seen, fired, used = False, False, 0
    for mode, fresh_green, due, edits, resolved, expected, called in boundaries:
        green_seen = green_seen or (mode != "off" and fresh_green)
        fired = fired and due  # a streak that is no longer due re-arms
        fires = abort_decision(
            mode,
            due=due,
            edits_since_verify=edits,
            green_seen=green_seen,
            aborts_used=used,
            fired_this_streak=fired,
        )
        fired, used = fired or fires, used + fires
        resolver_called = fires and mode == "auto"
        if not fires:
            outcome = None
        elif resolver_called and resolved is not None:
            outcome = f"restored:{resolved}"
        else:
            outcome = "advisory"
        assert (outcome, resolver_called) == (expected, called)


@pytest.mark.parametrize(
    "case, boundaries", rows.SAFE_STATE_ROWS, ids=[r[0][:70] for r in rows.SAFE_STATE_ROWS]
)
def test_safe_state_row_matches_the_reference(case, boundaries):
    _decide_row(boundaries)


def test_abort_decision_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="advisory"):
        abort_decision(
            "on",
            due=True,
            edits_since_verify=1,
            green_seen=True,
            aborts_used=0,
            fired_this_streak=False,
        )


# --- the ladder in a monitored run -----------------------------------------------------------


def _edit(bench, text: str) -> ToolResult:
    (bench.root / "bill.py").write_text(text, encoding="utf-8")
    return ToolResult(
        "w", "write_file", {"path": "bill.py", "content": text}, True, "wrote", "mutate"
    )


def test_the_recovery_checkpoint_is_on_when_the_abort_is_off():
    with open_workbench() as bench:
        monitors = RunMonitors(bench, MonitorConfig())  # safe_state_abort: off
        sources = [(n := monitors.ladder(view(ERROR, turn=t))) and n.source for t in range(1, 7)]
    assert sources == [None, None, "recovery", None, None, "recovery"]


def test_the_abort_takes_the_checkpoints_place_at_its_boundary():
    green = ToolResult("t", "run_tests", {}, True, "4 passed", "verify")
    with open_workbench() as bench:
        monitors = RunMonitors(bench, MonitorConfig(safe_state_abort="advisory"))
        monitors.ladder(view(_edit(bench, "green\n"), turn=1))
        monitors.ladder(view(green, turn=2))
        monitors.ladder(view(_edit(bench, "broken\n"), turn=3))
        sent = [monitors.ladder(view(ERROR, turn=t)) for t in range(4, 11)]
    texts = [n.text.split()[0] for n in sent if n is not None]
    # weight 3: the checkpoint; weight 6: the abort in its place; weight 7: a checkpoint would
    # need a full 3 more since the abort, so nothing
    assert texts == [RECOVERY_PREFIX, SAFE_STATE_PREFIX]
    assert [n is not None for n in sent] == [False, False, True, False, False, True, False]
