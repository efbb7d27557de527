"""The verify-before-done gate: when a monitored run may finish, and how often it is told why not.

Session 15 (run monitors). `cafe/monitors/tiers.py` reads the commands the agent runs (is it a
check, how thorough, was its status masked). This module keeps the run's verification state and
decides from it:

- `TierState` and `fold_tiers`: green coverage per tier, set only by a passing command (a red full
  suite then a green fast check is fast-green-only); the distinct code files edited since the last
  verification attempt.
- `mid_run_nudge`: the one reminder to run a fast check while edits pile up (tiers on).
- `finish_message`: at a claimed finish, what is still unchecked.
- `VerifyGate`: both, for one run, plugged into the loop.

The messages all start with `VERIFY_PREFIX`; how many a run may send is `MESSAGE_CEILINGS[mode]`,
counted separately for the "did anything run?" question and the "did the full suite run?" one.
`cafe/monitors/run.py` wires the gate into the loop.

Left out: reading commands (`cafe/monitors/tiers.py`), the progress monitor
(`cafe/monitors/progress.py`), the safe-state abort (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, get_args

from cafe.loop.agent import Nudge, ToolResult, TurnView
from cafe.loop.tools import Tool, ToolOutput, tool
from cafe.monitors.tiers import CODE_SUFFIXES, read_verification

__all__ = [
    "VerificationTiersMode",
    "VERIFICATION_TIERS_MODES",
    "VERIFY_PREFIX",
    "MESSAGE_CEILINGS",
    "EDIT_PILE_NUDGE_AT",
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


# --- records and the fold -------------------------------------------------------------


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
