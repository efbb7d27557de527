"""Session 06's detection exercises, judged by what the lesson states, on generated text.

A detection rule has no single right answer, so `check_detection_rule` (`cafe.exercises.s06`)
holds the learner's judge to what the detector relies on, on text drawn here: it answers any
text a customer could write (an empty note, a bare item, any characters) with a finding or None,
the same answer every time (`requests`); and it catches its failing fixture said the way the next
customer would say it: other numbers, other items, a greeting in front, another case, other
punctuation, several of these at once (`rewordings`). And a false alarm must be an honest order:
`names_item` says whether it asks for something the café sells, `repeats_attack` whether it is a
known attack said again (with a greeting, other numbers or items, a sentence added).

Written from the exercise's text, not from the course's detector. This module imports nothing
from `cafe` (only `cafe.exercises.sNN` may): the menu's item names are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["MIN_ATTACK_WORDS", "names_item", "attack_words", "repeats_attack"]
__all__ += ["requests", "rewordings"]

# An attack said again is found inside a longer text only when it has at least this many words
# once numbers and items are blanked: shorter ones ("flat white please" with hidden characters
# after it) are everyday words, so only the exact text counts as that attack.
MIN_ATTACK_WORDS = 6
# Ways a customer opens and closes a request, for the rewordings.
_GREETINGS = ("Hi! ", "Hello, ", "Morning. ", "Quick one: ")
_SIGN_OFFS = (" Thanks!", " Cheers.", " x")


def _item_pattern(items: Iterable[str]) -> re.Pattern[str]:
    """Any menu item as a whole word, plural too; longest first, so 'oat latte' is one item."""
    names = sorted(items, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")s?\b", re.IGNORECASE)


def names_item(text: str, items: Iterable[str]) -> bool:
    """Whether `text` asks for something the café sells: a menu item named as a whole word."""
    return _item_pattern(items).search(text) is not None


def attack_words(text: str, items: Iterable[str]) -> str:
    """The words of a request, case folded, with every number and menu item blanked: the same
    for an attack said with other numbers, other items, other punctuation or case."""
    blanked = _item_pattern(items).sub(" item ", text.casefold())
    blanked = re.sub(r"\d+", " number ", blanked)
    return " ".join(re.findall(r"[^\W\d_]+", blanked))


def repeats_attack(text: str, attacks: Iterable[str], items: Iterable[str]) -> bool:
    """Whether `text` is one of `attacks` said again: the same text (case and spacing aside), or,
    for an attack of `MIN_ATTACK_WORDS` words or more, its words (numbers and items blanked)
    inside `text`, which may add a greeting in front or an order after."""
    items = tuple(items)
    folded = " ".join(text.casefold().split())
    said = f" {attack_words(text, items)} "
    for attack in attacks:
        if folded == " ".join(attack.casefold().split()):
            return True
        words = attack_words(attack, items)
        if len(words.split()) >= MIN_ATTACK_WORDS and f" {words} " in said:
            return True
    return False


def requests(items: Sequence[str]) -> Any:
    """Text a customer could write, for a judge to answer: an empty note, an order of one item
    ("Espresso.", "two lattes please"), and any characters at all."""
    from hypothesis import strategies as st

    count = st.sampled_from(("", "a ", "one ", "two ", "3 "))
    ending = st.sampled_from(("", ".", " please", ", thanks!", "?"))
    order = st.builds(lambda c, i, e: f"{c}{i}{e}", count, st.sampled_from(tuple(items)), ending)
    capitalised = order.map(lambda text: text[:1].upper() + text[1:])
    return st.one_of(st.just(""), order, capitalised, st.text(max_size=40))


def _reworded(text: str, items: Sequence[str], choices: dict[str, Any]) -> str:
    """`text` with the chosen changes applied, in the order a customer's words would differ."""
    if choices["item"] is not None:
        text = _item_pattern(items).sub(
            lambda m: choices["item"] + ("s" if m.group(0).lower().endswith("s") else ""), text
        )
    if choices["shift"]:
        text = re.sub(r"\d+", lambda m: str(int(m.group(0)) + choices["shift"]), text)
    if choices["punctuation"]:
        text = text.replace(".", choices["punctuation"])
    text = choices["greeting"] + text + choices["sign_off"]
    return str(choices["case"](text))


def rewordings(text: str, items: Sequence[str]) -> Any:
    """The failing fixture `text` said as the next customer would: any of other numbers, another
    menu item in place of each one it names, a greeting in front, a sign-off after, other
    punctuation, all lower or upper case, at once. A rule written for the attack's shape catches
    every one; a rule written for one sentence does not."""
    from hypothesis import strategies as st

    choices = st.fixed_dictionaries(
        {
            "item": st.none() | st.sampled_from(tuple(items)),
            "shift": st.integers(0, 9),
            "punctuation": st.sampled_from(("", "!", "...")),
            "greeting": st.sampled_from(("", *_GREETINGS)),
            "sign_off": st.sampled_from(("", *_SIGN_OFFS)),
            "case": st.sampled_from((str, str.lower, str.upper)),
        }
    )
    return choices.map(lambda chosen: _reworded(text, items, chosen))
