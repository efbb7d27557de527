"""A live completion checked field by field and put in the shape the course reads (session 00).

The `openai` SDK builds its `ChatCompletion` from the endpoint's JSON without validating it, so
a field typed as text may hold a list, a number or NaN, and a choice may be a bare string. The
course reads a reply in one way everywhere (the repair loop, the agent loop, the notebooks), so
`chat()` hands back only a completion that reads that way, or a `BadReply` saying what came back:

- `choices[0]` is a choice whose `message` is a message;
- `message.content` is text or None. A list of text parts (`[{"type": "text", "text": "..."}]`,
  OpenAI's content-parts shape, which some servers send) means the parts one after the other, so
  they are joined; a number, an object, NaN or a part that is not text is a `BadReply`;
- `message.tool_calls` is None or a list of calls, each with a text `id`, a text function name
  and text `arguments`. Arguments sent as a JSON object are written back as JSON text, as the
  SDKs do; none at all are `"{}"`, the empty object the agent loop reads them as. An id left out
  (some local servers do) is `call_<n>`, its place in the list, so a result can still name it.
  A call with no function, or a function with no name, is a `BadReply`;
- text (the content, a call's id, name and arguments) can be encoded as UTF-8, so the reply can
  go back into the transcript and be sent again. JSON can spell a lone surrogate (`"\\ud800"`,
  half of a UTF-16 pair), which Python reads but UTF-8 cannot hold; each one becomes U+FFFD,
  the replacement character, which is what a decoder puts where it could not read a character.
  The rest of the reply is kept: one broken character (a proxy that cut an emoji in half) is
  not worth losing the answer, and the mark shows where it was. The same goes for the values in
  a call's arguments, which the agent loop decodes and hands to a tool, whose result is sent
  again: arguments whose JSON spells a lone surrogate are written again with U+FFFD in its place;
- `finish_reason` is text (any word: a provider may have its own) or None; anything else means
  "not reported", None (`finish_reason_of`);
- `usage` is None (not reported) unless its two counts are whole numbers of zero or more whose
  sum is at most `MAX_COUNT`, the largest count a trace holds (`cafe.trace.attribute_shapes`);
  a wrong `total_tokens` is recomputed from them. Null counts, a list, NaN or 10**30 tokens
  are counts the course cannot use, so they mean "not reported", which every caller of usage
  already handles, not a crash (or a trace nobody can read) later in a sum. (The SDK reads a
  usage record whose fields all convert as whole numbers first: `true` arrives as 1, `"3"` as 3.
  One that does not convert arrives as sent, and a true/false in it is refused here.)

`asked(create, kwargs)` makes the call itself, so that a body the SDK cannot even decode (bytes
that are not UTF-8, JSON nested too deep, a number of thousands of digits) is a `BadReply` too,
not a `UnicodeDecodeError`.

A completion that already reads right is returned as it is (the scripted client's always does).
What a `BadReply` says names the field and the type that came back, not its value, so nothing
the endpoint sent is quoted here; `cafe.endpoint.client.diagnosis` scrubs it all the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from cafe.endpoint.client.diagnosis import BadReply

__all__ = ["MAX_COUNT", "REPLACEMENT", "asked", "finish_reason_of", "readable", "usage_counts"]

# The largest token count a reply may report: the cap `cafe.trace.attribute_shapes.MAX_COUNT` puts
# on every count a trace holds (2**53, where floats stop adding whole numbers exactly). Declared
# again here because the endpoint's client comes before session 08; a test keeps the two equal.
MAX_COUNT = 2**53
# What a lone surrogate becomes: U+FFFD, the character a UTF-8 decoder puts for what it cannot read.
REPLACEMENT = "\ufffd"
# What Python's `ValueError` says about an integer longer than it will read
# (`sys.get_int_max_str_digits()`, 4,300 digits by default), as `json.loads` raises it.
_INT_LIMIT = "integer string conversion"
# A surrogate code point (U+D800 to U+DFFF). JSON's reader pairs a high one with a low one into
# one character, so any left in a string stand alone.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _field(value: Any, name: str) -> Any:
    """`value.name` for one of the SDK's records, `value[name]` for a dict, else None."""
    from pydantic import BaseModel

    if isinstance(value, dict):
        return value.get(name)
    if isinstance(value, BaseModel):
        return getattr(value, name, None)
    return None


def _kind(value: Any) -> str:
    """The JSON name of what `value` is, for a message (never the value: it may hold the key)."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return "text"
    return "null" if value is None else "an object"


def _count(value: Any) -> bool:
    """Is `value` a token count: a whole number from 0 to `MAX_COUNT`?"""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def _sendable(text: str) -> str:
    """`text` with each lone surrogate replaced by `REPLACEMENT`, so that UTF-8 can encode it."""
    return _SURROGATE.sub(REPLACEMENT, text)


def _content(content: Any) -> str | None:
    """The message's text: as it came, or its text parts joined; a `BadReply` for anything else."""
    if content is None:
        return content
    if isinstance(content, str):
        return _sendable(content)
    if isinstance(content, list):
        texts = [_field(part, "text") for part in content]
        kinds = [_field(part, "type") for part in content]
        if all(k == "text" and isinstance(t, str) for k, t in zip(kinds, texts)):
            return _sendable("".join(texts))
        raise BadReply(
            "bad_body", "choices[0].message.content is a list with a part that is not text"
        )
    raise BadReply("bad_body", f"choices[0].message.content is {_kind(content)}, not text")


def _without_surrogates(value: Any) -> Any:
    """Decoded JSON `value` with each lone surrogate in its texts (keys too) as `REPLACEMENT`;
    what needed no change is the same object, so `==` holds even with NaN inside."""
    if isinstance(value, str):
        return _sendable(value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def _arguments_text(text: str) -> str:
    """Arguments sent as text, sendable, and so are the values the agent loop decodes from them:
    a `\\ud800` escape inside the JSON text is a lone surrogate once read, so arguments that hold
    one are written again with each as `REPLACEMENT`. Text that is not JSON is kept as it came."""
    text = _sendable(text)
    if "\\u" not in text:  # no escape at all, so no escaped surrogate
        return text
    try:
        value = json.loads(text)
        clean = _without_surrogates(value)
        return text if clean is value or clean == value else json.dumps(clean, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def _arguments(arguments: Any) -> str:
    """A call's arguments as JSON text: as they came, or written as JSON when sent as a value."""
    if isinstance(arguments, str):
        return _arguments_text(arguments)
    if arguments is None:
        return "{}"
    try:
        return json.dumps(_without_surrogates(arguments), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise BadReply(
            "bad_body", f"a tool call's arguments are {_kind(arguments)} that JSON cannot hold"
        ) from None


def _tool_call(raw: Any, number: int) -> Any:
    """Call `number` of the reply as the SDK's record, with text id, name and arguments."""
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    function = _field(raw, "function")
    name = _field(function, "name")
    if not isinstance(name, str):
        what = "no function" if function is None else f"a function name that is {_kind(name)}"
        raise BadReply("bad_body", f"tool call {number} has {what}")
    call_id = _field(raw, "id")
    if call_id is None:
        call_id = f"call_{number}"
    if not isinstance(call_id, str):
        raise BadReply("bad_body", f"tool call {number} has an id that is {_kind(call_id)}")
    sent = (_field(raw, "id"), name, _field(function, "arguments"))
    call_id, name, arguments = _sendable(call_id), _sendable(name), _arguments(sent[2])
    if (
        isinstance(raw, ChatCompletionMessageFunctionToolCall)
        and (call_id, name, arguments) == sent
    ):
        return raw  # already right: keep the SDK's own record
    return ChatCompletionMessageFunctionToolCall.model_validate(
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    )


def _tool_calls(calls: Any) -> list[Any] | None:
    if calls is None:
        return None
    if not isinstance(calls, list):
        raise BadReply("bad_body", f"choices[0].message.tool_calls is {_kind(calls)}, not a list")
    return [_tool_call(raw, number) for number, raw in enumerate(calls)]


def usage_counts(usage: Any) -> tuple[int, int] | None:
    """(prompt, completion) tokens when `usage` reports counts the course can use, else None
    ("not reported"): the one judgement `readable` makes and a trace records
    (`cafe.trace.calls.reply_of`), so what a run was handed and what its trace keeps agree.

    A usage record is the SDK's (or any object with the two counts as attributes); a dict is
    what the SDK hands back when the record did not convert, so it is "not reported" too."""
    if usage is None or isinstance(usage, (Mapping, str, bytes, list, tuple)):
        return None
    prompt: Any = getattr(usage, "prompt_tokens", None)
    reply: Any = getattr(usage, "completion_tokens", None)
    if not (_count(prompt) and _count(reply) and _count(prompt + reply)):
        return None
    return prompt, reply


def finish_reason_of(choice: Any) -> str | None:
    """A choice's finish reason when it is text (any word: providers have their own, such as
    "eos_token"), else None ("not reported"): what `readable` hands on and a trace records."""
    reason = getattr(choice, "finish_reason", None)
    return reason if isinstance(reason, str) else None


def _usage(usage: Any) -> Any:
    """The usage record when its counts are counts (total recomputed if need be), else None."""
    from pydantic import BaseModel

    counts = usage_counts(usage) if isinstance(usage, BaseModel) else None
    if counts is None:
        return None
    prompt, reply = counts
    if _field(usage, "total_tokens") == prompt + reply:
        return usage
    return usage.model_copy(update={"total_tokens": prompt + reply})


def readable(completion: Any) -> Any:
    """`completion` with `choices[0]` and `usage` in the shape the module docstring describes.

    It must already have a non-empty list of choices (`cafe.endpoint.client.chat` checks that
    first). Returns the same object when nothing needed changing; raises `BadReply` ("bad_body")
    naming the field when the first choice cannot be read.
    """
    from pydantic import BaseModel

    choice = completion.choices[0]
    message = _field(choice, "message")
    if not isinstance(choice, BaseModel):
        raise BadReply("bad_body", f"choices[0] is {_kind(choice)}, not a choice")
    if not isinstance(message, BaseModel):
        raise BadReply("bad_body", f"choices[0].message is {_kind(message)}, not a message")
    sent_content, sent_calls = _field(message, "content"), _field(message, "tool_calls")
    content, calls = _content(sent_content), _tool_calls(sent_calls)
    sent_usage = getattr(completion, "usage", None)
    usage, reason = _usage(sent_usage), finish_reason_of(choice)
    same_calls = calls is None or all(a is b for a, b in zip(calls, sent_calls))
    same_reason = reason is getattr(choice, "finish_reason", None)
    if content is sent_content and same_calls and same_reason and usage is sent_usage:
        return completion
    message = message.model_copy(update={"content": content, "tool_calls": calls})
    choice = choice.model_copy(update={"message": message, "finish_reason": reason})
    return completion.model_copy(
        update={"choices": [choice, *completion.choices[1:]], "usage": usage}
    )


def asked(create: Callable[..., Any], kwargs: Mapping[str, Any]) -> Any:
    """`create(**kwargs)`, with a body the SDK cannot even decode raised as a `BadReply`.

    The SDK reads the body with `json.loads`, which raises `UnicodeDecodeError` on bytes that are
    not UTF-8 (Latin-1 with no charset, say), `RecursionError` on JSON nested thousands deep and
    a `ValueError` on a number of more than 4,300 digits (Python's limit on reading an int):
    garbage from the endpoint like any other, so named like any other. Any other `ValueError`
    (a scripted model's complaint about the request) is the caller's, raised as it is.
    """
    try:
        return create(**kwargs)
    except UnicodeDecodeError as exc:
        raise BadReply(
            "bad_body", f"a body that is not UTF-8 text (byte {exc.start} cannot be read)"
        ) from None
    except RecursionError:
        raise BadReply("bad_body", "JSON nested too deeply to read") from None
    except ValueError as exc:
        if _INT_LIMIT not in str(exc):
            raise
    raise BadReply("bad_body", "a number too long to read (more than 4,300 digits)")
