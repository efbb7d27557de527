"""Verification tiers (cafe/monitors/tiers.py): one test per rule, each rule read off a table."""

from __future__ import annotations

import pytest

from cafe.loop.agent import ToolResult
from cafe.monitors.tiers import (
    is_masked,
    is_verification_command,
    read_verification,
    verification_tier,
)


def command(text: str, ok: bool = True) -> ToolResult:
    return ToolResult("c", "run_command", {"command": text}, ok, f"$ {text}")


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


def test_workbench_run_tests_is_slow_and_the_harness_forced_gate_is_not_evidence():
    run_tests = ToolResult("t", "run_tests", {}, True, "4 passed", "verify")
    assert read_verification(run_tests).tier == "slow"
    assert (
        read_verification(
            ToolResult("g", "verify_before_done", {}, False, "x", "verify", forced=True)
        )
        is None
    )
