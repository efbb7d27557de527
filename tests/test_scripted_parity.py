"""Offline takes a request as live does: the responder gets a copy, and unsendable text is refused.

The principle: a request that live mode copies or refuses, offline mode copies or refuses the same
way, so a learner's code that works offline neither breaks nor behaves differently live. A real
endpoint only ever gets a serialized copy, so nothing a responder does to the request it is handed
may reach the caller's messages or tools (checked on generated requests and generated rewrites
against a deep copy taken before the call). And a lone surrogate, which the SDK cannot encode, is
the same named `ValueError` from `chat()` offline as live (checked on generated messages against
the live client through the real SDK, which counts the requests that reached it).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_client_surrogates import COUNTING, first_surrogate, message

from cafe.endpoint.client.chat import chat
from cafe.endpoint.client.scripted import Script, ScriptedClient
from work import grows_linearly

MODEL = "cafe-scripted"

# --- the responder gets a copy ----------------------------------------------------------------

name = st.text(st.characters(categories=["Ll"]), min_size=1, max_size=8)
schema = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer"])}),
    lambda inner: st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(name, inner, max_size=3)}
    ),
    max_leaves=4,
)
tool = st.fixed_dictionaries(
    {
        "type": st.just("function"),
        "function": st.fixed_dictionaries({"name": name, "parameters": schema}),
    }
)
text = st.text(max_size=12)
plain = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant"]), "content": text}
)
parts = st.fixed_dictionaries(
    {
        "role": st.just("user"),
        "content": st.lists(
            st.fixed_dictionaries({"type": st.just("text"), "text": text}), min_size=1, max_size=3
        ),
    }
)
messages = st.lists(plain | parts, min_size=1, max_size=5)
tools = st.lists(tool, max_size=3)

# What a responder may do to the request it is handed, each a change all the way down.
REWRITES = ("content", "parts", "new_key", "clear_message", "tool_name", "schema", "tools")


def rewrite(request: dict[str, Any], how: str, at: int) -> None:
    """Change `request` in place as `how` says, at message or tool `at` (wrapped to the length)."""
    message = request["messages"][at % len(request["messages"])]
    offered = request.get("tools") or []
    if how == "content":
        message["content"] = "rewritten"
    elif how == "parts" and isinstance(message.get("content"), list):
        message["content"][0]["text"] += "!"
        message["content"].append({"type": "text", "text": "more"})
    elif how == "new_key":
        message.setdefault("name", "responder")
    elif how == "clear_message":
        message.clear()
    elif how == "tool_name" and offered:
        offered[at % len(offered)]["function"]["name"] = "renamed"
    elif how == "schema" and offered:
        offered[at % len(offered)]["function"]["parameters"]["type"] = "null"
    elif how == "tools" and offered:
        offered.clear()


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    messages=messages,
    tools=tools,
    rewrites=st.lists(st.tuples(st.sampled_from(REWRITES), st.integers(0, 9)), max_size=4),
)
def test_a_responder_changes_neither_the_callers_request_nor_the_record(messages, tools, rewrites):
    sent = {"messages": copy.deepcopy(messages), "tools": copy.deepcopy(tools)}
    seen: list[bool] = []

    def responder(request: dict[str, Any]) -> str:
        seen.append(request["messages"] == sent["messages"] and request["tools"] == sent["tools"])
        for how, at in rewrites:
            rewrite(request, how, at)
        return "ok"

    client = ScriptedClient(responder)
    client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert seen == [True]  # the copy it was handed is the request, whole
    assert messages == sent["messages"] and tools == sent["tools"]
    assert client.calls[0]["messages"] == sent["messages"]
    assert client.calls[0]["tools"] == sent["tools"]
    messages.append({"role": "user", "content": "and again"})  # the same list, grown
    sent["messages"].append({"role": "user", "content": "and again"})
    client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert seen == [True, True]  # the next call's copy holds none of the last one's rewrites


def test_a_responder_rewriting_in_place_reads_its_own_rewrite_back():
    # a copy, not a fresh one per read: a responder that rewrites then reads sees its rewrite
    def responder(request: dict[str, Any]) -> str:
        request["messages"][-1]["content"] = request["messages"][-1]["content"].lower()
        return request["messages"][-1]["content"]

    said = [{"role": "user", "content": "A LATTE"}]
    reply = chat(ScriptedClient(responder), model=MODEL, messages=said)
    assert reply.choices[0].message.content == "a latte"
    assert said == [{"role": "user", "content": "A LATTE"}]


def _reading_the_last(turns: int):
    """The call `growth` counts: a responder that reads the last message of a growing list."""

    def call():
        client = ScriptedClient(lambda request: request["messages"][-1]["content"])
        messages = [{"role": "user", "content": "A latte, please."}]
        for turn in range(turns):
            client.chat.completions.create(model=MODEL, messages=messages)
            messages.append({"role": "assistant", "content": "ok"})
            messages.append({"role": "user", "content": f"turn {turn}"})

    return call


def test_a_responders_copy_costs_the_messages_it_reads_not_the_whole_transcript():
    # copying the whole transcript for every call would make a run quadratic (about 16 times)
    assert grows_linearly(_reading_the_last, 60)


# --- a lone surrogate is refused offline as live ------------------------------------------------


def _outcome(client: Any, messages: list[dict[str, Any]]) -> str:
    try:
        return chat(client, model="m", messages=messages).choices[0].message.content or ""
    except ValueError as exc:
        assert type(exc) is ValueError and exc.__context__ is None
        return f"refused: {exc}"


@settings(max_examples=50, deadline=None, derandomize=True)
@given(messages=st.lists(message, min_size=1, max_size=4))
def test_offline_refuses_a_lone_surrogate_with_live_s_words_and_records_nothing(messages):
    COUNTING.requests = 0
    live = _outcome(COUNTING.client, messages)
    client = ScriptedClient(Script(["ok"], cycle=True))
    offline = _outcome(client, messages)
    assert offline == live
    expected = first_surrogate(messages)
    if expected is None:
        assert offline == "ok" and len(client.calls) == 1
    else:
        assert f"{expected[0]} holds a lone surrogate" in offline and client.calls == []


@settings(max_examples=30, deadline=None, derandomize=True)
@given(before=st.lists(plain, min_size=1, max_size=4), late=st.lists(message, max_size=3))
def test_a_surrogate_in_a_message_added_later_is_refused_too(before, late):
    # the log checks each message as it enters; a grown list checks only what is new
    client = ScriptedClient(Script(["ok"], cycle=True))
    chat(client, model="m", messages=before)
    before += late
    COUNTING.requests = 0
    live = _outcome(COUNTING.client, before)
    assert _outcome(client, before) == live
    assert len(client.calls) == 1 + (first_surrogate(before) is None)


def test_offline_refuses_a_surrogate_in_a_tools_name_as_live():
    offered = [{"type": "function", "function": {"name": "menu\udfff", "parameters": {}}}]
    said = [{"role": "user", "content": "hi"}]
    with pytest.raises(ValueError, match=r"tools\[0\]\['function'\]\['name'\] holds") as live:
        chat(COUNTING.client, model="m", messages=said, tools=offered)
    client = ScriptedClient()
    with pytest.raises(ValueError) as offline:
        chat(client, model="m", messages=said, tools=offered)
    assert str(offline.value) == str(live.value) and client.calls == []


def test_create_itself_raises_the_sdks_error_naming_the_field():
    # as the SDK's own create() does, a UnicodeEncodeError; its reason says where
    said = [{"role": "user", "content": "ok"}, {"role": "user", "content": "café \ud83d"}]
    with pytest.raises(UnicodeEncodeError, match=r"messages\[1\]\['content'\] holds") as caught:
        ScriptedClient().chat.completions.create(model="m", messages=said)
    assert caught.value.start == 5
