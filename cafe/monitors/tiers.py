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
- `TierState` and `fold_tiers`: green coverage per tier, set only by a passing command (a red full
  suite then a green fast check is fast-green-only); the distinct code files edited since the last
  verification attempt.

The messages built from that state (`mid_run_nudge`, `finish_message`) all start with
`VERIFY_PREFIX`; how many a run may send is `MESSAGE_CEILINGS[mode]`, counted separately for the
"did anything run?" question and the "did the full suite run?" one. `cafe/monitors/run.py` wires
them into the loop.

Left out: running anything (the tools do that), the progress monitor (`cafe/monitors/progress.py`),
the safe-state abort (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, get_args

from cafe.loop.agent import Nudge, ToolResult, TurnView
from cafe.loop.tools import Tool, ToolOutput, tool

__all__ = [
    "VerificationTiersMode",
    "VERIFICATION_TIERS_MODES",
    "Tier",
    "TIERS",
    "VERIFY_PREFIX",
    "MESSAGE_CEILINGS",
    "EDIT_PILE_NUDGE_AT",
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
    "TierState",
    "fold_tiers",
    "unverified",
    "fast_green_only",
    "mid_run_nudge",
    "finish_message",
    "VerifyGate",
]

# --- constants ------------------------------------------------------------------------------

# The switch, as the design this session follows names it: off by default.
VerificationTiersMode = Literal["off", "advisory", "blocking"]
VERIFICATION_TIERS_MODES: frozenset[str] = frozenset(get_args(VerificationTiersMode))

# Two tiers, in order of cost: a chain of commands is as slow as its slowest piece.
Tier = Literal["fast", "slow"]
TIERS: tuple[str, ...] = get_args(Tier)

# Every message this module writes starts with this tag, so the model (and a log reader) can tell
# a harness notice from the user's words.
VERIFY_PREFIX = "[verify-before-done]"

# How many messages of each question one run may receive, by mode (the source design's ceilings).
MESSAGE_CEILINGS: Mapping[str, int] = MappingProxyType({"off": 1, "advisory": 2, "blocking": 3})

# Distinct code files edited with nothing run since, before the one mid-run nudge (source design).
EDIT_PILE_NUDGE_AT = 3

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


def _edited_code_file(result: ToolResult) -> str | None:
    path = result.arguments.get("path")
    if result.kind != "mutate" or not result.ok or not isinstance(path, str):
        return None
    return path if any(path.endswith(suffix) for suffix in CODE_SUFFIXES) else None


@dataclass(frozen=True)
class TierState:
    """What the tier monitor knows after some turns.

    `fast_green`/`slow_green`: a command of that tier passed since the last code edit (coverage,
    not invocation: a red run sets nothing). `last_passed`: the latest verification's outcome
    (None before any). `edited_files`: distinct code files edited since the last verification
    attempt. `edited_since_green`: a code edit landed after the latest pass.
    """

    fast_green: bool = False
    slow_green: bool = False
    last_passed: bool | None = None
    edited_files: frozenset[str] = frozenset()
    edited_since_green: bool = False
    ever_edited: bool = False


def fold_tiers(state: TierState, results: Sequence[ToolResult]) -> TierState:
    """Fold one turn's results, in order, into the tier state."""
    for result in results:
        edited = _edited_code_file(result)
        if edited is not None:
            state = replace(
                state,
                fast_green=False,
                slow_green=False,
                edited_since_green=True,
                ever_edited=True,
                edited_files=state.edited_files | {edited},
            )
            continue
        check = read_verification(result)
        if check is None:
            continue
        state = replace(state, last_passed=check.passed, edited_files=frozenset())
        if check.passed:
            state = replace(
                state,
                edited_since_green=False,
                fast_green=state.fast_green or check.tier == "fast",
                slow_green=state.slow_green or check.tier == "slow",
            )
    return state


def unverified(state: TierState) -> bool:
    """ "Did anything run?": code was edited and no passing check has covered the latest edit."""
    return state.ever_edited and (state.edited_since_green or state.last_passed is not True)


def fast_green_only(state: TierState) -> bool:
    """ "Did the full suite run?": the code is covered, but only by fast checks."""
    return not unverified(state) and state.fast_green and not state.slow_green


# --- the messages ---------------------------------------------------------------------------


def mid_run_nudge(state: TierState) -> str | None:
    """The one mid-run nudge, when `EDIT_PILE_NUDGE_AT` code files were edited with nothing run."""
    if len(state.edited_files) < EDIT_PILE_NUDGE_AT:
        return None
    files = ", ".join(sorted(state.edited_files))
    return (
        f"{VERIFY_PREFIX} {len(state.edited_files)} code files have changed ({files}) and no check has "
        "run since. Run a fast check now (a linter, or the one test that covers your change) before "
        "you edit further."
    )


def finish_message(state: TierState, *, tiers_on: bool) -> tuple[str, str] | None:
    """At a claimed finish: (question, message) for what is still unchecked, or None.

    The question is `ran` ("did anything run?") or `suite` ("did the full suite run?"); the two
    never hold at once. The `suite` escalation needs tiers on.
    """
    if unverified(state):
        why = (
            "the last check failed"
            if state.last_passed is False
            else "no passing check has run since your last edit"
        )
        return "ran", (
            f"{VERIFY_PREFIX} You are finishing, but {why}. Run the tests and make sure they pass "
            "before you say you are done."
        )
    if tiers_on and fast_green_only(state):
        return "suite", (
            f"{VERIFY_PREFIX} Only fast checks have passed on this code; the full suite has not "
            "been seen passing. Run the whole test suite once before you finish."
        )
    return None


# --- the gate -------------------------------------------------------------------------------


class VerifyGate:
    """The verify-before-done gate for one run: `after_turn` folds each turn and sends the one
    mid-run nudge (tiers on); `tool` is the loop's verify entrypoint, asked on every claimed finish,
    which fails (sending its message back) while something is unchecked and the question's budget
    lasts, and passes otherwise. With `off` only the "did anything run?" question is asked, once."""

    def __init__(self, mode: VerificationTiersMode = "off"):
        if mode not in VERIFICATION_TIERS_MODES:
            raise ValueError(
                f"verification_tiers must be one of {sorted(VERIFICATION_TIERS_MODES)}, not {mode!r}."
            )
        self.mode = mode
        self.state = TierState()
        self.used = {"ran": 0, "suite": 0}
        self.nudged_mid_run = False
        self.sent: list[str] = []
        self.tool: Tool = tool(self.verify_before_done, kind="verify")

    @property
    def max_checks(self) -> int:
        """Enough verify attempts for every message both budgets allow, plus the final pass."""
        return 2 * MESSAGE_CEILINGS[self.mode] + 1

    def after_turn(self, view: TurnView) -> Nudge | None:
        self.state = fold_tiers(self.state, view.dispatch)
        text = mid_run_nudge(self.state) if self.mode != "off" and not self.nudged_mid_run else None
        if text is None or self.used["ran"] >= MESSAGE_CEILINGS[self.mode]:
            return None
        self.nudged_mid_run = True
        self.used["ran"] += 1
        self.sent.append(text)
        return Nudge(text, source="verify_tiers")

    def verify_before_done(self) -> ToolOutput:
        """The harness's check of a claimed finish (the model does not call this)."""
        found = finish_message(self.state, tiers_on=self.mode != "off")
        if found is None or self.used[found[0]] >= MESSAGE_CEILINGS[self.mode]:
            return ToolOutput(True, f"{VERIFY_PREFIX} nothing left to check.")
        self.used[found[0]] += 1
        self.sent.append(found[1])
        return ToolOutput(False, found[1])
