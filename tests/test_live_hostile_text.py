"""What `chat()` hands back can be used again: its text encodes as UTF-8, its counts are counts.

Two principles, each checked on replies Hypothesis generates and sent through the real `openai`
SDK (the `httpx.MockTransport` client of `test_live_hostile_replies`):

- the text of a reply (content, a tool call's id, name and arguments) can be encoded as UTF-8 and
  sent again: a lone surrogate, which JSON can spell (`"\\ud800"`) but UTF-8 cannot hold, becomes
  U+FFFD, and every other character is kept. The reference replaces by code point, one character
  at a time, after the JSON reader (which joins a high and a low surrogate into one character);
- a token count the course cannot use is unknown, not huge: `usage` is kept only when both counts
  are whole numbers (not true/false) from 0 up and their sum is at most 2**53, the largest count
  a trace holds; then a trace's own shape check accepts them.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_live_hostile_replies import MESSAGES, client_answering, outcome, reply_with

from cafe.endpoint.client import readable
from cafe.endpoint.client.chat import chat
from cafe.loop.dispatch import assistant_message
from cafe.loop.turns import ToolCall
from cafe.trace.attribute_shapes import MAX_COUNT, check_attributes
from cafe.trace.attributes import INPUT_TOKENS, OUTPUT_TOKENS

SURROGATES = range(0xD800, 0xE000)
CALM = reply_with({"role": "assistant", "content": "ok"})

# Text with a lone surrogate somewhere in it (and perhaps more of them, anywhere).
surrogate = st.characters(min_codepoint=SURROGATES.start, max_codepoint=SURROGATES.stop - 1)
any_char = st.one_of(st.characters(), surrogate)
broken_text = st.tuples(
    st.text(any_char, max_size=8), surrogate, st.text(any_char, max_size=8)
).map("".join)


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
