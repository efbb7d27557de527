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
options invites cycling through them. A file name it shows is quoted unless plain, so no name can
write a line of its own into the message, and the message is always valid UTF-8 to send.

Modes (`safe_state_abort`): `off` (the default: rung 3 is off; rung 2 is not), `advisory` (the
message only; it writes nothing and names no undo command), `auto` (restores the tree to the green
point first, but only when `cafe.monitors.snapshots.restore` proves it can put back every change
exactly; if not, it declines with a named reason, a `RestoreDecline` kept in the `AbortRecord`,
and behaves exactly as `advisory`, so the worst case is "auto did not fire"; the message says so
when the files are back already or another restore of the tree is running). Only `auto` samples
the tree at the green point (`cafe/monitors/worktree.py`). Nothing on this path raises out of the
monitor.

Why it cannot loop: it fires at most `MAX_ABORTS` times per run and at most once per failure
streak; a new streak needs a success to clear the old one and six more weighted failures to grow;
and a restore writes files without calling any tool, so it adds no failures of its own. Every path to a third
firing is closed by the cap, whatever the agent does.

Left out: the green moment's bookkeeping for other tools (a command runner here reports through
`cafe.monitors.tiers.read_verification`), what the agent does next (its call).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
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
from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.tiers import is_verification_command, paths_written, read_verification
from cafe.monitors.worktree import RestoreDecline, TreeSample, sample_tree

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
# What the message adds when `auto` declined for a reason that changes what "return the changed
# files" means: they are back already (another restore of the tree, say), or one is running.
_DECLINE_NOTES: Mapping[RestoreDecline, str] = MappingProxyType(
    {
        "nothing_to_restore": "\nThe files are already as they were when the checks last passed: "
        "there is nothing to return.",
        "tree_locked": "\nAnother restore of this work tree was still running, so the harness wrote "
        "nothing; look at the files before you change anything else.",
    }
)


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


def _shown(name: str) -> str:
    """A file name as the message shows it: as it is when plain, else quoted by `repr`, so a
    name with a newline or ", " cannot pass for a line or a list of the harness's own, and a
    byte that is not UTF-8 (kept by Python as a lone surrogate) shows as an escape, `\\udce9`,
    in text that can always be sent."""
    plain = name.isprintable() and not any(mark in name for mark in (", ", "'", '"'))
    return name if plain and name.strip() == name else repr(name)


def _sendable(text: str) -> str:
    """`text` with any lone surrogate (an agent's argument, say) written as an escape: a JSON
    client encodes the message as UTF-8, which refuses them."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


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
        return _sendable(
            head + f"The harness has put {', '.join(map(_shown, restored))} back as they were "
            "when the checks last passed. Do not undo anything. Propose ONE new approach, then "
            "try it."
        )
    return _sendable(
        head + "Stop patching. Decide whether to return the changed files to their green state, "
        "then propose ONE new approach (not a list of options) and try it."
    )


def _approach(result: ToolResult) -> str | None:
    if result.kind == "mutate" and result.ok:
        path = result.arguments.get("path", "")
        return f"{result.name} {_shown(path) if isinstance(path, str) else path}".strip()
    command = result.arguments.get("command")
    if isinstance(command, str) and not is_verification_command(command):
        return f"{result.name}: {command[:80]}"
    return None


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GreenPoint:
    """The last moment a check passed: the turn, the capture position, and (in `auto` only) the
    sample of the tree a restore starts from, or why the tree could not be sampled."""

    turn: int
    mark: int
    sample: TreeSample | RestoreDecline | None = None


@dataclass(frozen=True)
class AbortRecord:
    """One abort: when, in which mode, and what was restored (empty when nothing was). When
    `auto` declined, `reason` names why and `path` the file it is about, if any (for
    `restore_unverified`, the files that were written), each name shown as the message shows it:
    quoted unless plain, so one name with ", " in it still reads as one."""

    turn: int
    mode: SafeStateMode
    restored: tuple[str, ...]
    declined: bool  # auto was asked for and could not prove a restore exact
    reason: RestoreDecline | None = None
    path: str = ""


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
        self.since_green: list[str] = []
        self.failures: list[str] = []
        self.aborts: list[AbortRecord] = []
        self.sent: list[str] = []
        self.tiers = TierState()  # the gate's fold of the same results: edits since a check

    def _note(self, view: TurnView) -> None:
        """Fold this turn's results into the streak and the record of approaches. A pass that no
        edit or command follows in the same turn makes this boundary the new green point."""
        green_now, written = False, self.tiers.written
        for result in view.dispatch:
            if result.forced:  # the harness's own gate on a claimed finish, not the agent's call
                continue
            written |= paths_written(result)
            self.streak = fold_streak(self.streak, [result])
            if self.streak == 0:
                self.failures, self.fired_this_streak = [], False
            else:
                self.failures.append(excerpt(f"{result.name}: {result.output}"))
            check = read_verification(result, written)
            if check is not None and check.passed:
                green_now, self.since_green = True, []
            elif (found := _approach(result)) is not None:
                green_now = False
                if found not in self.since_green:
                    self.since_green.append(found)
        if green_now:
            sample = sample_tree(self.root) if self.mode == "auto" else None
            self.green = GreenPoint(view.turn, self.store.mark(), sample)

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
        """Rung 3: in `auto`, put the tree back to `green` when `restore` proves it exact; else
        (advisory, or a named decline) the message alone, the decline recorded by name."""
        self.fired_this_streak = True
        if self.mode != "auto":
            self.aborts.append(AbortRecord(turn, self.mode, (), False))
            return self._send(abort_message(self.since_green, self.failures), SAFE_STATE_SOURCE)
        outcome = restore(self.root, green.sample, self.store, green.mark)
        if outcome.declined is None:
            self.aborts.append(AbortRecord(turn, self.mode, outcome.restored, False))
            self.green = GreenPoint(green.turn, self.store.mark(), green.sample)
            text = abort_message(self.since_green, self.failures, restored=outcome.restored)
            return self._send(text, SAFE_STATE_SOURCE)
        written = ", ".join(map(_shown, outcome.restored))
        about = written or _shown(outcome.path)
        self.aborts.append(AbortRecord(turn, self.mode, (), True, outcome.declined, about))
        text = abort_message(self.since_green, self.failures)
        if outcome.declined == "restore_unverified":
            text += _sendable(
                f"\nThe harness tried to put {written} back, but the files do not match their "
                "green state; look at them before you change anything else."
            )
        elif outcome.declined in _DECLINE_NOTES:
            text += _DECLINE_NOTES[outcome.declined]
        return self._send(text, SAFE_STATE_SOURCE)

    def _send(self, text: str, source: str) -> Nudge:
        self.sent.append(text)
        return Nudge(text, source=source)
