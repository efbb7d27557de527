"""Tests for cafe/endpoint/client/scripted.py: the offline model, its scripts, and the payloads it shares with `cafe serve`."""

from __future__ import annotations

import json
import threading

import pytest
from openai.types.chat import ChatCompletion

from cafe.endpoint.client.scripted import (
    Script,
    ScriptedClient,
    completion_payload,
    default_responder,
    estimate_tokens,
    minimal_instance,
)
from cafe.endpoint.errors import ScriptExhausted
from work import grows_linearly

MODEL = "cafe-scripted"
HELLO = [{"role": "user", "content": "Hello!"}]
ADD_ITEM = {
    "type": "function",
    "function": {
        "name": "add_item",
        "parameters": {
            "type": "object",
            "properties": {"item": {"type": "string"}},
            "required": ["item"],
        },
    },
}
REMOVE_ITEM = {
    "type": "function",
    "function": {"name": "remove_item", "parameters": {"type": "object"}},
}


def ask(client: ScriptedClient, **kwargs) -> ChatCompletion:
    return client.chat.completions.create(model=MODEL, messages=HELLO, **kwargs)


# --- a queue of replies ---------------------------------------------------------------------


def test_scripted_client_answers_a_queue_in_order():
    client = ScriptedClient(["first", "second"])
    assert ask(client).choices[0].message.content == "first"
    assert ask(client).choices[0].message.content == "second"


def test_scripted_client_returns_the_real_sdk_type():
    assert isinstance(ask(ScriptedClient(["hi"])), ChatCompletion)


def test_script_exhausted_says_how_many_and_what_to_do():
    client = ScriptedClient(["only one"])
    ask(client)
    with pytest.raises(ScriptExhausted) as caught:
        ask(client)
    message = str(caught.value)
    assert "all 1 of its replies" in message
    assert "cycle=True" in message


def test_script_cycle_repeats_the_queue():
    client = ScriptedClient(Script(["a", "b"], cycle=True))
    assert [ask(client).choices[0].message.content for _ in range(5)] == ["a", "b", "a", "b", "a"]


def test_scripted_tool_call_reply_becomes_sdk_tool_calls():
    client = ScriptedClient(
        [{"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}]
    )
    choice = ask(client, tools=[ADD_ITEM]).choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    (call,) = choice.message.tool_calls
    assert call.function.name == "add_item"
    assert json.loads(call.function.arguments) == {"item": "latte"}


def test_script_ids_are_deterministic():
    client = ScriptedClient([{"tool_calls": [{"name": "add_item"}]}, "done"])
    first, second = ask(client, tools=[ADD_ITEM]), ask(client)
    assert (first.id, second.id) == ("chatcmpl-scripted-1", "chatcmpl-scripted-2")
    assert first.choices[0].message.tool_calls[0].id == "call_1_0"


def test_script_shared_between_threads_serves_each_reply_once():
    replies = [f"reply {i}" for i in range(40)]
    script = Script(replies)
    seen: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(10):
            content = script.reply_to({"messages": HELLO})["content"]
            with lock:
                seen.append(content)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == sorted(replies)


# --- a responder function -------------------------------------------------------------------


def test_scripted_client_calls_a_responder_function_with_the_request():
    client = ScriptedClient(lambda request: f"you said {request['messages'][-1]['content']}")
    assert ask(client).choices[0].message.content == "you said Hello!"


def test_scripted_client_records_calls_that_a_responder_cannot_change():
    def meddling(request: dict) -> str:
        request["model"] = "another"
        request["messages"] = [{"role": "user", "content": "injected"}]
        return "ok"

    messages = [{"role": "user", "content": "Hello!"}]
    client = ScriptedClient(meddling)
    client.chat.completions.create(model=MODEL, messages=messages, temperature=0)
    assert messages == [{"role": "user", "content": "Hello!"}]
    assert client.calls == [{"model": MODEL, "messages": messages, "temperature": 0}]


def test_a_responder_sees_the_messages_read_only():
    def appending(request: dict) -> str:
        request["messages"].append({"role": "user", "content": "injected"})
        return "ok"

    messages = [{"role": "user", "content": "Hello!"}]
    with pytest.raises(AttributeError, match="append"):
        ScriptedClient(appending).chat.completions.create(model=MODEL, messages=messages)
    assert messages == [{"role": "user", "content": "Hello!"}]


# --- the default responder ------------------------------------------------------------------


def test_default_responder_answers_plain_text():
    assert default_responder({"messages": HELLO}) == "Hello from the scripted café model."


def test_default_responder_calls_the_first_tool_with_minimal_arguments():
    reply = default_responder({"messages": HELLO, "tools": [ADD_ITEM, REMOVE_ITEM]})
    assert reply["tool_calls"] == [{"name": "add_item", "arguments": {"item": ""}}]


def test_default_responder_calls_the_tool_that_tool_choice_forces():
    reply = default_responder(
        {
            "messages": HELLO,
            "tools": [ADD_ITEM, REMOVE_ITEM],
            "tool_choice": {"type": "function", "function": {"name": "remove_item"}},
        }
    )
    assert reply["tool_calls"][0]["name"] == "remove_item"


def test_default_responder_answers_text_when_tool_choice_is_none():
    assert (
        default_responder({"messages": HELLO, "tools": [ADD_ITEM], "tool_choice": "none"})
        == "Hello from the scripted café model."
    )


def test_default_responder_answers_json_mode_with_an_object():
    assert json.loads(default_responder({"response_format": {"type": "json_object"}})) == {
        "ok": True
    }


def test_default_responder_fills_a_json_schema():
    schema = {
        "type": "object",
        "properties": {
            "drink": {"type": "string"},
            "size": {"enum": ["S", "M"]},
            "note": {"type": "string"},
        },
        "required": ["drink", "size"],
    }
    reply = default_responder(
        {"response_format": {"type": "json_schema", "json_schema": {"name": "t", "schema": schema}}}
    )
    assert json.loads(reply) == {"drink": "", "size": "S"}


def test_minimal_instance_follows_pydantic_refs():
    schema = {
        "$defs": {
            "Line": {
                "type": "object",
                "properties": {"qty": {"type": "integer", "minimum": 1}},
                "required": ["qty"],
            }
        },
        "type": "object",
        "properties": {
            "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}, "minItems": 1},
            "paid": {"type": "boolean"},
        },
        "required": ["lines", "paid"],
    }
    assert minimal_instance(schema) == {"lines": [{"qty": 1}], "paid": False}


# --- the SDK's interface --------------------------------------------------------------------


def test_scripted_create_rejects_unknown_keyword_arguments():
    with pytest.raises(TypeError, match="temprature"):
        ask(ScriptedClient(["hi"]), temprature=0)


@pytest.mark.parametrize("missing", ["model", "messages"])
def test_scripted_create_requires_model_and_messages(missing):
    kwargs = {"model": MODEL, "messages": HELLO}
    del kwargs[missing]
    with pytest.raises(TypeError, match=missing):
        ScriptedClient(["hi"]).chat.completions.create(**kwargs)


def test_scripted_create_refuses_to_stream():
    with pytest.raises(ValueError, match="stream"):
        ask(ScriptedClient(["hi"]), stream=True)


def test_scripted_models_list_shows_the_script_models():
    client = ScriptedClient(Script(["hi"], models=["cafe-small", "cafe-large"]))
    assert [model.id for model in client.models.list().data] == ["cafe-small", "cafe-large"]


# --- usage ----------------------------------------------------------------------------------


def test_usage_is_estimated_at_four_characters_a_token():
    reply = ask(ScriptedClient(["12345678"]))  # 8 characters of reply, "Hello!" is 6 of prompt
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (
        2,
        2,
        4,
    )


def test_usage_set_in_the_reply_wins_and_total_is_the_sum():
    reply = ask(
        ScriptedClient([{"content": "hi", "usage": {"prompt_tokens": 120, "completion_tokens": 7}}])
    )
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (
        120,
        7,
        127,
    )


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2)])
def test_estimate_tokens_rounds_up(text, tokens):
    assert estimate_tokens(text) == tokens


def test_completion_payload_has_the_openai_shape():
    reply = Script(["hi"]).reply_to({"messages": HELLO})
    payload = completion_payload(reply, model=MODEL, request={"messages": HELLO}, number=3)
    ChatCompletion.model_validate(payload)  # the SDK's own type accepts it
    assert payload["id"] == "chatcmpl-scripted-3" and payload["object"] == "chat.completion"


# --- building scripts -----------------------------------------------------------------------


def test_script_rejects_an_empty_list():
    with pytest.raises(ValueError, match="empty"):
        Script([])


def test_script_rejects_a_bare_string():
    with pytest.raises(TypeError, match="wrap a single reply in a list"):
        Script("hello")


def test_script_rejects_a_bad_reply_when_built_not_when_used():
    with pytest.raises(ValueError, match="text"):
        Script(["fine", {"text": "wrong key"}])


def test_script_from_file_reads_a_list(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(["one", {"content": "two"}]), encoding="utf-8")
    client = ScriptedClient(Script.from_file(path))
    assert [ask(client).choices[0].message.content for _ in range(2)] == ["one", "two"]


def test_script_from_file_reads_cycle_and_models(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps({"replies": ["x"], "cycle": True, "models": ["m1"]}), encoding="utf-8"
    )
    script = Script.from_file(path)
    assert script.models == ("m1",)
    assert [script.reply_to({})["content"] for _ in range(3)] == ["x", "x", "x"]


def test_script_from_file_missing_file_names_it(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        Script.from_file(tmp_path / "nope.json")


def test_script_from_file_bad_json_says_so(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("[not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        Script.from_file(path)


def test_default_responder_tool_choice_naming_an_unoffered_tool_is_a_clear_error():
    from cafe.endpoint.client.scripted import default_responder

    tools = [
        {"type": "function", "function": {"name": "add_item", "parameters": {"type": "object"}}}
    ]
    request = {"tools": tools, "tool_choice": {"type": "function", "function": {"name": "refund"}}}
    with pytest.raises(ValueError, match="'refund'.*only offers \\['add_item'\\]"):
        default_responder(request)


@pytest.mark.parametrize("models", [[], "gpt", ["ok", ""], [3]])
def test_script_models_must_be_a_non_empty_list_of_names(models):
    with pytest.raises(ValueError, match="non-empty list of model names"):
        Script(["hi"], models=models)


def test_script_from_file_that_is_a_folder_names_the_file(tmp_path):
    with pytest.raises(ValueError, match=f"Script file {tmp_path} could not be read"):
        Script.from_file(tmp_path)


def test_script_from_file_with_empty_models_is_refused(tmp_path):
    path = tmp_path / "script.json"
    path.write_text('{"replies": ["hi"], "models": []}')
    with pytest.raises(ValueError, match="non-empty list"):
        Script.from_file(path)


def test_offline_json_schema_request_without_a_schema_object_is_a_clear_error():
    client = ScriptedClient()
    with pytest.raises(ValueError, match='needs a "json_schema" object'):
        client.chat.completions.create(
            model="cafe-scripted", messages=HELLO, response_format={"type": "json_schema"}
        )


# --- linear in the length of the conversation ---------------------------------------------------


def _conversation(turns: int):
    """The call `growth` counts: `turns` turns of one growing conversation through the client."""

    def call():
        client = ScriptedClient(Script(["ok"], cycle=True))
        messages = [{"role": "user", "content": "A latte, please."}]
        for turn in range(turns):
            client.chat.completions.create(model=MODEL, messages=messages)
            messages.append({"role": "assistant", "content": "ok"})
            messages.append({"role": "user", "content": f"turn {turn}"})

    return call


def test_scripted_client_work_grows_linearly_with_the_turns():
    # quadratic (the whole conversation copied each turn) would be about 16 times;
    # benchmarks/scripted_turns.py times 10,000 turns
    assert grows_linearly(_conversation, 100)


def test_scripted_client_records_each_call_as_it_was_sent():
    client = ScriptedClient(Script(["ok"], cycle=True))
    messages = [{"role": "user", "content": "one"}]
    client.chat.completions.create(model=MODEL, messages=messages)
    messages.append({"role": "assistant", "content": "ok"})
    client.chat.completions.create(model=MODEL, messages=messages)
    assert [len(call["messages"]) for call in client.calls] == [1, 2]
    assert client.calls[0]["messages"] == [{"role": "user", "content": "one"}]


def test_popped_message_starts_a_new_log_and_leaves_the_record_alone():
    client = ScriptedClient(Script(["ok"], cycle=True))
    messages = [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]
    client.chat.completions.create(model=MODEL, messages=messages)
    messages.pop()
    messages.append({"role": "user", "content": "three"})
    reply = client.chat.completions.create(model=MODEL, messages=messages)
    assert client.calls[0]["messages"] == [
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
    ]
    assert client.calls[1]["messages"][-1] == {"role": "user", "content": "three"}
    assert reply.usage.prompt_tokens == 2  # "one" + "three": counted from the new log


def test_a_reply_longer_than_the_cap_is_cut_with_finish_reason_length():
    client = ScriptedClient(["word " * 50])
    reply = client.chat.completions.create(model=MODEL, messages=HELLO, max_tokens=5)
    assert reply.choices[0].message.content == "word word word word "
    assert reply.choices[0].finish_reason == "length" and reply.usage.completion_tokens == 5
