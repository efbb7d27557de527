"""What one turn of the agent loop is made of: the records the loop and its hooks pass around.

Session 01. `cafe/loop/agent.py` runs the loop; this module declares its vocabulary, so the loop
reads as the steps of a turn and the records read as a list of what each step hands on:

    ToolCall      one call the model asked for
    ToolResult    what that call returned (or the error the model should read instead)
    TurnView      what a hook is shown
    Nudge, Stop, Ran   what a hook may answer: tell the model, stop the run, record a tool it ran
    TurnRecord    one turn, as it happened
    RunResult     how the run ended, with its whole transcript

and the loop's own ways a run ends (`RunStopReason`). A plug-in that stops runs declares its own
reasons in its own module (see `cafe/loop/agent.py`). `cafe.loop` re-exports every name here, so
`from cafe.loop.agent import ToolResult` works as the lessons write it.

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
    "ToolCall",
    "ToolResult",
    "TurnView",
    "Nudge",
    "Stop",
    "Ran",
    "HookAnswer",
    "Hook",
    "TurnRecord",
    "RunResult",
]

# --- constants ------------------------------------------------------------------------------

# The loop's own ways a run ends, declared once. Nothing else may end a run on these two.
#   done       the model answered without calling a tool, and no before-finish hook refused
#   max_turns  the turn budget ran out first
# Every other ending is a plug-in's `Stop`, with a reason that plug-in declares in its own module
# (session 13's stall detector declares `stuck`, session 14's pace governor `cut`, ...).
RunStopReason = Literal["done", "max_turns"]
RUN_STOP_REASONS: frozenset[str] = frozenset(get_args(RunStopReason))


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
    result a hook ran itself (a check on a claimed finish, say), rather than one the model called.
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
    """What a hook is shown. Fields a phase cannot know are empty.

    At the start of a turn `dispatch` is empty; after it, `dispatch` holds this turn's results
    (with any a hook ran itself, so far). On a claimed finish `calls` is empty.
    """

    turn: int
    max_turns: int
    calls: tuple[ToolCall, ...]  # proposed this turn; empty means "I am done"
    prev_dispatch: tuple[ToolResult, ...]  # what the previous turn's calls returned
    dispatch: tuple[ToolResult, ...]  # this turn's results (after-turn hooks only)
    elapsed: float  # seconds since the run started, by the injected clock


@dataclass(frozen=True)
class Nudge:
    """Tell the model something: `text` is appended as a user message after this turn. Answered to
    a claimed finish, it also refuses the finish: the run goes on, and the model reads why."""

    text: str
    source: str = ""  # who sent it (e.g. a stall pattern name), for the record


@dataclass(frozen=True)
class Stop:
    """Stop the run now, with a named reason and a sentence saying why.

    The reason is never one of the loop's own (`RUN_STOP_REASONS`): a plug-in declares the reasons
    it may stop with in its own module, and `run_loop(stop_reasons=...)` is told them.
    """

    reason: str
    detail: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str) or not self.reason:
            raise ValueError(f"Stop needs a reason, a non-empty name; got {self.reason!r}.")
        if self.reason in RUN_STOP_REASONS:
            raise ValueError(
                f"Stop reason {self.reason!r} belongs to the loop: only the loop ends a run "
                f"{' or '.join(sorted(RUN_STOP_REASONS))}. A plug-in stops with a reason it declares."
            )


@dataclass(frozen=True)
class Ran:
    """A hook ran a tool itself, unasked (a check on a claimed finish, say): the loop adds `result`
    to this turn's results, so later hooks and the next turn's observers see it. `result.forced`
    must be True: it marks a result the model did not ask for."""

    result: ToolResult

    def __post_init__(self) -> None:
        if not isinstance(self.result, ToolResult) or not self.result.forced:
            raise ValueError(
                f"Ran needs a ToolResult with forced=True (the model did not call it), "
                f"not {self.result!r}."
            )


# What a hook may answer: one of these, several of them as a tuple, or None.
HookAnswer = Nudge | Stop | Ran
Hook = Callable[[TurnView], HookAnswer | tuple[HookAnswer, ...] | None]


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
    """How a run ended. `stop_reason` is one of `RUN_STOP_REASONS` or a reason a plug-in declared;
    `messages` is the whole transcript: a new list, never the caller's."""

    stop_reason: str
    detail: str
    text: str | None  # the model's last words (its answer, when it finished)
    turns: tuple[TurnRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    elapsed: float
