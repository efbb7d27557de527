"""A note's clause that cancels an option: never read as the option it cancels.

Session 05 (`sessions/s05-consent-gate/lesson.md`, notebook `notebooks/s05-consent-gate.ipynb`),
a helper of `cafe.consent.notes`, which reads a ticket's notes as an allow-list of the menu's
kitchen modifiers. A word that cancels what it sits beside ("none", "n/a", "no", ...) is never
dropped as courtesy: "extra shot: nil" is not the extra shot. It adds:

- `negated_option(rest, menu)`: what a clause with a cancelling word at either end reads as: the
  option the menu spells for the negation ("sugar: none" is "no sugar"), or why it cannot be
  read, so front of house asks;
- `cancelled_clauses(lone)`: which clauses a cancelling word written on its own may cancel
  ("milk allergy, none"), all refused, because the reader cannot tell which one it meant.

What it leaves out: reading the rest of a clause (item, count, modifier), which is
`cafe.consent.notes`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cafe.world.menu import Menu
from cafe.world.modifiers import Modifier
from cafe.world.spelling import spelling_key

__all__ = [
    "EMPTY_NOTES",
    "LONE_WORDS",
    "NEGATED_FORMS",
    "NEGATING",
    "cancelled_clauses",
    "negated_option",
]

# What people write for "no notes". A note of only these (and courtesy) is skipped; beside
# another clause one may cancel it ("milk allergy, none"), so there it is refused, never dropped.
EMPTY_NOTES: frozenset[str] = frozenset({"none", "n/a", "nil", "no notes"})
# Words that cancel the modifier (or allergy) they sit beside, before or after it: "sugar: none",
# "n/a separate board", "hold the onions". Closed only for the reading: a clause with any word
# outside it is no menu spelling either, so it is refused like any other.
NEGATING: tuple[str, ...] = (
    "none",
    "n/a",
    "na",
    "nil",
    "null",
    "nothing",
    "no",
    "not",
    "never",
    "zero",
    "0",
    "without",
    "w/o",
    "skip",
    "hold",
    "omit",
    "minus",
    "cancel",
    "remove",
    "leave out",
    "do not",
    "don't",
    "dont",
)
# A clause of only one of these may cancel the clause beside it ("extra shot, nil").
LONE_WORDS: frozenset[str] = EMPTY_NOTES | frozenset(NEGATING)
# How the menu spells a negated option ("no sugar", "without ice"): the only readings a negated
# clause may have. A negation the menu does not spell is a question for the customer.
NEGATED_FORMS: tuple[str, ...] = ("no {}", "without {}")
# A negating word at the start or the end of a clause (in `spelling_key` form), with any
# punctuation between it and the rest, which must hold a word: "none: extra shot", "sugar:none".
# Longest words first, so "none" is tried before "no"; a word is whole ("not" is never "no").
_NEGATION_WORDS = "|".join(re.escape(w) for w in sorted(NEGATING, key=len, reverse=True))
_NEGATED_FIRST = re.compile(
    rf"(?P<word>{_NEGATION_WORDS})(?!\w)[\W_]*(?:(?:the|any|a|an)\s+)?(?P<rest>\w.*)"
)
_NEGATED_LAST = re.compile(rf"(?P<rest>.*?\w)[\W_]*(?<!\w)(?P<word>{_NEGATION_WORDS})[\W_]*")


def negated_option(rest: str, menu: Menu) -> Modifier | str | None:
    """What a clause with a `NEGATING` word at either end reads as: the option the menu spells
    for the negation (`NEGATED_FORMS`: "sugar: none" is "no sugar", because "sugar" is a spelling
    of "one sugar" and "no sugar" is an option), or why not when it cancels a menu option; None
    for any other clause. The negated part is never read as itself: that is the point."""
    reason = None
    for match in (m for p in (_NEGATED_FIRST, _NEGATED_LAST) if (m := p.fullmatch(rest))):
        negated = spelling_key(match.group("rest"))
        named = menu.modifiers.get(negated)
        # The negated words themselves, then every spelling of the option they name.
        for spelling in [negated] + [s for s, m in menu.modifiers.items() if named and m == named]:
            for form in NEGATED_FORMS:
                if (option := menu.modifiers.get(spelling_key(form.format(spelling)))) is not None:
                    return option
        if named is not None and reason is None:  # name the option it cancels
            word = match.group("word")
            reason = f"{word!r} cancels {negated!r}, and the menu has no option that says so"
    return reason


def cancelled_clauses(lone: Sequence[str | None]) -> dict[int, str]:
    """Which clauses a lone negating word may cancel, by position, with the reason. `lone` holds,
    for each clause, the negating word it is made of, alone or for an item ("none", "latte: n/a"),
    or None. The word and the clause on either side of it ("milk allergy, none", "no, extra
    shot") are all refused: which one it meant the reader cannot tell."""
    reasons: dict[int, str] = {}
    for at, word in enumerate(lone if len(lone) > 1 else ()):
        if word is None:
            continue
        for near in (at - 1, at + 1):
            if 0 <= near < len(lone) and lone[near] is None:
                reasons[near] = f"{word!r} beside it may cancel it; ask what was meant"
        reasons[at] = f"{word!r} on its own may cancel the clause beside it; ask what was meant"
    return reasons
