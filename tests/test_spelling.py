"""cafe.world.spelling: one key for a word however it was typed, and the characters nobody sees."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.world.spelling import (
    CONFUSABLES,
    hidden_characters,
    latin_lookalike,
    odd_spacing,
    spelling_key,
)


@pytest.mark.parametrize(
    "text",
    [
        "extra hot",
        "Extra Hot",
        "EXTRA-HOT",
        "extra_hot!",
        "  extra   hot. ",
        "ＥＸＴＲＡ ＨＯＴ",  # full width
        "ехtra hоt",  # Cyrillic е and о
        "ᴇxᴛʀᴀ ʜᴏᴛ",  # small capitals, which NFKC leaves alone
        "𝐞𝐱𝐭𝐫𝐚 𝐡𝐨𝐭",  # mathematical bold
        "extra\u00adhot".replace("\u00ad", " \u00ad"),  # a soft hyphen
    ],
)
def test_spelling_key_folds_width_case_spacing_and_lookalikes(text):
    assert spelling_key(text) == "extra hot"


@pytest.mark.parametrize(
    ("text", "key"),
    [("free", "free"), ("fréé", "fréé"), ("молоко", "молоко"), ("🥜", "🥜"), ("", "")],
)
def test_spelling_key_never_invents_letters_that_are_not_there(text, key):
    # Accents are kept (é is not e) and a word with no Latin look-alike stays in its own script.
    assert spelling_key(text) == key


@pytest.mark.parametrize(
    ("char", "latin"),
    [
        ("е", "e"),
        ("а", "a"),
        ("ο", "o"),
        ("ɪ", "i"),
        ("к", "k"),
        ("Е", "e"),
        ("x", "x"),
        ("ж", None),
    ],
)
def test_latin_lookalike_reads_the_course_rows_then_unicode_data(char, latin):
    assert latin_lookalike(char) == latin


def test_latin_lookalike_course_rows_are_single_ascii_letters():
    assert all(len(v) == 1 and v.isascii() and v.isalpha() for v in CONFUSABLES.values())
    with pytest.raises(ValueError, match="one character"):
        latin_lookalike("ab")


@pytest.mark.parametrize(
    "char",
    [
        "\u200b",  # zero-width space
        "\u200d",  # zero-width joiner
        "\u00ad",  # soft hyphen
        "\u202e",  # right-to-left override
        "\u2066",  # left-to-right isolate
        "\u2062",  # invisible times
        "\ufeff",  # byte-order mark
        "\ufe0f",  # variation selector
        "\U000e0061",  # tag letter a
        "\ue000",  # private use
        "\u0378",  # unassigned
        "\x07",  # a control character
    ],
)
def test_hidden_characters_finds_what_a_reader_cannot_see(char):
    assert hidden_characters(f"extra{char}hot") == char


def test_hidden_characters_leaves_line_breaks_accents_and_other_scripts_alone():
    assert hidden_characters("extra hot\nno foam\tcafé молоко 牛奶 🥜") == ""


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_spelling_key_is_stable_and_drops_nothing_visible_into_hiding(text):
    key = spelling_key(text)
    assert spelling_key(key) == key
    assert key == key.strip()


@pytest.mark.parametrize(
    ("text", "odd"),
    [
        ("flat\x1fwhite", "\x1f"),  # a unit separator, which Python's \s counts as a space
        ("latte\x85", "\x85"),  # next line
        ("hot\u00a0chocolate", "\u00a0"),  # no-break space
        ("no foam\u2002\u2003", "\u2002\u2003"),  # en and em space: a bit each
        ("no\tfoam\n", "\t\n"),
        ("one\u2028two", "\u2028"),  # line separator
        ("no  foam", " "),  # the second ordinary space in a row
        ("  latte", " "),
    ],
)
def test_odd_spacing_finds_every_gap_but_single_ordinary_spaces(text, odd):
    assert odd_spacing(text) == odd


@pytest.mark.parametrize(
    "text", ["", "flat white", "Latte ", " egg ", "café молоко 牛奶 🥜", "a-b_c"]
)
def test_odd_spacing_leaves_single_ordinary_spaces_alone(text):
    assert odd_spacing(text) == ""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(categories=["L", "N", "P"]), min_size=1), max_size=6))
def test_odd_spacing_is_empty_exactly_when_words_are_joined_by_single_spaces(words):
    assert odd_spacing(" ".join(words)) == ""
    if len(words) > 1:
        assert odd_spacing("  ".join(words)) == " " * (len(words) - 1)
