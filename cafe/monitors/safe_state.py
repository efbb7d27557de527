"""The safe-state abort: stop digging, return to the last known-good point, and re-plan once.

Session 15 (run monitors). A failing agent has a ladder of responses. Rung 1 is trying another
way (session 13's strategy-shift nudge). Rung 2 is asking for a recovery: after
`checkpoint_threshold` failures in a row the agent is told to stop and take stock (here the
`[recovery]` checkpoint). Rung 3, this module, is aborting to a safe state. It fires at a turn
boundary when all three hold:

- the failure streak is due: an errored tool result adds 1, a timeout 2, any success clears it,
  and it is due at twice the checkpoint threshold (3 -> 6);
- edits nobody has verified sit on the tree (the tree differs from its green-time fingerprint);
- a verified-green point exists behind the run (a check passed earlier).

It REPLACES that boundary's recovery checkpoint: "retry" and "abort" in one breath contradict
each other. The `[safe-state]` message lists the approaches abandoned since green and up to
`MAX_EXCERPTS` failure excerpts (`EXCERPT_CHARS` each), and asks for ONE new approach: a menu of
options invites cycling through them.

Modes (`safe_state_abort`): `off` (the default: no rung 2 or 3 messages), `advisory` (the message
only; it writes nothing and names no undo command), `auto` (restores the tree to the green point
first, but only when `cafe.monitors.snapshots.restore` proves it can put back every change exactly;
if not, it declines with a named reason, `RestoreDecline`, and behaves exactly as `advisory`, so
the worst case is "auto did not fire"). Nothing on this path raises out of the monitor.

Why it cannot loop: it fires at most `MAX_ABORTS` times per run and at most once per failure
streak; a new streak needs a success to clear the old one and six more weighted failures to grow;
a restore writes files without calling any tool, so it adds no failures of its own; and a restore
needs the tree to differ from green, which the restore itself undoes. Every path to a third
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

from cafe.loop.agent import Nudge, ToolResult, TurnView
from cafe.monitors.snapshots import SnapshotStore, fingerprint, mutated_since, restore
from cafe.monitors.tiers import is_verification_command, read_verification
from cafe.monitors.worktree import Fingerprint, RestoreDecline, TreeSample, sample_tree

__all__ = [
    "SafeStateMode",
    "SAFE_STATE_MODES",
    "SAFE_STATE_PREFIX",
    "RECOVERY_PREFIX",
    "CHECKPOINT_THRESHOLD",
    "MAX_ABORTS",
    "MAX_EXCERPTS",
    "EXCERPT_CHARS",
    "TIMEOUT_MARKER",
    "streak_weight",
    "fold_streak",
    "abort_due",
    "excerpt",
    "abort_message",
    "GreenPoint",
    "AbortRecord",
    "SafeStateMonitor",
]

# --- constants ------------------------------------------------------------------------------

SafeStateMode = Literal["off", "advisory", "auto"]
SAFE_STATE_MODES: frozenset[str] = frozenset(get_args(SafeStateMode))

SAFE_STATE_PREFIX = "[safe-state]"
RECOVERY_PREFIX = "[recovery]"
# Failures in a row before the recovery checkpoint (rung 2); the abort is due at twice this.
CHECKPOINT_THRESHOLD = 3
# Aborts per run, and how much failure evidence the message carries (the source design's numbers).
MAX_ABORTS = 2
MAX_EXCERPTS = 5
EXCERPT_CHARS = 160
# How the workbench's tools word a timeout ("the tests did not finish within 60 seconds").
TIMEOUT_MARKER = "did not finish within"


# --- small pure helpers ---------------------------------------------------------------------


def streak_weight(result: ToolResult) -> int:
    """What one result adds to the failure streak: 0 for a success (which clears it), 2 for a
    timeout, 1 for any other error."""
    if result.ok:
        return 0
    return 2 if TIMEOUT_MARKER in result.output else 1


def fold_streak(streak: int, results: Sequence[ToolResult]) -> int:
    """The streak after one turn's results, in order."""
    for result in results:
        weight = streak_weight(result)
        streak = 0 if weight == 0 else streak + weight
    return streak


def abort_due(streak: int, threshold: int = CHECKPOINT_THRESHOLD) -> bool:
    return streak >= 2 * threshold


def excerpt(output: str) -> str:
    """One failure, on one line, cut to `EXCERPT_CHARS`."""
    flat = " ".join(output.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


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
    """The last moment a check passed: the turn, the tree's fingerprint, the capture position,
    and the whole sample a restore starts from (or why the tree could not be sampled)."""

    turn: int
    tree: Fingerprint | None
    mark: int
    sample: TreeSample | RestoreDecline | None = None


@dataclass(frozen=True)
class AbortRecord:
    """One abort: when, in which mode, and what was restored (empty when nothing was). When
    `auto` declined, `reason` names why and `path` the file it is about, if any (for
    `restore_unverified`, the files that were written)."""

    turn: int
    mode: str
    restored: tuple[str, ...]
    declined: bool  # auto was asked for and could not prove a restore exact
    reason: RestoreDecline | None = None
    path: str = ""


# --- the hook -------------------------------------------------------------------------------


class SafeStateMonitor:
    """Rungs 2 and 3 for one run, over the work tree at `root` and the edit tool's `store`."""

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
            sample = sample_tree(self.root)
            tree = sample.files if isinstance(sample, TreeSample) else None
            self.green = GreenPoint(view.turn, tree, self.store.mark(), sample)
        return before

    def _unverified_on_tree(self, green: GreenPoint) -> bool:
        now = fingerprint(self.root)
        if green.tree is None or now is None:
            return self.edited_since_green
        return bool(mutated_since(green.tree, now))

    def after_turn(self, view: TurnView) -> Nudge | None:
        """(After-turn hook.) The abort when due, else the recovery checkpoint when the streak
        crossed a multiple of the threshold this turn, else nothing."""
        if self.mode == "off":
            return None
        before = self._note(view)
        green = self.green
        if (
            abort_due(self.streak, self.threshold)
            and not self.fired_this_streak
            and len(self.aborts) < MAX_ABORTS
            and green is not None
            and self._unverified_on_tree(green)
        ):
            return self._abort(view.turn, green)
        if self.streak and self.streak // self.threshold > before // self.threshold:
            return self._send(
                f"{RECOVERY_PREFIX} {self.streak} failures in a row (timeouts count double). "
                "Stop and take stock: what do these failures have in common?",
                "recovery",
            )
        return None

    def _abort(self, turn: int, green: GreenPoint) -> Nudge:
        self.fired_this_streak = True
        if self.mode != "auto":
            self.aborts.append(AbortRecord(turn, self.mode, (), False))
            return self._send(abort_message(self.since_green, self.failures), "safe_state")
        outcome = restore(self.root, green.sample, self.store, green.mark)
        if outcome.declined is None:
            self.aborts.append(AbortRecord(turn, self.mode, outcome.restored, False))
            self.edited_since_green = False
            self.green = GreenPoint(green.turn, green.tree, self.store.mark(), green.sample)
            text = abort_message(self.since_green, self.failures, restored=outcome.restored)
            return self._send(text, "safe_state")
        written = ", ".join(outcome.restored)
        self.aborts.append(
            AbortRecord(turn, self.mode, (), True, outcome.declined, written or outcome.path)
        )
        text = abort_message(self.since_green, self.failures)
        if outcome.declined == "restore_unverified":
            text += (
                f"\nThe harness tried to put {written} back, but the files do not match their "
                "green state; look at them before you change anything else."
            )
        return self._send(text, "safe_state")

    def _send(self, text: str, source: str) -> Nudge:
        self.sent.append(text)
        return Nudge(text, source=source)
