"""Verification tiers (cafe/monitors/tiers.py): one test per rule, each rule read off a table."""

from __future__ import annotations

import pytest

from cafe.loop.agent import ToolResult, TurnView
from cafe.monitors.tiers import (
    MESSAGE_CEILINGS,
    VERIFY_PREFIX,
    TierState,
    VerifyGate,
    fast_green_only,
    fold_tiers,
    is_masked,
    is_verification_command,
    read_verification,
    verification_tier,
)


def command(text: str, ok: bool = True) -> ToolResult:
    return ToolResult("c", "run_command", {"command": text}, ok, f"$ {text}")


def edit(path: str) -> ToolResult:
    return ToolResult("e", "write_file", {"path": path, "content": "x"}, True, "wrote", "mutate")


def view(*results: ToolResult, turn: int = 1) -> TurnView:
    return TurnView(turn, 20, (), (), tuple(results), 0.0, 0, True)


@pytest.mark.parametrize(
    "text", ["ls && pytest", "echo hi | pytest -k x", "cd src; make", "cat a\nruff check ."]
)
def test_recognise_splits_on_and_pipe_semicolon_newline(text):
    assert is_verification_command(text)


@pytest.mark.parametrize(
    "text",
    [
        "pip install pytest",
        "git checkout tests/",
        "cargo add serde",
        "npm remove jest",
        "pip uninstall tox",
    ],
)
def test_recognise_refuses_a_segment_with_a_non_verify_word(text):
    assert not is_verification_command(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("black --check .", True),
        ("prettier --lint", True),
        ("cat check_bill.py", False),
        ("ls --color", False),
    ],
)
def test_recognise_needs_a_whole_word_marker_after_stripping_dashes(text, expected):
    assert is_verification_command(text) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("./run-tests.sh", True),
        ("scripts/lint.sh", True),
        ("./ci_build.py", True),
        ("./deploy.sh", False),
        ("run-tests.sh", False),
    ],
)
def test_recognise_a_path_shaped_command_by_its_name_pieces(text, expected):
    assert is_verification_command(text) is expected


@pytest.mark.parametrize(
    "text", ["ruff check . && pytest", "pytest -k split; make", "mypy . | cat && cargo test"]
)
def test_tier_chain_takes_the_slowest_segment(text):
    assert verification_tier(text) == "slow"


@pytest.mark.parametrize(
    "text, tier", [("PYTHONPATH=. pytest -k split", "fast"), ("A=1 B=2 pytest", "slow")]
)
def test_tier_strips_leading_assignments(text, tier):
    assert verification_tier(text) == tier


@pytest.mark.parametrize(
    "text, tier",
    [
        ("pytest -k split", "fast"),
        ("pytest -m slowish", "fast"),
        ("pytest tests/foo.py::test_bar", "fast"),
        ("python -m pytest check_bill.py", "fast"),
        ("pytest", "slow"),
        ("pytest -x -q", "slow"),
        ("python -m pytest --maxfail=1", "slow"),
    ],
)
def test_tier_pytest_fast_only_when_narrowed(text, tier):
    assert verification_tier(text) == tier


@pytest.mark.parametrize(
    "text",
    [
        "ruff check .",
        "mypy cafe",
        "flake8",
        "tsc --noEmit",
        "eslint src",
        "cargo clippy",
        "cargo check",
        "npm run lint",
    ],
)
def test_tier_linters_and_type_checkers_are_always_fast(text):
    assert verification_tier(text) == "fast"


@pytest.mark.parametrize(
    "text", ["./run-tests.sh", "npm test", "tox", "cargo build --release", "go test ./..."]
)
def test_tier_unknown_or_whole_suite_commands_are_slow(text):
    assert verification_tier(text) == "slow"


@pytest.mark.parametrize("text", ["make", "make test", "make -j4"])
def test_tier_make_is_slow(text):
    assert verification_tier(text) == "slow"


@pytest.mark.parametrize(
    "text, tier",
    [
        ("cargo test some_name", "fast"),
        ("cargo test --all-features", "slow"),
        ("go test -run X ./...", "fast"),
    ],
)
def test_tier_cargo_and_go_with_a_test_name_are_fast(text, tier):
    assert verification_tier(text) == tier


def test_tier_refuses_a_command_that_is_not_a_verification():
    with pytest.raises(ValueError, match="is_verification_command"):
        verification_tier("ls -la")


@pytest.mark.parametrize(
    "text, masked",
    [
        ("pytest | tail -3", True),
        ("pytest || true", True),
        ("pytest; echo done", True),
        ("pytest &", True),
        ("pytest && ruff check .", False),
        ("pytest;", False),
        ("pytest -k split", False),
        ("pytest 2>&1", False),
        ("pytest &> log.txt", True),  # the reference: `&` not after `>` backgrounds in sh
        ("pytest 2>&1 | tail", True),
    ],
)
def test_masked_commands_are_pipes_or_semicolons_with_more_or_a_lone_ampersand(text, masked):
    assert is_masked(text) is masked


def test_masked_green_is_not_recorded_but_masked_red_is():
    assert read_verification(command("pytest | tail -3", ok=True)) is None
    assert read_verification(command("pytest | tail -3", ok=False)).passed is False


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


def test_workbench_run_tests_is_slow_and_the_harness_forced_gate_is_not_evidence():
    run_tests = ToolResult("t", "run_tests", {}, True, "4 passed", "verify")
    assert read_verification(run_tests).tier == "slow"
    assert (
        read_verification(
            ToolResult("g", "verify_before_done", {}, False, "x", "verify", forced=True)
        )
        is None
    )


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
