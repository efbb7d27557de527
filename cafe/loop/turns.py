"""What one turn of the agent loop is made of: the records the loop and its hooks pass around.

Session 01. `cafe/loop/agent.py` runs the loop; this module declares its vocabulary, so the loop
reads as the steps of a turn and the records read as a list of what each step hands on:

    ToolCall      one call the model asked for
    ToolResult    what that call returned (or the error the model should read instead)
    TurnView      what an observer or after-turn hook is shown
    Nudge, Stop, Verify   what a hook may answer: tell the model, stop the run, check now
    TurnRecord    one turn, as it happened
    RunResult     how the run ended, with its whole transcript

and the closed set of ways a run ends (`RunStopReason`). `cafe.loop` re-exports every name
here, so `from cafe.loop.agent import ToolResult` works as the lessons write it.

Left out: the loop itself (`cafe/loop/agent.py`) and the tools (`cafe/loop/tools.py`).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.loop.tools import ToolKind

__all__ = [
    "RunStopReason",
    "RUN_STOP_REASONS",
    "OBSERVER_STOP_REASONS",
    "ToolCall",
    "ToolResult",
    "TurnView",
    "Nudge",
    "Stop",
    "Verify",
    "Verdict",
    "Observer",
    "TurnRecord",
    "RunResult",
]

# --- constants ------------------------------------------------------------------------------

# How every run ends. Declared once; code that reads a run's stop reason handles all five.
#   done           the model answered without calling a tool (and the verify entrypoint, if any, passed)
#   max_turns      the turn budget ran out first
#   verify_failed  the model said it was done, the check failed, and max_verify_attempts were used up
#   stuck          an observer judged the run to be going nowhere (session 13's stall detector)
#   cut            an observer ended the run on a budget or pace policy (session 14's governor)
RunStopReason = Literal["done", "max_turns", "verify_failed", "stuck", "cut"]
RUN_STOP_REASONS: frozenset[str] = frozenset(get_args(RunStopReason))
# The reasons a `Stop` verdict may carry: the others are the loop's own to decide.
OBSERVER_STOP_REASONS: frozenset[str] = frozenset({"stuck", "cut"})


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for: its id, the tool's name and the decoded arguments."""

    id: str
    name: str
    arguments: Mapping[str, Any]
    raw_arguments: str  # the JSON text as sent, kept so a decoding failure can be shown


@dataclass(frozen=True)
class ToolResult:
    """What one call returned. `ok` is False for errors and for failures a tool reports.

    `kind` is the called tool's kind (`observe` when the tool does not exist). `forced` marks a
    verification the loop ran itself (on a claimed finish, or because a hook asked for it),
    rather than one the model called.
    """

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    ok: bool
    output: str
    kind: ToolKind = "observe"
    forced: bool = False


@dataclass(frozen=True)
class TurnView:
    """What observers and after-turn hooks are shown. Fields a phase cannot know are empty.

    At the start of a turn `dispatch` is empty; after it, `dispatch` holds this turn's results.
    """

    turn: int
    max_turns: int
    calls: tuple[ToolCall, ...]  # proposed this turn; empty means "I am done"
    prev_dispatch: tuple[ToolResult, ...]  # what the previous turn's calls returned
    dispatch: tuple[ToolResult, ...]  # this turn's results (after-turn hooks only)
    elapsed: float  # seconds since the run started, by the injected clock
    verify_attempts: int  # verifications the loop itself ran so far, claimed or forced;
    # a check the model called as a tool does not count
    can_verify: bool  # a verify entrypoint exists and attempts remain


@dataclass(frozen=True)
class Nudge:
    """Tell the model something: `text` is appended as a user message after this turn."""

    text: str
    source: str = ""  # who sent it (e.g. a stall pattern name), for the record


@dataclass(frozen=True)
class Stop:
    """Stop the run now with a named reason (one of `OBSERVER_STOP_REASONS`)."""

    reason: RunStopReason
    detail: str = ""

    def __post_init__(self) -> None:
        if self.reason not in OBSERVER_STOP_REASONS:
            raise ValueError(
                f"Stop reason {self.reason!r} cannot come from an observer; "
                f"use one of {sorted(OBSERVER_STOP_REASONS)}."
            )


@dataclass(frozen=True)
class Verify:
    """Run the verify entrypoint now, even though the model did not ask (after-turn hooks only)."""

    reason: str = ""


Verdict = Nudge | Stop | Verify
Observer = Callable[[TurnView], Verdict | None]


@dataclass(frozen=True)
class TurnRecord:
    """One turn, as it happened: what the model said, what ran, what the loop told it."""

    turn: int
    text: str | None
    calls: tuple[ToolCall, ...]
    dispatch: tuple[ToolResult, ...]
    nudges: tuple[Nudge, ...]


@dataclass(frozen=True)
class RunResult:
    """How a run ended. `messages` is the whole transcript: a new list, never the caller's."""

    stop_reason: RunStopReason
    detail: str
    text: str | None  # the model's last words (its answer, when it finished)
    turns: tuple[TurnRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    verify_attempts: int  # as on `TurnView`: the loop's own verifications, not the model's
    elapsed: float
