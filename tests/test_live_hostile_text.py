"""What `chat()` hands back can be used again: its text encodes as UTF-8, its counts are counts,
and an error the endpoint sent with HTTP 200 is shown in its own words.

Three principles, each checked on replies Hypothesis generates and sent through the real `openai`
SDK (the `httpx.MockTransport` client of `test_live_hostile_replies`):

- the text of a reply (content, a tool call's id, name and arguments) can be encoded as UTF-8 and
  sent again: a lone surrogate, which JSON can spell (`"\\ud800"`) but UTF-8 cannot hold, becomes
  U+FFFD, and every other character is kept. The reference replaces by code point, one character
  at a time, after the JSON reader (which joins a high and a low surrogate into one character);
- a token count the course cannot use is unknown, not huge: `usage` is kept only when both counts
  are whole numbers (not true/false) from 0 up and their sum is at most 2**53, the largest count
  a trace holds; then a trace's own shape check accepts them;
- an `{"error": ...}` body sent with HTTP 200 (llama.cpp, vLLM, proxies) is an `http_error` that
  shows the endpoint's own message, scrubbed of the key and capped in length, not a "bad_body"
  that drops it.
"""

from __future__ import annotations

import json
import string
from typing import Any

import httpx
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_live_hostile_replies import KEY, MESSAGES, client_answering, outcome, reply_with

from cafe.endpoint.client import readable
from cafe.endpoint.client.chat import SAID_CHARS, LiveClient, chat, list_models
from cafe.endpoint.client.diagnosis import BadReply
from cafe.endpoint.errors import EndpointError
from cafe.loop import run_loop
from cafe.loop.dispatch import assistant_message
from cafe.loop.tools import tool
from cafe.loop.turns import ToolCall
from cafe.trace.attribute_shapes import MAX_COUNT, check_attributes
from cafe.trace.attributes import INPUT_TOKENS, OUTPUT_TOKENS

SURROGATES = range(0xD800, 0xE000)
CALM = reply_with({"role": "assistant", "content": "ok"})

# Text with a lone surrogate somewhere in it (and perhaps more of them, anywhere). Built from
# lists of characters: `st.text` never yields a surrogate, whatever alphabet it is given.
surrogate = st.characters(min_codepoint=SURROGATES.start, max_codepoint=SURROGATES.stop - 1)
any_char = st.one_of(st.characters(), surrogate)


def texts_of(chars: Any, max_size: int) -> Any:
    return st.lists(chars, max_size=max_size).map("".join)


broken_text = st.tuples(texts_of(any_char, 8), surrogate, texts_of(any_char, 8)).map("".join)


def as_read(sent: str) -> str:
    """What the endpoint's JSON string `sent` should read as: each surrogate left after JSON's
    reader pairs them, one by one, as U+FFFD."""
    received = json.loads(json.dumps(sent))
    return "".join("\ufffd" if ord(c) in SURROGATES else c for c in received)


def sent_again(content: str | None, calls: list[Any]) -> None:
    """Send the reply back as the transcript's next message, as the agent loop does; the SDK
    encodes the request as UTF-8, so a surrogate left in would raise `UnicodeEncodeError`."""
    recorded = [ToolCall(c.id, c.function.name, {}, c.function.arguments) for c in calls]
    message = assistant_message(content, recorded)
    chat(client_answering(200, CALM), model="m", messages=[*MESSAGES, message])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=broken_text, as_parts=st.booleans())
def test_chat_replaces_each_lone_surrogate_in_the_content(content, as_parts):
    sent = [{"type": "text", "text": content}] if as_parts else content
    result = outcome(200, reply_with({"role": "assistant", "content": sent}))
    got = result.choices[0].message.content
    assert got == as_read(content)
    got.encode("utf-8")
    sent_again(got, [])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call_id=broken_text, name=broken_text, arguments=broken_text)
def test_chat_replaces_each_lone_surrogate_in_a_tool_call(call_id, name, arguments):
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    result = outcome(200, reply_with({"role": "assistant", "content": None, "tool_calls": [call]}))
    read = result.choices[0].message.tool_calls[0]
    assert (read.id, read.function.name, read.function.arguments) == (
        as_read(call_id),
        as_read(name),
        as_read(arguments),
    )
    sent_again(None, [read])


# JSON values whose texts, keys included, may hold lone surrogates.
loose_text = texts_of(any_char, 6)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), loose_text),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(loose_text, inner, max_size=3)
    ),
    max_leaves=6,
)


def cleaned(value: Any) -> Any:
    """The reference for decoded arguments: every text in `value`, keys too, as `as_read` reads
    it, walked with no help from the code under test."""
    if isinstance(value, str):
        return as_read(value)
    if isinstance(value, list):
        return [cleaned(item) for item in value]
    if isinstance(value, dict):
        return {cleaned(k): cleaned(v) for k, v in value.items()}
    return value


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, as_text=st.booleans())
def test_chat_makes_the_values_inside_a_calls_arguments_sendable(value, as_text):
    # Escaped in the arguments' own JSON (`json.dumps` writes "\\ud800"), a surrogate survives
    # the reply's reader and turns up only when the loop decodes the arguments for a tool.
    sent = {"v": value}
    arguments = json.dumps(sent) if as_text else sent
    call = {"id": "t1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    result = outcome(200, reply_with({"role": "assistant", "content": None, "tool_calls": [call]}))
    text = result.choices[0].message.tool_calls[0].function.arguments
    decoded = json.loads(text)
    assert decoded == cleaned(json.loads(json.dumps(sent)))
    json.dumps(decoded, ensure_ascii=False).encode("utf-8")
    if as_text and decoded == json.loads(arguments):  # nothing to replace: the text as it came
        assert text == arguments


def test_a_tool_given_an_escaped_surrogate_does_not_stop_the_loop():
    # The red team's session-14 crash, through the loop: the tool's result quotes its argument,
    # and the next request carries it.
    escaped = '{"text": "\\ud800"}'
    call = {"id": "t1", "type": "function", "function": {"name": "echo", "arguments": escaped}}
    replies = [
        reply_with({"role": "assistant", "content": None, "tool_calls": [call]}),
        reply_with({"role": "assistant", "content": "done"}),
    ]
    said: list[str] = []

    def echo(text: str) -> str:
        """Say it back."""
        said.append(text)
        return f"you said {text}"

    def answer(request: httpx.Request) -> httpx.Response:
        body = replies[min(len(said), 1)]
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    sdk = openai.OpenAI(
        base_url="http://127.0.0.1:9/v1",
        api_key=KEY,
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(answer)),
    )
    client = LiveClient(sdk, reply_cap=16, timeout=10.0)
    result = run_loop(client, MESSAGES, [tool(echo)], model="m", max_turns=3)
    assert said == ["\ufffd"] and result.text == "done"


def test_chat_keeps_a_pair_of_surrogates_json_joins_into_one_character():
    result = outcome(200, reply_with({"role": "assistant", "content": "cup \ud83c\udf75"}))
    assert result.choices[0].message.content == "cup \N{TEACUP WITHOUT HANDLE}"


# --- usage counts -----------------------------------------------------------------------------

# Counts as JSON carries them. Not true/false, 3.0 or "3": the SDK reads a usage record whose
# fields all convert (pydantic's lax mode) as whole numbers before the course sees it, and one
# whose fields do not is handed over as sent, where `_count` refuses them (see the docstring of
# `cafe.endpoint.client.readable`).
count = st.one_of(
    st.integers(min_value=-5, max_value=10**40),
    st.integers(min_value=MAX_COUNT - 3, max_value=MAX_COUNT + 3),
    st.integers(min_value=0, max_value=10**6),
    st.floats().filter(lambda x: not x.is_integer()),
    st.sampled_from([None, "many", [1]]),
)


def usable(prompt: Any, reply: Any) -> bool:
    """The principle, stated on its own: whole numbers, zero or more, adding up to 2**53 at most."""
    whole = type(prompt) is int and type(reply) is int
    return whole and prompt >= 0 and reply >= 0 and prompt + reply <= 2**53


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prompt=count, reply=count)
def test_chat_reads_a_count_it_cannot_use_as_unknown(prompt, reply):
    usage = {"prompt_tokens": prompt, "completion_tokens": reply, "total_tokens": 1}
    result = outcome(200, reply_with({"role": "assistant", "content": "hi"}, usage))
    if not usable(prompt, reply):
        assert result.usage is None
        return
    kept = result.usage
    assert (kept.prompt_tokens, kept.completion_tokens, kept.total_tokens) == (
        prompt,
        reply,
        prompt + reply,
    )
    check_attributes({INPUT_TOKENS: kept.prompt_tokens, OUTPUT_TOKENS: kept.completion_tokens})


def test_the_clients_count_cap_is_the_traces():
    assert readable.MAX_COUNT == MAX_COUNT == 2**53


# --- an error sent with HTTP 200 --------------------------------------------------------------

# Plain words (no `=`, `-` or `:`, so nothing in them is shaped like a credential the scrubber
# would mask), with room around them.
words = st.text(st.sampled_from(string.ascii_letters + string.digits + " .,'!?()"), max_size=80)
said = words.filter(lambda text: text.strip(" .") != "")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=said, as_object=st.booleans(), key_at=st.none() | st.integers(0, 80))
def test_chat_shows_the_endpoints_own_words_for_an_error_sent_with_200(message, as_object, key_at):
    if key_at is not None:  # the endpoint echoes the key somewhere in its message
        message = f"{message[:key_at]} {KEY} {message[key_at:]}"
    error = {"message": message, "type": "server_error", "code": 503} if as_object else message
    result = outcome(200, json.dumps({"error": error}).encode())
    assert isinstance(result, EndpointError)
    assert (result.kind, result.status) == ("http_error", 200)
    shown = str(result)
    assert KEY not in shown and KEY[3:15] not in shown
    for part in message.split(KEY):  # the words themselves, as sent, around the masked key
        assert part.strip(" .") in shown
    assert "cafe doctor" in shown and "not a chat completion" not in shown


def test_chat_caps_a_long_error_sent_with_200():
    result = outcome(200, json.dumps({"error": {"message": "overloaded " * 1000}}).encode())
    assert result.kind == "http_error" and len(str(result)) < SAID_CHARS + 300


def test_chat_shows_an_error_object_without_a_message_as_it_came():
    result = outcome(200, json.dumps({"error": {"code": 503, "type": "loading"}}).encode())
    assert result.kind == "http_error" and '"type": "loading"' in str(result)


def test_list_models_names_an_error_sent_with_200():
    client = client_answering(200, json.dumps({"error": {"message": "no models yet"}}).encode())
    with pytest.raises(BadReply) as caught:
        list_models(client, 5)
    assert (caught.value.kind, caught.value.status, caught.value.said) == (
        "http_error",
        200,
        "no models yet",
    )


# --- a number longer than Python reads ---------------------------------------------------------


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    digits=st.integers(min_value=4_301, max_value=9_000),
    field=st.sampled_from(["created", "index", "prompt_tokens", "content"]),
)
def test_chat_names_a_number_too_long_to_read(digits, field):
    body = reply_with({"role": "assistant", "content": 0}, {"prompt_tokens": 0}).decode()
    spot = {"created": '"created": 0', "index": '"index": 0', "content": '"content": 0'}
    place = spot.get(field, '"prompt_tokens": 0')
    body = body.replace(place, place[:-1] + "9" * digits)
    result = outcome(200, body.encode())
    assert isinstance(result, EndpointError) and result.kind == "bad_body"
    assert "too long to read" in str(result)
