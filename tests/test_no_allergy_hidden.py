"""A declared allergy that holds a character nobody can see is never read as "no allergy".

Reader BE (8 Dec 2026, C1): `OrderSpec(1, ["latte"], ["none" + tag characters spelling "milk"])`
came out with no allergies at all, so front of house, the policy pre-check and the repair loop
all let the order through; the same text in a draft's allergy field was refused. Lesson 05 says
to refuse hidden characters in a declared allergy too, so that a person asks, and
`is_no_allergy` says a check that does not understand a declaration must not drop it.

The rule tested: a declaration holding any character of Unicode's format category (Cf: tag
characters, zero-width spaces, direction marks, the soft hyphen ...) is kept, and the run stops
before any draft. The oracle is the category, read here with `unicodedata`, not the course's own
list of hidden characters.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec
from cafe.repair import ScriptedGenerator, policy_failures, repair_ticket
from cafe.world.allergens import is_no_allergy
from cafe.world.menu import load_menu

MENU = load_menu()
# "Nothing declared" as people write it, and blank.
NONE_WORDS = ["", " ", "none", "None.", "N/A", "n/a", "nil", "no known allergies", "NKA"]
TAGS_SPELLING_MILK = "".join(chr(0xE0000 + ord(c)) for c in "milk")
# A draft that would pass if the allergy were dropped: the order as asked, no allergy written.
CLEAN_DRAFT = '{"table": 1, "items": ["latte"], "allergies": [], "notes": ""}'


def _format_characters() -> st.SearchStrategy[str]:
    return st.characters(categories=["Cf"])


@st.composite
def hidden_in_none(draw: st.DrawFn) -> str:
    """A "none" word with one to four format characters put anywhere in it."""
    text = list(draw(st.sampled_from(NONE_WORDS)))
    for _ in range(draw(st.integers(1, 4))):
        text.insert(draw(st.integers(0, len(text))), draw(_format_characters()))
    return "".join(text)


def _stops_before_a_draft(declared: str) -> None:
    spec = OrderSpec(1, ("latte",), (declared,))
    assert spec.allergies == (declared,), "the declaration was dropped"
    assert not is_no_allergy(declared)
    assert policy_failures(spec, MENU), "the policy pre-check let it through"
    result = repair_ticket(spec, ScriptedGenerator([CLEAN_DRAFT] * 3), cap=3, menu=MENU)
    assert result.stop_reason != "passed" and result.ticket is None


@given(hidden_in_none())
@settings(max_examples=60, deadline=None)
def test_a_none_word_holding_a_format_character_is_kept_and_stops_the_run(declared):
    assert any(unicodedata.category(c) == "Cf" for c in declared)  # the oracle holds
    _stops_before_a_draft(declared)


@given(st.sampled_from(NONE_WORDS))
@settings(max_examples=30, deadline=None)
def test_the_same_words_without_them_still_declare_nothing(declared):
    assert is_no_allergy(declared)
    assert OrderSpec(1, ("latte",), (declared,)).allergies == ()


def test_reader_be_c1_none_then_tags_spelling_milk():
    _stops_before_a_draft("none" + TAGS_SPELLING_MILK)
    _stops_before_a_draft(TAGS_SPELLING_MILK)


def test_n_a_then_a_zero_width_space_and_a_direction_mark():
    _stops_before_a_draft("N/A\u200b\u202e")
