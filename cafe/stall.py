"""Stall detection that reads the evidence: is the agent still fighting the SAME failure?

Session 13. A loop that only counts repeats cannot tell an agent that re-runs a red test without
changing anything from one that edits, re-tests, edits, re-tests and gets closer each time: both
"do the same thing again". This module keeps a current-failure model instead:

    last_diagnostic_class      "pass" or "fail": what the latest evidence said
    last_diagnostic_signature  SHA-256 of the normalized failing output (`failure_signature`)
    write_epoch                bumped by every successful workspace-changing call
    same_diagnostic_streak     how many evidence turns in a row showed this same signature
    edit_since_failure         an edit has landed since the failure was last seen
    reverify_owed              that edit has not been checked yet

`fold_diagnostic` updates those six fields once per turn, as a pure function. The rule that
matters: the streak is keyed on the SIGNATURE, not on edits. Same signature: +1, even when edits
happened in between (an edit that leaves the same error changed nothing). Different signature:
back to 1 (the error moved: that is progress). A clean verification on a turn without edits
clears the streak. An edit that succeeds on top of a live failure keeps the model, bumps the
epoch and owes a re-verify: "the write worked" is not "the bug is fixed".

`StallDetector` plugs the model into `cafe.loop.run_loop` (see `run_with_stall`):

- `observe` (an observer, start of turn) folds the PREVIOUS turn's results: the model is always
  a turn behind what the agent is doing. With `stuck_same_diagnostic_after = 3`, a model re-running a
  failing test trips on turn 4: turn 4 is when the result of turn 3 is folded.
- `reverify` (after-turn, first) is the post-edit re-verify mandate. It looks at THIS turn's
  results directly, so it has no lag: an edit on a live failure with no re-test after it makes
  the loop run the verify entrypoint now (bounded by the loop's `max_verify_attempts`).
- `after_turn` (after-turn, after `reverify`) reads the host's `progress_signal` (session 14).
- `handback` attaches `current_failure` to the result (repair-aware): cleared on `done`, carried
  otherwise.

With `repair_aware` on, `stuck_same_diagnostic` trips when a fresh failure pushes the streak up
to the threshold, and at no other time (so once per stuck episode), quoting the failing evidence
back to the model; the older blind patterns (`repeated_error`, `repeated_same_observation`) stay
quiet so the two never fire for the same thing. With `repair_aware` off (the default) every
repair knob is inert and the detector is exactly the blind one. Each trip is a `Nudge` until
`MAX_STALL_WARNINGS` have been sent; the next trip stops the run as `stuck`, as do the hard cap
and the host-facts cut.

Left out: host facts in depth and the pace governor (session 14, `cafe.facts`,
`cafe.governor`, `cafe.pacing`), verification tiers and monitors (session 15).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

from cafe import facts
from cafe.facts import ProgressState, RemediationInfo
from cafe.loop import (DEFAULT_MAX_TURNS, DEFAULT_MAX_VERIFY_ATTEMPTS, Nudge, Observer, RunResult, Stop,
                       ToolResult, TurnView, Verify, run_loop)
from cafe.tools import Tool

__all__ = [
    "DiagnosticClass", "TurnClass", "StallPattern", "STALL_PATTERNS", "REPAIR_DEFAULTS",
    "REPEATED_FAILURE_AFTER", "MAX_STALL_WARNINGS", "SNIPPET_MAX_CHARS",
    "StallConfig", "stall_config", "normalize_evidence", "failure_signature", "failure_snippet",
    "FailureModel", "classify_turn", "fold_diagnostic", "clear_current_failure", "CurrentFailure",
    "StallWarning", "TurnSnapshot", "DetectorState", "reset_action", "StallDetector", "StallRun",
    "run_with_stall", "check_fold_diagnostic",
]

# --- constants ------------------------------------------------------------------------------

DiagnosticClass = Literal["pass", "fail"]
# How one turn's results read as evidence (`classify_turn`):
#   fail   some result failed (the FIRST failing one is the turn's diagnostic)
#   edit   nothing failed and a workspace-changing call succeeded
#   pass   nothing failed, nothing was edited, and a verification passed
#   quiet  none of those: no results, or only reads (reading a file proves nothing about the bug)
TurnClass = Literal["fail", "edit", "pass", "quiet"]

# Every stall pattern the detector can raise, declared once.
#   stuck_same_diagnostic      repair-aware: the same failure signature for N evidence turns
#   delivered_fix_not_landing  host fact: the fix reached the disk and the failure came back
#   no_net_progress_hard_cap   repair-aware + guard: too many failing verification turns overall
#   no_net_progress            host fact: progress_signal stopped advancing (cafe.facts)
#   repeated_error             blind: the same action failed the same way N times in a row
#   repeated_same_observation  blind: the same action returned the same output N times in a row
StallPattern = Literal["stuck_same_diagnostic", "delivered_fix_not_landing", "no_net_progress_hard_cap",
                       "no_net_progress", "repeated_error", "repeated_same_observation"]
STALL_PATTERNS: frozenset[str] = frozenset(get_args(StallPattern))

# The repair knobs and their defaults, exactly as the reference lists them (seed 000, "Surface").
# Default off: with repair_aware false, every other repair knob is inert.
REPAIR_DEFAULTS: dict[str, bool | int] = {
    "repair_aware": False,
    "stuck_same_diagnostic_after": 3,
    "post_edit_reverify": True,
    "no_net_progress_extend_guard": False,
    "no_net_progress_extend_after": 3,
    "no_net_progress_hard_cap_after": 16,
    "reserved_terminal_verify": False,
    "reserved_terminal_verify_iterations": 2,
}

# The blind detector's threshold: 3 repeats (seed 003 puts remediation_delivered at 2, a turn
# ahead of this older repeated-failure nudge, which sits at 3).
REPEATED_FAILURE_AFTER = 3
# Course choice: one warning is sent back to the model; the next trip in the same run stops it
# as `stuck`. A model that ignored one grounded warning rarely heeds a second.
MAX_STALL_WARNINGS = 1
# Course choice: enough for pytest's `E` lines, short enough to quote inside a nudge.
SNIPPET_MAX_CHARS = 240


# --- configuration --------------------------------------------------------------------------


@dataclass(frozen=True)
class StallConfig:
    """The detector's knobs. Build it with `stall_config(...)` to get the flat/nested merge."""

    repair_aware: bool = False
    stuck_same_diagnostic_after: int = 3
    post_edit_reverify: bool = True
    no_net_progress_extend_guard: bool = False
    no_net_progress_extend_after: int = 3
    no_net_progress_hard_cap_after: int = 16
    reserved_terminal_verify: bool = False
    reserved_terminal_verify_iterations: int = 2
    # the host-facts thresholds (seed 003): declared in cafe.facts, next to the code that reads them
    verify_state_streak: int = facts.VERIFY_STATE_STREAK_DEFAULT
    verify_state_stall_turns: int = facts.VERIFY_STATE_STALL_TURNS_DEFAULT
    verify_state_recurrence_hard: int = facts.VERIFY_STATE_RECURRENCE_HARD_DEFAULT
    no_verifier_progress_limit: int = facts.NO_VERIFIER_PROGRESS_LIMIT_DEFAULT
    progress_signal: Callable[[TurnView], Any] | None = field(default=None, compare=False)
    remediation_delivered: Callable[[RemediationInfo], Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.name in facts.CALLBACK_NAMES:
                facts.check_callback(spec.name, value)
            elif isinstance(REPAIR_DEFAULTS.get(spec.name), bool):
                if not isinstance(value, bool):
                    raise TypeError(f"{spec.name} must be true or false, not {value!r}.")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{spec.name} must be a whole number of at least 1, not {value!r}.")


def stall_config(stall_diagnostics: Mapping[str, Any] | None = None, **flat: Any) -> StallConfig:
    """Build a `StallConfig` from a `stall_diagnostics` mapping (and/or keyword arguments).

    Repair knobs may sit flat on the mapping or nested under `repair_diagnostics`; when a knob is
    in both places the flat one wins, so a host can override one knob without copying a shared
    block. Keyword arguments are flat too and win over everything. Unknown keys are refused.
    """
    given = dict(stall_diagnostics or {})
    nested = given.pop("repair_diagnostics", None) or {}
    if not isinstance(nested, Mapping):
        raise TypeError(f"repair_diagnostics must be a mapping of knobs, not {type(nested).__name__}.")
    unknown_nested = set(nested) - set(REPAIR_DEFAULTS)
    if unknown_nested:
        raise ValueError(f"Unknown repair_diagnostics knob(s) {sorted(unknown_nested)}; "
                         f"the knobs are {sorted(REPAIR_DEFAULTS)}.")
    merged = {**nested, **given, **flat}  # later wins: nested < flat mapping < keyword arguments
    known = {f.name for f in fields(StallConfig)}
    unknown = set(merged) - known
    if unknown:
        raise ValueError(f"Unknown stall_diagnostics key(s) {sorted(unknown)}; the keys are {sorted(known)}.")
    return StallConfig(**merged)


# --- signatures: what makes two failures "the same" -----------------------------------------

# Normalization, in order. Each rule removes something that changes between runs of the SAME
# failure, so that only a different failure gets a different signature:
#   1. ANSI colour and cursor codes            "\x1b[31mFAILED\x1b[0m"   -> "FAILED"
#   2. temporary folders                       "/tmp/cafe-workbench-x1/till" -> "<tmp>/till"
#   3. locations path:line[:col]               "check_bill.py:21:"       -> "check_bill.py:<line>:"
#      and traceback line numbers              'File "bill.py", line 34' -> 'File "bill.py", line <n>'
#   4. durations and memory addresses          "in 0.02s" -> "in <t>s"; "0x7f3a9c2e1d30" -> "0x<addr>"
#   5. whitespace runs                         any run of spaces, tabs, newlines -> one space
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_LOCATION = re.compile(r"([\w.<>/\\-]+\.[A-Za-z]\w*):\d+(?::\d+)?")
_TRACEBACK_LINE = re.compile(r"\bline \d+")
_DURATION = re.compile(r"\bin \d+(?:\.\d+)?s\b")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_SPACE = re.compile(r"\s+")


@functools.cache
def _tmp_pattern() -> re.Pattern[str]:
    """Rule 2's pattern: a folder directly under a temporary root (the platform's, /tmp, /var/tmp,
    macOS's /var/folders/.../T). Built once, on first use rather than at import: the platform's
    root comes from the environment (TMPDIR), and nothing in `cafe` reads the environment on import."""
    roots = sorted({tempfile.gettempdir().rstrip("/"), "/tmp", "/var/tmp"}, key=len, reverse=True)
    return re.compile(r"(?:/private)?(?:/var/folders/[^/\s]+/[^/\s]+/T|"
                      + "|".join(re.escape(root) for root in roots) + r")[/\\][^/\\\s:'\"]+")


def normalize_evidence(text: str) -> str:
    """Failure output with run-to-run noise removed (see the rules above)."""
    text = _ANSI.sub("", text)
    text = _tmp_pattern().sub("<tmp>", text)
    text = _LOCATION.sub(r"\1:<line>", text)
    text = _TRACEBACK_LINE.sub("line <n>", text)
    text = _DURATION.sub("in <t>s", text)
    text = _ADDRESS.sub("0x<addr>", text)
    return _SPACE.sub(" ", text).strip()


def failure_signature(result: ToolResult) -> str:
    """SHA-256 (hex) of the tool's name and its normalized output: the failure's identity."""
    evidence = result.name + "\n" + normalize_evidence(result.output)
    return hashlib.sha256(evidence.encode("utf-8")).hexdigest()


def failure_snippet(output: str) -> str:
    """The few lines of a failure worth quoting: pytest's `E` lines if any, else the last lines."""
    tmp = _tmp_pattern()
    lines = [tmp.sub("<tmp>", _ANSI.sub("", line)).rstrip() for line in output.splitlines()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    chosen = errors[:3] or [line.strip() for line in lines if line.strip()][-3:]
    snippet = "; ".join(chosen)
    return snippet if len(snippet) <= SNIPPET_MAX_CHARS else snippet[: SNIPPET_MAX_CHARS - 1] + "…"


# --- the current-failure model --------------------------------------------------------------


@dataclass(frozen=True)
class FailureModel:
    """The six fields of the current-failure model (see the module docstring)."""

    last_diagnostic_class: DiagnosticClass | None = None
    last_diagnostic_signature: str | None = None
    write_epoch: int = 0
    same_diagnostic_streak: int = 0
    edit_since_failure: bool = False
    reverify_owed: bool = False


def classify_turn(dispatch: Sequence[ToolResult]) -> tuple[TurnClass, ToolResult | None]:
    """A turn's class and its deciding result. The FIRST failing result wins, so an edit's own
    success cannot hide a failed re-test later in the same turn."""
    failing = next((r for r in dispatch if not r.ok), None)
    if failing is not None:
        return "fail", failing
    edit = next((r for r in dispatch if r.kind == "mutate"), None)
    if edit is not None:
        return "edit", edit
    check = next((r for r in dispatch if r.kind == "verify"), None)
    if check is not None:
        return "pass", check
    return "quiet", None


def fold_diagnostic(model: FailureModel, dispatch: Sequence[ToolResult]) -> FailureModel:
    """Fold one turn's results into the model. Pure: returns a new model."""
    kind, deciding = classify_turn(dispatch)
    writes = sum(1 for r in dispatch if r.kind == "mutate" and r.ok)
    epoch = model.write_epoch + writes
    if kind == "fail":
        assert deciding is not None
        signature = failure_signature(deciding)
        same = model.last_diagnostic_class == "fail" and model.last_diagnostic_signature == signature
        checked = any(r.kind == "verify" for r in dispatch)
        return FailureModel("fail", signature, epoch, model.same_diagnostic_streak + 1 if same else 1,
                            edit_since_failure=False, reverify_owed=model.reverify_owed and not checked)
    if kind == "edit":
        live = model.last_diagnostic_class == "fail"
        return replace(model, write_epoch=epoch, edit_since_failure=model.edit_since_failure or live,
                       reverify_owed=model.reverify_owed or live)
    if kind == "pass":
        return FailureModel("pass", None, epoch, 0, edit_since_failure=False, reverify_owed=False)
    if kind == "quiet":
        return model
    raise ValueError(f"classify_turn returned {kind!r}, which is not a TurnClass")


def clear_current_failure(model: FailureModel) -> FailureModel:
    """The model after a successful finish: nothing failing, nothing owed, epoch kept."""
    return FailureModel(write_epoch=model.write_epoch)


@dataclass(frozen=True)
class CurrentFailure:
    """What is still failing when a run ends without success: the hand-back block."""

    diagnostic_class: DiagnosticClass
    signature: str
    snippet: str
    same_diagnostic_streak: int

    def as_dict(self) -> dict[str, Any]:
        """The block as JSON: {"class", "signature", "snippet", "same_diagnostic_streak"}."""
        return {"class": self.diagnostic_class, "signature": self.signature, "snippet": self.snippet,
                "same_diagnostic_streak": self.same_diagnostic_streak}


# --- the detector ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StallWarning:
    """One trip: the turn it was seen on, its pattern, and what the model (or the host) was told."""

    turn: int
    pattern: StallPattern
    message: str
    stopped: bool  # True when this trip ended the run instead of nudging


@dataclass(frozen=True)
class TurnSnapshot:
    """The model as it stood after `observe` on one turn: what a notebook tabulates."""

    turn: int
    folded: TurnClass   # the class of the PREVIOUS turn's results, folded on this turn
    model: FailureModel
    pattern: StallPattern | None
    # The blind counter after the same fold: how many turns in a row the same action was answered
    # the same way (0 before any action). Kept whether or not the blind patterns may trip.
    same_action_repeats: int = 0


@dataclass(frozen=True)
class DetectorState:
    """Everything the detector remembers between turns."""

    model: FailureModel = FailureModel()
    snippet: str = ""
    warnings_sent: int = 0
    failing_verify_turns: int = 0         # the hard cap's counter
    last_action: str | None = None        # the blind patterns' memory, cleared by reset_action
    same_error: int = 0
    same_observation: int = 0
    last_output: str | None = None
    progress: ProgressState = ProgressState()


def reset_action(state: DetectorState) -> DetectorState:
    """A new action started: clear the blind counters. The failure model is kept on purpose: a
    different attempt at the same bug does not make the bug go away."""
    return replace(state, last_action=None, same_error=0, same_observation=0, last_output=None)


def _action_key(dispatch: Sequence[ToolResult]) -> str:
    return json.dumps([[r.name, dict(r.arguments)] for r in dispatch if not r.forced], sort_keys=True)


def _stuck_message(model: FailureModel, snippet: str) -> str:
    return (f"[stall] The same failure has now come back {model.same_diagnostic_streak} times, and the "
            f"edits in between did not change it. The failing evidence still reads: `{snippet}`. "
            "Retrying harder will not help: re-read the failing check, question your assumption "
            "about the cause, and try a different fix.")


class StallDetector:
    """The current-failure model wired into the loop. One detector per run."""

    def __init__(self, config: StallConfig | None = None, *, session_id: str = "session"):
        self.config = config or StallConfig()
        self.session_id = session_id
        self.state = DetectorState()
        self.warnings: list[StallWarning] = []
        self.timeline: list[TurnSnapshot] = []

    # -- the start-of-turn observer (the lagged seam) --

    def observe(self, view: TurnView) -> Nudge | Stop | None:
        """Fold the previous turn's results and decide whether this turn trips a pattern."""
        before = self.state
        kind, deciding = classify_turn(view.prev_dispatch)
        model = fold_diagnostic(before.model, view.prev_dispatch)
        # "The streak advanced": a fresh sighting of the same failure pushed it up on this fold.
        # An edit turn holds it, a new failure resets it, a pass clears it: none of those advance.
        advanced = model.same_diagnostic_streak > before.model.same_diagnostic_streak
        state = replace(before, model=model,
                        snippet=failure_snippet(deciding.output) if kind == "fail" and deciding else before.snippet)
        if kind == "fail" and any(r.kind == "verify" and not r.ok for r in view.prev_dispatch):
            state = replace(state, failing_verify_turns=state.failing_verify_turns + 1)
        elif kind == "pass":
            state = replace(state, failing_verify_turns=0)
        state = self._blind_counters(state, view.prev_dispatch, kind)
        pattern, message, stop_now = self._trip(state, view, advanced)
        self.state = state
        self.timeline.append(TurnSnapshot(view.turn, kind, model, pattern,
                                          max(state.same_error, state.same_observation)))
        return self._register(view.turn, pattern, message, stop_now)

    def _blind_counters(self, state: DetectorState, dispatch: Sequence[ToolResult], kind: TurnClass) -> DetectorState:
        if not dispatch:
            return state
        action = _action_key(dispatch)
        if action != state.last_action:
            state = replace(reset_action(state), last_action=action)
        output = "\n".join(normalize_evidence(r.output) for r in dispatch)
        if kind == "fail":
            repeat = state.same_error + 1 if output == state.last_output else 1
            return replace(state, same_error=repeat, same_observation=0, last_output=output)
        repeat = state.same_observation + 1 if output == state.last_output else 1
        return replace(state, same_error=0, same_observation=repeat, last_output=output)

    def _trip(self, state: DetectorState, view: TurnView, advanced: bool) -> tuple[StallPattern | None, str, bool]:
        """The one pattern this turn trips, if any. The checks, in order:

        1. the hard cap (repair-aware with the guard on): it stops the run, whatever else fired;
        2. the blind patterns, only with `repair_aware` off (when on, it owns repeated failures);
        3. `remediation_delivered`, asked only when no warning fired above (`facts.remediation_due`);
           a True answer takes the turn ahead of the repair-aware nudge;
        4. `stuck_same_diagnostic`, on the turn the streak advances to the threshold.
        """
        cfg, model = self.config, state.model
        if (cfg.repair_aware and cfg.no_net_progress_extend_guard
                and state.failing_verify_turns >= cfg.no_net_progress_hard_cap_after):
            return ("no_net_progress_hard_cap", f"{state.failing_verify_turns} failing verification turns "
                    f"without a clean pass (hard cap {cfg.no_net_progress_hard_cap_after})", True)
        blind = None if cfg.repair_aware else self._blind_trip(state)
        if cfg.remediation_delivered is not None and facts.remediation_due(
                failing=model.last_diagnostic_class == "fail", streak=model.same_diagnostic_streak,
                advanced=advanced, warned_this_turn=blind is not None):
            info = RemediationInfo(view.prev_dispatch, self.session_id, model.last_diagnostic_signature or "")
            if facts.ask_remediation(cfg.remediation_delivered, info):
                return ("delivered_fix_not_landing", "[stall] Your fix reached the files, and the same failure "
                        f"came back anyway: `{state.snippet}`. The cause is elsewhere; change approach.", False)
        if blind is not None:
            return blind
        if cfg.repair_aware and advanced and model.same_diagnostic_streak == cfg.stuck_same_diagnostic_after:
            return "stuck_same_diagnostic", _stuck_message(model, state.snippet), False
        return None, "", False

    @staticmethod
    def _blind_trip(state: DetectorState) -> tuple[StallPattern, str, bool] | None:
        """The old repeated-failure patterns: the same call answered the same way, N times running."""
        if state.same_error >= REPEATED_FAILURE_AFTER:
            return ("repeated_error", f"[stall] The same call has failed the same way {state.same_error} "
                    "times in a row. Try something different.", False)
        if state.same_observation >= REPEATED_FAILURE_AFTER:
            return ("repeated_same_observation", f"[stall] The same call has returned the same output "
                    f"{state.same_observation} times in a row. Try something different.", False)
        return None

    def _register(self, turn: int, pattern: StallPattern | None, message: str, stop_now: bool) -> Nudge | Stop | None:
        if pattern is None:
            return None
        stop = stop_now or self.state.warnings_sent >= MAX_STALL_WARNINGS
        self.warnings.append(StallWarning(turn, pattern, message, stop))
        if stop:
            return Stop("stuck", f"{pattern}: {message}")
        self.state = replace(self.state, warnings_sent=self.state.warnings_sent + 1)
        return Nudge(message, source=pattern)

    # -- after-turn hooks (no lag: they see this turn's results) --

    def reverify(self, view: TurnView) -> Verify | None:
        """The post-edit re-verify mandate, and the reserved terminal verification."""
        cfg = self.config
        if not cfg.repair_aware or not view.can_verify:
            return None
        last_edit = max((i for i, r in enumerate(view.dispatch) if r.kind == "mutate" and r.ok), default=None)
        if last_edit is None:  # an edit from an earlier turn may still be unchecked
            unchecked = self.state.model.reverify_owed and not any(r.kind == "verify" for r in view.dispatch)
        else:
            unchecked = not any(r.kind == "verify" for r in view.dispatch[last_edit:])
        if cfg.post_edit_reverify and last_edit is not None and unchecked:
            live = self.state.model.last_diagnostic_class == "fail" or any(
                not r.ok for r in view.dispatch[:last_edit])
            if live:
                return Verify("post-edit re-verify: an edit landed on a failing check")
        if (cfg.reserved_terminal_verify and view.max_turns - view.turn < cfg.reserved_terminal_verify_iterations
                and unchecked):
            return Verify("reserved terminal verify: the turn budget is nearly spent")
        return None

    def after_turn(self, view: TurnView) -> Stop | None:
        """Read the host's `progress_signal`, if any, and cut a run that stopped making progress."""
        cfg = self.config
        if cfg.progress_signal is None:
            return None
        value = facts.read_progress_value(cfg.progress_signal(view))
        wrote = any(r.kind == "mutate" and r.ok for r in view.dispatch)
        progress = facts.fold_progress(self.state.progress, value, wrote=wrote)
        self.state = replace(self.state, progress=progress)
        # The two inputs are a turn apart. `progress` already holds THIS turn (this hook runs
        # after it), but `same_diagnostic_streak` is the one `observe` folded at the start of this
        # turn, from the PREVIOUS turn's results; this turn's failure is folded next turn. So the
        # long-stall rules count a repeated failure one turn late (the observer's one-turn lag),
        # while the write-axis cut reads only `progress` and has no lag.
        why = facts.no_net_progress_cut(
            progress, self.state.model.same_diagnostic_streak,
            verify_state_streak=cfg.verify_state_streak, verify_state_stall_turns=cfg.verify_state_stall_turns,
            verify_state_recurrence_hard=cfg.verify_state_recurrence_hard,
            no_verifier_progress_limit=cfg.no_verifier_progress_limit)
        if why is None:
            return None
        self.warnings.append(StallWarning(view.turn, "no_net_progress", why, True))
        return Stop("stuck", f"no_net_progress: {why}")

    # -- for the host and the governor --

    def extension_allowed(self) -> bool:
        """False once the no-net-progress guard says a budget extension would only feed a stall:
        the same failure has held for `no_net_progress_extend_after` turns."""
        cfg = self.config
        if not (cfg.repair_aware and cfg.no_net_progress_extend_guard):
            return True
        model = self.state.model
        return not (model.last_diagnostic_class == "fail"
                    and model.same_diagnostic_streak >= cfg.no_net_progress_extend_after)

    def handback(self, result: RunResult) -> "StallRun":
        """Attach the hand-back to a finished run: `current_failure` unless the run succeeded."""
        last = result.turns[-1].dispatch if result.turns else ()
        model = fold_diagnostic(self.state.model, last)  # the final turn was never folded (the lag)
        kind, deciding = classify_turn(last)
        snippet = failure_snippet(deciding.output) if kind == "fail" and deciding else self.state.snippet
        if result.stop_reason == "done":
            model = clear_current_failure(model)
        self.state = replace(self.state, model=model, snippet=snippet)
        current = None
        if self.config.repair_aware and model.last_diagnostic_class == "fail" and model.last_diagnostic_signature:
            current = CurrentFailure("fail", model.last_diagnostic_signature, snippet, model.same_diagnostic_streak)
        return StallRun(result, current, tuple(self.warnings), tuple(self.timeline), model)


@dataclass(frozen=True)
class StallRun:
    """A run and its stall hand-back. `current_failure` is None after a successful finish."""

    result: RunResult
    current_failure: CurrentFailure | None
    warnings: tuple[StallWarning, ...]
    timeline: tuple[TurnSnapshot, ...]
    model: FailureModel

    @property
    def stop_reason(self) -> str:
        return self.result.stop_reason


# --- the main function ----------------------------------------------------------------------


def run_with_stall(
    client: Any,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool],
    *,
    config: StallConfig | None = None,
    verify: Tool | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_verify_attempts: int = DEFAULT_MAX_VERIFY_ATTEMPTS,
    model: str | None = None,
    session_id: str = "session",
    observers: Sequence[Observer] = (),
    after_turn: Sequence[Observer] = (),
    clock: Callable[[], float] = time.monotonic,
    detector: StallDetector | None = None,
) -> StallRun:
    """`run_loop` with a `StallDetector` plugged in, returning the run and its hand-back.

    The detector's observer runs first; its re-verify hook runs first after each turn and its
    progress hook second, so any `after_turn` hooks you add (a pace governor) see the forced
    verification and the progress verdict.
    """
    detector = detector or StallDetector(config, session_id=session_id)
    result = run_loop(client, messages, tools, model=model, max_turns=max_turns,
                      observers=[detector.observe, *observers],
                      after_turn=[detector.reverify, detector.after_turn, *after_turn],
                      verify=verify, max_verify_attempts=max_verify_attempts, clock=clock)
    return detector.handback(result)


# --- session 13's exercise ------------------------------------------------------------------


def check_fold_diagnostic(fold: Callable[[FailureModel, Sequence[ToolResult]], FailureModel]) -> list[str]:
    """Problems with a learner's fold (session 13's your-turn exercise); empty when every case holds."""
    def result(name: str, ok: bool, output: str, kind: str) -> ToolResult:
        return ToolResult("c", name, {}, ok, output, kind)  # type: ignore[arg-type]

    fail_a = result("run_tests", False, "E   assert 999 == 1000", "verify")
    fail_a_moved = result("run_tests", False, "check_bill.py:23: E   assert 999 == 1000", "verify")
    fail_a_here = result("run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify")
    fail_b = result("run_tests", False, "E   assert 1002 == 1000", "verify")
    passed = result("run_tests", True, "4 passed", "verify")
    edit = result("write_file", True, "wrote bill.py", "mutate")
    read = result("read_file", True, "def split(...)", "observe")
    live = fold_diagnostic(FailureModel(), [fail_a])
    twice = fold_diagnostic(live, [fail_a])
    owed = fold_diagnostic(twice, [edit])
    cases = [
        ("a first failure", FailureModel(), [fail_a]),
        ("the same failure again", live, [fail_a]),
        ("the same failure after an edit", owed, [fail_a]),
        ("the same failure, moved two lines", fold_diagnostic(FailureModel(), [fail_a_here]), [fail_a_moved]),
        ("a different failure", twice, [fail_b]),
        ("an edit on a live failure", twice, [edit]),
        ("an edit and a re-test in one turn", twice, [edit, fail_a]),
        ("a clean pass after an edit", owed, [passed]),
        ("a turn that only reads", twice, [read]),
        ("an empty turn", twice, []),
    ]
    problems = []
    for label, start, dispatch in cases:
        expected = fold_diagnostic(start, dispatch)
        got = fold(start, list(dispatch))
        if got != expected:
            problems.append(f"{label}: expected {expected}, got {got}")
    return problems
