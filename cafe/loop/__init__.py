"""Session 01, the agent loop: ask the model, run the tools it asks for, hand back the results, repeat.

The first of the course's two loops (session 07's `cafe.repair` is the other: it re-asks for a
whole ticket); later sessions plug into this one through its hook lists and never edit it. Read
the files in this order:

- `tools.py`: a tool is a plain Python function; its JSON schema is read off the signature;
- `turns.py`: the records one turn is made of (`ToolCall`, `ToolResult`, `TurnRecord`), what a
  hook may answer (`Nudge`, `Stop`, `Ran`) and the loop's own ways a run ends, `RUN_STOP_REASONS`;
- `dispatch.py`: from the model's reply to calls, and from one call to its result;
- `clock.py`: the run's stopwatch, which refuses a clock reading no time limit can be measured
  against (`ClockError`);
- `agent.py`: `run_loop` itself, its turn budget and its plug-in points;
- `guards.py`: a first plug-in, the repeat guard, and how a plug-in declares its stop reasons.

The café's till that the loop drives (`cafe/world/menu.py`, `cafe/world/orderpad.py`) is the
café's world, not the harness, so it lives on the `cafe.world` shelf.

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from cafe.loop.agent import (
    DEFAULT_MAX_TURNS,
    run_loop,
)
from cafe.loop.clock import ClockError, Stopwatch
from cafe.loop.dispatch import (
    assistant_message,
    decode_calls,
    dispatch_call,
)
from cafe.loop.guards import (
    GUARD_STOP_REASONS,
    GuardStopReason,
    repeat_guard,
)
from cafe.loop.tools import (
    TOOL_KINDS,
    Tool,
    ToolKind,
    ToolOutput,
    json_type,
    tool,
    tool_schemas,
)
from cafe.loop.turns import (
    RUN_STOP_REASONS,
    Hook,
    HookAnswer,
    Nudge,
    Ran,
    RunResult,
    RunStopReason,
    Stop,
    ToolCall,
    ToolResult,
    TurnRecord,
    TurnView,
)

__all__ = [
    "ClockError",
    "DEFAULT_MAX_TURNS",
    "GUARD_STOP_REASONS",
    "GuardStopReason",
    "Hook",
    "HookAnswer",
    "Nudge",
    "RUN_STOP_REASONS",
    "Ran",
    "RunResult",
    "RunStopReason",
    "Stop",
    "Stopwatch",
    "TOOL_KINDS",
    "Tool",
    "ToolCall",
    "ToolKind",
    "ToolOutput",
    "ToolResult",
    "TurnRecord",
    "TurnView",
    "assistant_message",
    "decode_calls",
    "dispatch_call",
    "json_type",
    "repeat_guard",
    "run_loop",
    "tool",
    "tool_schemas",
]
