"""cafe.trace.loop: the agent loop recorded through its client and one after-turn hook."""

from __future__ import annotations

import pytest

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.errors import ScriptExhausted
from cafe.loop.agent import run_loop
from cafe.loop.tools import ToolOutput, tool
from cafe.stall.verify import VerifyEntrypoint
from cafe.trace.loop import record_loop
from cafe.trace.record import Recorder
from cafe.world.menu import load_menu
from cafe.world.orderpad import OrderPad


def _shape(trace) -> list[tuple[int, str, str]]:
    return [(depth, span.kind, span.name) for depth, span in trace.walk()]


LOOP_SCRIPT = [
    {"tool_calls": [{"name": "look_up", "arguments": {"item": "latte"}}]},
    {"tool_calls": [{"name": "add_to_ticket", "arguments": {"item": "latte", "quantity": 1}}]},
    "Done: one latte.",
]


def test_record_loop_turns_hold_their_model_call_and_tool_calls():
    pad = OrderPad(load_menu())
    result, trace = record_loop(
        make_client(LOOP_SCRIPT), [{"role": "user", "content": "A latte."}], pad.tools
    )
    assert result.stop_reason == trace.stop_reason == "done"
    assert _shape(trace) == [
        (0, "run", "invoke_agent cafe.loop"),
        (1, "turn", "turn 1"),
        (2, "model_call", "chat cafe-scripted"),
        (2, "tool_call", "execute_tool look_up"),
        (1, "turn", "turn 2"),
        (2, "model_call", "chat cafe-scripted"),
        (2, "tool_call", "execute_tool add_to_ticket"),
        (1, "turn", "turn 3"),
        (2, "model_call", "chat cafe-scripted"),
    ]
    look_up = trace.of_kind("tool_call")[0]
    assert look_up.get("gen_ai.tool.call.arguments") == {"item": "latte"}
    assert look_up.get("gen_ai.tool.call.result") == result.turns[0].dispatch[0].output


def test_record_loop_verify_entrypoint_is_a_check_span():
    outcomes = iter([False, True])

    def run_checks() -> ToolOutput:
        """Run the checks."""
        passed = next(outcomes)
        return ToolOutput(ok=passed, text="all passed" if passed else "1 failed")

    verifier = VerifyEntrypoint(tool(run_checks, kind="verify"))
    script = ["I am done.", "Done now."]
    result, trace = record_loop(
        make_client(script),
        [{"role": "user", "content": "Go."}],
        before_finish=[verifier.before_finish],
        stop_reasons=verifier.stop_reasons,
    )
    assert result.stop_reason == "done"
    assert [c.get("gen_ai.evaluation.score.label") for c in trace.of_kind("check")] == [
        "fail",
        "pass",
    ]


def test_record_loop_returns_what_run_loop_returns():
    messages = [{"role": "user", "content": "A latte."}]
    plain = run_loop(
        make_client(LOOP_SCRIPT), messages, OrderPad(load_menu()).tools, clock=lambda: 0.0
    )
    recorded, _ = record_loop(
        make_client(LOOP_SCRIPT), messages, OrderPad(load_menu()).tools, clock=lambda: 0.0
    )
    assert recorded == plain


def test_record_loop_callers_after_turn_hooks_still_run_before_the_recorders():
    seen = []
    record_loop(
        make_client(LOOP_SCRIPT),
        [{"role": "user", "content": "A latte."}],
        OrderPad(load_menu()).tools,
        after_turn=[lambda view: seen.append(view.turn)],
    )
    assert seen == [1, 2]


def test_record_loop_script_running_out_closes_every_span_with_the_error():
    recorder = Recorder()
    with pytest.raises(ScriptExhausted):
        record_loop(
            make_client(LOOP_SCRIPT[:1]),
            [{"role": "user", "content": "A latte."}],
            OrderPad(load_menu()).tools,
            recorder=recorder,
        )
    trace = recorder.trace()
    assert trace.root.get("error.type") == "ScriptExhausted" and trace.of_kind("turn")[-1].get(
        "error.type"
    )
