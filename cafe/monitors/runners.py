"""Which runner a command calls, and how much of the project it checks: the verification tiers.

Session 15 (run monitors). `cafe/monitors/commands.py` decides whether a command checks the work;
this module says how thoroughly, reading each piece's command word the way the reference design
does (the tables below are its rules as data, one runner a line):

- `verification_tier(command)`: `fast` (a linter, a type checker, one targeted test) or `slow`
  (the full suite, a full build). A chain takes its strongest piece, and a command word no rule
  knows is `slow`: the tier only ever adds a request for the full suite, so an unknown command
  can at worst miss one, never nag an agent that already ran it. `make` is always slow (by the
  automake convention `make check` IS the full suite), and an option's value is not a target
  (`cargo test -p till` runs the package's whole suite).
- `runs_no_tests(command)` (course choice): the runner is asked for something other than a run:
  its version, its help, the list of tests it would collect (`pytest --collect-only`, `cargo
  test --no-run`, `jest --listTests`). A pass of such a command proves nothing about the code.

Also by course choice: `python -m pytest`, `npx jest`, `uv run pytest`, `timeout 60 pytest` and
every other launcher are read as the runner they wrap (one rule, `cafe/monitors/commands.py`);
the format checkers seed 001 calls fast and the reference's list leaves out are fast; pytest's rerun-failed and stepwise modes (`--lf`, `--sw`) and jest's
`--onlyFailures` run part of the suite, so a pass is `fast` coverage.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Literal, get_args

from cafe.monitors.commands import (
    is_verification_command,
    is_verification_segment,
    runner_call,
    split_segments,
)

__all__ = [
    "Tier",
    "TIERS",
    "TierRule",
    "TIER_RULES",
    "RUNNER_TIERS",
    "FAST_LINTERS",
    "FORMAT_CHECKERS",
    "ALWAYS_FAST",
    "FAST_SCRIPT_WORDS",
    "CARGO_VALUE_FLAGS",
    "VALUE_FLAGS",
    "SUBSET_FLAGS",
    "NO_TEST_FLAGS",
    "NO_TEST_SUBCOMMANDS",
    "segment_tier",
    "verification_tier",
    "segment_runs_no_tests",
    "runs_no_tests",
]

# --- constants: the reference's tables ------------------------------------------------------

# Two tiers, in order of strength: a chain of commands is as slow as its slowest piece.
Tier = Literal["fast", "slow"]
TIERS: tuple[str, ...] = get_args(Tier)

# How a runner's arguments decide its tier; each name is one function below.
TierRule = Literal["cargo", "pytest", "node_script", "go", "js_runner", "fast"]
TIER_RULES: frozenset[str] = frozenset(get_args(TierRule))

# Linters and formatters that are fast whatever their arguments (the reference's list).
FAST_LINTERS: frozenset[str] = frozenset(
    {
        "eslint",
        "ruff",
        "mypy",
        "flake8",
        "shellcheck",
        "rubocop",
        "golangci-lint",
        "prettier",
        "clippy",
    }
)
# Course choice, from seed 001 (format checks, type checks and linters are fast): format
# checkers the reference's list leaves out, so `black --check .` is no longer a `slow` green.
FORMAT_CHECKERS: frozenset[str] = frozenset(
    {"black", "isort", "rustfmt", "stylua", "dprint", "biome", "taplo", "shfmt"}
)
# The reference's dispatch on the command word; every other command word is `slow` (make,
# gradle, mvn, ctest, tox, scripts, ...).
RUNNER_TIERS: Mapping[str, TierRule] = MappingProxyType(
    {
        "cargo": "cargo",
        "pytest": "pytest",
        "npm": "node_script",
        "pnpm": "node_script",
        "yarn": "node_script",
        "go": "go",
        "jest": "js_runner",
        "vitest": "js_runner",
        "mocha": "js_runner",
        "tsc": "fast",  # type checkers: never run a test
        "rustc": "fast",
        **{linter: "fast" for linter in sorted(FAST_LINTERS | FORMAT_CHECKERS)},
    }
)
# Every command word that is fast whatever its arguments (earlier name, kept).
ALWAYS_FAST: frozenset[str] = frozenset(k for k, v in RUNNER_TIERS.items() if v == "fast")
# `npm run <script>` names that read as a cheap check, matched inside the name (`lint:fix`).
FAST_SCRIPT_WORDS: tuple[str, ...] = ("lint", "check", "typecheck", "tsc", "format", "fmt")
# cargo flags whose value is the next word: `cargo test -p till` names a package, not a test.
CARGO_VALUE_FLAGS: frozenset[str] = frozenset(
    {
        "-p",
        "--package",
        "--exclude",
        "--features",
        "-j",
        "--jobs",
        "--target",
        "--manifest-path",
        "--message-format",
        "--profile",
        "--bin",
        "--test",
        "--example",
    }
)

# --- constants: the course's additions (each a stated choice) -------------------------------

# Course choice: flags whose value is the next word, for runners the reference reads by
# position too (`pytest -p no:randomly`, `jest --config jest.config.js`). A value is not a target.
VALUE_FLAGS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "cargo": CARGO_VALUE_FLAGS,
        "pytest": frozenset(
            {"-p", "-c", "-o", "-W", "-n", "--rootdir", "--basetemp", "--confcutdir", "--cov"}
            | {"--junitxml", "--maxfail", "--durations", "--dist", "--log-level", "--import-mode"}
        ),
        "jest": frozenset({"-c", "--config", "-w", "--maxWorkers", "--reporters", "--rootDir"}),
        "vitest": frozenset({"-c", "--config", "--project", "--reporter", "--root", "--dir"}),
        "mocha": frozenset({"--config", "-R", "--reporter", "-t", "--timeout", "-r", "--require"}),
    }
)
# Course choice: flags that run only part of the suite, so a pass is fast coverage (the
# reference reads `pytest --lf` as the whole suite). `-x` is not one: a PASS ran everything.
SUBSET_FLAGS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "pytest": frozenset(
            {"--lf", "--last-failed", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip"}
            | {"--deselect", "--ignore", "--ignore-glob"}
        ),
        "jest": frozenset(
            {"-f", "--onlyFailures", "-o", "--onlyChanged", "--lastCommit", "--changedSince"}
            | {"--findRelatedTests"}
        ),
        "vitest": frozenset({"--changed", "--related"}),
    }
)
# Course choice: flags with which a runner runs no check at all ("*": every runner).
NO_TEST_FLAGS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "*": frozenset({"--version", "--help", "-h"}),
        "pytest": frozenset(
            {"-V", "--collect-only", "--co", "--fixtures", "--fixtures-per-test", "--markers"}
            | {"--setup-plan", "--setup-only"}
        ),
        "cargo": frozenset({"-V", "--no-run", "--list"}),
        "go": frozenset({"-list", "-n", "-c"}),
        "jest": frozenset({"--listTests", "--showConfig", "--clearCache"}),
        "mocha": frozenset({"--dry-run", "--list-reporters", "--list-interfaces"}),
        "make": frozenset({"-n", "--dry-run", "--just-print", "--recon", "-q", "--question", "-v"}),
        "tox": frozenset({"-l", "--listenvs", "--listenvs-all", "--showconfig", "--notest"}),
        "ctest": frozenset({"-N", "--show-only"}),
        "gradle": frozenset({"-v", "-m", "--dry-run"}),
        "mvn": frozenset({"-v"}),
        "tsc": frozenset({"-v", "--showConfig", "--init"}),
        "ruff": frozenset({"-V", "--show-settings", "--show-files"}),
        "mypy": frozenset({"-V"}),
        "rustc": frozenset({"-V", "--print"}),
        "eslint": frozenset({"-v", "--print-config", "--init"}),
        "prettier": frozenset({"-v", "--find-config-path", "--file-info"}),
        "rubocop": frozenset({"-v", "-V"}),
        "shellcheck": frozenset({"-V"}),
    }
)
# Course choice: subcommands that ask a runner about itself instead of running it.
NO_TEST_SUBCOMMANDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "*": frozenset({"help", "version"}),
        "cargo": frozenset({"tree", "metadata", "search", "fetch", "locate-project", "pkgid"}),
        "go": frozenset({"env", "doc", "list"}),
        "npm": frozenset({"view", "info", "ls", "list", "outdated", "config", "why"}),
        "pnpm": frozenset({"view", "info", "ls", "list", "outdated", "config", "why"}),
        "yarn": frozenset({"info", "list", "outdated", "config", "why"}),
        "vitest": frozenset({"list"}),
        "gradle": frozenset({"tasks", "projects", "dependencies"}),
        "golangci-lint": frozenset({"linters", "config"}),
        "ruff": frozenset({"rule", "config", "linter", "clean"}),
    }
)
# --- small pure helpers: reading a runner's arguments ----------------------------------------


def _flag(word: str) -> str:
    """A flag without its attached value: `--deselect=x::y` is `--deselect`."""
    return word.split("=", 1)[0]


def _positionals(runner: str, args: Sequence[str]) -> list[str]:
    """The arguments that are not flags and not a flag's value."""
    takes_value, found, skip = VALUE_FLAGS.get(runner, frozenset()), [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in takes_value
        else:
            found.append(arg)
    return found


def _subset(runner: str, args: Sequence[str]) -> bool:
    return any(_flag(arg) in SUBSET_FLAGS.get(runner, frozenset()) for arg in args)


# --- the tier rules, one per TierRule -------------------------------------------------------


def _cargo(runner: str, args: Sequence[str]) -> Tier:
    """check, clippy and fmt are fast; test and bench are fast with a test name after them
    (flags and their values skipped, nothing after `--`); anything else is slow."""
    lowered = [a.lower() for a in args]
    sub = next((a for a in lowered if not a.startswith("-")), None)
    if sub in ("check", "clippy", "fmt"):
        return "fast"
    if sub in ("test", "bench"):
        head = lowered[: lowered.index("--")] if "--" in lowered else lowered
        names = _positionals("cargo", head)
        return "fast" if len(names) > 1 else "slow"  # names[0] is the subcommand itself
    return "slow"


def _pytest(runner: str, args: Sequence[str]) -> Tier:
    """Fast when narrowed: `-k`/`-m` (course: also `-kexpr`), a `file::test` id or a `.py`
    file among the positional arguments (course: not an option's value), or a subset flag."""
    if any(a.startswith(("-k", "-m")) and not a.startswith("--") for a in args):
        return "fast"
    if any("::" in a or a.lower().endswith(".py") for a in _positionals("pytest", args)):
        return "fast"
    return "fast" if _subset("pytest", args) else "slow"


def _node_script(runner: str, args: Sequence[str]) -> Tier:
    """`test` is the suite; `run <script>` (or yarn's bare `<script>`) is fast when the script's
    name reads as a check (`FAST_SCRIPT_WORDS`)."""
    lowered = [a.lower() for a in args]
    first = next((a for a in lowered if not a.startswith("-")), None)
    if first is None or first == "test":
        return "slow"
    script = first
    if first == "run":
        after = lowered[lowered.index("run") + 1 :]
        script = after[0] if after else ""
    return "fast" if any(word in script for word in FAST_SCRIPT_WORDS) else "slow"


def _go(runner: str, args: Sequence[str]) -> Tier:
    """vet and run are fast; test is fast with `-run` (or `-run=X`)."""
    lowered = [a.lower() for a in args]
    sub = next((a for a in lowered if not a.startswith("-")), None)
    if sub in ("vet", "run"):
        return "fast"
    if sub == "test" and any(a == "-run" or a.startswith("-run=") for a in lowered):
        return "fast"
    return "slow"


def _js_runner(runner: str, args: Sequence[str]) -> Tier:
    """jest, vitest, mocha: a positional path or pattern narrows the run (vitest's `run`
    subcommand is no target); course: so does a subset flag."""
    if any(a.lower() != "run" for a in _positionals(runner, args)):
        return "fast"
    return "fast" if _subset(runner, args) else "slow"


def _fast(runner: str, args: Sequence[str]) -> Tier:
    """Type checkers and linters: fast whatever their arguments."""
    return "fast"


# One function per TierRule, each given (runner name, its arguments).
_RULES: Mapping[str, Callable[[str, Sequence[str]], Tier]] = MappingProxyType(
    {
        "cargo": _cargo,
        "pytest": _pytest,
        "node_script": _node_script,
        "go": _go,
        "js_runner": _js_runner,
        "fast": _fast,
    }
)


# --- the main functions ---------------------------------------------------------------------


def segment_tier(segment: str) -> Tier:
    """The tier of one verifying piece, from its runner's rule; `slow` for a runner no rule knows."""
    runner, args = runner_call(segment)
    rule = RUNNER_TIERS.get(runner)
    return "slow" if rule is None else _RULES[rule](runner, args)


def verification_tier(command: str) -> Tier:
    """`fast` or `slow` for a verification command: its strongest verifying piece. A command that
    is not a verification raises ValueError (ask `is_verification_command` first)."""
    if not is_verification_command(command):
        raise ValueError(
            f"{command!r} is not a verification command; check is_verification_command first."
        )
    tiers = [segment_tier(s) for s in split_segments(command) if is_verification_segment(s)]
    return "slow" if "slow" in tiers else "fast"


def segment_runs_no_tests(segment: str) -> bool:
    """Course choice: this piece asks its runner for a version, help or a listing, not a run."""
    runner, args = runner_call(segment)
    flags = NO_TEST_FLAGS["*"] | NO_TEST_FLAGS.get(runner, frozenset())
    if any(_flag(arg) in flags for arg in args):
        return True
    first = next((a.lower() for a in args if not a.startswith("-")), None)
    subcommands = NO_TEST_SUBCOMMANDS["*"] | NO_TEST_SUBCOMMANDS.get(runner, frozenset())
    return first in subcommands


def runs_no_tests(command: str) -> bool:
    """Course choice: True for a verification command none of whose verifying pieces runs a
    check (`pytest --collect-only`, `cargo --version`). Its pass proves nothing; its failure is
    still a red result (the suite could not even be collected)."""
    checks = [s for s in split_segments(command) if is_verification_segment(s)]
    return bool(checks) and all(segment_runs_no_tests(s) for s in checks)
