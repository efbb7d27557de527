"""cafe.detect.checks finds a layer's keywords by their opening characters: the same set as
testing every keyword, checked here against that plain reading on generated text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.detect import checks

LAYERS = {
    "normalized": checks._NORMALIZED_LAYER,
    "structure": checks._STRUCTURE_LAYER,
    "intent": checks._INTENT_LAYER,
    "decoded": checks._DECODED_LAYER,
}
WORDS = sorted({word for layer in LAYERS.values() for word in layer.keywords})


def every_keyword_tested(text: str, layer) -> set[str]:
    return {word for word in layer.keywords if word in text}


# Text built from keywords, pieces of keywords and other characters, so that keywords overlap,
# sit at the edges, and half of one meets half of another.
pieces = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS).map(lambda w: w[: len(w) // 2]),
    st.sampled_from(WORDS).map(lambda w: w[len(w) // 2 :]),
    st.text(max_size=4),
)
texts = st.lists(pieces, max_size=12).map("".join)


@pytest.mark.parametrize("name", sorted(LAYERS))
@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_keywords_found_by_their_opening_are_every_keyword_in_the_text(name, text):
    layer = LAYERS[name]
    assert checks._present(text, layer) == every_keyword_tested(text, layer)


def test_a_keyword_at_either_end_and_a_short_one_are_found():
    layer = checks._INTENT_LAYER
    long_word = max(layer.keywords, key=len)
    short = [w for w in layer.keywords if len(w) < checks._PREFIX]
    text = long_word + " x " + long_word[:-1]
    assert long_word in checks._present(text, layer)
    if short:
        assert short[0] in checks._present("~" + short[0] + "~", layer)
