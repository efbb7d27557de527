"""The safe-state abort: stop digging, return to the last known-good point, and re-plan once.

Session 15 (run monitors). A failing agent has a ladder of responses. Rung 1 is trying another
way (session 13's strategy-shift nudge). Rung 2 is asking for a recovery, the always-on
`[recovery]` checkpoint (`cafe/monitors/recovery.py`). Rung 3, this module, is aborting to a
safe state. When it fires is `abort_decision`, kept apart from how the tree is put back; it
fires at a turn boundary when all of these hold:

- the failure streak is due: weighted as rung 2 weighs it, at twice the checkpoint threshold
  (3 -> 6);
- code edits sit unverified: the edit tool changed code since the last check of any outcome
  (`edits_since_verify`, the verify-before-done gate's own count, `cafe/monitors/gate.py`);
- a verified-green point exists behind the run (a check passed earlier);
- fewer than `MAX_ABORTS` have fired, and none yet in this failure streak.

It takes the place of that boundary's recovery checkpoint: "retry" and "abort" in one breath
contradict each other. The `[safe-state]` message lists the approaches abandoned since green and up to
`MAX_EXCERPTS` failure excerpts (`EXCERPT_CHARS` each), and asks for ONE new approach: a menu of
options invites cycling through them.

Modes (`safe_state_abort`): `off` (the default: rung 3 is off; rung 2 is not), `advisory` (the message
only; it writes nothing and names no undo command), `auto` (restores the tree to the green point
first, but only when `cafe.monitors.snapshots.can_restore` proves every changed file can be put back; if
not, it declines and behaves exactly as `advisory`, so the worst case is "auto did not fire").

Why it cannot loop: it fires at most `MAX_ABORTS` times per run and at most once per failure
streak; a new streak needs a success to clear the old one and six more weighted failures to grow;
and a restore writes files without calling any tool, so it adds no failures of its own. Every path to a third
firing is closed by the cap, whatever the agent does.

Left out: the green moment's bookkeeping for other tools (a command runner here reports through
`cafe.monitors.tiers.read_verification`), what the agent does next (its call).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from cafe.loop.turns import Nudge, ToolResult, TurnView
from cafe.monitors.gate import TierState, fold_tiers
from cafe.monitors.recovery import (
    CHECKPOINT_THRESHOLD,
    MAX_EXCERPTS,
    abort_due,
    excerpt,
    fold_streak,
)
from cafe.monitors.snapshots import Fingerprint, SnapshotStore, fingerprint, restore
from cafe.monitors.tiers import is_verification_command, read_verification

__all__ = [
    "SafeStateMode",
    "SAFE_STATE_MODES",
    "SAFE_STATE_PREFIX",
    "SAFE_STATE_SOURCE",
    "MAX_ABORTS",
    "abort_decision",
    "abort_message",
    "GreenPoint",
    "AbortRecord",
    "SafeStateMonitor",
]

# --- constants ------------------------------------------------------------------------------

SafeStateMode = Literal["off", "advisory", "auto"]
SAFE_STATE_MODES: frozenset[str] = frozenset(get_args(SafeStateMode))

SAFE_STATE_PREFIX = "[safe-state]"
SAFE_STATE_SOURCE = "safe_state"
# Aborts per run (the source design's number).
MAX_ABORTS = 2


# --- when the abort fires (the trigger) -----------------------------------------------------


def abort_decision(
    mode: SafeStateMode,
    *,
    due: bool,
    edits_since_verify: int,
    green_seen: bool,
    aborts_used: int,
    fired_this_streak: bool,
) -> bool:
    """Whether rung 3 fires at this boundary: never when `off`; otherwise only when the streak is
    due, code edits sit unverified, a green point exists, the per-run cap is not spent and it
    has not fired in this streak. Pure: the restore (and whether it can be proven safe) comes
    after, and does not change this answer."""
    if mode not in SAFE_STATE_MODES:
        raise ValueError(
            f"safe_state_abort must be one of {sorted(SAFE_STATE_MODES)}, not {mode!r}."
        )
    return (
        mode != "off"
        and due
        and edits_since_verify > 0
        and green_seen
        and aborts_used < MAX_ABORTS
        and not fired_this_streak
    )


# --- the message ----------------------------------------------------------------------------


def abort_message(
    approaches: Sequence[str], excerpts: Sequence[str], *, restored: Sequence[str] = ()
) -> str:
    """The `[safe-state]` message. With `restored`, the closing paragraph says the harness already
    put those files back, so the agent does not go looking for edits that are gone."""
    tried = "\n".join(f"- {a}" for a in approaches) or "- (no edits recorded by the harness)"
    seen = "\n".join(f"- {excerpt(e)}" for e in excerpts[-MAX_EXCERPTS:])
    head = (
        f"{SAFE_STATE_PREFIX} Failures keep piling up, and the files now hold changes no check has "
        f"passed, on top of a point where the checks were green.\nAbandoned since then:\n{tried}\n"
        f"Recent failures:\n{seen}\n"
    )
    if restored:
        return head + (
            f"The harness has put {', '.join(restored)} back as they were when the checks last "
            "passed. Do not undo anything. Propose ONE new approach, then try it."
        )
    return head + (
        "Stop patching. Decide whether to return the changed files to their green state, then "
        "propose ONE new approach (not a list of options) and try it."
    )


def _approach(result: ToolResult) -> str | None:
    if result.kind == "mutate" and result.ok:
        return f"{result.name} {result.arguments.get('path', '')}".strip()
    command = result.arguments.get("command")
    if isinstance(command, str) and not is_verification_command(command):
        return f"{result.name}: {command[:80]}"
    return None


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GreenPoint:
    """The last moment a check passed: the turn, the tree's fingerprint, the capture position."""

    turn: int
    tree: Fingerprint | None
    mark: int


@dataclass(frozen=True)
class AbortRecord:
    """One abort: when, in which mode, and what was restored (empty when nothing was)."""

    turn: int
    mode: str
    restored: tuple[str, ...]
    declined: bool  # auto was asked for and could not prove a restore safe


# --- the hook -------------------------------------------------------------------------------


class SafeStateMonitor:
    """Rung 3 for one run, over the work tree at `root` and the edit tool's `store`. The trigger
    (`_should_abort`) reads the failure streak and the gate's `edits_since_verify`; the abort
    itself (`_abort`) decides whether the tree can be put back."""

    def __init__(
        self,
        mode: SafeStateMode,
        root: str | Path,
        store: SnapshotStore,
        *,
        threshold: int = CHECKPOINT_THRESHOLD,
    ):
        if mode not in SAFE_STATE_MODES:
            raise ValueError(
                f"safe_state_abort must be one of {sorted(SAFE_STATE_MODES)}, not {mode!r}."
            )
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
            raise ValueError(f"threshold must be a whole number of at least 1, not {threshold!r}.")
        self.mode, self.root, self.store, self.threshold = mode, Path(root), store, threshold
        self.streak = 0
        self.fired_this_streak = False
        self.green: GreenPoint | None = None
        self.edited_since_green = False
        self.since_green: list[str] = []
        self.failures: list[str] = []
        self.aborts: list[AbortRecord] = []
        self.sent: list[str] = []
        self.tiers = TierState()  # the gate's fold of the same results: edits since a check

    def _note(self, view: TurnView) -> int:
        """Fold this turn's results; return the streak before them. A pass that no edit or command
        follows in the same turn makes this boundary the new green point."""
        before, green_now = self.streak, False
        for result in view.dispatch:
            if result.forced:  # the harness's own gate on a claimed finish, not the agent's call
                continue
            self.streak = fold_streak(self.streak, [result])
            if self.streak == 0:
                self.failures, self.fired_this_streak = [], False
            else:
                self.failures.append(excerpt(f"{result.name}: {result.output}"))
            check = read_verification(result)
            if check is not None and check.passed:
                green_now, self.edited_since_green, self.since_green = True, False, []
            elif (found := _approach(result)) is not None:
                green_now = False
                self.edited_since_green = self.edited_since_green or result.kind == "mutate"
                if found not in self.since_green:
                    self.since_green.append(found)
        if green_now:
            self.green = GreenPoint(view.turn, fingerprint(self.root), self.store.mark())
        return before

    def _should_abort(self, view: TurnView) -> bool:
        """The trigger: fold the turn's edits and checks, then ask `abort_decision`."""
        self.tiers = fold_tiers(self.tiers, view.dispatch)
        return abort_decision(
            self.mode,
            due=abort_due(self.streak, self.threshold),
            edits_since_verify=self.tiers.edits_since_verify,
            green_seen=self.green is not None,
            aborts_used=len(self.aborts),
            fired_this_streak=self.fired_this_streak,
        )

    def after_turn(self, view: TurnView) -> Nudge | None:
        """(After-turn hook.) The abort when `abort_decision` says so, else nothing."""
        if self.mode == "off":
            return None
        self._note(view)
        if self._should_abort(view) and self.green is not None:
            return self._abort(view.turn, self.green)
        return None

    def _abort(self, turn: int, green: GreenPoint) -> Nudge:
        self.fired_this_streak = True
        restored: tuple[str, ...] = ()
        if self.mode == "auto":
            restored = restore(self.root, green.tree, self.store, green.mark)
        self.aborts.append(
            AbortRecord(turn, self.mode, restored, self.mode == "auto" and not restored)
        )
        if restored:
            self.edited_since_green = False
            self.green = GreenPoint(green.turn, green.tree, self.store.mark())
        return self._send(
            abort_message(self.since_green, self.failures, restored=restored), SAFE_STATE_SOURCE
        )

    def _send(self, text: str, source: str) -> Nudge:
        self.sent.append(text)
        return Nudge(text, source=source)
