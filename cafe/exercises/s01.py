"""Session 01's your-turn checkers: a first observer, and a tool of the learner's own.

The notebook's first exercise asks for `repeat_guard`, an observer that stops a model asking for
exactly the calls it just made (the reference is `cafe.loop.repeat_guard`); `check_repeat_guard`
lists what a learner's version gets wrong. The second is open-ended: any tool the waiter is
missing, written as a plain function; `check_own_tool` looks at it the way the model and the loop
will (the schema `cafe.loop.tools.tool` reads off it, and a call with the smallest valid arguments).
Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cafe.endpoint.scripted import minimal_instance
from cafe.loop.tools import ToolOutput, tool
from cafe.loop.turns import Stop, ToolCall, ToolResult, TurnView

__all__ = ["check_repeat_guard", "check_own_tool"]


def check_repeat_guard(guard: Callable[[TurnView], Any]) -> list[str]:
    """Problems with a learner's `repeat_guard`; empty when it holds."""
    latte = ToolCall("c1", "look_up", {"item": "latte"}, '{"item": "latte"}')
    scone = ToolCall("c2", "look_up", {"item": "scone"}, '{"item": "scone"}')
    seen = ToolResult("c0", "look_up", {"item": "latte"}, True, "latte: €4.20")

    def view(calls: tuple[ToolCall, ...], prev: tuple[ToolResult, ...]) -> TurnView:
        return TurnView(2, 10, calls, prev, (), 0.0)

    problems = []
    verdict = guard(view((latte,), (seen,)))
    if not (isinstance(verdict, Stop) and verdict.reason == "stuck"):
        problems.append(
            f"the same call again (look_up latte twice) should give Stop('stuck', ...), got {verdict!r}"
        )
    for label, calls, prev in [
        ("a different argument (latte, then scone)", (scone,), (seen,)),
        ("the first turn (nothing seen yet)", (latte,), ()),
        ("the model finishing (no calls)", (), (seen,)),
    ]:
        verdict = guard(view(calls, prev))
        if verdict is not None:
            problems.append(f"{label} should give None, got {verdict!r}")
    return problems


def check_own_tool(fn: Callable[..., Any]) -> list[str]:
    """Problems with a tool of the learner's own; empty when the model can read it and call it safely.

    The model sees only the schema, so the function needs a docstring (its first line is the
    description) and an `Args:` line for every parameter. Then the tool is called with the
    smallest arguments its schema allows (empty text, zero): a model will send those one day, and
    the tool must answer in words, not raise.
    """
    try:
        built = tool(fn)
    except (TypeError, ValueError) as exc:
        return [f"tool() cannot build it: {exc}"]
    problems = []
    if not built.parameters["properties"]:
        problems.append(
            "it takes no parameters: give the model something to say, e.g. the item or the allergen"
        )
    if built.description == built.name:
        problems.append(
            "it has no docstring: its first line is the description the model reads to choose a tool"
        )
    for name, schema in built.parameters["properties"].items():
        if "description" not in schema:
            problems.append(
                f"parameter {name!r} has no line in an Args: block, so the model sees only its name"
            )
    smallest = minimal_instance(built.parameters)
    try:
        answer = fn(**smallest)
    except NotImplementedError:
        raise  # the stub: compare reports "not attempted yet"
    except Exception as exc:
        problems.append(
            f"called with the smallest valid arguments {smallest} it raised {type(exc).__name__}: "
            f"{exc}. Check the arguments and return ToolOutput(False, 'what to send instead') "
            "so the model can read why"
        )
        return problems
    text = answer.text if isinstance(answer, ToolOutput) else answer
    if text is None or (isinstance(text, str) and not text.strip()):
        problems.append(
            f"called with {smallest} it answered nothing: say what happened, the model reads it"
        )
    return problems
