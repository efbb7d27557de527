"""Session 01's your-turn checker: a learner's `repeat_guard` observer, tried on four turns.

The notebook's exercise asks for a first observer (`cafe.loop.repeat_guard`) that stops a model
asking for exactly the calls it just made; `check_repeat_guard` lists what a learner's version
gets wrong. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cafe.loop import Stop, ToolCall, ToolResult, TurnView

__all__ = ["check_repeat_guard"]


def check_repeat_guard(guard: Callable[[TurnView], Any]) -> list[str]:
    """Problems with a learner's `repeat_guard`; empty when it holds."""
    latte = ToolCall("c1", "look_up", {"item": "latte"}, '{"item": "latte"}')
    scone = ToolCall("c2", "look_up", {"item": "scone"}, '{"item": "scone"}')
    seen = ToolResult("c0", "look_up", {"item": "latte"}, True, "latte: €4.20")

    def view(calls: tuple[ToolCall, ...], prev: tuple[ToolResult, ...]) -> TurnView:
        return TurnView(2, 10, calls, prev, (), 0.0, 0, False)

    problems = []
    verdict = guard(view((latte,), (seen,)))
    if not (isinstance(verdict, Stop) and verdict.reason == "stuck"):
        problems.append(f"the same call again (look_up latte twice) should give Stop('stuck', ...), got {verdict!r}")
    for label, calls, prev in [("a different argument (latte, then scone)", (scone,), (seen,)),
                               ("the first turn (nothing seen yet)", (latte,), ()),
                               ("the model finishing (no calls)", (), (seen,))]:
        verdict = guard(view(calls, prev))
        if verdict is not None:
            problems.append(f"{label} should give None, got {verdict!r}")
    return problems
