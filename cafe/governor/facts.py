"""Host-supplied facts: what only the host knows, plugged into the stall detector as two checks.

Session 14 (the stall half; `cafe/governor/pace.py` holds the pace decision). The loop can see its own
transcript, but not whether the build got greener or whether the patch it asked for actually
reached the disk. The host can. Two callbacks carry those facts in, both optional, both set on
`HostFacts`; `HostFacts.checks()` turns them into plug-in checks for session 13's detector
(`StallDetector(config, checks=...)`, `cafe/stall/checks.py`):

- `progress_signal(view) -> int | float | None` (`ProgressCheck`, after each turn): the best
  verification state this turn (the number of passing tests, or 1 for a clean build and 0
  otherwise), or None when the turn produced no verification evidence. The check keeps a
  high-water mark: a number above it is an ADVANCE (the mark rises, the flat streak goes back
  to 0); a number at or below it, or None, is FLAT (the streak grows, and a write landing during
  the streak is remembered). `no_net_progress_cut` turns that into a stop on either of two axes:
    long stall  the same failure has held for `verify_state_streak` turns AND the verifier has
                been flat for `verify_state_stall_turns` turns, or the same failure has come
                back `verify_state_recurrence_hard` times: in a row (the detector's
                `same_diagnostic_streak`), or over the whole run with other failures in between
                (its count of that signature), so A, B, A, B, ... cannot dodge it;
    write axis  the verifier has been flat for `no_verifier_progress_limit` turns and a write
                landed during that flat stretch (busy editing, going nowhere).
  Edits are activity, not progress; only the verifier moving counts. The check decides right
  after a turn, on that turn's reading and with that turn's failure folded in, so both axes
  describe the same turn.
- `remediation_delivered(info) -> bool` (`RemediationCheck`, at the start of a turn): did the fix
  the agent just delivered reach the workspace? Asked only when the current diagnostic is a
  failure whose streak has reached `STALL_DELIVERED_FIX_AFTER` and advanced this turn, and no
  other warning has fired on this turn (the detector asks its checks only then; with
  `repair_aware` off, a blind repeated-failure trip takes the turn). It is asked again on every
  such turn. True means the fix reached the workspace and the same failure still came back: the
  check trips `delivered_fix_not_landing`, a turn earlier than the plain same-failure nudge, and
  outranks that nudge. It works with or without `repair_aware`. Like every trip it rides the
  detector's escalation: its text is sent while the run's one message lasts, and it does not end
  the run; what to do about a fix that does not land is the host's call.

A callback must be a function or None; anything else is refused when `HostFacts` is built
(`check_callback`), not halfway through a run. A callback that answers with the wrong type
raises `TypeError` naming the callback and the value: a host bug stops the run loudly.

Left out: deciding what to do about a delivered-but-useless fix (the host's call) and the pace
governor (`cafe/governor/pace.py`, `governor_pace_decision`; `cafe/governor/pacing.py` runs it in the loop).

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

from cafe.loop.turns import ToolResult, TurnView
from cafe.stall.checks import StallCheck, StallReading, Trip

__all__ = [
    "VERIFY_STATE_STREAK_DEFAULT",
    "VERIFY_STATE_STALL_TURNS_DEFAULT",
    "VERIFY_STATE_RECURRENCE_HARD_DEFAULT",
    "NO_VERIFIER_PROGRESS_LIMIT_DEFAULT",
    "STALL_DELIVERED_FIX_AFTER",
    "CALLBACK_NAMES",
    "HostFactPattern",
    "HOST_FACT_PATTERNS",
    "HostFacts",
    "ProgressCheck",
    "RemediationCheck",
    "ProgressState",
    "RemediationInfo",
    "check_callback",
    "read_progress_value",
    "fold_progress",
    "no_net_progress_cut",
    "remediation_due",
    "ask_remediation",
]

# --- constants ------------------------------------------------------------------------------

# The cut thresholds, the defaults of the host-facts design this session follows:
# long stall = same failure for 3 turns and a verifier flat for 12, or the same failure 4 times;
# write-axis cut = verifier flat for 3 turns with a write landing meanwhile.
VERIFY_STATE_STREAK_DEFAULT = 3
VERIFY_STATE_STALL_TURNS_DEFAULT = 12
VERIFY_STATE_RECURRENCE_HARD_DEFAULT = 4
NO_VERIFIER_PROGRESS_LIMIT_DEFAULT = 3

# remediation_delivered is asked once the same failure has been seen twice, a turn ahead of the
# blind repeated-failure nudge at 3: it escalates sooner because it knows more than a count.
STALL_DELIVERED_FIX_AFTER = 2

# The two host callbacks, by the names the stall configuration accepts.
CALLBACK_NAMES: frozenset[str] = frozenset({"progress_signal", "remediation_delivered"})

# The patterns the two checks trip, declared once:
#   delivered_fix_not_landing  the fix reached the workspace and the same failure came back
#   no_net_progress            progress_signal stopped advancing (a stop, not a nudge)
HostFactPattern = Literal["delivered_fix_not_landing", "no_net_progress"]
HOST_FACT_PATTERNS: frozenset[str] = frozenset(get_args(HostFactPattern))


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProgressState:
    """The detector's memory of `progress_signal`.

    `high_water` is the best verify-state seen (None before the first number); `flat_streak`
    counts turns since it last rose; `wrote_while_flat` says a write landed during that streak;
    `advanced` says whether the latest turn was an advance.
    """

    high_water: float | None = None
    flat_streak: int = 0
    wrote_while_flat: bool = False
    advanced: bool = False


@dataclass(frozen=True)
class RemediationInfo:
    """What `remediation_delivered` is called with."""

    prev_dispatch: tuple[ToolResult, ...]  # the previous turn's tool results (where the fix was)
    session_id: str
    signature: str  # the current failure's signature


# --- small pure helpers ---------------------------------------------------------------------


def check_callback(name: str, value: Any) -> None:
    """Refuse a host callback that is neither a function nor None, saying what was given."""
    if name not in CALLBACK_NAMES:
        raise ValueError(
            f"{name!r} is not a host callback; the callbacks are {sorted(CALLBACK_NAMES)}."
        )
    if value is not None and not callable(value):
        raise TypeError(
            f"{name} must be a function (or None to leave it off), not "
            f"{type(value).__name__} {value!r}. Pass e.g. `{name}=lambda view: ...`."
        )


def read_progress_value(value: Any) -> float | None:
    """Check what `progress_signal` returned: a finite number, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TypeError(
            f"progress_signal returned {value!r}; it must return a finite number "
            "(e.g. the count of passing tests) or None when the turn verified nothing."
        )
    return float(value)


def fold_progress(state: ProgressState, value: float | None, *, wrote: bool) -> ProgressState:
    """One turn of `progress_signal`: advance above the high-water mark, flat otherwise."""
    if value is not None and (state.high_water is None or value > state.high_water):
        return ProgressState(high_water=value, flat_streak=0, wrote_while_flat=False, advanced=True)
    return replace(
        state,
        flat_streak=state.flat_streak + 1,
        wrote_while_flat=state.wrote_while_flat or wrote,
        advanced=False,
    )


def no_net_progress_cut(
    progress: ProgressState,
    same_diagnostic_streak: int,
    *,
    recurrences: int = 0,
    verify_state_streak: int = VERIFY_STATE_STREAK_DEFAULT,
    verify_state_stall_turns: int = VERIFY_STATE_STALL_TURNS_DEFAULT,
    verify_state_recurrence_hard: int = VERIFY_STATE_RECURRENCE_HARD_DEFAULT,
    no_verifier_progress_limit: int = NO_VERIFIER_PROGRESS_LIMIT_DEFAULT,
) -> str | None:
    """Why the run should stop for lack of net progress, or None to let it go on.
    `recurrences` is how often the current failure has been seen over the whole run."""
    if progress.flat_streak >= no_verifier_progress_limit and progress.wrote_while_flat:
        return (
            f"write axis: the verifier has not advanced for {progress.flat_streak} turns "
            "while edits kept landing"
        )
    if (
        same_diagnostic_streak >= verify_state_streak
        and progress.flat_streak >= verify_state_stall_turns
    ):
        return (
            f"long stall: the same failure for {same_diagnostic_streak} turns and no verifier "
            f"advance for {progress.flat_streak}"
        )
    if same_diagnostic_streak >= verify_state_recurrence_hard:
        return f"long stall: the same failure has come back {same_diagnostic_streak} times in a row"
    if recurrences >= verify_state_recurrence_hard:
        return (
            f"long stall: the same failure has come back {recurrences} times in this run, "
            "other failures in between"
        )
    return None


def remediation_due(*, failing: bool, streak: int, advanced: bool) -> bool:
    """Whether to ask `remediation_delivered` this turn (see the module docstring). The detector
    asks its checks only on a turn no other warning took, so that condition is not repeated here."""
    return failing and advanced and streak >= STALL_DELIVERED_FIX_AFTER


def ask_remediation(callback: Callable[[RemediationInfo], Any], info: RemediationInfo) -> bool:
    """Call `remediation_delivered`: True or False, and None read as False (the host does not
    know of a delivery, as the reference reads it). Anything else is refused: a running count
    of deliveries (which the reference reads by its increases) is not the bool seed 003 asks for."""
    answer = callback(info)
    if answer is None:
        return False
    if not isinstance(answer, bool):
        raise TypeError(
            f"remediation_delivered returned {answer!r}; it must return True (the fix "
            "reached the workspace), False or None (not known to have reached it)."
        )
    return answer


# --- the two checks and their configuration -------------------------------------------------


class RemediationCheck:
    """`remediation_delivered` as a stall check: trips `delivered_fix_not_landing` at the fold."""

    patterns: frozenset[str] = frozenset({"delivered_fix_not_landing"})

    def __init__(self, remediation_delivered: Callable[[RemediationInfo], Any]):
        check_callback("remediation_delivered", remediation_delivered)
        self.remediation_delivered = remediation_delivered

    def on_fold(self, reading: StallReading) -> Trip | None:
        failure = reading.failure_state
        if not remediation_due(
            failing=failure.last_diagnostic_class == "fail",
            streak=failure.same_diagnostic_streak,
            advanced=reading.advanced,
        ):
            return None
        info = RemediationInfo(
            reading.view.prev_dispatch, reading.session_id, failure.last_diagnostic_signature or ""
        )
        if not ask_remediation(self.remediation_delivered, info):
            return None
        return Trip(
            "delivered_fix_not_landing",
            "[stall] Your fix reached the files, and the same failure "
            f"came back anyway: `{reading.snippet}`. The cause is elsewhere; change approach.",
        )

    def on_results(self, reading: StallReading) -> Trip | None:
        return None


class ProgressCheck:
    """`progress_signal` as a stall check: after each turn, fold the reading into `progress` and
    stop the run as `no_net_progress` when `no_net_progress_cut` says so."""

    patterns: frozenset[str] = frozenset({"no_net_progress"})

    def __init__(self, progress_signal: Callable[[TurnView], Any], facts: HostFacts | None = None):
        check_callback("progress_signal", progress_signal)
        self.progress_signal = progress_signal
        self.facts = facts or HostFacts()
        self.progress = ProgressState()

    def on_fold(self, reading: StallReading) -> Trip | None:
        return None

    def on_results(self, reading: StallReading) -> Trip | None:
        view, facts = reading.view, self.facts
        value = read_progress_value(self.progress_signal(view))
        wrote = any(r.kind == "mutate" and r.ok for r in view.dispatch)
        self.progress = fold_progress(self.progress, value, wrote=wrote)
        # `progress` holds THIS turn, and so does the reading: at `on_results` the detector has
        # folded this turn's results into it, so both axes describe the same turn.
        why = no_net_progress_cut(
            self.progress,
            reading.failure_state.same_diagnostic_streak,
            recurrences=reading.signature_count,
            verify_state_streak=facts.verify_state_streak,
            verify_state_stall_turns=facts.verify_state_stall_turns,
            verify_state_recurrence_hard=facts.verify_state_recurrence_hard,
            no_verifier_progress_limit=facts.no_verifier_progress_limit,
        )
        return None if why is None else Trip("no_net_progress", why, stop=True)


@dataclass(frozen=True)
class HostFacts:
    """The host's two callbacks and the cut's thresholds. `checks()` gives fresh plug-in checks
    for one run (the progress check remembers its high-water mark), in the order they are asked."""

    progress_signal: Callable[[TurnView], Any] | None = field(default=None, compare=False)
    remediation_delivered: Callable[[RemediationInfo], Any] | None = field(
        default=None, compare=False
    )
    verify_state_streak: int = VERIFY_STATE_STREAK_DEFAULT
    verify_state_stall_turns: int = VERIFY_STATE_STALL_TURNS_DEFAULT
    verify_state_recurrence_hard: int = VERIFY_STATE_RECURRENCE_HARD_DEFAULT
    no_verifier_progress_limit: int = NO_VERIFIER_PROGRESS_LIMIT_DEFAULT

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.name in CALLBACK_NAMES:
                check_callback(spec.name, value)
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"{spec.name} must be a whole number of at least 1, not {value!r}."
                )

    def checks(self) -> tuple[StallCheck, ...]:
        """The plug-in checks for the callbacks that are set: remediation first, then progress."""
        found: list[StallCheck] = []
        if self.remediation_delivered is not None:
            found.append(RemediationCheck(self.remediation_delivered))
        if self.progress_signal is not None:
            found.append(ProgressCheck(self.progress_signal, self))
        return tuple(found)
