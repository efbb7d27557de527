"""Record a run of the agent loop: turns holding their model call, tool calls and checks.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`).
`cafe.trace.record_repair` records the re-ask; this module records session 01's `run_loop` the
same way, through the seams the loop already offers and nothing else:

- the client: `Recorder.client` records each model call, and the recorder's `before_model_call`
  opens a new turn span first (the loop asks the model exactly once per turn);
- one after-turn hook, put after the caller's own so it sees every check they forced: it notes
  when the turn's tools finished, and returns nothing, so it never changes the run;
- the `RunResult`: each turn's record says which tools ran and what they returned, and how the
  run ended.

A result of a `verify`-kind tool (the model's own check, or one a hook ran, such as session 13's
verify entrypoint) becomes a `check` span (`gen_ai.evaluation.*`), any
other a `tool_call` span (`gen_ai.operation.name` `execute_tool`). The loop does not time each
tool on its own, so a turn's tool spans share the time from the model's answer to the hook.

What it leaves out: the loop itself (session 01), and the re-ask (`cafe.trace.record`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cafe.endpoint.client.protocol import ChatClient
from cafe.loop.agent import run_loop
from cafe.loop.tools import Tool
from cafe.loop.turns import RunResult, ToolResult, TurnView
from cafe.trace.attributes import (
    AGENT_NAME,
    ERROR_TYPE,
    EVALUATION_LABEL,
    EVALUATION_NAME,
    OPERATION,
    STOP_DETAIL,
    STOP_REASON,
    TOOL_ARGUMENTS,
    TOOL_CALL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    TURN_NUMBER,
)
from cafe.trace.recorder import OpenSpan, Recorder
from cafe.trace.spans import SpanKind, Trace
from cafe.trace.vocabulary import scrub_attributes

__all__ = ["record_loop"]


def _result_attributes(result: ToolResult) -> tuple[SpanKind, str, dict[str, Any]]:
    """The span kind, name and attributes for one tool result."""
    if result.kind == "verify":
        return (
            "check",
            f"check {result.name}",
            {
                EVALUATION_NAME: result.name,
                EVALUATION_LABEL: "pass" if result.ok else "fail",
                TOOL_RESULT: result.output,
                "cafe.check.forced": result.forced,
            },
        )
    return (
        "tool_call",
        f"execute_tool {result.name}",
        {
            OPERATION: "execute_tool",
            TOOL_NAME: result.name,
            TOOL_CALL_ID: result.call_id,
            TOOL_ARGUMENTS: dict(result.arguments),
            TOOL_RESULT: result.output,
            "cafe.tool.ok": result.ok,
        },
    )


class _Turns:
    """Opens a turn span before each model call; the hook notes when the turn's tools were done."""

    def __init__(self, recorder: Recorder, run: OpenSpan):
        self.recorder, self.run = recorder, run
        self.turns: list[OpenSpan] = []
        self.tools_done: dict[int, float] = {}

    def next_turn(self) -> None:
        if self.turns and self.recorder.current is self.turns[-1]:
            self.recorder.close(self.turns[-1])
        number = len(self.turns) + 1
        self.turns.append(self.recorder.open("turn", f"turn {number}", {TURN_NUMBER: number}))

    def after_turn(self, view: TurnView) -> None:
        self.tools_done[view.turn] = self.recorder.now()
        return None

    def add_results(self, result: RunResult) -> None:
        """One span per tool result of each turn, under that turn."""
        for record, span in zip(result.turns, self.turns):
            answered = max(
                (c.end for c in span.children if c.kind == "model_call" and c.end is not None),
                default=span.start,
            )
            done = self.tools_done.get(record.turn, span.end if span.end is not None else answered)
            for tool_result in record.dispatch:
                kind, name, attributes = _result_attributes(tool_result)
                self.recorder.add(
                    span,
                    kind,
                    name,
                    answered,
                    max(done, answered),
                    scrub_attributes(attributes, self.recorder.scrub),
                )
            if record.nudges:
                span.attributes["cafe.turn.nudges"] = [n.text for n in record.nudges]


def record_loop(
    client: ChatClient,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool] = (),
    *,
    recorder: Recorder | None = None,
    after_turn: Sequence[Any] = (),
    **loop_options: Any,
) -> tuple[RunResult, Trace]:
    """`run_loop(client, messages, tools, ...)`, recorded: the result and its trace.

    `loop_options` go to `run_loop` as they are (`model`, `max_turns`, `observers`,
    `before_finish`, `stop_reasons`, ...).
    """
    recorder = recorder or Recorder()
    run = recorder.open(
        "run", "invoke_agent cafe.loop", {OPERATION: "invoke_agent", AGENT_NAME: "cafe.loop"}
    )
    turns = _Turns(recorder, run)
    recorder.before_model_call = turns.next_turn
    try:
        result = run_loop(
            recorder.client(client),
            messages,
            tools,
            after_turn=[*after_turn, turns.after_turn],
            **loop_options,
        )
    except Exception as exc:
        recorder.close_all({ERROR_TYPE: type(exc).__name__}, exc)
        raise
    finally:
        recorder.before_model_call = None
    if turns.turns and recorder.current is turns.turns[-1]:
        recorder.close(turns.turns[-1])
    turns.add_results(result)
    recorder.close(
        run,
        {
            STOP_REASON: result.stop_reason,
            STOP_DETAIL: result.detail,
            "cafe.run.turns": len(result.turns),
            "cafe.run.verify_attempts": sum(
                r.forced and r.kind == "verify" for t in result.turns for r in t.dispatch
            ),
        },
    )
    return result, recorder.trace()
