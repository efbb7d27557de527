"""The agent loop against tool calls of any shape (red team L, item 8): `decode_calls` never
raises, and `run_loop` ends every run on a named stop with each call answered in the transcript.

The shapes are generated: `tool_calls` as a list, a string, a number or a dict; each call as the
SDK's record (attributes) or a dict, with or without an id or a function, a name that is missing,
empty or not text, and arguments as JSON text, broken text, an object, a list or a number.
`decode_calls` is checked on every shape; `run_loop` on the JSON shapes, built into a completion
as the SDK builds one from an endpoint's body, so they pass through `chat` first."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.errors import EndpointError
from cafe.loop import RUN_STOP_REASONS, decode_calls, run_loop, tool

USER = [{"role": "user", "content": "One latte, please."}]


def add_item(item: str, quantity: int = 1) -> str:
    """Add an item to the ticket."""
    return f"added {quantity} x {item}"


ADD = tool(add_item)

MISSING = object()  # a field the call does not have at all

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.one_of(
    st.just(MISSING),
    json_values,
    json_values.map(json.dumps),
    st.dictionaries(st.sampled_from(["item", "quantity", "x"]), json_values, max_size=3).map(
        json.dumps
    ),
    st.sampled_from(
        ["{not json", "[1, 2]", "", "null", "[" * 5000 + "]" * 5000, '{"item": "latte"}']
    ),
)
names = st.one_of(st.just(MISSING), st.sampled_from(["add_item", "refund", ""]), scalars)
ids = st.one_of(st.just(MISSING), st.sampled_from(["t1", "call_1_0", ""]), st.integers(), st.none())


def _shaped(fields: dict[str, Any], as_dict: bool) -> Any:
    """`fields` (without the missing ones) as a dict, or as a record with attributes."""
    present = {k: v for k, v in fields.items() if v is not MISSING}
    return present if as_dict else SimpleNamespace(**present)


@st.composite
def calls(draw: st.DrawFn, as_dict: bool | None = None) -> Any:
    """One call, as a dict or (unless `as_dict`) as a record with attributes."""
    as_dict = draw(st.booleans()) if as_dict is None else as_dict
    function: Any = draw(
        st.one_of(
            st.just(MISSING),
            scalars,
            st.builds(lambda n, a: _shaped({"name": n, "arguments": a}, as_dict), names, arguments),
        )
    )
    return _shaped({"id": draw(ids), "type": "function", "function": function}, as_dict)


tool_call_lists = st.one_of(
    st.none(),
    scalars,
    st.dictionaries(st.text(max_size=4), scalars, max_size=2),
    st.lists(calls(), max_size=4),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_call_lists)
def test_decode_calls_answers_every_call_shape_without_raising(listed):
    calls_, errors = decode_calls(SimpleNamespace(content=None, tool_calls=listed), turn=1)
    ids_ = [c.id for c in calls_]
    assert len(set(ids_)) == len(ids_) and all(isinstance(i, str) and i for i in ids_)
    assert {e.call_id for e in errors} <= set(ids_) and all(not e.ok for e in errors)
    broken = {e.call_id for e in errors}
    for call in calls_:
        assert isinstance(call.name, str) and isinstance(call.raw_arguments, str)
        if call.id not in broken:  # a call that runs has a name and an object of arguments
            assert call.name and isinstance(call.arguments, dict)
    if listed is not None and not isinstance(listed, list):
        assert len(errors) == 1 and "must be a list of calls" in errors[0].output


def _completion(message: dict[str, Any]) -> Any:
    """A completion built as the SDK builds one from an endpoint's JSON: without validating it."""
    from openai.types.chat import ChatCompletion

    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}
    body = {"id": "c", "object": "chat.completion", "created": 0, "model": "odd"}
    return ChatCompletion.construct(**body, choices=[choice])


class OneOddReply:
    """A model whose first reply holds `listed` as its tool calls, then says it is done."""

    def __init__(self, listed: Any) -> None:
        self.listed, self.asked = listed, 0
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, **request: Any) -> Any:
        self.asked += 1
        if self.asked > 1:
            return _completion({"content": "done"})
        return _completion({"content": None, "tool_calls": self.listed})


json_tool_call_lists = st.one_of(
    st.none(),
    scalars,
    st.dictionaries(st.text(max_size=4), scalars, max_size=2),
    st.lists(calls(as_dict=True), max_size=4),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_tool_call_lists)
def test_run_loop_ends_on_a_named_stop_and_answers_every_call_whatever_its_shape(listed):
    """Through the one door (`chat`), a reply the endpoint garbled may be a named `EndpointError`
    (the endpoint's failure, not the model's); otherwise the run ends on one of the loop's stops
    with every call answered once, in order: a transcript an endpoint accepts."""
    try:
        result = run_loop(OneOddReply(listed), USER, [ADD], model="odd", max_turns=3)
    except EndpointError as exc:
        assert exc.kind == "bad_body" and "tool" in str(exc)
        return
    assert result.stop_reason in RUN_STOP_REASONS
    asked = [
        c["id"]
        for m in result.messages
        if m["role"] == "assistant"
        for c in m.get("tool_calls", [])
    ]
    answered = [m["tool_call_id"] for m in result.messages if m["role"] == "tool"]
    assert asked == answered


def test_arguments_sent_as_an_object_run_the_tool():
    listed = [{"id": "t1", "function": {"name": "add_item", "arguments": {"item": "latte"}}}]
    result = run_loop(OneOddReply(listed), USER, [ADD], model="odd", max_turns=3)
    assert result.stop_reason == "done"
    assert (
        result.turns[0].dispatch[0].ok and result.turns[0].dispatch[0].output == "added 1 x latte"
    )
    calls_, errors = decode_calls(SimpleNamespace(tool_calls=listed), turn=1)
    assert calls_[0].arguments == {"item": "latte"} and errors == []  # and without the client


def test_tool_calls_as_text_is_one_error_the_model_reads():
    calls_, errors = decode_calls(SimpleNamespace(content=None, tool_calls="oops"), turn=2)
    assert [c.id for c in calls_] == ["call_2_0"] == [e.call_id for e in errors]
    assert "must be a list of calls" in errors[0].output and "oops" in errors[0].output


def test_a_call_with_no_function_is_an_error_naming_what_is_missing():
    calls_, errors = decode_calls(SimpleNamespace(tool_calls=[{"id": "t1", "type": "function"}]), 1)
    (error,) = errors
    assert not error.ok and "has no tool name" in error.output and error.call_id == "t1"


def test_two_calls_with_one_id_each_get_their_own_result():
    listed = [
        {"id": "t1", "function": {"name": "add_item", "arguments": '{"item": "latte"}'}},
        {"id": "t1", "function": {"name": "add_item", "arguments": "{not json"}},
    ]
    result = run_loop(OneOddReply(listed), USER, [ADD], model="odd", max_turns=3)
    first, second = result.turns[0].dispatch
    assert first.ok and first.call_id == "t1"
    assert not second.ok and second.call_id != "t1" and "not a JSON object" in second.output
