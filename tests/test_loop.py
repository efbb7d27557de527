"""Tests for cafe/loop/tools.py and cafe/loop/agent.py: the session 01 agent loop."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Literal

import pytest
from endpoints import dead_url, live_env

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.errors import EndpointError
from cafe.loop.agent import (
    DEFAULT_MAX_TURNS,
    RUN_STOP_REASONS,
    Nudge,
    Ran,
    Stop,
    ToolCall,
    ToolResult,
    TurnView,
    dispatch_call,
    run_loop,
)
from cafe.loop.guards import GUARD_STOP_REASONS, repeat_guard
from cafe.loop.tools import Tool, ToolOutput, json_type, tool, tool_schemas
from work import grows_linearly

# --- tools used across the tests ------------------------------------------------------------


def add_item(item: str, quantity: int = 1, note: str | None = None) -> str:
    """Add an item to the kitchen ticket.

    Args:
        item: the menu item, as the menu spells it
        quantity: how many to add
        note: anything the kitchen should know
    """
    return f"added {quantity} x {item}"


def size(cup: Literal["small", "large"], extra_shots: list[int], options: dict) -> str:
    """Pick a cup size."""
    return cup


def broken(item: str) -> str:
    """Always fails."""
    raise RuntimeError(f"the {item} machine is broken")


def check(passing: bool = True) -> ToolOutput:
    """A check that passes or fails on demand."""
    return ToolOutput(passing, "all good" if passing else "1 failed")


ADD = tool(add_item)
USER = [{"role": "user", "content": "One latte, please."}]


def reply_call(name: str, **arguments) -> dict:
    return {"content": None, "tool_calls": [{"name": name, "arguments": arguments}]}


def counter(start: float = 100.0, step: float = 0.5):
    """A fake clock: each reading is `step` seconds after the last."""
    now = [start - step]

    def clock() -> float:
        now[0] += step
        return now[0]

    return clock


# --- tools: the schema comes from the signature ---------------------------------------------


def test_tool_schema_reads_types_defaults_and_docstring():
    schema = ADD.schema()
    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == "add_item"
    assert function["description"] == "Add an item to the kitchen ticket."
    params = function["parameters"]
    assert params["required"] == ["item"]
    assert params["properties"]["item"] == {
        "type": "string",
        "description": "the menu item, as the menu spells it",
    }
    assert params["properties"]["quantity"]["type"] == "integer"
    assert params["properties"]["note"]["type"] == "string"  # X | None: optional, same JSON type
    assert params["additionalProperties"] is False


def test_tool_schema_required_optional_parameter_may_be_null():
    """A parameter the model must send, whose type admits None, says so with JSON's null."""

    def reserve(name: str, table: int | None, note: str | None = None) -> str:
        return f"{name} {table} {note}"

    params = tool(reserve).parameters
    assert params["required"] == ["name", "table"]
    assert params["properties"]["table"]["type"] == ["integer", "null"]
    assert params["properties"]["note"]["type"] == "string"  # has a default: left out instead


def test_tool_schema_handles_literal_lists_and_dicts():
    params = tool(size).parameters
    assert params["properties"]["cup"] == {"type": "string", "enum": ["small", "large"]}
    assert params["properties"]["extra_shots"] == {"type": "array", "items": {"type": "integer"}}
    assert params["properties"]["options"] == {"type": "object"}


def test_tool_without_type_hint_is_refused():
    def untyped(item):
        return item

    with pytest.raises(TypeError, match="type hint"):
        tool(untyped)


def test_tool_with_star_args_is_refused():
    def spread(*items: str) -> str:
        return ""

    with pytest.raises(TypeError, match="name every argument"):
        tool(spread)


def test_json_type_unsupported_annotation_names_it():
    with pytest.raises(TypeError, match="set"):
        json_type(set)


def test_tool_kind_outside_the_closed_set_is_refused():
    with pytest.raises(ValueError, match="kind"):
        Tool("x", "x", {"type": "object"}, add_item, kind="delete")  # type: ignore[arg-type]


def test_tool_schemas_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="add_item"):
        tool_schemas([ADD, tool(add_item)])


# --- the loop: how runs end ------------------------------------------------------------------


def test_run_stop_reasons_are_the_loops_own_two():
    assert RUN_STOP_REASONS == {"done", "max_turns"}
    assert GUARD_STOP_REASONS == {"stuck"}


def test_run_loop_runs_a_tool_then_stops_done():
    client = make_client([reply_call("add_item", item="latte"), "One latte on the ticket."])
    result = run_loop(client, USER, [ADD])
    assert result.stop_reason == "done"
    assert result.text == "One latte on the ticket."
    assert [t.turn for t in result.turns] == [1, 2]
    first = result.turns[0].dispatch[0]
    assert (first.name, first.ok, first.output) == ("add_item", True, "added 1 x latte")
    assert [m["role"] for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    assert result.messages[2]["tool_call_id"] == result.messages[1]["tool_calls"][0]["id"]


def test_run_loop_sends_tool_schemas_and_transcript_to_the_model():
    client = make_client([reply_call("add_item", item="latte"), "ok"])
    run_loop(client, USER, [ADD], model="cafe-scripted")
    first, second = client.calls
    assert first["tools"] == [ADD.schema()]
    assert first["messages"] == USER
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1_0",
        "content": "added 1 x latte",
    }


def test_run_loop_max_turns_stops_a_model_that_never_finishes():
    client = make_client([reply_call("add_item", item="latte")] * 5)
    result = run_loop(client, USER, [ADD], max_turns=3)
    assert result.stop_reason == "max_turns"
    assert len(result.turns) == 3
    assert len(client.calls) == 3


def test_run_loop_default_turn_budget_is_ten():
    client = make_client([reply_call("add_item", item="latte")] * DEFAULT_MAX_TURNS)
    result = run_loop(client, USER, [ADD])
    assert DEFAULT_MAX_TURNS == 10
    assert result.stop_reason == "max_turns" and len(result.turns) == DEFAULT_MAX_TURNS


def test_run_loop_bad_budget_is_refused():
    with pytest.raises(ValueError, match="max_turns"):
        run_loop(make_client(["hi"]), USER, [], max_turns=0)


def test_run_loop_refuses_the_loops_own_reasons_as_a_plug_ins():
    with pytest.raises(ValueError, match="done"):
        run_loop(make_client(["hi"]), USER, [], stop_reasons={"done"})


def test_run_loop_observer_stop_ends_before_the_calls_run():
    ran = []

    def record(item: str) -> str:
        """Record an item."""
        ran.append(item)
        return "ok"

    def stop_on_turn_2(view: TurnView):
        return Stop("stuck", "going round in circles") if view.turn == 2 else None

    client = make_client([reply_call("record", item="a"), reply_call("record", item="b")])
    result = run_loop(
        client, USER, [tool(record)], observers=[stop_on_turn_2], stop_reasons=GUARD_STOP_REASONS
    )
    assert (result.stop_reason, result.detail) == ("stuck", "going round in circles")
    assert ran == ["a"]
    assert result.turns[-1].dispatch == ()
    # the unanswered call is still answered in the transcript, so it can be replayed or continued
    assert result.messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_2_0",
        "content": "[harness] not run: the run stopped (stuck).",
    }


def test_run_loop_after_turn_stop_ends_after_the_turn():
    client = make_client([reply_call("add_item", item="latte")] * 3)
    result = run_loop(
        client,
        USER,
        [ADD],
        after_turn=[lambda view: Stop("cut", "out of time")],
        stop_reasons={"cut"},
    )
    assert (result.stop_reason, len(result.turns)) == ("cut", 1)
    assert result.turns[0].dispatch[0].ok


def test_run_loop_refuses_a_stop_no_plug_in_declared_naming_it():
    client = make_client([reply_call("add_item", item="latte")] * 3)
    with pytest.raises(ValueError, match="'cut'.*declared: none"):
        run_loop(client, USER, [ADD], after_turn=[lambda view: Stop("cut", "out of time")])
    with pytest.raises(ValueError, match="'stuck'.*declared: \\['cut'\\]"):
        run_loop(
            make_client([reply_call("add_item", item="latte")]),
            USER,
            [ADD],
            observers=[lambda view: Stop("stuck")],
            stop_reasons={"cut"},
        )


def test_stop_with_a_loop_only_reason_is_refused():
    with pytest.raises(ValueError, match="done"):
        Stop("done")
    with pytest.raises(ValueError, match="reason"):
        Stop("")


def test_ran_needs_a_forced_result():
    with pytest.raises(ValueError, match="forced"):
        Ran(ToolResult("c", "check", {}, True, "ok"))


# --- the loop: observers, after-turn hooks, verify, clock ------------------------------------


def test_observers_see_proposed_calls_and_the_previous_turns_results():
    seen: list[TurnView] = []
    client = make_client(
        [reply_call("add_item", item="latte"), reply_call("add_item", item="scone"), "done"]
    )
    run_loop(client, USER, [ADD], observers=[lambda view: seen.append(view)])
    assert [v.turn for v in seen] == [1, 2, 3]
    assert [c.arguments["item"] for c in seen[1].calls] == ["scone"]
    assert seen[0].prev_dispatch == () and seen[1].dispatch == ()
    assert [r.output for r in seen[1].prev_dispatch] == ["added 1 x latte"]  # one turn behind
    assert [r.output for r in seen[2].prev_dispatch] == ["added 1 x scone"]
    assert seen[2].calls == ()  # the model is about to say it is done


def test_observer_nudge_is_appended_after_the_turns_tool_results():
    client = make_client([reply_call("add_item", item="latte"), "done"])
    result = run_loop(
        client,
        USER,
        [ADD],
        observers=[lambda v: Nudge("Mind the allergens.", "test") if v.turn == 1 else None],
    )
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "tool", "user", "assistant"]
    assert result.messages[3]["content"] == "Mind the allergens."
    assert result.turns[0].nudges == (Nudge("Mind the allergens.", "test"),)


def test_a_hook_answering_what_its_seam_does_not_take_is_refused():
    forced = ToolResult("v", "check", {}, True, "ok", "verify", forced=True)
    client = make_client([reply_call("add_item", item="latte")])
    with pytest.raises(TypeError, match="Nudge, Stop"):
        run_loop(client, USER, [ADD], observers=[lambda v: Ran(forced)])
    with pytest.raises(TypeError, match="answered 'stop!'"):
        run_loop(
            make_client([reply_call("add_item", item="latte")]),
            USER,
            [ADD],
            observers=[lambda v: "stop!"],
        )


def forced_check(passing: bool = True, name: str = "check") -> ToolResult:
    call = ToolCall("v", name, {"passing": passing}, "{}")
    return dispatch_call(call, {name: tool(check, name=name, kind="verify")}, forced=True)


def test_after_turn_ran_joins_the_turns_results_and_later_hooks_see_it():
    seen: list[tuple[ToolResult, ...]] = []
    client = make_client([reply_call("add_item", item="latte"), "done"])
    result = run_loop(
        client,
        USER,
        [ADD],
        after_turn=[
            lambda v: (Ran(forced_check()), Nudge("checked")) if v.turn == 1 else None,
            lambda v: seen.append(v.dispatch),
        ],
    )
    assert [r.name for r in seen[0]] == ["add_item", "check"]
    assert result.turns[0].dispatch[1].forced and result.turns[0].nudges == (Nudge("checked"),)
    assert result.messages[3] == {"role": "user", "content": "checked"}


def test_before_finish_no_answer_lets_the_finish_stand():
    seen: list[TurnView] = []
    result = run_loop(make_client(["Finished."]), USER, [], before_finish=[seen.append])
    assert result.stop_reason == "done" and seen[0].calls == ()
    assert result.detail == "the model answered without calling a tool"


def test_before_finish_nudge_refuses_the_finish_and_the_model_reads_why():
    refused = iter([True, False])

    def not_yet(view: TurnView):
        return Nudge("Run the tests first.", "test") if next(refused) else None

    after: list[int] = []
    client = make_client(["Finished.", "Finished, really."])
    result = run_loop(
        client, USER, [], before_finish=[not_yet], after_turn=[lambda v: after.append(v.turn)]
    )
    assert result.stop_reason == "done" and len(result.turns) == 2
    assert after == [1]  # a refused finish is an ordinary turn: the after-turn hooks run
    assert client.calls[1]["messages"][-1] == {"role": "user", "content": "Run the tests first."}


def test_before_finish_ran_is_recorded_and_named_in_the_detail():
    result = run_loop(
        make_client(["Finished."]), USER, [], before_finish=[lambda v: Ran(forced_check())]
    )
    assert result.stop_reason == "done" and result.turns[0].dispatch[0].forced
    assert result.detail.endswith("checked on the finish: check passed")


def test_before_finish_stop_ends_the_run_with_the_declared_reason():
    answer = (Ran(forced_check(False)), Stop("verify_failed", "the check failed"))
    result = run_loop(
        make_client(["Finished."]),
        USER,
        [],
        before_finish=[lambda v: answer],
        stop_reasons={"verify_failed"},
    )
    assert (result.stop_reason, result.detail) == ("verify_failed", "the check failed")
    assert not result.turns[0].dispatch[0].ok


def test_run_loop_clock_is_injected():
    views: list[TurnView] = []
    client = make_client([reply_call("add_item", item="latte"), "done"])
    result = run_loop(client, USER, [ADD], clock=counter(step=0.5), observers=[views.append])
    # one clock reading when the run starts, one per view, one at the end; nothing sleeps
    assert [v.elapsed for v in views] == [0.5, 1.0]
    assert result.elapsed == 1.5


# --- the loop: mistakes are the model's information -----------------------------------------


def test_unknown_tool_becomes_an_error_result():
    client = make_client([reply_call("refund", amount=5), "sorry"])
    result = run_loop(client, USER, [ADD])
    bad = result.turns[0].dispatch[0]
    assert not bad.ok and "no tool named 'refund'" in bad.output and "add_item" in bad.output


def test_tool_exception_becomes_an_error_result():
    client = make_client([reply_call("broken", item="grinder"), "sorry"])
    result = run_loop(client, USER, [tool(broken)])
    assert result.turns[0].dispatch[0].output == "RuntimeError: the grinder machine is broken"


def test_wrong_arguments_become_an_error_result():
    client = make_client([reply_call("add_item", dish="latte"), "sorry"])
    result = run_loop(client, USER, [ADD])
    bad = result.turns[0].dispatch[0]
    assert not bad.ok and bad.output.startswith("TypeError")


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            {"item": "latte", "quantity": "two"},
            'quantity must be an integer (a whole number), not "two".',
        ),
        (
            {"item": "latte", "quantity": 2.5},
            "quantity must be an integer (a whole number), not 2.5.",
        ),
        (
            {"item": "latte", "quantity": True},
            "quantity must be an integer (a whole number), not true.",
        ),
        ({"item": 3}, "item must be a string, not 3."),
    ],
)
def test_argument_of_the_wrong_json_type_becomes_a_sentence(arguments, said):
    client = make_client([reply_call("add_item", **arguments), "sorry"])
    result = run_loop(client, USER, [ADD])
    bad = result.turns[0].dispatch[0]
    assert not bad.ok and bad.output == said


def test_null_for_a_required_optional_parameter_reaches_the_function():
    def reserve(guest: str, table: int | None) -> str:
        return f"{guest}: {table or 'any free table'}"

    client = make_client([reply_call("reserve", guest="Ada", table=None), "held"])
    result = run_loop(client, USER, [tool(reserve)])
    assert result.turns[0].dispatch[0].output == "Ada: any free table"


def test_arguments_that_are_not_json_become_an_error_result():
    client = make_client(
        [{"content": None, "tool_calls": [{"name": "add_item", "arguments": "{latte"}]}, "ok"]
    )
    result = run_loop(client, USER, [ADD])
    bad = result.turns[0].dispatch[0]
    assert not bad.ok and "not a JSON object" in bad.output


def test_tool_output_false_is_a_failed_result():
    client = make_client([reply_call("check", passing=False), "ok"])
    result = run_loop(client, USER, [tool(check)])
    assert (result.turns[0].dispatch[0].ok, result.turns[0].dispatch[0].output) == (
        False,
        "1 failed",
    )


def test_run_loop_never_mutates_the_callers_messages():
    messages = [
        {"role": "system", "content": "You run a café till."},
        {"role": "user", "content": "latte"},
    ]
    before = copy.deepcopy(messages)
    client = make_client([reply_call("add_item", item="latte"), "done"])
    result = run_loop(client, messages, [ADD], observers=[lambda v: Nudge("hi")])
    assert messages == before
    assert len(result.messages) > len(messages)
    assert result.messages[0] is not messages[0]


# --- live path: the real SDK over HTTP -------------------------------------------------------


def test_run_loop_live_against_running_server_calls_tools():
    from cafe.endpoint.server.serve import running_server

    script = [reply_call("add_item", item="latte", quantity=2), "Two lattes on the ticket."]
    with running_server(script=script) as server:
        client = make_client(environ=live_env(server.base_url))
        result = run_loop(client, USER, [ADD], model="cafe-scripted")
    assert result.stop_reason == "done"
    assert result.turns[0].dispatch[0].output == "added 2 x latte"
    assert result.text == "Two lattes on the ticket."


def test_run_loop_dead_endpoint_raises_endpoint_error():
    client = make_client(environ=live_env(dead_url()), timeout=5)
    with pytest.raises(EndpointError, match="Could not connect"):
        run_loop(client, USER, [ADD], model="cafe-scripted")


# --- the worked example (the order pad) and the exercise (repeat_guard) ---------------------


def test_order_pad_tools_take_an_order_through_the_loop():
    from cafe.world.menu import load_menu
    from cafe.world.orderpad import OrderPad, TicketLine

    pad = OrderPad(load_menu())
    assert [(t.name, t.kind) for t in pad.tools] == [
        ("look_up", "observe"),
        ("add_to_ticket", "mutate"),
        ("read_ticket", "observe"),
    ]
    client = make_client(
        [
            reply_call("look_up", item="latte"),
            reply_call("add_to_ticket", item="latte", quantity=2),
            "Two lattes are on the ticket.",
        ]
    )
    result = run_loop(client, USER, pad.tools)
    assert result.stop_reason == "done"
    assert pad.ticket == (TicketLine("latte", 2),)
    assert "€4.20" in result.turns[0].dispatch[0].output


def test_order_pad_refuses_unknown_and_sold_out_items_as_failed_results():
    from cafe.world.menu import load_menu
    from cafe.world.orderpad import OrderPad

    pad = OrderPad(load_menu())
    assert not pad.look_up("unicorn cake").ok
    sold_out = pad.add_to_ticket("cheese omelette")
    assert not sold_out.ok and "sold out" in sold_out.text
    assert not pad.add_to_ticket("latte", 0).ok
    assert pad.ticket == () and pad.read_ticket() == "(the ticket is empty)"


def test_repeat_guard_stops_a_model_asking_the_same_thing_again():
    client = make_client([reply_call("add_item", item="latte")] * 5)
    result = run_loop(
        client, USER, [ADD], observers=[repeat_guard], stop_reasons=GUARD_STOP_REASONS
    )
    assert result.stop_reason == "stuck" and len(result.turns) == 2
    assert "repeats the previous turn's calls (add_item)" in result.detail


def test_check_repeat_guard_passes_the_reference_and_fails_a_stub():
    from cafe.exercises.s01 import GUARD_CASES, check_repeat_guard, reference_guard

    assert check_repeat_guard(reference_guard) == []
    (refused,) = check_repeat_guard(repeat_guard)  # the course's own guard: write your own
    assert "course's `repeat_guard`" in refused

    stops = sum(stop for *_, stop, _ in GUARD_CASES)
    assert len(check_repeat_guard(lambda view: None)) == stops
    assert len(check_repeat_guard(lambda view: Stop("stuck", "always"))) == len(GUARD_CASES) - stops
    # a stop with no sentence saying why is refused on every case that must stop
    assert len(check_repeat_guard(lambda view: Stop("stuck"))) == len(GUARD_CASES)


def test_s01_notebook_stub_is_not_attempted_and_the_course_guard_is_refused():
    from samples import run_notebook_source

    from cafe import course
    from cafe.exercises.s01 import check_repeat_guard

    namespace = run_notebook_source("s01-agent-loop")
    assert course.compare(namespace["repeat_guard"], check_repeat_guard).status == "not_attempted"
    assert course.compare(repeat_guard, check_repeat_guard).status == "failed"


# --- speed: a turn costs the same on turn 1,000 as on turn 1 ---------------------------------


REPLY_CALL = {"name": "add_item", "arguments": '{"item": "latte"}'}


class InstantModel:
    """A client that answers at once, keeps nothing, and asks for the same call every turn: so a
    run's time is the loop's own work."""

    def __init__(self) -> None:
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, **request):
        # built as the SDK builds a reply from an endpoint's JSON, so chat() reads it as one
        from openai.types.chat import ChatCompletion

        call = {"id": None, "type": "function", "function": REPLY_CALL}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return ChatCompletion.construct(
            id="c",
            object="chat.completion",
            created=0,
            model="instant",
            choices=[{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        )


def loop_of(turns: int, runner=run_loop):
    """The call `growth` counts: `turns` turns of a model that asks for a tool every time."""

    def call():
        result = runner(InstantModel(), USER, [ADD], model="instant", max_turns=turns)
        assert len(result.turns) == turns

    return call


def test_run_loop_work_grows_linearly_with_the_turns():
    # 4x the turns may cost about 4x the steps; a transcript copied or re-read every turn is 16x
    assert grows_linearly(loop_of, 100)


def test_run_loop_copies_the_opening_messages_once_not_every_turn():
    messages = [{"role": "user", "content": "latte", "meta": {"nested": ["kept"]}}]
    result = run_loop(InstantModel(), messages, [ADD], model="instant", max_turns=3)
    assert (
        result.messages[0] == messages[0] and result.messages[0]["meta"] is not messages[0]["meta"]
    )
    assert messages == [{"role": "user", "content": "latte", "meta": {"nested": ["kept"]}}]
