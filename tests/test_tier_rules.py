"""The reference design's command rules, row by row (cafe/monitors/commands.py, runners.py).

Every row names the case it mirrors. Reference rows name the test of the reference
implementation's verifier (dirge's `verifier.rs`: `make_is_always_slow`, `npm_tiers`, ...) or the
section of seed 001 ("Verification tiers"); "(derived)" rows follow from the reference's rules
without being one of its literal inputs. Rows starting "COURSE:" are the course's own rules, where
the reference is silent or reads the command otherwise; the lesson's "Where the reference
differs" note lists them. `run_monitor_rows.row_source` reads which of the three a row is, and a
test refuses a row that cites nothing.

Expected values: a tier ("fast"/"slow"), None for "not a verification at all", "no_tests" for a
command whose pass is not a green check, "subset" for a run of part of the suite (fast coverage).
"""

from __future__ import annotations

import pytest

from cafe.loop.agent import ToolResult
from cafe.monitors.commands import (
    NEVER_CHECKS,
    is_masked,
    is_verification_command,
    runner_call,
)
from cafe.monitors.runners import (
    NO_TEST_FLAGS,
    RUNNER_TIERS,
    SUBSET_FLAGS,
    runs_no_tests,
    verification_tier,
)
from cafe.monitors.tiers import (
    code_paths_touched,
    declined_pass,
    paths_written,
    read_verification,
)

TIER_ROWS = [
    ("seed_fast_examples", "cargo check", "fast"),
    ("seed_fast_examples", "cargo clippy", "fast"),
    ("seed_fast_examples", "tsc --noEmit", "fast"),
    ("seed_fast_examples", "ruff check .", "fast"),
    ("seed_fast_examples", "eslint .", "fast"),
    ("seed_fast_examples", "cargo test some_name", "fast"),
    ("seed_fast_examples", "pytest tests/foo.py::test_bar", "fast"),
    ("seed_fast_examples", "go test -run X", "fast"),
    ("seed_slow_examples", "cargo test", "slow"),
    ("seed_slow_examples", "npm test", "slow"),
    ("seed_slow_examples", "make", "slow"),
    ("seed_slow_examples", "cargo build --release", "slow"),
    ("seed_slow_examples", "pytest", "slow"),
    ("cargo_check_clippy_are_fast", "cargo check", "fast"),
    ("cargo_check_clippy_are_fast", "cargo clippy", "fast"),
    ("cargo_check_clippy_are_fast", "RUST_LOG=debug cargo clippy", "fast"),
    ("cargo_test_with_filter_is_fast", "cargo test my_test", "fast"),
    (
        "cargo_test_with_filter_is_fast",
        "cargo test verifier::tests::status_reflects_run_signals",
        "fast",
    ),
    ("cargo_test_with_filter_is_fast", "cargo test foo -- --exact", "fast"),
    ("bare_cargo_test_is_slow", "cargo test", "slow"),
    ("bare_cargo_test_is_slow", "cargo test --workspace", "slow"),
    ("bare_cargo_test_is_slow", "cargo test --all-features", "slow"),
    ("cargo_test_package_flag_value_is_not_a_filter", "cargo test -p mycrate", "slow"),
    ("cargo_test_package_flag_value_is_not_a_filter", "cargo test --package mycrate", "slow"),
    ("cargo_test_package_flag_value_is_not_a_filter", "cargo test --features foo", "slow"),
    ("cargo_build_is_slow", "cargo build", "slow"),
    ("cargo_build_is_slow", "cargo build --release", "slow"),
    ("pytest_targeting", "pytest tests/foo.py::test_bar", "fast"),
    ("pytest_targeting", "pytest tests/foo.py", "fast"),
    ("pytest_targeting", "pytest -k bar", "fast"),
    ("pytest_targeting", "pytest", "slow"),
    ("pytest_targeting", "pytest -q", "slow"),
    ("pytest_targeting", "pytest tests/", "slow"),
    ("npm_tiers", "npm test", "slow"),
    ("npm_tiers", "npm run lint", "fast"),
    ("npm_tiers", "npm run typecheck", "fast"),
    ("npm_tiers", "npm run check", "fast"),
    ("npm_tiers", "pnpm run lint", "fast"),
    ("npm_tiers", "yarn lint", "fast"),
    ("npm_tiers", "npm run build", "slow"),
    ("npm_tiers", "npm run deploy-docs", "slow"),
    ("bare_linters_are_fast", "eslint .", "fast"),
    ("bare_linters_are_fast", "ruff check .", "fast"),
    ("bare_linters_are_fast", "mypy src/", "fast"),
    ("bare_linters_are_fast", "prettier --check .", "fast"),
    ("bare_linters_are_fast", "shellcheck x.sh", "fast"),
    ("bare_linters_are_fast", "golangci-lint run", "fast"),
    ("bare_linters_are_fast", "flake8 src/", "fast"),
    ("bare_linters_are_fast", "rubocop", "fast"),
    ("tsc_and_rustc_are_fast", "tsc --noEmit", "fast"),
    ("tsc_and_rustc_are_fast", "tsc", "fast"),
    ("make_is_always_slow", "make", "slow"),
    ("make_is_always_slow", "make check", "slow"),
    ("make_is_always_slow", "make test", "slow"),
    ("go_tiers", "go vet ./...", "fast"),
    ("go_tiers", "go test ./...", "slow"),
    ("go_tiers", "go test -run TestFoo ./...", "fast"),
    ("jest_vitest_mocha_tiers", "jest src/foo.test.ts", "fast"),
    ("jest_vitest_mocha_tiers", "vitest run foo", "fast"),
    ("jest_vitest_mocha_tiers", "jest", "slow"),
    ("jest_vitest_mocha_tiers", "vitest run", "slow"),
    ("jest_vitest_mocha_tiers", "mocha", "slow"),
    ("script_paths_default_slow", "./run-tests.sh", "slow"),
    ("script_paths_default_slow", "scripts/lint.sh", "slow"),
    ("ambiguous_verification_defaults_slow", "ctest", "slow"),
    ("ambiguous_verification_defaults_slow", "gradle test", "slow"),
    ("ambiguous_verification_defaults_slow", "mvn test", "slow"),
    ("ambiguous_verification_defaults_slow", "tox", "slow"),
    ("ambiguous_verification_defaults_slow", "make check", "slow"),
    ("non_verification_has_no_tier", "ls tests/", None),
    ("non_verification_has_no_tier", "git checkout main", None),
    ("non_verification_has_no_tier", "npm install", None),
    ("non_verification_has_no_tier", "cargo add serde", None),
    ("non_verification_has_no_tier", "yarn add left-pad", None),
    ("chain_tier_is_strongest_segment", "cargo check && cargo test", "slow"),
    ("chain_tier_is_strongest_segment", "cargo check && cargo clippy", "fast"),
    ("chain_tier_is_strongest_segment", "cargo test || echo nope", "slow"),
]

TIER_ROWS_DERIVED = [
    ("pytest_tier: -m narrows (derived)", "pytest -m slow", "fast"),
    (
        "python -m pytest -q: slow (derived; the reference tiers on the command word `python` -> default slow)",
        "python -m pytest -q",
        "slow",
    ),
    ("WORD_MARKERS has unittest (dirge-hwk9.3)", "python -m unittest", "slow"),
    ("segment_tier: VAR=value prefix dropped (derived)", "PYTHONPATH=. pytest -k split", "fast"),
    ("PAIR_MARKERS: go alone is no marker (derived)", "go mod tidy", None),
    ("PAIR_MARKERS: go run is a verification and fast (derived)", "go run ./cmd/check", "fast"),
    ("FAST_LINTERS: linter fast whatever its args (derived)", "ruff format --check .", "fast"),
    ("segment_tier: unknown tool that builds defaults slow (derived)", "cmake --build .", "slow"),
    ("js_runner_tier: mocha with a path narrows (derived)", "mocha test/bill.spec.js", "fast"),
    ("node_script_tier: yarn test is the suite (derived)", "yarn test", "slow"),
    ("node_script_tier: pnpm test is the suite (derived)", "pnpm test", "slow"),
    ("segment_tier: gradle/mvn default slow (derived)", "./gradlew test", "slow"),
    ("make_is_always_slow: any target (derived)", "make lint", "slow"),
    ("make_is_always_slow: any target (derived)", "make typecheck", "slow"),
    ("segment_tier: `check` as an argument is no linter (derived)", "gradle check", "slow"),
    ("CARGO_VALUE_FLAGS: --test takes a value (derived)", "cargo test --test integration", "slow"),
    ("CARGO_VALUE_FLAGS: -j takes a value (derived)", "cargo test -j 4", "slow"),
    ("go_tier: -run=X form (derived)", "go test -run=TestX ./...", "fast"),
    (
        "WORD_MARKERS: `tests` is not a marker word (derived; plurals only in script names)",
        "cat tests",
        None,
    ),
]

RECOGNITION_ROWS = [
    ("non_verification_command_does_not_count_as_verified", "ls -la", False),
    ("non_build_subcommands_are_not_verification", "git checkout main", False),
    ("non_build_subcommands_are_not_verification", "npm install", False),
    ("non_build_subcommands_are_not_verification", "cargo add serde", False),
    ("non_build_subcommands_are_not_verification", "ls tests/", False),
    ("non_build_subcommands_are_not_verification", "yarn add left-pad", False),
    ("linters_and_scripts_count_as_verification", "eslint .", True),
    ("linters_and_scripts_count_as_verification", "golangci-lint run", True),
    ("linters_and_scripts_count_as_verification", "prettier --check .", True),
    ("linters_and_scripts_count_as_verification", "./run-tests.sh", True),
    ("linters_and_scripts_count_as_verification", "scripts/lint.sh --fast", True),
    ("real_build_commands_still_count", "cargo test", True),
    ("real_build_commands_still_count", "make check", True),
    ("real_build_commands_still_count", "npm run build", True),
    ("real_build_commands_still_count", "go vet ./...", True),
    ("real_build_commands_still_count", "pytest -q", True),
    ("real_build_commands_still_count", "RUST_LOG=debug cargo clippy", True),
    ("WORD_MARKERS unittest (dirge-hwk9.3)", "python -m unittest discover", True),
    ("WORD_MARKERS jest/vitest/mocha/gradle/mvn/ctest (derived)", "vitest", True),
    ("WORD_MARKERS jest/vitest/mocha/gradle/mvn/ctest (derived)", "mvn -q verify", True),
    ("WORD_MARKERS jest/vitest/mocha/gradle/mvn/ctest (derived)", "gradle check", True),
]

MASK_ROWS = [
    ("masking_shapes_are_detected", "cargo clippy --all-targets | tail -2", True),
    ("masking_shapes_are_detected", "cargo test || true", True),
    ("masking_shapes_are_detected", "cargo test || echo ignored", True),
    ("masking_shapes_are_detected", "cargo test; echo done", True),
    ("masking_shapes_are_detected", "cargo test &", True),
    ("masking_shapes_are_detected", "cargo clippy 2>&1 | head -20", True),
    ("masking_shapes_are_detected", "cargo test\necho done", True),
    ("non_masking_shapes_are_not_flagged", "cargo clippy --all-targets -- -D warnings", False),
    (
        "non_masking_shapes_are_not_flagged",
        "cargo fmt --all --check && cargo clippy --all-targets",
        False,
    ),
    ("non_masking_shapes_are_not_flagged", "cargo test 2>&1", False),
    (
        "non_masking_shapes_are_not_flagged",
        'RUSTFLAGS="-D warnings" cargo clippy --all-targets',
        False,
    ),
    ("non_masking_shapes_are_not_flagged", "cargo test;", False),
    ("non_masking_shapes_are_not_flagged", "cargo test\n", False),
    ("non_masking_shapes_are_not_flagged", "cargo test && \\\necho done", False),
    (
        "newline_chained_validation_block_does_not_latch_green",
        'diff expected.txt actual.txt\ncmp -s a.bin b.bin\ntest -f out/report.json\necho "all checks passed"',
        True,
    ),
    ("COURSE: a leading `!` inverts the status", "! pytest", True),
    ("COURSE: `!` inside a chain", "ruff check . && ! pytest -q", True),
    ("`; true` (derived: the reference's `;` rule)", "pytest; true", True),
    ("`|| true` (derived: the reference's `|` rule)", "pytest || true", True),
    ("`|| :` (derived: the reference's `|` rule)", "pytest || :", True),
    (
        "set +e, the check, exit 0 (derived: the reference's newline rule)",
        "set +e\npytest\nexit 0",
        True,
    ),
    (
        "an `&&` chain (derived: the reference's `&&` short-circuits)",
        "ruff check . && pytest",
        False,
    ),
]

COURSE_COMMAND_ROWS = [
    (
        "COURSE: python -m pytest with a .py target is narrowed",
        "python -m pytest check_bill.py",
        "fast",
    ),
    ("COURSE: python -m pytest -k is narrowed", "python -m pytest -k split", "fast"),
    ("COURSE: collection only runs no test", "pytest --collect-only -q", "no_tests"),
    ("COURSE: collection only (long spelling)", "python -m pytest --co", "no_tests"),
    ("COURSE: a version query runs no test", "pytest --version", "no_tests"),
    ("COURSE: help runs no test", "pytest --help", "no_tests"),
    ("COURSE: a command that only names the runner", "which pytest", None),
    ("COURSE: a command that only names the runner", "pip show pytest", None),
    ("COURSE: a command that only names the runner", "command -v pytest", None),
    ("COURSE: cargo version", "cargo --version", "no_tests"),
    ("COURSE: rerun only the last failures is a subset", "pytest --lf", "subset"),
    ("COURSE: rerun only the last failures is a subset", "pytest --last-failed", "subset"),
    ("COURSE: stepwise stops at the first failure: a subset", "pytest --sw", "subset"),
    ("COURSE: stepwise (long)", "pytest --stepwise", "subset"),
    ("COURSE: -x stops at the first failure, but a PASS ran everything", "pytest -x", "slow"),
    ("COURSE: deselect narrows", "pytest --deselect check_bill.py::test_total", "subset"),
    ("COURSE: negative control, the whole suite", "python -m pytest -q", "slow"),
]


# COURSE rows beyond the research draft: Windows command words, launchers, option values of other
# runners, subsets and no-test modes of other runners, commands that only look or name.
COURSE_MORE_ROWS = [
    (
        "COURSE: Windows folders and .exe in the command word",
        r"C:\venv\Scripts\pytest.exe -k split",
        "fast",
    ),
    (
        "COURSE: Windows folders and .exe in the command word",
        r".venv\Scripts\python.exe -m pytest",
        "slow",
    ),
    ("COURSE: a versioned python launches pytest", "python3.12 -m pytest check_bill.py", "fast"),
    ("COURSE: npx launches jest", "npx jest src/bill.test.js", "fast"),
    ("COURSE: uv run launches pytest", "uv run pytest -q", "slow"),
    ("COURSE: poetry run launches pytest", "poetry run pytest -k split", "fast"),
    ("COURSE: uvx launches ruff", "uvx ruff check .", "fast"),
    ("COURSE: env launches ruff", "env CI=1 ruff check .", "fast"),
    ("COURSE: timeout launches pytest", "timeout 60 pytest -k split", "fast"),
    ("COURSE: timeout launches the whole suite", "timeout 60 pytest", "slow"),
    ("COURSE: coverage run -m launches pytest", "coverage run -m pytest check_bill.py", "fast"),
    ("COURSE: launchers nest", "env CI=1 timeout 300 uv run pytest -q", "slow"),
    ("COURSE: a launcher before a listing", "timeout 60 pytest --collect-only", "no_tests"),
    ("COURSE: a script behind a launcher is recognised", "timeout 60 ./run-tests.sh", "slow"),
    ("COURSE: seed 001's format check is fast", "black --check .", "fast"),
    ("COURSE: seed 001's format check is fast", "rustfmt --check src/main.rs", "fast"),
    ("COURSE: seed 001's format check is fast", "isort --check .", "fast"),
    ("COURSE: seed 001's format check, launched", "uvx black --check .", "fast"),
    ("COURSE: an option value ending in .py is not a target", "pytest --cov=bill.py", "slow"),
    ("COURSE: an option value is not a target", "pytest -p no:randomly -o addopts=", "slow"),
    ("COURSE: -kEXPR is -k EXPR", "pytest -ksplit", "fast"),
    ("COURSE: jest's config file is not a target", "jest --config jest.config.js", "slow"),
    ("COURSE: mocha's timeout value is not a target", "mocha -t 5000", "slow"),
    ("COURSE: jest -t names a test", "jest -t split", "fast"),
    ("COURSE: jest reruns only the failures", "jest --onlyFailures", "subset"),
    ("COURSE: vitest on changed files only", "vitest run --changed", "subset"),
    ("COURSE: pytest skips a file", "pytest --ignore=check_slow.py", "subset"),
    ("COURSE: stepwise skip", "pytest --sw-skip", "subset"),
    ("COURSE: pytest fixture listing runs no test", "pytest --fixtures", "no_tests"),
    ("COURSE: pytest -V is the version", "pytest -V", "no_tests"),
    ("COURSE: pytest -v is verbose, a real run", "pytest -v", "slow"),
    ("COURSE: cargo test --no-run compiles, runs no test", "cargo test --no-run", "no_tests"),
    ("COURSE: cargo's test list", "cargo test -- --list", "no_tests"),
    ("COURSE: cargo tree asks, runs nothing", "cargo tree", "no_tests"),
    ("COURSE: go test -list names tests", "go test -list . ./...", "no_tests"),
    ("COURSE: jest's test list", "jest --listTests", "no_tests"),
    ("COURSE: vitest list", "vitest list", "no_tests"),
    ("COURSE: make -n only prints", "make -n check", "no_tests"),
    ("COURSE: tox --notest", "tox --notest", "no_tests"),
    ("COURSE: ctest -N shows the tests", "ctest -N", "no_tests"),
    ("COURSE: ctest -V is verbose, a real run", "ctest -V", "slow"),
    ("COURSE: npm view asks the registry", "npm view jest", "no_tests"),
    ("COURSE: help subcommand", "go help test", "no_tests"),
    ("COURSE: a listing beside a run does not hide the run", "pytest --co -q && pytest -q", "slow"),
    ("COURSE: reading a file named test", "cat test", None),
    ("COURSE: reading the tests", "cat tests/test_bill.py", None),
    ("COURSE: echo names a runner", "echo 'now run pytest'", None),
    ("COURSE: a commit message is not a run", 'git commit -qm "make the test pass"', None),
    ("COURSE: pip show through python -m", "python -m pip show pytest", None),
    ("COURSE: type names a runner", "type pytest", None),
]


def _outcome(command: str) -> str | None:
    """What the course makes of a command that passed: None, "no_tests", or its tier."""
    if not is_verification_command(command):
        return None
    passed = read_verification(ToolResult("c", "run_command", {"command": command}, True, "ok"))
    if passed is None:
        return "no_tests"
    return passed.tier


def _ids(rows: list[tuple]) -> list[str]:
    return [f"{row[0]} | {row[1]!r}" for row in rows]


@pytest.mark.parametrize(
    ("case", "command", "expected"),
    TIER_ROWS + TIER_ROWS_DERIVED,
    ids=_ids(TIER_ROWS + TIER_ROWS_DERIVED),
)
def test_tier_reference_rows(case, command, expected):
    if expected is None:
        assert not is_verification_command(command)
    else:
        assert verification_tier(command) == expected


@pytest.mark.parametrize(
    ("case", "command", "expected"), RECOGNITION_ROWS, ids=_ids(RECOGNITION_ROWS)
)
def test_recognition_reference_rows(case, command, expected):
    assert is_verification_command(command) is expected


@pytest.mark.parametrize(("case", "command", "expected"), MASK_ROWS, ids=_ids(MASK_ROWS))
def test_masking_rows(case, command, expected):
    assert is_masked(command) is expected


@pytest.mark.parametrize(
    ("case", "command", "expected"),
    COURSE_COMMAND_ROWS + COURSE_MORE_ROWS,
    ids=_ids(COURSE_COMMAND_ROWS + COURSE_MORE_ROWS),
)
def test_course_command_rows(case, command, expected):
    want = "fast" if expected == "subset" else expected
    assert _outcome(command) == want


def test_every_command_row_says_where_its_answer_comes_from():
    from run_monitor_rows import row_source

    tables = TIER_ROWS + TIER_ROWS_DERIVED + RECOGNITION_ROWS + MASK_ROWS
    tables += COURSE_COMMAND_ROWS + COURSE_MORE_ROWS
    assert not [row[0] for row in tables if row_source(row[0]) is None]
    assert all(row_source(row[0]) == "course" for row in COURSE_COMMAND_ROWS + COURSE_MORE_ROWS)


def test_every_row_table_names_its_case():
    tables = TIER_ROWS + TIER_ROWS_DERIVED + RECOGNITION_ROWS + MASK_ROWS
    assert all(isinstance(row[0], str) and row[0].strip() for row in tables)
    assert all(row[0].startswith("COURSE:") for row in COURSE_COMMAND_ROWS + COURSE_MORE_ROWS)


def test_a_failing_no_test_command_is_still_a_red_result():
    failed = ToolResult("c", "run_command", {"command": "pytest --collect-only"}, False, "error")
    assert runs_no_tests("pytest --collect-only")
    assert read_verification(failed).passed is False


def test_declined_pass_names_why_a_pass_is_not_green():
    def passed(command: str) -> ToolResult:
        return ToolResult("c", "run_command", {"command": command}, True, "ok")

    assert declined_pass(passed("pytest -q | tail -3")) == "masked"
    assert declined_pass(passed("pytest --co")) == "runs_no_tests"
    assert declined_pass(passed("pytest -q")) is None
    assert declined_pass(passed("ls -la")) is None
    assert (
        declined_pass(ToolResult("c", "run_command", {"command": "pytest | tail"}, False, "x"))
        is None
    )


def test_declined_pass_names_a_script_the_run_wrote():
    def passed(command: str) -> ToolResult:
        return ToolResult("c", "run_command", {"command": command}, True, "ok")

    written = frozenset({"check.sh", "scripts/lint.sh"})
    assert declined_pass(passed("./check.sh"), written) == "own_script"
    assert declined_pass(passed("timeout 60 ./scripts/lint.sh"), written) == "own_script"
    assert declined_pass(passed("./check.sh")) is None  # not written in this run
    assert declined_pass(passed("pytest check_new.py"), {"check_new.py"}) is None  # a test file
    assert read_verification(passed("./check.sh"), written) is None
    failed = ToolResult("c", "run_command", {"command": "./check.sh"}, False, "no")
    assert read_verification(failed, written).passed is False  # a red is red whoever wrote it


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("printf 'exit 0' > check.sh", {"check.sh"}),
        ("cat >> ./scripts/t.sh <<'EOF'", {"scripts/t.sh"}),
        ("echo ok | tee -a lint.sh", {"lint.sh"}),
        ("pytest -q 2>&1", set()),
        ("pytest -q &> log.txt", set()),
        ("ls", set()),
    ],
)
def test_paths_written_reads_a_shell_commands_redirections(command, paths):
    result = ToolResult("c", "run_command", {"command": command}, True, "")
    assert paths_written(result) == paths


def test_paths_written_reads_an_edit_tools_path_whatever_the_file():
    edit = ToolResult("e", "write_file", {"path": "./notes/check"}, True, "wrote", "mutate")
    assert paths_written(edit) == {"notes/check"}
    assert (
        paths_written(ToolResult("e", "write_file", {"path": "x"}, False, "no", "mutate")) == set()
    )


@pytest.mark.parametrize(
    ("segment", "call"),
    [
        ("python -m pytest -q", ("pytest", ["-q"])),
        ("PYTHONPATH=. python3 -m pytest", ("pytest", [])),
        ("npx --yes jest", ("jest", [])),  # the launcher's own flags are skipped
        ("uvx ruff check .", ("ruff", ["check", "."])),
        ("env CI=1 ruff check .", ("ruff", ["check", "."])),
        ("env -u HOME FOO=1 pytest -k a", ("pytest", ["-k", "a"])),
        ("timeout 60 pytest -k split", ("pytest", ["-k", "split"])),
        ("timeout -s KILL 60s uv run pytest x.py", ("pytest", ["x.py"])),  # launchers nest
        ("coverage run -m pytest tests/t.py", ("pytest", ["tests/t.py"])),
        ("coverage run --branch -m pytest", ("pytest", [])),
        ("coverage report", ("coverage", ["report"])),  # starts no program
        ("python check_bill.py", ("python", ["check_bill.py"])),  # a script, not a module
        ("uv sync", ("uv", ["sync"])),
        ("python -c 'print(1)'", ("python", ["-c", "'print(1)'"])),
        ("", ("", [])),
    ],
)
def test_runner_call_reads_launchers_as_their_program(segment, call):
    assert runner_call(segment) == call


def test_course_tables_only_name_runners_the_rules_know_or_default_slow():
    # A flag table for a runner the recogniser cannot see would be dead data.
    for table in (NO_TEST_FLAGS, SUBSET_FLAGS):
        for runner in table:
            assert runner == "*" or is_verification_command(runner) or runner in RUNNER_TIERS
    assert not NEVER_CHECKS & set(RUNNER_TIERS)


def test_code_paths_touched_counts_distinct_code_files_of_one_call():
    def mutate(**arguments) -> ToolResult:
        return ToolResult("e", "write_file", arguments, True, "wrote", "mutate")

    assert code_paths_touched(mutate(path="bill.py")) == ("bill.py",)
    assert code_paths_touched(mutate(path="notes.md")) == ()
    assert code_paths_touched(mutate(path="Lib/Main.JAVA")) == ("Lib/Main.JAVA",)
    patch = mutate(
        operations=[{"path": "a.rs"}, {"path": "a.rs", "new_path": "b.rs"}, {"path": "c.md"}]
    )
    assert code_paths_touched(patch) == ("a.rs", "b.rs")
    failed = ToolResult("e", "write_file", {"path": "bill.py"}, False, "no", "mutate")
    assert code_paths_touched(failed) == ()
