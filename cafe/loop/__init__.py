"""Session 01, the agent loop: ask the model, run the tools it asks for, hand back the results, repeat.

Everything later in the course wraps this loop or plugs into it; it is the first of the course's two
loops (session 07's `cafe.repair` is the other: it re-asks for a whole ticket). Read the files in
this order:

- `tools.py`: a tool is a plain Python function; its JSON schema is read off the signature;
- `turns.py`: the records one turn is made of (`ToolCall`, `ToolResult`, `TurnRecord`) and the
  closed set of ways a run ends, `RUN_STOP_REASONS`;
- `agent.py`: `run_loop` itself, its turn budget and the repeat guard.

The café's till that the loop drives (`cafe/world/menu.py`, `cafe/world/orderpad.py`) is the
café's world, not the harness, so it lives on the `cafe.world` shelf.

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from cafe.loop.agent import (
    DEFAULT_MAX_TURNS,
    DEFAULT_MAX_VERIFY_ATTEMPTS,
    dispatch_call,
    repeat_guard,
    run_loop,
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
    OBSERVER_STOP_REASONS,
    RUN_STOP_REASONS,
    Nudge,
    Observer,
    RunResult,
    RunStopReason,
    Stop,
    ToolCall,
    ToolResult,
    TurnRecord,
    TurnView,
    Verdict,
    Verify,
)

__all__ = [
    "DEFAULT_MAX_TURNS",
    "DEFAULT_MAX_VERIFY_ATTEMPTS",
    "Nudge",
    "OBSERVER_STOP_REASONS",
    "Observer",
    "RUN_STOP_REASONS",
    "RunResult",
    "RunStopReason",
    "Stop",
    "TOOL_KINDS",
    "Tool",
    "ToolCall",
    "ToolKind",
    "ToolOutput",
    "ToolResult",
    "TurnRecord",
    "TurnView",
    "Verdict",
    "Verify",
    "dispatch_call",
    "json_type",
    "repeat_guard",
    "run_loop",
    "tool",
    "tool_schemas",
]
