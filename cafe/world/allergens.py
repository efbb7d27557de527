"""How customers write an allergy, and what the menu's allergen names mean.

The café's world (session 01's shelf): `cafe.world.menu` records each item's allergens with the
names in `ALLERGENS`; this file reads what a customer declares against them. Session 05's consent
gate and session 06's checks compare allergies only through it. It adds:

- `allergen_key()`, which folds the ways customers write an allergy ("dairy", "eggs", "nut
  allergy", "allergic to almonds", "ＭＩＬＫ") onto the menu's names, and returns anything it does
  not know as it was written, so a check that cannot read it fails closed (`Menu.can_check`);
- `is_no_allergy()`, an allow-list for "none": blank, or letters spelling none, n/a, nil and the
  like. "🥜" or "!!!" is an allergy nobody can check, never "no allergy".

What it leaves out: a food-safety reference. The lists are short on purpose, enough to make the
course's unsafe orders real; an allergy they do not know is asked about, never guessed at.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from cafe.world.spelling import drop_ignorable, spelling_key

__all__ = [
    "ALLERGENS",
    "ALLERGEN_ALIASES",
    "ALLERGEN_KEYS",
    "NO_ALLERGY_WORDS",
    "allergen_key",
    "is_no_allergy",
]

# The allergen names the menu file may use. Kept short on purpose: enough to make the course's
# unsafe-order examples real, not a food-safety reference.
ALLERGENS: frozenset[str] = frozenset({"milk", "dairy", "egg", "gluten", "nuts", "soy"})

# Words that name the same allergen, folded onto one key before comparing. Cheese is made from
# milk, so a customer who says "dairy" must be kept away from a latte, and one who says "milk"
# away from the cheese omelette (which the menu lists as egg, dairy). The menu has one "nuts"
# flag, so peanuts and every tree nut fold onto it; coeliac disease is a reaction to gluten.
# Compiled for the course from the words customers use, not a food-safety reference: a word that
# is not here is not guessed at (see `Menu.can_check`).
ALLERGEN_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        **dict.fromkeys(
            (
                "dairy",
                "lactose",
                "cheese",
                "butter",
                "cream",
                "whey",
                "casein",
                "yogurt",
                "yoghurt",
            ),
            "milk",
        ),
        **dict.fromkeys(("eggs", "egg white", "egg yolk"), "egg"),
        **dict.fromkeys(("wheat", "barley", "rye", "spelt", "coeliac", "celiac"), "gluten"),
        **dict.fromkeys(
            (
                "nut",
                "tree nut",
                "tree nuts",
                "peanut",
                "groundnut",
                "almond",
                "hazelnut",
                "walnut",
                "cashew",
                "pecan",
                "pistachio",
                "macadamia",
                "brazil nut",
            ),
            "nuts",
        ),
        **dict.fromkeys(("soya", "soybean", "soy bean", "soya bean", "tofu"), "soy"),
    }
)

# The keys a menu can be checked by: every allergen name a menu file may use, folded. A declared
# allergy whose key is not one of these cannot be checked, however the menu is written.
ALLERGEN_KEYS: frozenset[str] = frozenset(ALLERGEN_ALIASES.get(name, name) for name in ALLERGENS)

# Words around an allergen that do not change which allergen it is: "milk allergy", "allergic to
# nuts", "milk protein", "gluten-free", "coeliac disease", "cow's milk". Dropped before looking
# the rest up. A word that does change it ("no", "not", "and") is kept, so the phrase stays
# unknown and is asked about rather than read the wrong way.
_FRAMING_WORDS = frozenset(
    {
        "allergy",
        "allergies",
        "allergic",
        "allergen",
        "to",
        "intolerance",
        "intolerant",
        "sensitivity",
        "sensitive",
        "severe",
        "severely",
        "mild",
        "very",
        "i",
        "i'm",
        "im",
        "am",
        "have",
        "has",
        "an",
        "a",
        "all",
        "any",
        "protein",
        "proteins",
        "free",
        "disease",
        "products",
        "cow's",
        "cows",
        "goat's",
        "goats",
        "sheep's",
    }
)

# What a customer writes for "no allergy": dropped, never checked. Compared with spaces and
# punctuation between letters removed, so "N/A", "n.a." and "None." match; a blank entry is "none"
# too, and is handled on its own (see `is_no_allergy`).
NO_ALLERGY_WORDS: frozenset[str] = frozenset(
    {
        "none",
        "na",
        "nil",
        "no",
        "nothing",
        "noallergies",
        "noallergy",
        "noneknown",
        "nka",
    }
)

_BRACKETED = re.compile(r"\([^()]*\)")  # "eggs (all)": a remark in brackets
_NOT_A_WORD = re.compile(r"[^\w'\s]+")  # punctuation, hyphens included ("gluten-free")
# Between the letters of "n/a" or "no allergies": what `is_no_allergy` ignores, and nothing else.
_SPACING = re.compile(r"[\s./,;:!?'()-]+")


def is_no_allergy(word: str) -> bool:
    """Whether a declared allergy means "none": blank, or letters spelling 'none', 'N/A', 'nil' ...

    An allow-list: anything else is an allergy, including one the menu cannot check. "🥜", "!!!"
    and "0" are not "none": a check that does not understand a declaration must not drop it.
    """
    if not drop_ignorable(unicodedata.normalize("NFKC", word)).strip():
        return True  # nothing declared
    return _SPACING.sub("", spelling_key(word)) in NO_ALLERGY_WORDS


def _allergy_phrase(word: str) -> str:
    """'I'm allergic to Almonds (all).' -> 'almonds': lower case, no brackets, punctuation or framing."""
    text = spelling_key(_BRACKETED.sub(" ", unicodedata.normalize("NFKC", word)))
    text = _NOT_A_WORD.sub(" ", text.replace("\u2019", "'"))
    return " ".join(w for w in text.split() if w not in _FRAMING_WORDS)


def allergen_key(word: str) -> str:
    """The key an allergen word is compared by: 'Dairy' -> 'milk', 'hazelnuts' -> 'nuts'.

    Handles the ways people write an allergy: any case and punctuation, a plural, "X allergy",
    "allergic to X", "X protein", a remark in brackets. A word it does not know comes back as the
    cleaned phrase ('Shellfish allergy' -> 'shellfish'), which no menu allergen equals; one with
    no word left ("🥜", "!!!") comes back as written, so two different symbols never match.
    """
    phrase = _allergy_phrase(word)
    if not phrase:
        return " ".join(unicodedata.normalize("NFKC", word).casefold().split())
    candidates = [phrase]
    if phrase.endswith("s"):  # a plural: "almonds", "soybeans", "eggs"
        candidates.append(phrase[:-1])
    for candidate in candidates:
        if candidate in ALLERGENS:
            return ALLERGEN_ALIASES.get(candidate, candidate)
        if candidate in ALLERGEN_ALIASES:
            return ALLERGEN_ALIASES[candidate]
    return phrase
