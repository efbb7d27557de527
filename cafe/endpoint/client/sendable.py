"""A request UTF-8 cannot encode, refused by name: where the caller's lone surrogate stands.

Python's strings can hold a lone surrogate (U+D800 to U+DFFF, half of a UTF-16 pair: a string
cut between the two halves of an emoji, a file read with `errors="surrogateescape"`), and UTF-8
cannot encode one. The SDK encodes each request as UTF-8 before it sends anything, so a surrogate
in the caller's own messages (or tools, or any other field) stops the call with a bare
`UnicodeEncodeError` that says only "position 52". `sent` asks as `readable.asked` does and, when
that happens, raises a `ValueError` naming the field (`messages[2]['content']`), the character
and the fix instead. Nothing has been sent by then.

Only a request that failed to encode is searched, so a long transcript costs nothing extra on
every call. Offline, the scripted client encodes nothing and takes such text as it is. The
replies' own surrogates are `readable`'s (each becomes U+FFFD as the reply is read). Machinery
for every session's calls through `cafe.endpoint.client.chat`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cafe.endpoint.client.readable import asked

__all__ = ["lone_surrogate", "sent"]

# Surrogate code points (Unicode's range for UTF-16 pairs); UTF-8 encodes none of them alone.
SURROGATES = range(0xD800, 0xE000)
# How a learner can mend such text in one line: U+FFFD in each one's place, as replies get.
MEND = "''.join('\\ufffd' if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)"


def lone_surrogate(value: Any, path: str) -> tuple[str, int, str] | None:
    """The first lone surrogate in `value` as (where, character index, the character), searching
    texts, mapping keys and values, lists, tuples and objects' attributes in order; or None."""
    if isinstance(value, str):
        return next(((path, i, c) for i, c in enumerate(value) if ord(c) in SURROGATES), None)
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
    where, index, char = found
    raise ValueError(
        f"chat() cannot send this request: {where} holds a lone surrogate (U+{ord(char):04X} at "
        f"character {index}), half of a UTF-16 pair, which UTF-8 cannot encode; nothing was sent. "
        "Mend the text where it was made (a string cut between the halves of an emoji, a file "
        f"read with errors='surrogateescape'), or put U+FFFD in its place: {MEND}."
    )
