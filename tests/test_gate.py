"""The verify-before-done gate (cafe/monitors/gate.py): coverage, the messages, when a run may finish.

The reference's cases are rows (tests/run_monitor_rows.py: GATE_ROWS, MID_RUN_ROWS, END_ROWS),
fed to the gate event by event; END_ROWS run through the real loop.
"""

from __future__ import annotations

import pytest
import run_monitor_rows as rows

from cafe.endpoint.client.chat import make_client
from cafe.loop.agent import run_loop
from cafe.loop.tools import ToolOutput, tool
from cafe.loop.turns import Nudge, Stop, ToolResult, TurnView
from cafe.monitors.gate import (
    ESCALATION_CAPS,
    MESSAGE_CEILINGS,
    VERIFY_PREFIX,
    TierState,
    VerifyGate,
    fast_green_only,
    fold_tiers,
    fresh_green,
    verification_status,
)


def command(text: str, ok: bool = True) -> ToolResult:
    return ToolResult("c", "run_command", {"command": text}, ok, f"$ {text}")


def edit(path: str) -> ToolResult:
    return ToolResult("e", "write_file", {"path": path, "content": "x"}, True, "wrote", "mutate")


def view(*results: ToolResult, turn: int = 1) -> TurnView:
    return TurnView(turn, 20, (), (), tuple(results), 0.0)


FINISH = TurnView(9, 20, (), (), (), 0.0)


# --- the fold and the status ----------------------------------------------------------------


def test_tier_flags_record_green_coverage_not_invocation():
    state = fold_tiers(
        TierState(), [edit("bill.py"), command("pytest", ok=False), command("pytest -k split")]
    )
    assert state.fast_green and not state.slow_green and fast_green_only(state)


def test_tier_flags_are_never_cleared_by_an_edit_staleness_is_the_edit_count():
    state = fold_tiers(TierState(), [edit("bill.py"), command("pytest"), edit("bill.py")])
    assert state.slow_green and state.edits_since_verify == 1
    assert verification_status(state, "advisory") == "unverified"  # stale: tiers on
    assert verification_status(state, "off") == "unverified"  # tiers off too: as the finish
    state = fold_tiers(state, [command("pytest -k split")])  # a fast check covers the edit
    assert verification_status(state, "advisory") == "verified_green"


def test_edits_since_verify_counts_each_code_edit_and_any_check_resets_it():
    state = fold_tiers(
        TierState(), [edit("bill.py"), edit("bill.py"), edit("notes.md"), edit("tax.py")]
    )
    assert state.edits_since_verify == 3  # the same file twice is two edits; notes do not count
    assert fold_tiers(state, [command("pytest", ok=False)]).edits_since_verify == 0


def test_fresh_green_needs_a_pass_with_no_code_edit_after_it():
    state = fold_tiers(TierState(), [edit("bill.py"), command("pytest")])
    assert fresh_green(state) and not fresh_green(fold_tiers(state, [edit("bill.py")]))


@pytest.mark.parametrize(
    "passed, why, said",
    [
        ("pytest | tail -3", "masked", "exit status was not the check's own"),
        ("! pytest", "masked", "exit status was not the check's own"),
        ("pytest --collect-only", "runs_no_tests", "it ran no test"),
        ("cargo test --no-run", "runs_no_tests", "it ran no test"),
    ],
)
def test_a_pass_that_does_not_count_is_remembered_with_its_reason_and_named_at_the_finish(
    passed, why, said
):
    gate = VerifyGate("off")
    gate.after_turn(view(edit("bill.py"), command(passed)))
    assert gate.state.declined == (why, passed) and gate.state.edits_since_verify == 1
    answer = gate.before_finish(FINISH)
    assert isinstance(answer, Nudge) and said in answer.text and passed in answer.text
    gate.after_turn(view(command("pytest", ok=False)))  # a recorded check clears the reason
    assert gate.state.declined is None


def test_one_patch_call_counts_each_code_file_it_touches():
    ops = [{"path": "a.py"}, {"path": "b.rs", "new_path": "c.rs"}, {"path": "README.md"}]
    patch = ToolResult("p", "apply_patch", {"operations": ops}, True, "ok", "mutate")
    assert fold_tiers(TierState(), [patch]).edits_since_verify == 3


# --- the gate as hooks ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["advisory", "blocking"])
def test_mid_run_nudge_after_three_code_edits_with_nothing_run_once_per_run(mode):
    gate = VerifyGate(mode)
    assert gate.after_turn(view(edit("a.py"), edit("a.py"))) is None
    nudge = gate.after_turn(view(edit("a.py")))
    assert nudge is not None and "3 code edits" in nudge.text and nudge.source == "verify_tiers"
    gate.after_turn(view(command("pytest -k a")))
    assert gate.after_turn(view(edit("d.py"), edit("e.py"), edit("f.py"))) is None


def test_mid_run_nudge_is_off_when_tiers_are_off():
    assert VerifyGate("off").after_turn(view(edit("a.py"), edit("b.py"), edit("c.py"))) is None


def test_finish_escalation_when_only_the_fast_tier_passed():
    gate = VerifyGate("advisory")
    gate.after_turn(view(edit("bill.py"), command("pytest", ok=False), command("pytest -k split")))
    answer = gate.before_finish(FINISH)
    assert isinstance(answer, Nudge) and "full suite" in answer.text
    gate.after_turn(view(command("pytest")))
    assert gate.before_finish(FINISH) is None and gate.status == "verified_green"


def test_finish_escalation_needs_tiers_on():
    gate = VerifyGate("off")
    gate.after_turn(view(edit("bill.py"), command("pytest -k split")))
    assert gate.before_finish(FINISH) is None


@pytest.mark.parametrize("mode, ceiling", sorted(MESSAGE_CEILINGS.items()))
def test_a_red_run_hears_one_message_then_ends_verify_failed_in_every_mode(mode, ceiling):
    gate = VerifyGate(mode)
    gate.after_turn(view(edit("bill.py"), command("pytest", ok=False)))
    first = gate.before_finish(FINISH)
    assert isinstance(first, Nudge) and "last check failed" in first.text
    for _ in range(3):
        end = gate.before_finish(FINISH)
        assert isinstance(end, Stop) and end.reason == "verify_failed"
        assert "passed" not in end.detail and "last check failed" in end.detail
    assert len(gate.sent) == 1 <= ceiling


@pytest.mark.parametrize("mode", ["off", "advisory", "blocking"])
def test_message_ceiling_is_the_total_by_mode(mode):
    gate = VerifyGate(mode)
    gate.after_turn(view(edit("bill.py")))
    answers = [gate.before_finish(FINISH)]  # "did anything run?"
    gate.after_turn(view(command("pytest -k split")))
    answers += [gate.before_finish(FINISH) for _ in range(4)]  # "did the full suite run?"
    sent = [a for a in answers if isinstance(a, Nudge)]
    assert len(sent) == MESSAGE_CEILINGS[mode] == 1 + ESCALATION_CAPS[mode]
    assert answers[-1] is None and gate.status in ("fast_green_only", "verified_green")


def test_every_gate_message_starts_with_the_prefix_and_comes_from_the_gate():
    gate = VerifyGate("blocking")
    answers = [gate.after_turn(view(edit("a.py"), edit("b.py"), edit("c.py")))]
    answers.append(gate.before_finish(FINISH))
    gate.after_turn(view(command("ruff check .")))
    answers.append(gate.before_finish(FINISH))
    assert [a.source for a in answers] == ["verify_tiers"] * 3
    assert len(gate.sent) == 3 and all(text.startswith(VERIFY_PREFIX) for text in gate.sent)


def test_gate_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="advisory"):
        VerifyGate("strict")


# --- the reference's rows -------------------------------------------------------------------

KINDS = {  # how each finish kind of the rows reads in the gate's text
    "red": "the last check failed",
    "unverified": "no check has run",
    "masked": "exit status was not the check's own",
    "own_script": "a script you wrote in this run",
    "suite": "full suite",
}


def _results(event) -> list[ToolResult]:
    kind = event[0]
    if kind == "edit":
        return [edit(event[1])]
    if kind == "patch":
        operations = [{"type": "update", "path": path} for path in event[1]]
        return [ToolResult("p", "apply_patch", {"operations": operations}, True, "ok", "mutate")]
    if kind == "read":
        return [ToolResult("r", "read_file", {"path": event[1]}, True, "text")]
    return [command(event[1], ok=event[2] == "pass")]


def _mode_of(events) -> str:
    return next((e[1] for e in events if e[0] in ("finish", "mid_run")), "off")


def _play(events) -> None:
    """Feed a row's events to one gate, a turn boundary before each expectation."""
    gate, pending = VerifyGate(_mode_of(events)), []
    for event in events:
        if event[0] in ("edit", "patch", "read", "run"):
            pending += _results(event)
            continue
        nudge = gate.after_turn(view(*pending))
        pending = []
        kind, *rest = event
        if kind == "status":
            expected = rest[2]["course"] if len(rest) > 2 else rest[1]
            assert verification_status(gate.state, rest[0]) == expected, event
        elif kind == "edits_since_verify":
            assert gate.state.edits_since_verify == rest[0], event
        elif kind == "fresh_green":
            assert fresh_green(gate.state) is rest[0], event
        elif kind == "mid_run":
            assert (nudge is not None) is rest[1], event
        elif kind == "finish":
            answer = gate.before_finish(FINISH)
            if rest[1] is None:
                assert not isinstance(answer, Nudge), event
            else:
                assert isinstance(answer, Nudge) and KINDS[rest[1]] in answer.text, event


GATE_CASES = [pytest.param(*row, id=row[0][:70]) for row in rows.GATE_ROWS + rows.MID_RUN_ROWS]


ROW_TABLES = [
    name for name in dir(rows) if name.endswith("_ROWS") and isinstance(getattr(rows, name), list)
]


@pytest.mark.parametrize("table", ROW_TABLES)
def test_every_monitor_row_says_where_its_answer_comes_from(table):
    uncited = [row[0] for row in getattr(rows, table) if rows.row_source(row[0]) is None]
    assert not uncited, f"{table}: rows that cite no reference case, derivation or course rule"


def test_row_source_refuses_a_row_that_cites_nothing():
    assert rows.row_source("Budget marks fire in order") is None
    assert rows.row_source("budget_marks_fire_once_each_in_order") == "reference"
    assert rows.row_source("x (derived from seed 001)") == "derived"
    assert rows.row_source("COURSE: a rule of ours") == "course"


def test_every_course_answer_in_a_gate_row_names_its_lesson_note():
    chosen = [e for _, events in rows.GATE_ROWS for e in events if len(e) > 3]
    assert chosen and all("Where the reference differs" in e[3]["why"] for e in chosen)
    assert all(e[3]["course"] != e[2] for e in chosen)


@pytest.mark.parametrize(
    "case, events",
    GATE_CASES,
)
def test_gate_row_matches_the_reference(case, events):
    _play(events)


def _loop_for(events):
    """The row as a scripted model and two fake tools, through the real loop and the gate."""
    outcomes = [e[2] == "pass" for e in events if e[0] == "run"]
    replies = []
    for event in events:
        if event[0] == "edit":
            call = {"name": "write_file", "arguments": {"path": event[1], "content": "x"}}
        elif event[0] == "run":
            call = {"name": "run_command", "arguments": {"command": event[1]}}
        else:
            replies.append("Done.")
            continue
        replies.append({"content": None, "tool_calls": [call]})

    def write_file(path: str, content: str) -> str:
        """Write a file."""
        return f"wrote {path}"

    def run_command(command: str) -> ToolOutput:
        """Run a command."""
        return ToolOutput(outcomes.pop(0), f"$ {command}")

    gate = VerifyGate(_mode_of(events))
    result = run_loop(
        make_client(replies),
        [{"role": "user", "content": "Fix the till."}],
        [tool(write_file, kind="mutate"), tool(run_command)],
        after_turn=[gate.after_turn],
        before_finish=[gate.before_finish],
        stop_reasons=gate.stop_reasons,
        max_turns=len(replies),
    )
    return result, gate


@pytest.mark.parametrize("case, events, end", rows.END_ROWS, ids=[r[0][:70] for r in rows.END_ROWS])
def test_end_row_a_claimed_finish_ends_honestly(case, events, end):
    reason, never, always, status = end
    result, gate = _loop_for(events)
    assert (result.stop_reason, gate.status) == (reason, status)
    assert not any(word in result.detail for word in never), result.detail
    assert all(word in result.detail for word in always), result.detail
