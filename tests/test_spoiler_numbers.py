"""A giveaway with a number is caught however a sentence writes that number (issue 37).

The spoiler scan (`tests/spoilers.py`) reads numbers as values (`tests/number_words.py`), so a
paraphrase cannot slip past it by spelling a figure out. The principle, tested on generated
sentences: a giveaway's number is given away by every rendering of its value (digits, words,
a percentage in any of its spellings, a share such as "two in five" or "2 of 5", with or without
a noun between), and by no rendering of another value. The renderings are written here, apart
from the parser, so the parser is not its own oracle.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from number_words import same, value_of
from spoilers import compile_phrase, find, own_words, words

ROOT = Path(__file__).resolve().parent.parent
SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
NOUNS = ("orders", "tickets", "runs", "drafts")


def spell(n: int, *, and_: bool = True, hyphen: bool = True) -> str:
    """`n` (0 to 999,999) in English words: 246 -> "two hundred and forty-six"."""
    if n < 20:
        return SMALL[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return TENS[tens] + (("-" if hyphen else " ") + SMALL[unit] if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = f"{SMALL[hundreds]} hundred"
        return head + ((" and " if and_ else " ") + spell(rest, hyphen=hyphen) if rest else "")
    thousands, rest = divmod(n, 1000)
    head = f"{spell(thousands, and_=and_, hyphen=hyphen)} thousand"
    if not rest:
        return head
    joiner = " and " if and_ and rest < 100 else " "
    return head + joiner + spell(rest, and_=and_, hyphen=hyphen)


def count_renderings(n: int) -> list[str]:
    """Every way a sentence may write the count `n`."""
    shown = [str(n), spell(n), spell(n, and_=False), spell(n, hyphen=False)]
    if n >= 1000:
        shown.append(f"{n:,}")
    return shown


def share_renderings(top: int, bottom: int) -> list[str]:
    """Every way a sentence may write the share top/bottom."""
    ways = []
    for a, b in ((str(top), str(bottom)), (spell(top), spell(bottom))):
        ways += [f"{a} in {b}", f"{a} of {b}", f"{a} out of {b}", f"{a} of the {b}"]
        ways += [f"{a} {noun} in {b}" for noun in NOUNS[:2]]
        ways += [f"{a} {noun} out of {b}" for noun in NOUNS[2:]]
        ways.append(f"{a} broken {NOUNS[1]} in {b}")
    return ways


def percent_renderings(p: int) -> list[str]:
    """Every way a sentence may write p% (p a whole number from 0 to 100)."""
    ways = [f"{p}%", f"{p} percent", f"{p} per cent", f"{spell(p)} per cent", f"{spell(p)} percent"]
    ways.append(f"{p / 100:.2f}")
    share = Fraction(p, 100)
    if 0 < share < 1:
        ways += share_renderings(share.numerator, share.denominator)
        ways += share_renderings(2 * share.numerator, 2 * share.denominator)
    return ways


def caught(giveaway: str, sentence: str) -> bool:
    return bool(find([compile_phrase(giveaway)], sentence))


# --- the issue's paraphrases ------------------------------------------------------------------

ISSUE_PARAPHRASES = [
    ("40%", "Two orders in five end with a ticket."),
    ("40%", "About 40 percent of the orders end with a ticket."),
    ("40%", "Forty per cent of orders get a ticket."),
    ("40%", "2 of 5 orders end with a ticket."),
    ("246 tokens", "The smallest budget is two hundred and forty-six tokens."),
    ("246", "It accepts nothing below two hundred forty-six."),
    ("95%", "The judge agrees on ninety-five tickets out of a hundred."),
]


@pytest.mark.parametrize(("giveaway", "sentence"), ISSUE_PARAPHRASES)
def test_spoiler_numbers_issue_paraphrase_is_caught(giveaway: str, sentence: str) -> None:
    assert caught(giveaway, sentence), words(sentence)


def _declared(key: str) -> dict:
    return json.loads((ROOT / "cafe/data/predictions" / f"{key[:3]}.json").read_text())[key]


@pytest.mark.parametrize(
    ("key", "sentence"),
    [
        ("s07.lottery", "At one in twenty a draw, two orders in five end with a ticket."),
        ("s07.lottery", "With a cap of ten, 40 percent of the orders get through."),
        ("s03.smallest_budget", "It takes two hundred and forty-nine tokens at the least."),
        ("s12.agreement", "It agrees with the checks ninety-five per cent of the time."),
    ],
)
def test_spoiler_numbers_session_declaration_catches_paraphrase(key: str, sentence: str) -> None:
    """The real declarations, with the outcome's own words, catch the issue's paraphrases."""
    d = _declared(key)
    phrases = [compile_phrase(p) for p in d["giveaways"]] + own_words(d["outcome"], d["options"])
    assert find(phrases, sentence), (key, words(sentence))


# --- generated renderings -------------------------------------------------------------------


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=999_999), st.sampled_from(NOUNS))
@example(246, "tokens")
@example(100_000, "orders")  # "one hundred thousand": a scale after "hundred" (CI, stop 46)
@example(300_005, "runs")
def test_spoiler_numbers_a_count_is_caught_however_written(n: int, noun: str) -> None:
    for shown in count_renderings(n):
        assert caught(f"{n} {noun}", f"It comes to {shown} {noun} in all."), (shown, words(shown))
        assert not caught(f"{n + 1} {noun}", f"It comes to {shown} {noun} in all."), shown


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.integers(min_value=1, max_value=99))
@example(40)
def test_spoiler_numbers_a_percentage_is_caught_however_written(p: int) -> None:
    for shown in percent_renderings(p):
        sentence = f"Of the orders, {shown} end with a ticket."
        assert caught(f"{p}%", sentence), (shown, words(sentence))
        assert not caught(f"{p + 1}%", sentence), (shown, words(sentence))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.integers(min_value=1, max_value=20), st.integers(min_value=1, max_value=20))
def test_spoiler_numbers_a_share_is_its_value(top: int, bottom: int) -> None:
    """ "a in b" is caught by every giveaway that pins a/b at its places, and no other."""
    if top > bottom:
        top, bottom = bottom, top
    percent = round(Fraction(top, bottom) * 100)
    for shown in share_renderings(top, bottom):
        sentence = f"In the end {shown} pass."
        pinned = abs(Fraction(top, bottom) - Fraction(percent, 100)) <= Fraction(1, 200)
        assert caught(f"{percent}%", sentence) == pinned, (shown, words(sentence))
        assert not caught(f"{percent + 2}%", sentence), (shown, words(sentence))


@pytest.mark.parametrize(
    ("read", "giveaway", "expected"),
    [
        ("0.401", "40%", True),  # pinned at the giveaway's two places
        ("0.8", "0.7541", False),  # does not pin four places
        ("0.3", "0", False),  # a count is only itself
        ("one in three", "33%", True),
        ("33%", "one in three", False),  # an exact share is not pinned by a rounded figure
    ],
)
def test_spoiler_numbers_precision_is_the_giveaways(
    read: str, giveaway: str, expected: bool
) -> None:
    a, b = words(read)[0], words(giveaway)[0]  # a share's own token comes first
    assert same(a, b) is expected, (a, b, value_of(a), value_of(b))


def test_spoiler_numbers_a_table_cell_does_not_run_into_the_next() -> None:
    """ "| `model_call` | one call |" is not "model call 1": a phrase never spans two cells."""
    assert not caught("model call 1", "| `model_call` | one chat.completions.create |")
    assert caught("model call 1", "The replay stops at model call one.")
