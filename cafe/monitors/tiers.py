"""Verification tiers: which commands check the work, how thoroughly, and what passed.

Session 15 (run monitors). Session 01's verify entrypoint answers one question at the very end:
did a check run, and did it pass? It cannot tell a linter from the whole test suite, and it says
nothing while edits pile up unchecked. This module reads the commands the agent runs and adds:

- which commands check the work and whether their exit status can be trusted
  (`is_verification_command`, `is_masked`) are read in `cafe/monitors/commands.py`; how
  thoroughly (`verification_tier`: `fast` or `slow`) in `cafe/monitors/runners.py`.
- `read_verification(result, written)`: one tool result as verification evidence (its tier and
  whether it passed) or None. A pass whose exit status is masked, that ran a script the agent
  wrote in this run (`paths_written` collects what it wrote), or that ran no test, is not
  evidence (`declined_pass` says which). The workbench's `run_tests` tool is the till's whole suite: `slow`.
- `code_paths_touched(result)`: the code files one edit-tool call wrote (`CODE_SUFFIXES`); the
  gate counts each of them as one edit made since the last check.

What the run does with that evidence (green coverage, the messages, when a run may finish) is
the verify-before-done gate, `cafe/monitors/gate.py`.

Left out: running anything (the tools do that), the gate (`cafe/monitors/gate.py`), the progress
monitor (`cafe/monitors/progress.py`), the safe-state abort (`cafe/monitors/safe_state.py`).

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Set
from dataclasses import dataclass
from typing import Literal, get_args

from cafe.loop.turns import ToolResult
from cafe.monitors.commands import (
    is_masked,
    is_verification_command,
    is_verification_segment,
    program_word,
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
    "CODE_SUFFIXES",
    "DeclinedPass",
    "DECLINED_PASSES",
    "is_code_path",
    "code_paths_touched",
    "paths_written",
    "Verification",
    "declined_pass",
    "read_verification",
]

# --- constants ------------------------------------------------------------------------------

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
# A shell command writes a file through a redirection (`> check.sh`, `>> log`; not `2>&1`) or tee.
_REDIRECT = re.compile(
    r"(?:^|[^0-9&>])>>?[ \t]*([^\s;&|<>()]+)|\btee[ \t]+(?:-a[ \t]+)?([^\s;&|<>()]+)"
)

# Why a verification command that passed was not recorded as green: its exit status may be
# another command's (`is_masked`), it ran no test at all (`runs_no_tests`, course choice), or the
# program it ran is a script the agent itself wrote in this run (`own_script`, the reference's).
DeclinedPass = Literal["masked", "runs_no_tests", "own_script"]
DECLINED_PASSES: frozenset[str] = frozenset(get_args(DeclinedPass))


# --- records and readers ---------------------------------------------------------------------


@dataclass(frozen=True)
class Verification:
    """One tool result read as verification evidence."""

    tier: Tier
    passed: bool
    command: str


def _command_of(result: ToolResult) -> str | None:
    command = result.arguments.get("command")
    return command if isinstance(command, str) else None


def _normal(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/"))


def paths_written(result: ToolResult) -> frozenset[str]:
    """Every file one call wrote, normalised (`./check.sh` is `check.sh`): a successful edit
    tool's path arguments, whatever the file, and the files a shell command redirects into."""
    command = _command_of(result)
    if command is not None:
        return frozenset(_normal(a or b) for a, b in _REDIRECT.findall(command))
    if result.kind != "mutate" or not result.ok:
        return frozenset()
    paths = [result.arguments.get(key) for key in _PATH_KEYS]
    return frozenset(_normal(p) for p in paths if isinstance(p, str) and p)


def _runs_own_script(command: str, written: Set[str]) -> bool:
    """A verifying piece of `command` runs, as its program, a file written in this run."""
    return any(
        _normal(program_word(s)) in written
        for s in split_segments(command)
        if is_verification_segment(s)
    )


def declined_pass(result: ToolResult, written: Set[str] = frozenset()) -> DeclinedPass | None:
    """Why a passing verification command is not recorded as green, or None: its exit status may
    be another command's (`masked`), it ran a script the agent wrote in this run (`own_script`:
    `written` holds the run's `paths_written`), or it ran no test (`runs_no_tests`). The gate can
    then say what was wrong with the run instead of claiming that nothing ran."""
    command = _command_of(result)
    if command is None or not result.ok or not is_verification_command(command):
        return None
    if is_masked(command):
        return "masked"
    if written and _runs_own_script(command, written):
        return "own_script"
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


def read_verification(result: ToolResult, written: Set[str] = frozenset()) -> Verification | None:
    """The evidence in one result, or None: a recognised command (a pass that `declined_pass`
    names is not recorded; a failure always is), or a `verify`-kind tool the model called (the
    whole suite, so `slow`). A check the loop forced on a claimed finish is the harness's own
    gate, not the agent's evidence. `written`: the files written so far in the run."""
    command = _command_of(result)
    if command is not None:
        if not is_verification_command(command) or declined_pass(result, written) is not None:
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
