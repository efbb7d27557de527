"""A known key is masked in every disguise: raw, spaced out, percent-encoded, hex, and base64 at
each of its three alignments inside a longer encoded text.

The property, over generated keys of 12 characters or more embedded in generated text: after
`Redactor((key,)).text`, none of the key's encodings is left. What "the key's base64" means at
an alignment is worked out here without the library: the characters that come out the same
whatever bytes stand before and after the key (encode once with zero bytes around it, once with
0xFF bytes, and keep where the two agree).
"""

from __future__ import annotations

import base64
import string
import urllib.parse

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cafe.endpoint.secrets.encodings import ENCODED_SECRET_CHARS, base64_core
from cafe.endpoint.secrets.redaction import REDACTED, Redactor
from work import grows_linearly, on_text

# Keys as people and servers make them, and some with any printable character in them.
key_chars = st.one_of(
    st.sampled_from(string.ascii_letters + string.digits + "-_.~+/=:"),
    st.characters(codec="utf-8", exclude_categories=("Z", "C")),
)
keys = st.text(key_chars, min_size=ENCODED_SECRET_CHARS, max_size=48)
filler = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
gaps = st.lists(st.sampled_from([" ", "\n", "\t", "\r\n", "  "]), min_size=1, max_size=6)

FAST = settings(max_examples=40, deadline=None, derandomize=True)


def _spaced(key: str, gaps: list[str], cuts: list[int]) -> str:
    """`key` with a gap inserted before each of the character positions `cuts`."""
    at = sorted({1 + cut % (len(key) - 1) for cut in cuts})
    pieces = [key[start:end] for start, end in zip([0, *at], [*at, len(key)])]
    return "".join(
        piece + (gaps[i % len(gaps)] if i < len(pieces) - 1 else "")
        for i, piece in enumerate(pieces)
    )


def text_forms(key: str, gaps: list[str], cuts: list[int]) -> dict[str, str]:
    data = key.encode("utf-8")
    return {
        "raw": key,
        "spaced": _spaced(key, gaps, cuts),
        "hex": data.hex(),
        "HEX": data.hex().upper(),
        "hex spaced": " ".join(f"{b:02x}" for b in data),
        "url": urllib.parse.quote(key, safe=""),
        "url, every byte": "".join(f"%{b:02X}" for b in data),
        "url, lower case": "".join(f"%{b:02x}" for b in data),
    }


def agreed_core(key: str, offset: int) -> str:
    """The base64 characters fixed by `key` alone at `offset` bytes in (see the module docstring)."""
    data = key.encode("utf-8")
    low = base64.b64encode(bytes(offset) + data + bytes(3)).decode()
    high = base64.b64encode(b"\xff" * offset + data + b"\xff" * 3).decode()
    agree = "".join("=" if a == b else "x" for a, b in zip(low, high))
    start = agree.index("=")
    return low[start : agree.index("x", start)]


@FAST
@given(
    key=keys,
    before=filler,
    after=filler,
    gaps=gaps,
    cuts=st.lists(st.integers(0, 99), min_size=1, max_size=4),
)
def test_no_text_form_of_the_key_survives(key, before, after, gaps, cuts):
    redactor = Redactor((key,))
    for name, form in text_forms(key, gaps, cuts).items():
        clean = redactor.text(f"{before}{form}{after}")
        assert form not in clean, name
        assert key not in "".join(clean.split()), name


@FAST
@given(
    key=keys,
    offset=st.sampled_from([0, 1, 2]),
    head=st.binary(max_size=20),
    tail=st.binary(max_size=20),
    before=filler,
    after=filler,
    urlsafe=st.booleans(),
    wrapped=st.booleans(),
)
def test_no_base64_of_the_key_survives_at_any_alignment(
    key, offset, head, tail, before, after, urlsafe, wrapped
):
    head = (
        head[: len(head) - len(head) % 3] + bytes(offset)[:offset]
    )  # key starts offset bytes into a 3-byte group
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    encoded = encode(head + key.encode("utf-8") + tail).decode()
    if wrapped:  # as MIME writes it: 76 characters a line
        encoded = "\r\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))
    core = agreed_core(key, offset)
    if urlsafe:
        core = core.replace("+", "-").replace("/", "_")
    assert core in "".join(encoded.split())  # the key really is in there
    clean = Redactor((key,)).text(f"{before}{encoded}{after}")
    assert core not in "".join(clean.split())
    assert REDACTED in clean


@FAST
@given(key=keys, text=filler)
def test_text_without_the_key_is_left_as_it_was(key, text):
    assume(all(key[i : i + 8] not in text for i in range(len(key) - 7)))
    assert Redactor((key,)).text(text) == Redactor(()).text(text)


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_the_library_base64_core_is_the_agreed_one(offset):
    for key in ("q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5EuR0tXe", "ключ-доступа-2026", "short-key-12"):
        assert base64_core(key, offset) == agreed_core(key, offset)


def test_a_short_key_has_no_encoded_forms_masked():
    """Under 12 characters a key's encodings are short enough to occur by chance."""
    key = "k3Zq9abc"
    hexed = key.encode().hex()
    assert Redactor((key,)).text(f"digest {hexed}") == f"digest {hexed}"


def test_masking_every_encoding_grows_linearly_with_the_text():
    """Counted in steps (`tests/work.py`), on text full of near misses and of whole encodings; the
    patterns' own scans are one C call each, timed by hand: about 0.2 s a megabyte."""
    key = "q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5EuR0tXe"
    near = key[:20] + " " + "%71" * 5 + base64.b64encode(key.encode())[:20].decode() + "\n"
    whole = f"{key.encode().hex()} {base64.b64encode(b'x' + key.encode()).decode()} {key}\n"

    def texts(n: int) -> dict[str, str]:
        return {"near misses": near * (n // 10), "whole encodings": whole * (n // 100)}

    for name in ("near misses", "whole encodings"):
        assert grows_linearly(on_text(lambda text: Redactor((key,)).text(text), texts, name), 2_000)
