"""cafe.trace.calls: one model call as GenAI-convention attributes, strings masked on the way in."""

from __future__ import annotations

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.trace.calls import (
    call_attributes,
    chat_attributes,
    generator_attributes,
    input_messages,
    provider_of,
    reply_of,
    request_attributes,
)
from cafe.trace.spans import REDACTED, Scrubber

TRANSCRIPT = [
    {"role": "system", "content": "You take orders."},
    {"role": "user", "content": "A latte. My key is sk-abcdefghijklmnop"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "look_up", "arguments": '{"item":"latte"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "latte: €4.20"},
]


def test_input_messages_are_role_and_parts_with_raw_tool_arguments():
    converted = input_messages(TRANSCRIPT, Scrubber())
    assert converted[0] == {
        "role": "system",
        "parts": [{"type": "text", "content": "You take orders."}],
    }
    assert converted[2] == {
        "role": "assistant",
        "parts": [
            {
                "type": "tool_call",
                "id": "call_1",
                "name": "look_up",
                "arguments": '{"item":"latte"}',
            }
        ],
    }
    assert converted[3] == {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_1", "response": "latte: €4.20"}],
    }


def test_input_messages_mask_credentials_and_convert_each_message_once():
    clean = Scrubber()
    first, second = (
        input_messages(TRANSCRIPT, clean),
        input_messages([dict(m) for m in TRANSCRIPT], clean),
    )
    assert first[1]["parts"][0]["content"] == f"A latte. My key is {REDACTED}"
    assert all(
        a is b for a, b in zip(first, second)
    )  # the same message is converted once per recorder


def test_request_attributes_name_model_shape_tools_and_messages():
    request = {
        "model": "m1",
        "messages": TRANSCRIPT[:2],
        "temperature": 0,
        "response_format": {"type": "json_object"},
        "tools": [{"type": "function", "function": {"name": "look_up", "parameters": {}}}],
    }
    attributes = request_attributes(request, Scrubber())
    assert (
        attributes["gen_ai.operation.name"] == "chat" and attributes["gen_ai.request.model"] == "m1"
    )
    assert (
        attributes["gen_ai.output.type"] == "json"
        and attributes["cafe.request.format"] == "json_object"
    )
    assert (
        attributes["cafe.request.tools"] == ["look_up"]
        and attributes["gen_ai.request.temperature"] == 0
    )


def test_chat_attributes_read_the_completion_and_its_usage():
    client = make_client(["Done."])
    completion = client.chat.completions.create(model="m1", messages=TRANSCRIPT[:2])
    attributes = chat_attributes(
        {"model": "m1", "messages": TRANSCRIPT[:2]}, completion, "cafe.scripted", Scrubber()
    )
    assert attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert attributes["gen_ai.output.messages"] == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "Done."}],
            "finish_reason": "stop",
        }
    ]
    assert attributes["gen_ai.usage.input_tokens"] == completion.usage.prompt_tokens


def test_reply_of_keeps_plain_values_that_build_the_same_attributes_as_the_completion():
    client = make_client(
        [
            {
                "content": "Checking.",
                "tool_calls": [{"name": "look_up", "arguments": {"item": "latte"}}],
            }
        ]
    )
    completion = client.chat.completions.create(model="m1", messages=TRANSCRIPT[:2])
    reply = reply_of(completion)
    assert reply is not None and reply[:3] == (
        completion.model,
        completion.id,
        (completion.usage.prompt_tokens, completion.usage.completion_tokens),
    )
    attributes = call_attributes(
        {"model": "m1", "messages": TRANSCRIPT[:2]}, reply, "cafe.scripted", Scrubber()
    )
    assert attributes["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert attributes["gen_ai.output.messages"] == [
        {
            "role": "assistant",
            "finish_reason": "tool_calls",
            "parts": [
                {"type": "text", "content": "Checking."},
                {
                    "type": "tool_call",
                    "id": completion.choices[0].message.tool_calls[0].id,
                    "name": "look_up",
                    "arguments": '{"item": "latte"}',
                },
            ],
        }
    ]
    assert reply_of(None) is None


def test_chat_attributes_of_a_failed_call_hold_the_request_only():
    attributes = chat_attributes({"model": "m1", "messages": []}, None, "openai", Scrubber())
    assert (
        "gen_ai.output.messages" not in attributes
        and attributes["gen_ai.provider.name"] == "openai"
    )


def test_generator_attributes_of_a_bare_generator_name_it_and_its_draft():
    attributes = generator_attributes(lambda messages: "{}", TRANSCRIPT[:2], "{}", Scrubber())
    assert (
        attributes["gen_ai.request.model"] == "scripted"
        and attributes["gen_ai.provider.name"] == "cafe.scripted"
    )
    assert attributes["gen_ai.output.messages"][0]["parts"][0]["content"] == "{}"


def test_provider_of_tells_scripted_from_live():
    import openai

    assert provider_of(ScriptedClient()) == "cafe.scripted"
    assert provider_of(openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k")) == "openai"


def test_error_attributes_http_refusal_keeps_status_field_and_masked_message():
    from cafe.endpoint.errors import RequestRejected
    from cafe.trace.calls import error_attributes

    refusal = RequestRejected(
        "response_format json_schema is not supported (key sk-abcdefghijklmnop)",
        status=400,
        param="response_format",
    )
    attributes = error_attributes(refusal, Scrubber())
    assert attributes["error.type"] == "400" and attributes["http.response.status_code"] == 400
    assert attributes["cafe.error.param"] == "response_format"
    assert "sk-abcdefghijklmnop" not in attributes["cafe.error.message"]
    assert error_attributes(TimeoutError("no answer"), Scrubber())["error.type"] == "TimeoutError"
