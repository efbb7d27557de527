"""Whatever a live endpoint sends, `chat()` hands back a reply the course can read, or a named error.

The principle, checked on bodies Hypothesis generates: whatever an endpoint sends, `chat()` either
returns a reply in which `choices[0].message` exists, `content` is a str or None, `tool_calls` is
None or a list of calls each with a str id, a str function name and str arguments, and the usage
counts are non-negative ints (or `usage` is None); or it raises `EndpointError` with a kind and a
message that says what came back and how to fix it. And no `EndpointError` text, attribute or
repr ever holds the key, whatever field of the reply (error message, `param`, `code`, `type`,
headers such as Retry-After) carried it.

The bodies go through the real `openai` SDK, talking to an `httpx.MockTransport` instead of a
socket: the SDK parses exactly what it would parse off the wire, and a hundred bodies take a
second rather than a server each. The worked cases below are the red team's (redteamL) items.
"""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.chat import LiveClient, chat
from cafe.endpoint.client.problems import PROBLEM_KINDS
from cafe.endpoint.errors import EndpointError

KEY = "sk-hostile-0123456789abcdef"
URL = "http://127.0.0.1:9/v1"
MESSAGES = [{"role": "user", "content": "A latte, please."}]


def client_answering(status: int, body: bytes, headers: dict[str, str] | None = None) -> Any:
    """A live client whose every request is answered with `status`, `body` and `headers`."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            status, content=body, headers={"content-type": "application/json", **(headers or {})}
        )

    sdk = openai.OpenAI(
        base_url=URL,
        api_key=KEY,
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(answer)),
    )
    return LiveClient(sdk, reply_cap=64, timeout=10.0)


def outcome(status: int, body: bytes, headers: dict[str, str] | None = None) -> Any:
    """The completion `chat()` returned, or the `EndpointError` it raised."""
    try:
        return chat(client_answering(status, body, headers), model="m", messages=MESSAGES)
    except EndpointError as error:
        return error


def assert_readable_or_named(result: Any) -> None:
    """The principle of the module docstring, for one result of `chat()`."""
    if isinstance(result, EndpointError):
        assert result.kind in PROBLEM_KINDS
        assert "cafe doctor" in str(result) or result.kind == "rejected"
        seen = [
            str(result),
            repr(result),
            *map(repr, vars(result).values()),
            *map(str, result.args),
        ]
        assert not any(KEY in text or KEY[3:15] in text for text in seen), seen
        assert result.__context__ is None and result.__cause__ is None
        return
    message = result.choices[0].message
    assert message.content is None or isinstance(message.content, str)
    calls = message.tool_calls
    assert calls is None or isinstance(calls, list)
    for call in calls or []:
        assert isinstance(call.id, str)
        assert isinstance(call.function.name, str)
        assert isinstance(call.function.arguments, str)
    usage = result.usage
    if usage is not None:
        for count in (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens):
            assert isinstance(count, int) and not isinstance(count, bool) and count >= 0


# --- generated hostile bodies ---------------------------------------------------------------

# Anything JSON can hold, the key among the texts (an endpoint may echo it anywhere).
texts = st.one_of(st.text(max_size=20), st.just(KEY), st.just("text"))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)
anything = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=8,
)


def maybe(strategy: Any) -> Any:
    """A value from `strategy`, or anything at all: where a hostile endpoint strays."""
    return st.one_of(strategy, anything)


calls = st.fixed_dictionaries(
    {
        "id": maybe(texts),
        "type": maybe(st.just("function")),
        "function": maybe(
            st.fixed_dictionaries(
                {"name": maybe(texts), "arguments": maybe(st.just('{"item": "latte"}'))}
            )
        ),
    }
)
parts = st.fixed_dictionaries({"type": maybe(st.just("text")), "text": maybe(texts)})
messages = st.fixed_dictionaries(
    {
        "role": maybe(st.just("assistant")),
        "content": maybe(st.one_of(texts, st.lists(parts, max_size=3))),
        "tool_calls": maybe(st.one_of(st.none(), st.lists(calls, max_size=3))),
    }
)
counts = maybe(st.integers(min_value=0, max_value=10**6))
completions = st.fixed_dictionaries(
    {
        "id": maybe(texts),
        "object": st.just("chat.completion"),
        "created": maybe(st.just(0)),
        "model": maybe(texts),
        "choices": maybe(
            st.lists(
                maybe(
                    st.fixed_dictionaries(
                        {"index": st.just(0), "message": maybe(messages), "finish_reason": texts}
                    )
                ),
                max_size=2,
            )
        ),
        "usage": maybe(
            st.fixed_dictionaries(
                {"prompt_tokens": counts, "completion_tokens": counts, "total_tokens": counts}
            )
        ),
    }
)
errors = st.fixed_dictionaries(
    {"message": maybe(texts), "param": maybe(texts), "code": maybe(texts), "type": maybe(texts)}
)


def encoded(value: Any) -> bytes:
    """`value` as the JSON an endpoint sends (NaN and Infinity included, as Python writes them)."""
    return json.dumps(value).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=completions)
def test_chat_reads_any_completion_body_or_names_it(body):
    assert_readable_or_named(outcome(200, encoded(body)))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    status=st.sampled_from([400, 401, 404, 422, 429, 500, 503]),
    error=errors,
    retry_after=st.one_of(st.none(), texts.filter(lambda t: t.isprintable() and t.isascii())),
)
def test_chat_error_replies_never_carry_the_key(status, error, retry_after):
    headers = {} if retry_after is None else {"retry-after": retry_after}
    result = outcome(status, encoded({"error": error}), headers)
    assert isinstance(result, EndpointError)
    assert_readable_or_named(result)


@settings(max_examples=60, deadline=None)
@given(body=st.binary(max_size=200))
def test_chat_names_any_body_of_raw_bytes(body):
    assert_readable_or_named(outcome(200, body))


# --- the red team's cases, one by one -------------------------------------------------------


def reply_with(message: dict[str, Any], usage: Any = None) -> bytes:
    return encoded(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }
    )


def test_chat_keeps_the_key_out_of_a_refusals_param():
    result = outcome(400, encoded({"error": {"message": "bad", "param": KEY}}))
    assert isinstance(result, EndpointError) and result.kind == "rejected"
    assert_readable_or_named(result)


def test_chat_keeps_the_key_out_of_a_retry_after():
    result = outcome(429, encoded({"error": {"message": "slow down"}}), {"retry-after": KEY})
    assert result.kind == "rate_limited"
    assert "not a number of seconds" in str(result)
    assert_readable_or_named(result)


@pytest.mark.parametrize(
    "header", ["-5", "NaN", "inf", "Wed, 21 Oct 2015 07:28:00 GMT", "1\x1b[2Jx"]
)
def test_chat_says_a_retry_after_that_is_not_seconds_could_not_be_read(header):
    result = outcome(429, encoded({"error": {"message": "slow down"}}), {"retry-after": header})
    assert "not a number of seconds" in str(result) and header not in str(result)


def test_chat_shows_a_retry_after_in_seconds():
    result = outcome(429, encoded({"error": {"message": "slow down"}}), {"retry-after": "7"})
    assert "it asks us to wait 7 s" in str(result)


def test_chat_names_a_body_that_is_not_utf8():
    text = reply_with({"role": "assistant", "content": "café crème"}).decode()
    body = json.dumps(json.loads(text), ensure_ascii=False).encode("latin-1")
    result = outcome(200, body)
    assert isinstance(result, EndpointError) and result.kind == "bad_body"
    assert "not UTF-8" in str(result)


def test_chat_names_json_nested_too_deeply():
    result = outcome(200, b"[" * 100_000 + b"]" * 100_000)
    assert isinstance(result, EndpointError) and result.kind == "bad_body"


@pytest.mark.parametrize("choices", [["a", 3], [{"index": 0, "message": None}]])
def test_chat_names_a_first_choice_it_cannot_read(choices):
    body = encoded({"id": "c", "object": "chat.completion", "created": 0, "choices": choices})
    result = outcome(200, body)
    assert isinstance(result, EndpointError) and "choices[0]" in str(result)


def test_chat_joins_content_sent_as_text_parts():
    parts = [{"type": "text", "text": '{"table": 3, '}, {"type": "text", "text": '"items": []}'}]
    result = outcome(200, reply_with({"role": "assistant", "content": parts}))
    assert result.choices[0].message.content == '{"table": 3, "items": []}'


@pytest.mark.parametrize(
    "content", [42, {"table": 3}, math.nan, [{"type": "image_url", "image_url": {}}]]
)
def test_chat_names_content_that_is_not_text(content):
    result = outcome(200, reply_with({"role": "assistant", "content": content}))
    assert isinstance(result, EndpointError) and "content" in str(result)


@pytest.mark.parametrize(
    "usage",
    [{"prompt_tokens": None, "completion_tokens": None}, [1, 2], {"prompt_tokens": -5}],
)
def test_chat_reads_usage_it_cannot_count_as_not_reported(usage):
    result = outcome(200, reply_with({"role": "assistant", "content": "hi"}, usage))
    assert result.usage is None


def test_chat_recomputes_a_wrong_total():
    usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": "lots"}
    result = outcome(200, reply_with({"role": "assistant", "content": "hi"}, usage))
    assert (result.usage.prompt_tokens, result.usage.total_tokens) == (3, 7)


def test_chat_writes_arguments_sent_as_an_object_as_json_text():
    call = {"id": "t1", "type": "function", "function": {"name": "add", "arguments": {"a": 1}}}
    result = outcome(200, reply_with({"role": "assistant", "content": None, "tool_calls": [call]}))
    assert json.loads(result.choices[0].message.tool_calls[0].function.arguments) == {"a": 1}


def test_chat_gives_a_call_without_an_id_its_place():
    call = {"type": "function", "function": {"name": "add", "arguments": "{}"}}
    result = outcome(200, reply_with({"role": "assistant", "content": None, "tool_calls": [call]}))
    assert result.choices[0].message.tool_calls[0].id == "call_0"


@pytest.mark.parametrize(
    "tool_calls",
    ["oops", [{"id": "t1", "type": "function"}], [{"id": "t1", "function": {"name": None}}]],
)
def test_chat_names_tool_calls_it_cannot_read(tool_calls):
    result = outcome(
        200, reply_with({"role": "assistant", "content": None, "tool_calls": tool_calls})
    )
    assert isinstance(result, EndpointError) and "tool" in str(result)


def test_chat_returns_a_well_formed_completion_as_it_is():
    body = reply_with(
        {"role": "assistant", "content": "hi"},
        {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    )
    result = outcome(200, body)
    assert result.choices[0].message.content == "hi" and result.usage.total_tokens == 3
