"""A request with a lone surrogate in the caller's own text is a named `ValueError`, not a bare
`UnicodeEncodeError`, and nothing is sent.

The principle: `chat()` ends every bad input in a named error that says what and where. A lone
surrogate (U+D800 to U+DFFF) is text Python holds and UTF-8 cannot encode; the SDK encodes each
request as UTF-8, so before, `chat()` raised the SDK's `UnicodeEncodeError` ("position 52"). Checked
through the real `openai` SDK with an `httpx.MockTransport` that counts the requests it receives,
on generated messages with surrogates anywhere (or none) against a reference that walks the
messages in order and names the first text holding one.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.chat import LiveClient, chat

SURROGATES = range(0xD800, 0xE000)
REPLY = (
    b'{"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0,'
    b' "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}]}'
)

# Texts built from lists of characters: `st.text` never yields a surrogate.
surrogate = st.characters(min_codepoint=SURROGATES.start, max_codepoint=SURROGATES.stop - 1)
some_text = st.lists(st.one_of(st.characters(), surrogate), max_size=6).map("".join)
part = st.fixed_dictionaries({"type": st.just("text"), "text": some_text})
message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["system", "user", "assistant"]),
        "content": some_text | st.lists(part, min_size=1, max_size=3),
    },
    optional={"name": some_text},
)


class Counting:
    """A live client through the real SDK; `requests` counts what reached the transport."""

    def __init__(self) -> None:
        self.requests = 0

        def answer(request: httpx.Request) -> httpx.Response:
            self.requests += 1
            return httpx.Response(200, content=REPLY, headers={"content-type": "application/json"})

        sdk = openai.OpenAI(
            base_url="http://127.0.0.1:9/v1",
            api_key="sk-surrogate-0123456789",
            max_retries=0,
            http_client=httpx.Client(transport=httpx.MockTransport(answer)),
        )
        self.client = LiveClient(sdk, reply_cap=64, timeout=10.0)


COUNTING = Counting()  # one SDK client for every example (each costs tens of milliseconds)


def first_surrogate(messages: list[dict[str, Any]]) -> tuple[str, int] | None:
    """The reference: the first text holding a surrogate, in message order and each message's
    field order, written as a Python subscript, and the index of its first surrogate."""
    texts: list[tuple[str, str]] = []
    for i, m in enumerate(messages):
        for field, value in m.items():
            if isinstance(value, str):
                texts.append((f"messages[{i}]['{field}']", value))
            else:
                texts += [
                    (f"messages[{i}]['{field}'][{j}]['text']", p["text"])
                    for j, p in enumerate(value)
                ]
    for where, text in texts:
        hits = [k for k, c in enumerate(text) if 0xD800 <= ord(c) <= 0xDFFF]
        if hits:
            return where, hits[0]
    return None


@settings(max_examples=50, deadline=None, derandomize=True)
@given(messages=st.lists(message, min_size=1, max_size=4))
def test_chat_names_where_a_lone_surrogate_stands_and_sends_nothing(messages):
    counting = COUNTING
    counting.requests = 0
    expected = first_surrogate(messages)
    if expected is None:
        reply = chat(counting.client, model="m", messages=messages)
        assert reply.choices[0].message.content == "ok" and counting.requests == 1
        return
    with pytest.raises(ValueError) as caught:
        chat(counting.client, model="m", messages=messages)
    where, index = expected
    assert type(caught.value) is ValueError  # not the SDK's UnicodeEncodeError
    assert f"{where} holds a lone surrogate" in str(caught.value)
    assert f"at character {index})" in str(caught.value)
    assert counting.requests == 0
    assert caught.value.__context__ is None  # no bare UnicodeEncodeError chained behind it


def test_chat_names_a_lone_surrogate_in_a_tools_name():
    counting = Counting()
    tools = [{"type": "function", "function": {"name": "menu\udfff", "parameters": {}}}]
    with pytest.raises(ValueError, match=r"tools\[0\]\['function'\]\['name'\] holds"):
        chat(counting.client, model="m", messages=[{"role": "user", "content": "hi"}], tools=tools)
    assert counting.requests == 0
