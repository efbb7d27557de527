"""Verification tiers: which commands check the work, how thoroughly, and what passed.

Session 15 (run monitors). Session 01's verify entrypoint answers one question at the very end:
did a check run, and did it pass? It cannot tell a linter from the whole test suite, and it says
nothing while edits pile up unchecked. This module reads the commands the agent runs and adds:

- `is_verification_command(command)`: split on `&`, `|`, `;` and newlines; a piece counts when it
  names a marker as a whole word (`pytest`, `ruff`, `make`, `test`, ... after stripping leading
  dashes, or a script such as `./run-tests.sh` whose name pieces do) and holds none of
  `NON_VERIFY_WORDS` (`pip install pytest` installs, it checks nothing).
- `verification_tier(command)`: `fast` (a linter, a type checker, one targeted test) or `slow`
  (the full suite, a full build). A chain takes its slowest piece. A command this module does not
  know is `slow`: the tier only ever adds a request for the full suite, so guessing `slow` can
  at worst miss one, and never pesters an agent that already ran it.
- `is_masked(command)`: `pytest | tail`, `pytest; echo ok`, `pytest &` succeed whatever the
  tests said, so a green masked command is not recorded at all.
- `read_verification(result)`: one tool result as verification evidence (its tier and whether it
  passed) or None. The workbench's `run_tests` tool is the till's whole suite, so `slow`.

What the run does with that evidence (green coverage, the messages, when a run may finish) is
the verify-before-done gate, `cafe/monitors/gate.py`.

Left out: running anything (the tools do that), the gate (`cafe/monitors/gate.py`), the progress
monitor (`cafe/monitors/progress.py`), the safe-state abort (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from cafe.loop.agent import ToolResult

__all__ = [
    "Tier",
    "TIERS",
    "VERIFY_MARKERS",
    "NON_VERIFY_WORDS",
    "ALWAYS_FAST",
    "CODE_SUFFIXES",
    "split_segments",
    "is_verification_command",
    "verification_tier",
    "is_masked",
    "Verification",
    "read_verification",
]

# --- constants ------------------------------------------------------------------------------

# Two tiers, in order of cost: a chain of commands is as slow as its slowest piece.
Tier = Literal["fast", "slow"]
TIERS: tuple[str, ...] = get_args(Tier)

# Words that make a piece of a command a verification, whole words only. From the source design's
# list, plus the plurals that script names use (`run-tests.sh`).
VERIFY_MARKERS: frozenset[str] = frozenset(
    {
        "test",
        "tests",
        "build",
        "check",
        "checks",
        "lint",
        "compile",
        "pytest",
        "unittest",
        "tox",
        "make",
        "ruff",
        "mypy",
        "flake8",
        "pylint",
        "tsc",
        "eslint",
        "clippy",
        "cargo",
        "npm",
        "go",
        "typecheck",
    }
)
# Words that make a piece something else, however many markers it holds (`npm install`,
# `git checkout tests/`, `cargo add`): the source design's list.
NON_VERIFY_WORDS: frozenset[str] = frozenset({"checkout", "install", "add", "remove", "uninstall"})
# Linters and type checkers: fast whatever their arguments (the source design's rule).
ALWAYS_FAST: frozenset[str] = frozenset(
    {"ruff", "mypy", "flake8", "pylint", "tsc", "eslint", "clippy", "check", "lint", "typecheck"}
)
# What counts as a code file for the edit pile: source files, not notes or data.
CODE_SUFFIXES: frozenset[str] = frozenset(
    {".py", ".rs", ".ts", ".tsx", ".js", ".go", ".java", ".c", ".h", ".cpp", ".rb", ".sh"}
)

_SPLIT = re.compile(r"[&|;\n]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NAME_PIECES = re.compile(r"[-_.]")
_REDIRECT = re.compile(r"\d*>&\d*|&>>?")


# --- small pure helpers: reading a command --------------------------------------------------


def split_segments(command: str) -> list[str]:
    """The pieces of a shell command between `&`, `|`, `;` and newlines, blanks dropped."""
    return [piece.strip() for piece in _SPLIT.split(command) if piece.strip()]


def _words(segment: str) -> list[str]:
    """The words of one piece, leading `VAR=value` assignments stripped."""
    words = segment.split()
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    return words


def _names(word: str) -> set[str]:
    """What a word can name: itself without leading dashes, and for a path-shaped command
    (`./run-tests.sh`) the pieces of its file name."""
    names = {word.lstrip("-").lower()}
    if "/" in word:
        names |= {piece.lower() for piece in _NAME_PIECES.split(word.rsplit("/", 1)[-1]) if piece}
    return names


def _is_verify_segment(segment: str) -> bool:
    words = _words(segment)
    if any(word.lower() in NON_VERIFY_WORDS for word in words):
        return False
    return any(_names(word) & VERIFY_MARKERS for word in words)


def is_verification_command(command: str) -> bool:
    """True when some piece of `command` runs a check (see the module docstring for the rule)."""
    if not isinstance(command, str):
        raise TypeError(
            f"command must be the command line as a string, not {type(command).__name__}."
        )
    return any(_is_verify_segment(segment) for segment in split_segments(command))


def _after(words: list[str], name: str) -> list[str]:
    index = next(i for i, word in enumerate(words) if word.lower() == name)
    return words[index + 1 :]


def _targets_one_test(arg: str) -> bool:
    """A pytest argument that narrows the run: `-k`/`-m` (or `-kname`), a `file::test` id, a file."""
    return arg.startswith(("-k", "-m")) or "::" in arg or arg.endswith(".py")


def _segment_tier(segment: str) -> Tier:
    words = _words(segment)
    lowered = [word.lower().lstrip("-") for word in words]
    if any(word in ALWAYS_FAST for word in lowered):
        return "fast"
    if "pytest" in [w.lower() for w in words]:
        args = _after(words, "pytest")
        return "fast" if any(_targets_one_test(arg) for arg in args) else "slow"
    if "cargo" in lowered and "test" in lowered:  # `cargo test some_name` runs one test
        return "fast" if any(not a.startswith("-") for a in _after(words, "test")) else "slow"
    if "go" in lowered and "test" in lowered and "-run" in [w.lower() for w in words]:
        return "fast"
    return "slow"  # the full suite, a full build, make, or a command this module does not know


def verification_tier(command: str) -> Tier:
    """`fast` or `slow` for a verification command: its slowest verifying piece. A command that is
    not a verification raises ValueError (ask `is_verification_command` first)."""
    if not is_verification_command(command):
        raise ValueError(
            f"{command!r} is not a verification command; check is_verification_command first."
        )
    tiers = [_segment_tier(s) for s in split_segments(command) if _is_verify_segment(s)]
    return "slow" if "slow" in tiers else "fast"


def is_masked(command: str) -> bool:
    """True when the command's exit status may not be the check's: a pipe (`|`, `||`), a `;` with
    more after it, or a lone `&` that sends the check to the background. `&&` masks nothing."""
    text = _REDIRECT.sub(" ", command).replace(
        "&&", "  "
    )  # `2>&1` and `&>` redirect; they mask nothing
    if "|" in text or re.search(r"(?<!&)&(?!&)", text):
        return True
    return bool(re.search(r";\s*\S", text))


# --- records and the fold -------------------------------------------------------------------


@dataclass(frozen=True)
class Verification:
    """One tool result read as verification evidence."""

    tier: Tier
    passed: bool
    command: str


def _command_of(result: ToolResult) -> str | None:
    command = result.arguments.get("command")
    return command if isinstance(command, str) else None


def read_verification(result: ToolResult) -> Verification | None:
    """The evidence in one result, or None: a recognised command (green and masked is not
    recorded), or a `verify`-kind tool the model called (the whole suite, so `slow`). A check the
    loop forced on a claimed finish is the harness's own gate, not the agent's evidence."""
    command = _command_of(result)
    if command is not None:
        if not is_verification_command(command) or (result.ok and is_masked(command)):
            return None
        return Verification(verification_tier(command), result.ok, command)
    if result.kind == "verify" and not result.forced:
        return Verification("slow", result.ok, result.name)
    return None
