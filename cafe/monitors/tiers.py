"""Verification tiers: which commands check the work, how thoroughly, and what passed.

Session 15 (run monitors). Session 01's verify entrypoint answers one question at the very end:
did a check run, and did it pass? It cannot tell a linter from the whole test suite, and it says
nothing while edits pile up unchecked. This module reads the commands the agent runs and adds:

- which commands check the work and whether their exit status can be trusted
  (`is_verification_command`, `is_masked`) are read in `cafe/monitors/commands.py`; how
  thoroughly (`verification_tier`: `fast` or `slow`) in `cafe/monitors/runners.py`.
- `read_verification(result)`: one tool result as verification evidence (its tier and whether it
  passed) or None. A pass whose exit status is masked, or that ran no test, is not evidence
  (`declined_pass` says which). The workbench's `run_tests` tool is the till's whole suite: `slow`.
- `code_paths_touched(result)`: the code files one edit-tool call wrote (`CODE_SUFFIXES`).
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, get_args

from cafe.loop.agent import Nudge, ToolResult, TurnView
from cafe.loop.tools import Tool, ToolOutput, tool
from cafe.monitors.commands import (
    is_masked,
    is_verification_command,
    is_verification_segment,
    split_segments,
)
from cafe.monitors.runners import (
    Tier,
    runs_no_tests,
    segment_runs_no_tests,
    segment_tier,
    verification_tier,
)

__all__ = [
    "VerificationTiersMode",
    "VERIFICATION_TIERS_MODES",
    "VERIFY_PREFIX",
    "MESSAGE_CEILINGS",
    "EDIT_PILE_NUDGE_AT",
    "CODE_SUFFIXES",
    "DeclinedPass",
    "DECLINED_PASSES",
    "is_code_path",
    "code_paths_touched",
    "Verification",
    "declined_pass",
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

# Every message this module writes starts with this tag, so the model (and a log reader) can tell
# a harness notice from the user's words.
VERIFY_PREFIX = "[verify-before-done]"

# How many messages of each question one run may receive, by mode (the source design's ceilings).
MESSAGE_CEILINGS: Mapping[str, int] = MappingProxyType({"off": 1, "advisory": 2, "blocking": 3})

# Distinct code files edited with nothing run since, before the one mid-run nudge (source design).
EDIT_PILE_NUDGE_AT = 3

# What counts as a code file for the edit pile: the reference's list of source extensions.
# Docs and config (md, txt, json, toml, ...) never count, so a doc-only edit never nudges.
CODE_SUFFIXES: frozenset[str] = frozenset(
    "." + ext
    for ext in (
        "rs py ts tsx js jsx mjs cjs go rb java kt kts c h cc cpp hpp cxx cs swift php scala clj"
        " cljs cljc ex exs sh bash lua pl hs ml sql vue svelte"
    ).split()
)
# The argument names an edit tool may carry a file's path under (the reference's).
_PATH_KEYS = ("path", "file_path", "file")

# Why a verification command that passed was not recorded as green: its exit status may be
# another command's (`is_masked`), or it ran no test at all (`runs_no_tests`, course choice).
DeclinedPass = Literal["masked", "runs_no_tests"]
DECLINED_PASSES: frozenset[str] = frozenset(get_args(DeclinedPass))


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


def declined_pass(result: ToolResult) -> DeclinedPass | None:
    """Why a passing verification command is not recorded as green, or None: its exit status may
    be another command's (`masked`), or it ran no test (`runs_no_tests`). The gate can then say
    what was wrong with the run instead of claiming that nothing ran."""
    command = _command_of(result)
    if command is None or not result.ok or not is_verification_command(command):
        return None
    if is_masked(command):
        return "masked"
    return "runs_no_tests" if runs_no_tests(command) else None


def _tier_of_checks(command: str) -> Tier:
    """The tier of the pieces that run a check (a listing beside a run does not count); the
    whole command's when none does (a failed listing is still a red result)."""
    tiers = [
        segment_tier(s)
        for s in split_segments(command)
        if is_verification_segment(s) and not segment_runs_no_tests(s)
    ]
    if not tiers:
        return verification_tier(command)
    return "slow" if "slow" in tiers else "fast"


def read_verification(result: ToolResult) -> Verification | None:
    """The evidence in one result, or None: a recognised command (a pass that `declined_pass`
    names is not recorded; a failure always is), or a `verify`-kind tool the model called (the
    whole suite, so `slow`). A check the loop forced on a claimed finish is the harness's own
    gate, not the agent's evidence."""
    command = _command_of(result)
    if command is not None:
        if not is_verification_command(command) or declined_pass(result) is not None:
            return None
        return Verification(_tier_of_checks(command), result.ok, command)
    if result.kind == "verify" and not result.forced:
        return Verification("slow", result.ok, result.name)
    return None


def is_code_path(path: str) -> bool:
    """True when `path` names a source file (`CODE_SUFFIXES`, any case)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return "." in name and "." + name.rsplit(".", 1)[1].lower() in CODE_SUFFIXES


def code_paths_touched(result: ToolResult) -> tuple[str, ...]:
    """The distinct code files one successful edit-tool call wrote (sorted): its `path` (or
    `file_path`, `file`) and, for a patch tool, each operation's `path` and `new_path`. The
    reference counts these per call, so one file edited three times is three unverified edits."""
    if result.kind != "mutate" or not result.ok:
        return ()
    paths = [result.arguments.get(key) for key in _PATH_KEYS]
    operations = result.arguments.get("operations")
    if isinstance(operations, list):
        paths += [
            op.get(key) for op in operations if isinstance(op, dict) for key in ("path", "new_path")
        ]
    return tuple(sorted({p for p in paths if isinstance(p, str) and is_code_path(p)}))


def _edited_code_file(result: ToolResult) -> str | None:
    touched = code_paths_touched(result)
    return touched[0] if touched else None


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
