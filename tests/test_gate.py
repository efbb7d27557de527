"""The verify-before-done gate (cafe/monitors/gate.py): coverage, the messages, when a run may finish."""

from __future__ import annotations

import pytest

from cafe.loop.agent import ToolResult, TurnView
from cafe.monitors.gate import (
    MESSAGE_CEILINGS,
    VERIFY_PREFIX,
    TierState,
    VerifyGate,
    fast_green_only,
    fold_tiers,
)


def command(text: str, ok: bool = True) -> ToolResult:
    return ToolResult("c", "run_command", {"command": text}, ok, f"$ {text}")


def edit(path: str) -> ToolResult:
    return ToolResult("e", "write_file", {"path": path, "content": "x"}, True, "wrote", "mutate")


def view(*results: ToolResult, turn: int = 1) -> TurnView:
    return TurnView(turn, 20, (), (), tuple(results), 0.0, 0, True)


def test_tier_flags_record_green_coverage_not_invocation():
    state = fold_tiers(
        TierState(), [edit("bill.py"), command("pytest", ok=False), command("pytest -k split")]
    )
    assert state.fast_green and not state.slow_green and fast_green_only(state)


def test_edit_pile_counts_distinct_code_files_and_a_verification_attempt_resets_it():
    state = fold_tiers(
        TierState(), [edit("bill.py"), edit("bill.py"), edit("notes.md"), edit("tax.py")]
    )
    assert state.edited_files == {"bill.py", "tax.py"}
    assert fold_tiers(state, [command("pytest", ok=False)]).edited_files == frozenset()


@pytest.mark.parametrize("mode", ["advisory", "blocking"])
def test_mid_run_nudge_after_three_code_files_with_nothing_run_at_most_once_per_run(mode):
    gate = VerifyGate(mode)
    assert gate.after_turn(view(edit("a.py"), edit("b.py"))) is None
    nudge = gate.after_turn(view(edit("c.py")))
    assert nudge is not None and "3 code files" in nudge.text
    assert gate.after_turn(view(edit("d.py"), edit("e.py"), edit("f.py"))) is None


def test_mid_run_nudge_is_off_when_tiers_are_off():
    assert VerifyGate("off").after_turn(view(edit("a.py"), edit("b.py"), edit("c.py"))) is None


def test_finish_escalation_when_only_the_fast_tier_passed():
    gate = VerifyGate("advisory")
    gate.after_turn(view(edit("bill.py"), command("pytest", ok=False), command("pytest -k split")))
    answer = gate.verify_before_done()
    assert not answer.ok and "full suite" in answer.text
    gate.after_turn(view(command("pytest")))
    assert gate.verify_before_done().ok


def test_finish_escalation_needs_tiers_on():
    gate = VerifyGate("off")
    gate.after_turn(view(edit("bill.py"), command("pytest -k split")))
    assert gate.verify_before_done().ok


@pytest.mark.parametrize("mode, ceiling", sorted(MESSAGE_CEILINGS.items()))
def test_message_ceilings_per_run_by_mode(mode, ceiling):
    gate = VerifyGate(mode)
    gate.after_turn(view(edit("bill.py"), command("pytest", ok=False)))
    answers = [gate.verify_before_done() for _ in range(5)]
    assert [a.ok for a in answers] == [False] * ceiling + [True] * (5 - ceiling)
    assert (
        gate.max_checks > 2 * ceiling
    )  # the loop always has a verify attempt left to let the run finish


def test_ran_and_suite_questions_hold_separate_budgets():
    gate = VerifyGate("advisory")
    gate.after_turn(view(edit("bill.py")))
    ran = [gate.verify_before_done() for _ in range(3)]
    gate.after_turn(view(command("pytest -k split")))
    suite = [gate.verify_before_done() for _ in range(3)]
    assert [a.ok for a in ran] == [False, False, True] and [a.ok for a in suite] == [
        False,
        False,
        True,
    ]
    assert "Run the tests" in ran[0].text and "full suite" in suite[0].text


def test_every_gate_message_starts_with_the_prefix():
    gate = VerifyGate("blocking")
    gate.after_turn(view(edit("a.py"), edit("b.py"), edit("c.py")))
    gate.verify_before_done()
    gate.after_turn(view(command("ruff check .")))
    gate.verify_before_done()
    assert len(gate.sent) == 3 and all(text.startswith(VERIFY_PREFIX) for text in gate.sent)


def test_gate_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="advisory"):
        VerifyGate("strict")
