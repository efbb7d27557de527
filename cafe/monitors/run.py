"""Run monitors: the watchers plugged into the loop, and the notice a truncated run leaves.

Session 15, the harness path's last session. Sessions 13 and 14 watch for an agent fighting the
same failure. This session watches for trouble no failure announces, with four features taken
from the validation of NASA's Deep Space 1 Remote Agent (Nayak et al., ISAIRAS'99):

| feature               | setting (`MonitorConfig`) | default | module                         |
|-----------------------|---------------------------|---------|--------------------------------|
| verification tiers    | `verification_tiers`      | off     | `cafe/monitors/gate.py`        |
| progress monitor      | `progress_stall_threshold`| None    | `cafe/monitors/progress.py`    |
| safe-state abort      | `safe_state_abort`        | off     | `cafe/monitors/safe_state.py`  |
| residual objectives   | none: always on           | on      | here (`residual_objectives`)   |

and the recovery checkpoint (`cafe/monitors/recovery.py`), the ladder's second rung, which is on
in every configuration. `RunMonitors(bench, config)` builds them for one run on a real workbench
(`cafe/world/workbench.py`): the monitored tools (`cafe/monitors/tools.py`), three after-turn
hooks (the gate, the failure ladder, the progress monitor) and the gate's before-finish hook.
`run_with_monitors` runs `run_loop` with them and hands back a `MonitoredRun`: every message each
monitor sent (counted by `Nudge.source`), the run's verification status, and for a run that hit
`max_turns`, `truncation_notice`: `TRUNCATION_PREFIX` first (a reader that spots truncated runs
by it keeps working), then the todo board's open items.

Left out: the stall detector and pace governor (sessions 13 and 14; their hooks can be passed in
`observers`, `after_turn` and `before_finish`, with their `stop_reasons`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from cafe.endpoint.client.protocol import ChatClient
from cafe.loop.agent import DEFAULT_MAX_TURNS, run_loop
from cafe.loop.turns import Hook, Nudge, RunResult, TurnView
from cafe.monitors.gate import (
    VERIFICATION_TIERS_MODES,
    VERIFY_PREFIX,
    VERIFY_SOURCE,
    VerificationStatus,
    VerificationTiersMode,
    VerifyGate,
)
from cafe.monitors.progress import (
    BUDGET_PREFIX,
    STALL_PREFIX,
    Boundary,
    ProgressMonitor,
    stall_threshold,
)
from cafe.monitors.recovery import RECOVERY_PREFIX, RECOVERY_SOURCE, RecoveryCheckpoint
from cafe.monitors.safe_state import (
    SAFE_STATE_MODES,
    SAFE_STATE_PREFIX,
    SAFE_STATE_SOURCE,
    AbortRecord,
    SafeStateMode,
    SafeStateMonitor,
)
from cafe.monitors.snapshots import SnapshotStore
from cafe.monitors.tiers import paths_written, read_verification
from cafe.monitors.tools import COMMAND_TIMEOUT_S, monitored_tools
from cafe.world.workbench import Todo, Workbench

__all__ = [
    "MONITOR_SOURCES",
    "MONITOR_PREFIXES",
    "TRUNCATION_PREFIX",
    "OBJECTIVES_SHOWN",
    "MonitorConfig",
    "monitor_config",
    "residual_objectives",
    "truncation_notice",
    "RunMonitors",
    "MonitoredRun",
    "run_with_monitors",
]

# --- constants ------------------------------------------------------------------------------

# Every monitor message is a `Nudge` from one of these sources; each source's messages start
# with its tag. In the order the lesson introduces them.
MONITOR_SOURCES: Mapping[str, str] = MappingProxyType(
    {
        VERIFY_SOURCE: VERIFY_PREFIX,
        "stall": STALL_PREFIX,
        "budget": BUDGET_PREFIX,
        RECOVERY_SOURCE: RECOVERY_PREFIX,
        SAFE_STATE_SOURCE: SAFE_STATE_PREFIX,
    }
)
MONITOR_PREFIXES: tuple[str, ...] = tuple(MONITOR_SOURCES.values())
# The truncation notice's first word, the loop's own tag for what the harness says.
TRUNCATION_PREFIX = "[harness]"
# Open items the notice lists before "+K more" (source design).
OBJECTIVES_SHOWN = 10


# --- configuration --------------------------------------------------------------------------


@dataclass(frozen=True)
class MonitorConfig:
    """The three switches, with the source design's defaults: everything off."""

    verification_tiers: VerificationTiersMode = "off"
    progress_stall_threshold: int | None = None
    safe_state_abort: SafeStateMode = "off"

    def __post_init__(self) -> None:
        if self.verification_tiers not in VERIFICATION_TIERS_MODES:
            raise ValueError(
                f"verification_tiers must be one of {sorted(VERIFICATION_TIERS_MODES)}, "
                f"not {self.verification_tiers!r}."
            )
        if self.safe_state_abort not in SAFE_STATE_MODES:
            raise ValueError(
                f"safe_state_abort must be one of {sorted(SAFE_STATE_MODES)}, not {self.safe_state_abort!r}."
            )
        # clamped to at least 2; refused when it is not a whole number
        object.__setattr__(
            self, "progress_stall_threshold", stall_threshold(self.progress_stall_threshold)
        )


def monitor_config(settings: Mapping[str, Any] | None = None) -> MonitorConfig:
    """A `MonitorConfig` from a settings mapping such as {"safe_state_abort": "auto",
    "verification_tiers": "blocking", "progress_stall_threshold": 5}; unknown keys are refused."""
    given = dict(settings or {})
    known = {f.name for f in fields(MonitorConfig)}
    if set(given) - known:
        raise ValueError(
            f"Unknown monitor setting(s) {sorted(set(given) - known)}; the settings are {sorted(known)}."
        )
    return MonitorConfig(**given)


# --- residual objectives --------------------------------------------------------------------


def residual_objectives(todos: Sequence[Todo]) -> str:
    """The open items of the todo board as a block, or "" when none is open."""
    still_open = [t.item.strip() for t in todos if not t.done]
    if not still_open:
        return ""
    lines = [f"Objectives still outstanding ({len(still_open)}):"]
    lines += [f"- {item}" for item in still_open[:OBJECTIVES_SHOWN]]
    if len(still_open) > OBJECTIVES_SHOWN:
        lines.append(f"+{len(still_open) - OBJECTIVES_SHOWN} more")
    return "\n".join(lines)


def truncation_notice(max_turns: int, todos: Sequence[Todo] = ()) -> str:
    """What a run cut off by `max_turns` reports: the fixed first line, then the open objectives."""
    notice = f"{TRUNCATION_PREFIX} Max agent turns ({max_turns}) reached. Stopping the run."
    block = residual_objectives(todos)
    return f"{notice}\n{block}" if block else notice


# --- one run's monitors ---------------------------------------------------------------------


class RunMonitors:
    """The monitors for one run on `bench`. Pass `tools`, `after_turn`, `before_finish` and
    `stop_reasons` to `run_loop`, or call `run_with_monitors`."""

    def __init__(
        self,
        bench: Workbench,
        config: MonitorConfig | None = None,
        *,
        command_timeout_s: float = COMMAND_TIMEOUT_S,
    ):
        self.bench, self.config = bench, config or MonitorConfig()
        self.store = SnapshotStore()
        self.tools = monitored_tools(bench, self.store, command_timeout_s=command_timeout_s)
        self.gate = VerifyGate(self.config.verification_tiers)
        self.progress = ProgressMonitor(self._boundary, self.config.progress_stall_threshold)
        self.recovery = RecoveryCheckpoint()
        self.safe_state = SafeStateMonitor(self.config.safe_state_abort, bench.root, self.store)
        self.after_turn: tuple[Hook, ...] = (
            self.gate.after_turn,
            self.ladder,
            self.progress.after_turn,
        )
        self.before_finish: tuple[Hook, ...] = (self.gate.before_finish,)
        self.stop_reasons = self.gate.stop_reasons
        self._green = False
        self._written: set[str] = set()
        self._authored: frozenset[str] = frozenset()  # every file written, for `read_verification`
        self._git_changed: frozenset[str] = frozenset()

    def ladder(self, view: TurnView) -> Nudge | None:
        """(After-turn hook.) Rungs 2 and 3 at one boundary: the safe-state abort when it fires,
        taking the recovery checkpoint's place; else the checkpoint when it is due."""
        due = self.recovery.fold(view)
        aborted = self.safe_state.after_turn(view)
        if aborted is not None:
            if due:
                self.recovery.mark_sent()
            return aborted
        return self.recovery.send() if due else None

    def _boundary(self, view: TurnView) -> Boundary:
        """The progress monitor's reading of the real workbench at the end of a turn."""
        for result in view.dispatch:
            self._authored |= paths_written(result)
            check = read_verification(result, self._authored)
            if check is not None:
                self._green = check.passed  # latched: only a check moves it
            elif (
                result.kind == "mutate"
                and result.ok
                and isinstance(result.arguments.get("path"), str)
            ):
                self._written.add(result.arguments["path"])
        return Boundary(
            sum(not t.done for t in self.bench.todos), self._changed_files(), self._green
        )

    def _changed_files(self) -> frozenset[str]:
        """Every file changed so far: the edit tool's writes and git's reading of the tree. When
        git cannot read it (gone from PATH, the repository broken by a command), the last
        reading stands and the run goes on: a monitor's blind spot never ends a run."""
        try:
            self._git_changed = frozenset(self.bench.changed_files())
        except (RuntimeError, OSError):
            pass
        return frozenset(self._written) | self._git_changed


@dataclass(frozen=True)
class MonitoredRun:
    """A run and what its monitors did. `messages`: every monitor message, in the order the
    model received them; `counts`: how many per tag of `MONITOR_PREFIXES`; `verification`: the
    gate's status when the run ended; `notice`: the truncation notice when the run hit
    `max_turns`, else ""."""

    result: RunResult
    messages: tuple[str, ...]
    counts: Mapping[str, int]
    verification: VerificationStatus
    notice: str
    open_objectives: tuple[str, ...]
    aborts: tuple[AbortRecord, ...]

    @property
    def stop_reason(self) -> str:
        return self.result.stop_reason


def _sent(result: RunResult) -> tuple[Nudge, ...]:
    """Every monitor message of a run, by its source, in the order the model received them."""
    return tuple(n for t in result.turns for n in t.nudges if n.source in MONITOR_SOURCES)


def run_with_monitors(
    client: ChatClient,
    messages: Sequence[Mapping[str, Any]],
    bench: Workbench,
    *,
    config: MonitorConfig | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    model: str | None = None,
    command_timeout_s: float = COMMAND_TIMEOUT_S,
    observers: Sequence[Hook] = (),
    after_turn: Sequence[Hook] = (),
    before_finish: Sequence[Hook] = (),
    stop_reasons: Collection[str] = (),
    monitors: RunMonitors | None = None,
) -> MonitoredRun:
    """`run_loop` on `bench` with the monitors of `config` plugged in (yours run after them, with
    the `stop_reasons` they declare). Pass ready `monitors` instead to keep a handle on them."""
    if monitors is not None and (config is not None or monitors.bench is not bench):
        raise ValueError(
            "Pass either config or monitors (built on this bench), not both: "
            "RunMonitors(bench, config) holds the config."
        )
    monitors = monitors or RunMonitors(bench, config, command_timeout_s=command_timeout_s)
    result = run_loop(
        client,
        messages,
        monitors.tools,
        model=model,
        max_turns=max_turns,
        observers=observers,
        after_turn=[*monitors.after_turn, *after_turn],
        before_finish=[*monitors.before_finish, *before_finish],
        stop_reasons=monitors.stop_reasons | set(stop_reasons),
    )
    sent = _sent(result)
    counts = {tag: sum(n.source == source for n in sent) for source, tag in MONITOR_SOURCES.items()}
    todos = bench.todos
    return MonitoredRun(
        result,
        tuple(n.text for n in sent),
        MappingProxyType(counts),
        monitors.gate.status,
        truncation_notice(max_turns, todos) if result.stop_reason == "max_turns" else "",
        tuple(t.item.strip() for t in todos if not t.done),
        tuple(monitors.safe_state.aborts),
    )
