"""Run monitors: four watchers plugged into the loop, and the notice a truncated run leaves.

Session 15, the harness path's last session. Sessions 13 and 14 watch for an agent fighting the
same failure. This session watches for trouble no failure announces, with four features taken
from the validation of NASA's Deep Space 1 Remote Agent (Nayak et al., ISAIRAS'99):

| feature               | setting (`MonitorConfig`) | default | module                     |
|-----------------------|---------------------------|---------|----------------------------|
| verification tiers    | `verification_tiers`      | off     | `cafe/monitors/tiers.py`     |
| progress monitor      | `progress_stall_threshold`| None    | `cafe/monitors/progress.py` |
| safe-state abort      | `safe_state_abort`        | off     | `cafe/monitors/safe_state.py` (+ `cafe/monitors/snapshots.py`) |
| residual objectives   | none: always on           | on      | here (`residual_objectives`) |

`RunMonitors(bench, config)` builds them for one run on a real workbench (`cafe/world/workbench.py`):
its tools (the workbench's four, with `write_file` capturing each file before it writes, plus
`run_command`, a shell that captures nothing, as shells do), three after-turn hooks and the
verify-before-done gate as the loop's verify entrypoint. `run_with_monitors` runs `run_loop`
with them and hands back a `MonitoredRun`: every message each monitor sent, and for a run that
hit `max_turns`, `truncation_notice`: `TRUNCATION_PREFIX` first (a reader that spots truncated
runs by it keeps working), then the todo board's open items.

Left out: the stall detector and pace governor (sessions 13 and 14; their hooks can be passed in
`after_turn` and `observers`, but a hook that answers `Verify` now gets the verify-before-done
gate, which holds the loop's verify seat here, not the workbench's `run_tests`), a sandbox for `run_command` (like the workbench, it only keeps to
the project folder by its working directory: do not point an untrusted model at it).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cafe.loop.agent import DEFAULT_MAX_TURNS, Observer, RunResult, TurnView, run_loop
from cafe.loop.tools import Tool, ToolOutput, tool
from cafe.monitors.progress import (
    BUDGET_PREFIX,
    STALL_PREFIX,
    Boundary,
    ProgressMonitor,
    stall_threshold,
)
from cafe.monitors.safe_state import (
    RECOVERY_PREFIX,
    SAFE_STATE_MODES,
    SAFE_STATE_PREFIX,
    AbortRecord,
    SafeStateMode,
    SafeStateMonitor,
)
from cafe.monitors.snapshots import SnapshotStore
from cafe.monitors.tiers import (
    VERIFICATION_TIERS_MODES,
    VERIFY_PREFIX,
    VerificationTiersMode,
    VerifyGate,
    read_verification,
)
from cafe.world.processes import find_shell, run_captured
from cafe.world.workbench import Todo, Workbench

__all__ = [
    "MONITOR_PREFIXES",
    "TRUNCATION_PREFIX",
    "OBJECTIVES_SHOWN",
    "COMMAND_TIMEOUT_S",
    "MonitorConfig",
    "monitor_config",
    "residual_objectives",
    "truncation_notice",
    "monitored_tools",
    "RunMonitors",
    "MonitoredRun",
    "run_with_monitors",
]

# --- constants ------------------------------------------------------------------------------

# Every tag a monitor's message starts with, in the order the lesson introduces them.
MONITOR_PREFIXES: tuple[str, ...] = (
    VERIFY_PREFIX,
    STALL_PREFIX,
    BUDGET_PREFIX,
    RECOVERY_PREFIX,
    SAFE_STATE_PREFIX,
)
# The truncation notice's first word, the loop's own tag for what the harness says.
TRUNCATION_PREFIX = "[harness]"
# Open items the notice lists before "+K more" (source design).
OBJECTIVES_SHOWN = 10
# Seconds before `run_command` gives up on a command, like the workbench's test runs.
COMMAND_TIMEOUT_S = 60.0
# What a command sees: no bytecode or pytest cache in the work tree (either would show up as a
# changed file), no third-party pytest plugins, a fixed width and no colour.
_COMMAND_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    "PYTEST_ADDOPTS": "-p no:cacheprovider",
    "COLUMNS": "80",
    "NO_COLOR": "1",
    "PY_COLORS": "0",
    "PYTHONIOENCODING": "utf-8",  # output is read as UTF-8 on every platform (Windows too)
}


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
    still_open = [t.item for t in todos if not t.done]
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


# --- the tools ------------------------------------------------------------------------------


def _command_env() -> dict[str, str]:
    secret = ("_API_KEY", "_TOKEN", "_SECRET")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().endswith(secret) and not k.startswith("PYTEST_")
    }
    env.update(_COMMAND_ENV)
    env["PATH"] = os.pathsep.join(
        [str(Path(sys.executable).parent), env.get("PATH", "")]
    )  # this Python's pytest
    return env


def _run_shell(command: str, root: Path, timeout_s: float) -> tuple[int | None, str]:
    """(exit status, output) of `command` in the shell `find_shell` picks, run in `root`;
    (None, "") when it timed out. A timeout ends whatever the command started too, on every
    platform (`cafe/world/processes.py`)."""
    done = run_captured(
        find_shell().argv(command), root, _command_env(), timeout_s, merge_stderr=True
    )
    return (None, "") if done.status is None else (done.status, done.stdout)


def monitored_tools(
    bench: Workbench, store: SnapshotStore, *, command_timeout_s: float = COMMAND_TIMEOUT_S
) -> tuple[Tool, ...]:
    """The workbench's tools for a monitored run: `write_file` captures the file before writing;
    `run_command` runs a shell command in the project folder and captures nothing."""

    def write_file(path: str, content: str) -> ToolOutput:
        """Replace a text file of the project with new content (or create it).

        Args:
            path: the file's path relative to the project folder, e.g. bill.py
            content: the complete new text of the file
        """
        if (
            bench.root in (bench.root / path).resolve().parents
        ):  # the workbench refuses any other path
            store.capture(bench.root, path)
        return bench.write_file(path, content)

    def run_command(command: str) -> ToolOutput:
        """Run a shell command in the project folder and report its exit status and output.

        Args:
            command: the command line, e.g. pytest -k split
        """
        status, output = _run_shell(command, bench.root, command_timeout_s)
        if status is None:
            return ToolOutput(
                False,
                f"$ {command}\nthe command did not finish within {command_timeout_s:g} seconds",
            )
        return ToolOutput(status == 0, f"$ {command}\nexit status {status}\n{output}")

    by_name = {t.name: t for t in bench.tools}
    return (
        by_name["read_file"],
        tool(write_file, kind="mutate"),
        by_name["run_tests"],
        by_name["todo"],
        tool(run_command, kind="observe"),
    )


# --- one run's monitors ---------------------------------------------------------------------


class RunMonitors:
    """The four features for one run on `bench`. Pass `tools`, `after_turn` and `verify` (with
    `max_verify_attempts`) to `run_loop`, or call `run_with_monitors`."""

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
        self.safe_state = SafeStateMonitor(self.config.safe_state_abort, bench.root, self.store)
        self.after_turn: tuple[Observer, ...] = (
            self.gate.after_turn,
            self.safe_state.after_turn,
            self.progress.after_turn,
        )
        self.verify, self.max_verify_attempts = self.gate.tool, self.gate.max_checks
        self._green = False
        self._written: set[str] = set()

    def _boundary(self, view: TurnView) -> Boundary:
        """The progress monitor's reading of the real workbench at the end of a turn."""
        for result in view.dispatch:
            check = read_verification(result)
            if check is not None:
                self._green = check.passed  # latched: only a check moves it
            elif (
                result.kind == "mutate"
                and result.ok
                and isinstance(result.arguments.get("path"), str)
            ):
                self._written.add(result.arguments["path"])
        changed = frozenset(self._written) | frozenset(self.bench.changed_files())
        return Boundary(sum(not t.done for t in self.bench.todos), changed, self._green)


@dataclass(frozen=True)
class MonitoredRun:
    """A run and what its monitors did. `counts`: messages sent per tag in `MONITOR_PREFIXES`;
    `notice`: the truncation notice when the run hit `max_turns`, else ""."""

    result: RunResult
    messages: tuple[str, ...]
    counts: Mapping[str, int]
    notice: str
    open_objectives: tuple[str, ...]
    aborts: tuple[AbortRecord, ...]

    @property
    def stop_reason(self) -> str:
        return self.result.stop_reason


def _messages(result: RunResult) -> tuple[str, ...]:
    """Every monitor message of a run, in the order the model received them: the gate's answers
    to a claimed finish, then each turn's nudges."""
    sent = []
    for turn in result.turns:
        sent += [
            r.output
            for r in turn.dispatch
            if r.forced and not r.ok and r.output.startswith(VERIFY_PREFIX)
        ]
        sent += [n.text for n in turn.nudges if n.text.startswith(MONITOR_PREFIXES)]
    return tuple(sent)


def run_with_monitors(
    client: Any,
    messages: Sequence[Mapping[str, Any]],
    bench: Workbench,
    *,
    config: MonitorConfig | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    model: str | None = None,
    command_timeout_s: float = COMMAND_TIMEOUT_S,
    observers: Sequence[Observer] = (),
    after_turn: Sequence[Observer] = (),
    monitors: RunMonitors | None = None,
) -> MonitoredRun:
    """`run_loop` on `bench` with the monitors of `config` plugged in (yours run after them). Pass
    ready `monitors` instead to keep a handle on them (their store, their state) after the run."""
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
        verify=monitors.verify,
        max_verify_attempts=monitors.max_verify_attempts,
    )
    sent = _messages(result)
    counts = MappingProxyType(
        {tag: sum(text.startswith(tag) for text in sent) for tag in MONITOR_PREFIXES}
    )
    todos = bench.todos
    notice = truncation_notice(max_turns, todos) if result.stop_reason == "max_turns" else ""
    return MonitoredRun(
        result,
        sent,
        counts,
        notice,
        tuple(t.item for t in todos if not t.done),
        tuple(monitors.safe_state.aborts),
    )
