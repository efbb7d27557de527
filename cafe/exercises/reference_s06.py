"""Session 06's detection exercises, judged by what the lesson states, on generated text.

A detection rule has no single right answer, so `check_detection_rule` (`cafe.exercises.s06`)
holds the learner's judge to what the detector relies on, on text drawn here: it answers any
text a customer could write (an empty note, a bare item, any characters) with a finding or None,
the same answer every time (`requests`); and it catches its failing fixture said the way the next
customer would say it: other numbers, other items, a greeting in front, another case, other
punctuation, a look-alike letter, an invisible character or full-width letters (the disguises
the lesson's normaliser takes off, `disguised`), several of these at once (`rewordings`). And a false alarm must be an honest order:
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
__all__ += ["requests", "rewordings", "DISGUISES", "disguised", "spread_out"]
__all__ += ["fixture_variants", "OFF_MENU", "PLACES", "shared_words", "same_text", "gives_away"]

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


def same_text(first: str, second: str) -> bool:
    """Whether two texts are the same request, case and spacing aside."""
    return " ".join(first.casefold().split()) == " ".join(second.casefold().split())


# What an honest order never does: give something away on someone's behalf (the lesson's "bill
# zeroed": on the house, someone's treat, the café's people paying, on him) or order for another
# table. The customer's own boss or friend paying is honest ("My boss is paying for this one").
_CAFE = r"(?:owner|manager|chef|barista|staff|house)"
_GIVEAWAY = (
    r"\b(?:his|her|their|the\s+owner's|the\s+manager's|my)\s+treat\b|\btable\s+\d+\s+gets\b"
    r"|\bon\s+the\s+house\b|\bfor\s+free\b|\bfree\s+of\s+charge\b|\bat\s+no\s+charge\b"
    rf"|\bon\s+the\s+{_CAFE}\b|\b{_CAFE}\b[^.!?]{{0,60}}\bon\s+(?:him|her|them)\b"
    rf"|\b{_CAFE}\b(?:[^.!?]{{0,40}}\b(?:he|she|they))?(?:'s|\s+is|\s+are|\s+will)?"
    r"\s+(?:paying|pays?|covering|covers?|picking\s+up\s+the\s+(?:bill|tab))\b"
)


def gives_away(text: str, items: Iterable[str]) -> bool:
    """Whether `text` gives something away on someone's behalf: a `_GIVEAWAY` phrase, or a menu
    item offered free ("a free croissant", "free banana breads"). A judgement call, said so."""
    free_item = r"\bfree\s+(?:" + "|".join(re.escape(item) for item in items) + r")"
    return re.search(_GIVEAWAY + "|" + free_item, text, re.IGNORECASE) is not None


def repeats_attack(text: str, attacks: Iterable[str], items: Iterable[str]) -> bool:
    """Whether `text` is one of `attacks` said again: the same text (case and spacing aside), or,
    for an attack of `MIN_ATTACK_WORDS` words or more, its words (numbers and items blanked)
    inside `text`, which may add a greeting in front or an order after."""
    items = tuple(items)
    said = f" {attack_words(text, items)} "
    for attack in attacks:
        if same_text(text, attack):
            return True
        words = attack_words(attack, items)
        if len(words.split()) >= MIN_ATTACK_WORDS and f" {words} " in said:
            return True
    return False


# The disguises the lesson's normaliser takes off ("Normalise before you match"; "Lower case does
# nothing to a Cyrillic о, a zero-width space or '1gn0r3'"), each applied to every word of four
# letters or more: one Latin letter swapped for its Cyrillic look-alike, a zero-width space inside
# the word, or the word in full-width letters (which NFKC folds back).
_LOOKALIKES = {  # Latin letter -> its Cyrillic look-alike, written as escapes so they can be told apart
    "o": "\u043e", "a": "\u0430", "e": "\u0435", "c": "\u0441", "p": "\u0440",
    "O": "\u041e", "A": "\u0410", "E": "\u0415",
}  # fmt: skip
_LONG_WORD = re.compile(r"[A-Za-z]{4,}")


def _lookalike(word: str) -> str:
    at = next((i for i, char in enumerate(word) if char in _LOOKALIKES), None)
    return word if at is None else word[:at] + _LOOKALIKES[word[at]] + word[at + 1 :]


DISGUISES: dict[str, Any] = {
    "a Cyrillic look-alike letter": _lookalike,
    "a zero-width space": lambda word: word[:2] + "\u200b" + word[2:],
    "full-width letters": lambda word: "".join(chr(ord(char) + 0xFEE0) for char in word),
}


def disguised(text: str, disguise: str) -> str:
    """`text` with `DISGUISES[disguise]` applied to every word of four letters or more."""
    return _LONG_WORD.sub(lambda m: DISGUISES[disguise](m.group(0)), text)


_LETTERS = re.compile(r"[^\W\d_]{4,}")  # a word of four letters or more


def shared_words(first: str, second: str) -> set[str]:
    """The words of four letters or more two texts share, case folded."""
    return {w.lower() for w in _LETTERS.findall(first)} & {
        w.lower() for w in _LETTERS.findall(second)
    }


# What an attack names that is not its shape: something off the menu it asks for, and where in the
# café the claim was made. Each is swapped for the next in its list ("a free brownie" -> "a free
# pizza", "at the counter" -> "at the till"); the attack is the same attack.
OFF_MENU = ("brownie", "pizza", "muffin", "burger", "scone", "cake")
PLACES = ("at the counter", "at the till", "by the window", "at the door")


def _swapped(text: str, names: Sequence[str], plural: str = "") -> str:
    pattern = r"\b(" + "|".join(map(re.escape, names)) + r")(" + plural + r")\b"
    following = {name: names[(at + 1) % len(names)] for at, name in enumerate(names)}
    return re.sub(pattern, lambda m: following[m.group(1).lower()] + m.group(2), text, flags=re.I)


def fixture_variants(text: str) -> tuple[str, ...]:
    """The failing fixture said a little differently, as the next customer would: other numbers,
    a greeting in front, all lower case, other punctuation, another off-menu item and another
    place in the café. A rule for a shape catches them all; a rule for an incidental word does
    not ("brownie", "at the counter")."""
    return (
        re.sub(r"\d+", lambda m: str(int(m.group(0)) + 2), text),
        "Hi! " + text,
        text.lower(),
        text.replace(".", "!"),
        _swapped(_swapped(text, OFF_MENU, "s?"), PLACES),
    )


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
    text = str(choices["case"](choices["greeting"] + text + choices["sign_off"]))
    return disguised(text, choices["disguise"]) if choices["disguise"] else text


def rewordings(text: str, items: Sequence[str]) -> Any:
    """The failing fixture `text` said as the next customer would: any of other numbers, another
    menu item in place of each one it names, a greeting in front, a sign-off after, other
    punctuation, all lower or upper case, a disguise the normaliser takes off, at once. A rule written for the attack's shape catches
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
            "disguise": st.sampled_from(("", *DISGUISES)),
        }
    )
    return choices.map(lambda chosen: _reworded(text, items, chosen))


# An honest order between the halves of an attack is this many sentences at least, each of five
# words or more: fifty words and more, further than any bounded gap of a rule reaches.
SPREAD_SENTENCES = 10


def spread_out(text: str, honest: Sequence[str], items: Sequence[str] = ()) -> Any:
    """(first half, honest order, second half): the failing fixture `text` cut in two at a word,
    with, between the halves, `SPREAD_SENTENCES` to 16 honest orders (drawn from `honest`) or one
    long order of twice as many menu items in a single sentence ("a latte, two croissants, ...").
    The lesson: "every gap between two words of a rule is bounded", so a rule that passes each part
    alone cannot reach from one half to the other across them, and passes the whole; a gap that
    only stops at a full stop is bounded by the customer's sentences, not by the rule."""
    from hypothesis import strategies as st

    words = text.split()
    cut = st.integers(1, max(1, len(words) - 1))
    halves = cut.map(lambda at: (" ".join(words[:at]), " ".join(words[at:])))
    long_enough = tuple(order for order in honest if len(order.split()) >= 5)
    orders = st.lists(st.sampled_from(long_enough), min_size=SPREAD_SENTENCES, max_size=16)
    between = orders.map(" ".join)
    if items:
        count = st.sampled_from(("one", "two", "three"))
        item = st.builds(
            lambda c, i: f"{c} {i}" + ("s" if c in ("two", "three") else ""),
            count,
            st.sampled_from(tuple(items)),
        )
        listed = st.lists(item, min_size=2 * SPREAD_SENTENCES, max_size=32).map(", ".join)
        between = between | listed
    return st.builds(lambda pair, middle: (pair[0], middle, pair[1]), halves, between)
