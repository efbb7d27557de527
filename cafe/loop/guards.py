"""A first plug-in for the agent loop: the repeat guard, and the stop reason it declares.

Session 01's exercise (the checker is `cafe/exercises/s01.py`). `repeat_guard` is an observer: it
stops the run when the model asks for exactly the calls whose results it has just seen. It is the
simplest stall detector there is; session 13 explains why counting repeats is not enough.

It is also the smallest example of how a plug-in stops a run. The loop ends runs on its own two
reasons only (`RUN_STOP_REASONS`); a plug-in declares the reasons it may stop with, here
`GuardStopReason`, and whoever plugs it in hands them to the loop with it:

    run_loop(client, messages, tools, observers=[repeat_guard], stop_reasons=GUARD_STOP_REASONS)

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from cafe.loop.turns import Stop, ToolCall, ToolResult, TurnView

__all__ = ["GuardStopReason", "GUARD_STOP_REASONS", "repeat_guard"]

# The one reason the repeat guard stops a run with: the model is going round in circles.
GuardStopReason = Literal["stuck"]
GUARD_STOP_REASONS: frozenset[str] = frozenset(get_args(GuardStopReason))


def _same_calls(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> bool:
    asked = [(c.name, dict(c.arguments)) for c in calls]
    seen = [(r.name, dict(r.arguments)) for r in results if not r.forced]
    return bool(asked) and asked == seen


def repeat_guard(view: TurnView) -> Stop | None:
    """An observer: stop the run as `stuck` when the model asks for exactly the calls it just
    made (same tools, same arguments) after seeing their results."""
    if _same_calls(view.calls, view.prev_dispatch):
        names = ", ".join(c.name for c in view.calls)
        return Stop("stuck", f"turn {view.turn} repeats the previous turn's calls ({names})")
    return None
