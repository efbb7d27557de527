"""Session 01's your-turn checkers: a first observer, and a tool of the learner's own.

The notebook's first exercise asks for `repeat_guard`, an observer that stops a model asking for
exactly the calls it just made; `check_repeat_guard` lists what a learner's version gets wrong on
its cases, then on generated turns against `cafe.exercises.reference_s01.repeats`. (The course's
`cafe.loop.repeat_guard` still passes: tests/test_loop.py holds it to.) The second is open-ended: any tool the waiter is
missing, written as a plain function; `check_own_tool` looks at it the way the model and the loop
will (the schema `cafe.loop.tools.tool` reads off it, calls with everyday and the smallest valid
arguments, and generated mixes of both, optional parameters sent or left out).
Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cafe.endpoint.client.scripted import minimal_instance
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    wrong_type,
)
from cafe.exercises.generated import Raises, built_once, first_broken, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s01 import repeats, turns
from cafe.loop.guards import repeat_guard
from cafe.loop.tools import Tool, ToolOutput, tool
from cafe.loop.turns import Stop, ToolCall, ToolResult, TurnView

__all__ = ["GUARD_CASES", "check_repeat_guard", "check_own_tool", "reference_guard"]


def _call(call_id: str, item: str, name: str = "look_up", **more: Any) -> ToolCall:
    arguments = {"item": item, **more}
    return ToolCall(call_id, name, arguments, json.dumps(arguments))


def _seen(item: str, name: str = "look_up", **more: Any) -> ToolResult:
    return ToolResult("c0", name, {"item": item, **more}, True, f"{item}: ok")


def _failed(item: str) -> ToolResult:
    return ToolResult("c0", "look_up", {"item": item}, False, f"no {item} on the menu")


_SAME = "exactly the calls it just saw answered, in the same order: the model is going round"
_NEW = "not exactly the same calls in the same order: the model is asking for something new"
# (case, calls proposed this turn, results of the previous turn, should the guard stop?, idea)
GUARD_CASES: tuple[tuple[str, tuple[ToolCall, ...], tuple[ToolResult, ...], bool, str], ...] = (
    ("look_up latte after look_up latte", (_call("c1", "latte"),), (_seen("latte"),), True, _SAME),
    (
        "look_up latte and scone after the same two",
        (_call("c1", "latte"), _call("c2", "scone")),
        (_seen("latte"), _seen("scone")),
        True,
        _SAME + "; every call counts, not just the first",
    ),
    (
        "look_up {size, item} after {item, size}",
        (ToolCall("c1", "look_up", {"size": "large", "item": "latte"}, ""),),
        (_seen("latte", size="large"),),
        True,
        "the same arguments written in another key order are the same call: compare dicts",
    ),
    (
        "look_up oat latte after look_up oat latte failed (not on the menu)",
        (_call("c1", "oat latte"),),
        (_failed("oat latte"),),
        True,
        _SAME + ", whatever the results said: a call retried after it failed is the same call",
    ),
    ("look_up scone after look_up latte", (_call("c1", "scone"),), (_seen("latte"),), False, _NEW),
    (
        "add_to_ticket latte after look_up latte",
        (_call("c1", "latte", "add_to_ticket"),),
        (_seen("latte"),),
        False,
        "another tool with the same arguments is another call: compare the names too",
    ),
    ("the first turn (nothing seen yet)", (_call("c1", "latte"),), (), False, _NEW),
    ("the model answering in words (no calls)", (), (_seen("latte"),), False, _NEW),
    ("the model answering in words on turn 1", (), (), False, "no calls is never a repeat"),
    (
        "latte and scone after latte and muffin",
        (_call("c1", "latte"), _call("c2", "scone")),
        (_seen("latte"), _seen("muffin")),
        False,
        _NEW + "; a repeated first call is not enough",
    ),
    (
        "scone and latte after latte and scone",
        (_call("c1", "scone"), _call("c2", "latte")),
        (_seen("latte"), _seen("scone")),
        False,
        _NEW + "; the order of the calls counts",
    ),
    (
        "latte and scone after latte alone",
        (_call("c1", "latte"), _call("c2", "scone")),
        (_seen("latte"),),
        False,
        _NEW + "; an extra call makes it a different turn",
    ),
    (
        "latte alone after latte and scone",
        (_call("c1", "latte"),),
        (_seen("latte"), _seen("scone")),
        False,
        _NEW + "; a call dropped makes it a different turn",
    ),
    (
        "latte twice after latte once",
        (_call("c1", "latte"), _call("c2", "latte")),
        (_seen("latte"),),
        False,
        _NEW + "; count the calls, not just which ones",
    ),
)


def _stuck(verdict: Any) -> bool:
    """A stop as stuck that says why: `Stop("stuck", <a short reason>)`, the detail a sentence
    (the run's `detail`, what a person reads to know why it ended)."""
    return (
        isinstance(verdict, Stop)
        and verdict.reason == "stuck"
        and isinstance(verdict.detail, str)
        and bool(verdict.detail.strip())
    )


def _guard_problem(case: str, verdict: Any, stop: bool, idea: str) -> str | None:
    if isinstance(verdict, Raised):
        return verdict.problem(case)
    if stop and isinstance(verdict, Stop) and verdict.reason == "stuck" and not _stuck(verdict):
        return mismatch(
            case, verdict, Described("Stop('stuck', <why>)"), "say why: the detail is a sentence"
        )
    if stop and not _stuck(verdict):
        return mismatch(case, verdict, Described("Stop('stuck', <why>)"), idea)
    if not stop and verdict is not None:
        return mismatch(case, verdict, None, idea)
    return None


def check_repeat_guard(guard: Callable[[TurnView], Any]) -> list[str]:
    """Problems with a learner's `repeat_guard`; empty when it holds.

    Each case is one turn: the calls the model proposes and the results of the previous turn. The
    guard must stop (`Stop("stuck", <a short reason>)`) exactly when the two hold the same calls
    (names and arguments) in the same order, whatever those results said, and answer None
    otherwise. The course's own `repeat_guard` is
    refused: the exercise is to write it.
    """
    if is_library(guard, repeat_guard, trial=(TurnView(2, 10, *GUARD_CASES[0][1:3], (), 0.0),)):
        return [library_answer("repeat_guard")]
    problems = []
    for case, calls, prev, stop, idea in GUARD_CASES:
        verdict = call(guard, TurnView(2, 10, calls, prev, (), 0.0))
        problem = _guard_problem(case, verdict, stop, idea)
        if problem:
            problems.append(problem)
    found = None if problems else _generated_guard(guard)
    return [*problems, found] if found else problems


def reference_guard(view: TurnView) -> Stop | None:
    """The repeat guard from `reference_s01.repeats`, written apart from `cafe.loop.guards`."""
    return (
        Stop("stuck", "the same calls again") if repeats(view.calls, view.prev_dispatch) else None
    )


def _verdict(guard: Callable[[TurnView], Any], calls: Any, seen: Any) -> Any:
    """What a guard said of one turn, as the checker compares it: stuck, or what it returned."""
    said = guard(TurnView(2, 10, calls, seen, (), 0.0))
    return "Stop('stuck')" if _stuck(said) else said


def _generated_guard(guard: Callable[[TurnView], Any]) -> str | None:
    """The first generated turn where the guard and `repeats` part: turns whose results all
    succeeded first (200), then turns where some failed (100)."""
    for failing, examples in ((False, 200), (True, 100)):
        found = first_difference(
            lambda given: _verdict(guard, *given),
            lambda given: "Stop('stuck')" if repeats(*given) else None,
            built_once(turns, ToolCall, ToolResult, failing),
            idea="stop exactly when the same tools with the same arguments (a stray space or "
            "another case is another argument) come again, as many, in the same order, whether "
            "they succeeded or failed",
            frozen=True,
            examples=examples,
        )
        if found is not None:
            break
    if found is None:
        return None
    calls, seen = found.given
    said = "; ".join(f"{c.name}{dict(c.arguments)}" for c in calls) or "no calls"
    before = (
        "; ".join(f"{r.name}{dict(r.arguments)}{'' if r.ok else ' (failed)'}" for r in seen)
        or "nothing"
    )
    given = Described(f"{said} after {before}")
    return counterexample(given, found.returned, found.expected, found.idea)


def _schema_problems(built: Tool) -> list[str]:
    """What the model cannot read off the tool: no description, a parameter with no Args: line.
    A tool with no parameters is a tool too (the notebook: "write any tool the waiter lacks"):
    the rules hold for each parameter it has, so with none only the docstring is asked for."""
    problems = []
    if built.description == built.name:
        problems.append(
            "it has no docstring: its first line is the description the model reads to choose a tool"
        )
    for name, schema in built.parameters["properties"].items():
        if "description" not in schema:
            problems.append(
                f"parameter {name!r} has no line in an Args: block, so the model sees only its name"
            )
    return problems


def _ordinary(schema: dict[str, Any]) -> Any:
    """An everyday value for one parameter: text 'latte', 2, 1.5, True, a one-element list."""
    if "enum" in schema:
        return schema["enum"][-1]
    kind = schema.get("type", "string")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "array":
        return [_ordinary(schema.get("items", {}))]
    return {"string": "latte", "integer": 2, "number": 1.5, "boolean": True}.get(kind, "latte")


def _answer_problem(fn: Callable[..., Any], arguments: dict[str, Any], what: str) -> str | None:
    """Why the tool's answer to `arguments` is no answer (it raised, or said nothing); else None."""
    answer = call(fn, **arguments)
    case = f"called with {what} {arguments}"
    if isinstance(answer, Raised):
        return (
            f"{answer.problem(case)}. A tool answers in words: return "
            "ToolOutput(False, 'what to send instead') so the model can read why"
        )
    text = answer.text if isinstance(answer, ToolOutput) else answer
    if text is None or (isinstance(text, str) and not text.strip()):
        return wrong_type(case, answer, "a sentence saying what happened: the model reads it")
    return None


def _sent_arguments(built: Tool) -> Any:
    """Arguments a model may send the tool: each parameter an everyday value, the smallest its
    schema allows or any value its enum lists, and each optional one sent or left out."""
    from hypothesis import strategies as st

    properties, required = built.parameters["properties"], built.parameters.get("required", [])

    def values(schema: dict[str, Any]) -> Any:
        kinds = [_ordinary(schema), minimal_instance(schema), *schema.get("enum", ())]
        return st.sampled_from(kinds)

    return st.fixed_dictionaries(
        {name: values(properties[name]) for name in required},
        optional={name: values(s) for name, s in properties.items() if name not in required},
    )


def _no_answer(arguments: dict[str, Any], answer: Any) -> bool:
    """True when the tool raised, or said nothing a model could read."""
    text = answer.text if isinstance(answer, ToolOutput) else answer
    return (
        isinstance(answer, Raises) or text is None or (isinstance(text, str) and not text.strip())
    )


def _empty_text_problems(
    fn: Callable[..., Any], smallest: dict[str, Any], ordinary: dict[str, Any]
) -> list[str]:
    """An empty text in a required parameter must be answered `ToolOutput(False, ...)`: with every
    argument at its smallest, and with each text parameter empty alone beside everyday others."""
    empty = sorted(name for name, value in smallest.items() if value == "")
    tries = [(smallest, empty)] + [({**ordinary, name: ""}, [name]) for name in empty]
    for arguments, names in tries if empty else []:
        answer = call(fn, **arguments)
        if not (isinstance(answer, ToolOutput) and answer.ok is False):
            return [
                mismatch(
                    f"called with {arguments}",
                    answer,
                    Described("ToolOutput(False, '<what to send instead>')"),
                    f"an empty {', '.join(names)} is nothing the tool can act on; reporting "
                    "success would tell the model the job is done",
                )
            ]
    return []


def check_own_tool(fn: Callable[..., Any]) -> list[str]:
    """Problems with a tool of the learner's own; empty when the model can read it and call it safely.

    The model sees only the schema, so the function needs a docstring (its first line is the
    description) and an `Args:` line for every parameter. Then the tool is called with everyday
    arguments ('latte', 2), with the smallest its schema allows (empty text, zero), as a model
    will send one day, and with generated mixes of the two, optional parameters sent or not. Each
    time it must answer in words, not raise; and an empty text in any required parameter (all
    at their smallest, or that one alone beside everyday others) is a request it cannot carry
    out, so it must say so with `ToolOutput(False, ...)` rather than report a success.
    """
    try:
        built = tool(fn)
    except (TypeError, ValueError) as exc:
        return [f"tool() cannot build it: {exc}"]
    problems = _schema_problems(built)
    properties = built.parameters["properties"]
    ordinary = {name: _ordinary(properties[name]) for name in built.parameters.get("required", [])}
    smallest = minimal_instance(built.parameters)
    for arguments, what in ((ordinary, "everyday arguments"), (smallest, "the smallest arguments")):
        problem = _answer_problem(fn, arguments, what)
        if problem:
            problems.append(problem)
    if not problems:
        # optional parameters too: the schema lets a model send them, at their smallest
        found = first_broken(lambda given: fn(**given), _sent_arguments(built), _no_answer)
        problem = _answer_problem(fn, found[0], "arguments a model may send") if found else None
        if problem:
            problems.append(problem)
    if not problems:
        problems.extend(_empty_text_problems(fn, smallest, ordinary))
    return problems
