"""A request UTF-8 cannot encode, refused by name: where the caller's lone surrogate stands.

Python's strings can hold a lone surrogate (U+D800 to U+DFFF, half of a UTF-16 pair: a string
cut between the two halves of an emoji, a file read with `errors="surrogateescape"`), and UTF-8
cannot encode one. The SDK encodes each request as UTF-8 before it sends anything, so a surrogate
in the caller's own messages (or tools, or any other field) stops the call with a bare
`UnicodeEncodeError` that says only "position 52". `sent` asks as `readable.asked` does and, when
that happens, raises a `ValueError` naming the field (`messages[2]['content']`), the character
and the fix instead. Nothing has been sent by then.

Only a request that failed to encode is searched, so a long transcript costs nothing extra on
every call. Offline, the scripted client encodes nothing, so it checks with `encodable` instead:
each message once, as it enters the client's log, and the other fields on every call. It raises
the `UnicodeEncodeError` the SDK would (its reason names the field), so `chat()` names it the
same way offline and live, and a request that works offline does not break live. The replies'
own surrogates are `readable`'s (each becomes U+FFFD as the reply is read). Machinery for every
session's calls through `cafe.endpoint.client.chat`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from cafe.endpoint.client.readable import asked

__all__ = ["JSON", "encodable", "lone_surrogate", "sent"]

# JSON as the SDK writes a request's body (UTF-8 text, not \u escapes), made once, not per call.
JSON = json.JSONEncoder(ensure_ascii=False)
# How a learner can mend such text in one line: U+FFFD in each one's place, as replies get.
MEND = "''.join('\\ufffd' if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)"


def lone_surrogate(value: Any, path: str) -> tuple[str, int, str] | None:
    """The first lone surrogate in `value` as (where, its character index, the text holding it),
    searching texts, mapping keys and values, lists, tuples and objects' attributes in order; or
    None. Each text is encoded as UTF-8 strict (which fails only on a surrogate, and says where),
    so a long text costs one pass in C, not one Python step per character."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return path, exc.start, value
        return None
    items: list[tuple[Any, str]] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            items += [(key, f"a key of {path}"), (item, f"{path}[{key!r}]")]
    elif isinstance(value, (list, tuple)):
        items = [(item, f"{path}[{i}]") for i, item in enumerate(value)]
    elif isinstance(getattr(value, "__dict__", None), dict):  # an SDK message object, say
        items = [(item, f"{path}.{name}") for name, item in vars(value).items()]
    for item, where in items:
        found = lone_surrogate(item, where)
        if found is not None:
            return found
    return None


def sent(create: Callable[..., Any], kwargs: Mapping[str, Any]) -> Any:
    """`readable.asked(create, kwargs)`; a request UTF-8 cannot encode is a `ValueError` naming
    the field that holds the lone surrogate (`messages[1]['content']`), raised before anything
    is sent. A `UnicodeEncodeError` with no surrogate in `kwargs` is raised as it is."""
    try:
        return asked(create, kwargs)
    except UnicodeEncodeError:
        found = next(
            filter(
                None,
                (lone_surrogate(k, "a keyword") or lone_surrogate(v, k) for k, v in kwargs.items()),
            ),
            None,
        )
        if found is None:
            raise
    where, index, text = found
    char = text[index]
    raise ValueError(
        f"chat() cannot send this request: {where} holds a lone surrogate (U+{ord(char):04X} at "
        f"character {index}), half of a UTF-16 pair, which UTF-8 cannot encode; nothing was sent. "
        "Mend the text where it was made (a string cut between the halves of an emoji, a file "
        f"read with errors='surrogateescape'), or put U+FFFD in its place: {MEND}."
    )


def encodable(value: Any, path: str) -> None:
    """Nothing, when UTF-8 can encode every text in `value`; else the `UnicodeEncodeError` the
    SDK's encoder raises, its reason naming where the first lone surrogate stands (`path` is
    how `value` is named in the request: `messages[3]`, `tools`). For a client that encodes
    nothing (the scripted one), so that `sent` names the field offline as it does live. JSON is
    encoded as the SDK encodes it, in C; only what fails (or is not JSON) is searched."""
    try:
        (value if isinstance(value, str) else JSON.encode(value)).encode("utf-8")
        return
    except (TypeError, ValueError):  # a surrogate (UnicodeEncodeError), or not JSON: search
        pass
    found = lone_surrogate(value, path)
    if found is not None:
        where, index, text = found
        raise UnicodeEncodeError(
            "utf-8",
            text,
            index,
            index + 1,
            f"{where} holds a lone surrogate, which UTF-8 cannot encode; mend it: {MEND}",
        )
