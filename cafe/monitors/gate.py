"""The verify-before-done gate: when a monitored run may finish, and how often it is told why not.

Session 15 (run monitors). `cafe/monitors/tiers.py` reads the commands the agent runs (is it a
check, how thorough, why a pass does not count: `declined_pass`) and the code files an edit
wrote (`code_paths_touched`). This module keeps the run's verification state and decides from it:

- `TierState` and `fold_tiers`: green coverage per tier, set only by a passing command and never
  cleared (a red full suite then a green fast check is fast-green-only: the suite was never seen
  passing); the latest check's outcome; and `edits_since_verify`, the code edits made since the
  last check of any outcome (the same file edited three times is three edits).
- `verification_status`: where the run stands, one of `VERIFICATION_STATUSES`. A green goes
  stale while code edits sit after it, in every mode (course choice: the reference's tiers-off
  status keeps it green, while the finish below refuses it, so the run's status would contradict
  how it ended); with tiers off any fresh green is `verified_green`.
- `mid_run_nudge`: with tiers on, the one reminder per run to run a fast check, once
  `EDIT_PILE_NUDGE_AT` code edits pile up with nothing run since.
- `finish_message`: at a claimed finish, what is still unchecked: "did anything run?" (the last
  check failed, nothing ran, or only passes that do not count: masked, or running no test) or,
  tiers on, "did the full suite run?".
- `VerifyGate`: all of it for one run, as an after-turn hook and a before-finish hook.

How many finish messages a run may hear is a TOTAL by mode, `MESSAGE_CEILINGS`: one answer to
"did anything run?" in every mode, plus `ESCALATION_CAPS[mode]` requests for the full suite (0,
1, 2), so off 1, advisory 2, blocking 3. Once the gate has nothing left to say, a claimed finish
ends the run: `done` when the code is green or only fast checks are (the run's status says
which), `verify_failed` when the last check failed or no passing check covers the latest edit.
A red run never ends `done`, and the gate never says a check passed that did not.

Left out: reading commands (`cafe/monitors/tiers.py`), the progress monitor
(`cafe/monitors/progress.py`), the safe-state abort (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, get_args

from cafe.loop.turns import HookAnswer, Nudge, Stop, ToolResult, TurnView
from cafe.monitors.tiers import (
    DECLINED_PASSES,
    DeclinedPass,
    code_paths_touched,
    declined_pass,
    paths_written,
    read_verification,
)
from cafe.stall.verify import VERIFY_STOP_REASONS

__all__ = [
    "VerificationTiersMode",
    "VERIFICATION_TIERS_MODES",
    "VerificationStatus",
    "VERIFICATION_STATUSES",
    "VERIFY_PREFIX",
    "VERIFY_SOURCE",
    "LEGACY_NUDGES",
    "ESCALATION_CAPS",
    "MESSAGE_CEILINGS",
    "EDIT_PILE_NUDGE_AT",
    "TierState",
    "fold_tiers",
    "verification_status",
    "fresh_green",
    "fast_green_only",
    "mid_run_nudge",
    "finish_message",
    "VerifyGate",
]

# --- constants ------------------------------------------------------------------------------

# The switch, as the design this session follows names it: off by default.
VerificationTiersMode = Literal["off", "advisory", "blocking"]
VERIFICATION_TIERS_MODES: frozenset[str] = frozenset(get_args(VerificationTiersMode))

# Where a run stands, the design's five statuses:
#   no_code_edited   no code file was edited (notes and docs do not count)
#   verified_red     the latest check failed
#   unverified       code was edited and no check passed since (or code edits sit after it)
#   fast_green_only  tiers on: green, but only fast checks were ever seen passing
#   verified_green   green, the full suite included (tiers off: any green)
VerificationStatus = Literal[
    "no_code_edited", "verified_red", "unverified", "fast_green_only", "verified_green"
]
VERIFICATION_STATUSES: frozenset[str] = frozenset(get_args(VerificationStatus))

# Every message this module writes starts with this tag, so the model (and a log reader) can tell
# a harness notice from the user's words; each is a `Nudge` from this source.
VERIFY_PREFIX = "[verify-before-done]"
VERIFY_SOURCE = "verify_tiers"

# The finish budget (the design's numbers): one "did anything run?" answer in every mode, and up
# to this many requests for the full suite. Their sum is the per-run ceiling.
LEGACY_NUDGES = 1
ESCALATION_CAPS: Mapping[str, int] = MappingProxyType({"off": 0, "advisory": 1, "blocking": 2})
MESSAGE_CEILINGS: Mapping[str, int] = MappingProxyType(
    {mode: LEGACY_NUDGES + cap for mode, cap in ESCALATION_CAPS.items()}
)

# Code edits with nothing run since, before the one mid-run nudge (the design's threshold). It
# has its own budget of one per run, apart from the finish messages.
EDIT_PILE_NUDGE_AT = 3


# --- records and the fold -------------------------------------------------------------------


@dataclass(frozen=True)
class TierState:
    """What the gate knows after some turns.

    `fast_green`/`slow_green`: a check of that tier was seen passing in this run (coverage, not
    invocation: a red run sets nothing, and an edit clears nothing). `last_passed`: the latest
    recorded check's outcome (None before any). `edits_since_verify`: code edits since the latest
    recorded check, pass or fail; one call writing two code files is two edits. `code_edited`: any
    code edit at all. `declined`: why the latest check that passed did not count (`declined_pass`:
    masked, a script of the agent's own, or it ran no test) and its command, if no check was recorded
    since. `written`: every file the run wrote, so a script it wrote is known when it runs.
    """

    fast_green: bool = False
    slow_green: bool = False
    last_passed: bool | None = None
    edits_since_verify: int = 0
    code_edited: bool = False
    declined: tuple[DeclinedPass, str] | None = None
    written: frozenset[str] = frozenset()  # every file written in the run (`paths_written`)


def fold_tiers(state: TierState, results: Sequence[ToolResult]) -> TierState:
    """Fold one turn's results, in order, into the state."""
    for result in results:
        if written := paths_written(result):
            state = replace(state, written=state.written | written)
        edits = len(code_paths_touched(result))
        if edits:
            state = replace(
                state, edits_since_verify=state.edits_since_verify + edits, code_edited=True
            )
            continue
        check = read_verification(result, state.written)
        if check is None:
            why = declined_pass(result, state.written)
            command = str(result.arguments.get("command"))
            state = state if why is None else replace(state, declined=(why, command))
            continue
        state = replace(state, last_passed=check.passed, edits_since_verify=0, declined=None)
        if check.passed:
            state = replace(
                state,
                fast_green=state.fast_green or check.tier == "fast",
                slow_green=state.slow_green or check.tier == "slow",
            )
    return state


def verification_status(state: TierState, mode: VerificationTiersMode) -> VerificationStatus:
    """Where the run stands in `mode` (see `VerificationStatus`)."""
    if not state.code_edited:
        return "no_code_edited"
    if state.last_passed is False:
        return "verified_red"
    if state.last_passed is None:
        return "unverified"
    if state.edits_since_verify > 0:
        return "unverified"  # green, and stale: code changed after it (in every mode)
    if mode == "off":
        return "verified_green"  # tiers off: any fresh green
    return "fast_green_only" if not state.slow_green else "verified_green"


def fresh_green(state: TierState) -> bool:
    """The latest check passed and no code edit came after it (a known-good point)."""
    return state.last_passed is True and state.edits_since_verify == 0


def fast_green_only(state: TierState) -> bool:
    """Fresh green, but only fast checks were ever seen passing."""
    return fresh_green(state) and state.fast_green and not state.slow_green


# --- the messages ---------------------------------------------------------------------------


def mid_run_nudge(state: TierState) -> str | None:
    """The mid-run nudge's text, once `EDIT_PILE_NUDGE_AT` code edits wait with nothing run."""
    if state.edits_since_verify < EDIT_PILE_NUDGE_AT:
        return None
    return (
        f"{VERIFY_PREFIX} {state.edits_since_verify} code edits have landed and no check has run "
        "since. Run a fast check now (a linter, or the one test that covers your change) before "
        "you edit further."
    )


def _declined_why(why: DeclinedPass, command: str) -> str:
    """What was wrong with a pass that did not count, one sentence per `DECLINED_PASSES` name."""
    if why == "masked":
        return (
            f"`{command}` ran, but its exit status was not the check's own (a pipe, a `;` or a new "
            "line passes on whatever the last command said, and a leading `!` turns it over), so "
            "it counts for nothing. Run the check on its own line, or send its output to a file"
        )
    if why == "own_script":
        return (
            f"`{command}` ran a script you wrote in this run, so its pass says only what you made "
            "it say; it counts for nothing. Run the project's own checks"
        )
    if why == "runs_no_tests":
        return (
            f"`{command}` ran, but it ran no test (it listed, collected or printed a version), "
            "so its pass counts for nothing"
        )
    raise ValueError(f"unknown declined pass {why!r}; expected one of {sorted(DECLINED_PASSES)}.")


def _unchecked_why(state: TierState) -> str:
    if state.last_passed is False:
        return "the last check failed"
    if state.last_passed is None and state.declined is not None:
        return _declined_why(*state.declined)
    if state.last_passed is None:
        return "no check has run since your code edits"
    return "code changed after the last passing check"


def _short_why(state: TierState) -> str:
    """`_unchecked_why` in a few words, for the run's stop detail."""
    if state.last_passed is False:
        return "the last check failed"
    if state.last_passed is None:
        return "no check counted after the code edits"
    return "code changed after the last passing check"


def finish_message(state: TierState, *, tiers_on: bool) -> tuple[str, str] | None:
    """At a claimed finish: (question, message) for what is still unchecked, or None.

    The question is `ran` ("did anything run?": red, nothing ran, only masked runs, or a green
    that code edits came after) or `suite` ("did the full suite run?", tiers on only); the two
    never hold at once.
    """
    if state.code_edited and not fresh_green(state):
        return "ran", (
            f"{VERIFY_PREFIX} You are finishing, but {_unchecked_why(state)}. Run the tests and "
            "make sure they pass before you say you are done."
        )
    if tiers_on and fast_green_only(state) and state.code_edited:
        return "suite", (
            f"{VERIFY_PREFIX} Only fast checks have passed on this code; the full suite has not "
            "been seen passing. Run the whole test suite once before you finish."
        )
    return None


# --- the gate -------------------------------------------------------------------------------


class VerifyGate:
    """The verify-before-done gate for one run (see the module docstring). `after_turn` folds
    each turn and sends the one mid-run nudge (tiers on); `before_finish` refuses a claimed finish
    with a message while something is unchecked and the budget lasts, and once it is spent ends
    the run `verify_failed` unless the code is green. `sent` holds every message, in order."""

    stop_reasons: frozenset[str] = VERIFY_STOP_REASONS

    def __init__(self, mode: VerificationTiersMode = "off"):
        if mode not in VERIFICATION_TIERS_MODES:
            raise ValueError(
                f"verification_tiers must be one of {sorted(VERIFICATION_TIERS_MODES)}, not {mode!r}."
            )
        self.mode: VerificationTiersMode = mode
        self.state = TierState()
        self.used = {"ran": 0, "suite": 0}  # finish messages sent, per question
        self.nudged_mid_run = False
        self.sent: list[str] = []

    @property
    def status(self) -> VerificationStatus:
        """Where the run stands now (what a finished run records)."""
        return verification_status(self.state, self.mode)

    def _budget(self, question: str) -> int:
        return LEGACY_NUDGES if question == "ran" else ESCALATION_CAPS[self.mode]

    def _send(self, text: str) -> Nudge:
        self.sent.append(text)
        return Nudge(text, source=VERIFY_SOURCE)

    def after_turn(self, view: TurnView) -> Nudge | None:
        """(After-turn hook.) Fold the turn; the one mid-run nudge when edits pile up unchecked."""
        self.state = fold_tiers(self.state, view.dispatch)
        text = mid_run_nudge(self.state)
        if self.mode == "off" or self.nudged_mid_run or text is None:
            return None
        self.nudged_mid_run = True
        return self._send(text)

    def before_finish(self, view: TurnView) -> HookAnswer | None:
        """(Before-finish hook.) Refuse the finish while a message is due and its budget lasts;
        once it is spent, end the run honestly: `verify_failed` unless the code is green."""
        found = finish_message(self.state, tiers_on=self.mode != "off")
        if found is None:
            return None  # green, or no code edited: the finish stands
        question, text = found
        if self.used[question] < self._budget(question):
            self.used[question] += 1
            return self._send(text)
        if question == "suite":
            return None  # only fast checks passed: the finish stands; `status` says so
        return Stop(
            "verify_failed",
            f"the model finished, but {_short_why(self.state)}; the verify-before-done gate "
            f"had already sent its {LEGACY_NUDGES} message about that",
        )
