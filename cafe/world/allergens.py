"""How customers write an allergy, read against the fourteen allergen groups of EU food law.

The café's world (session 01's shelf), taught in session 05 (`sessions/s05-consent-gate/lesson.md`,
notebook `notebooks/s05-consent-gate.ipynb`). EU food law names fourteen groups a food business
must declare (Regulation (EU) No 1169/2011, Annex II: cereals containing gluten, crustaceans, eggs,
fish, peanuts, soybeans, milk, nuts, celery, mustard, sesame, sulphites, lupin, molluscs). They are
data, in `cafe/data/allergens.json`: each group's words (its names, and the customer's own words
for it) and the ingredient words under it. The menu tags its items by group. It adds:

- `AllergenGroup` and `ALLERGEN_GROUPS`, the fourteen groups as read from that file;
- `allergen_group()`: the group a word names as a whole ("Dairy", "nut allergy", "allergic to
  eggs"), or None for anything else, an ingredient ("butter") included;
- `allergy_name()`: how two allergies are compared: the group for a word that names one, the
  word itself (folded) for anything else;
- `allergen_key()`: the group a declared allergy puts at risk, ingredients folded onto their group
  ("hazelnuts" -> nuts), for asking the menu; anything it does not know comes back as written, so
  a check that cannot read it fails closed (`Menu.can_check`);
- `is_no_allergy()`, an allow-list for "none": blank, or letters spelling none, n/a, nil and the
  like. "🥜" or "!!!" is an allergy nobody can check, never "no allergy".

The rule: a ticket's allergy must name the group the customer declared (or the customer's own word
for it, read as the group), an ingredient or narrower word (butter for milk, almond for nuts) is a
change the customer must confirm and never the same allergy, and "none" beside an allergy is
refused. Reading a declaration for the menu is generous (an ingredient puts its group at risk);
comparing a ticket with it is strict (only the group's own words stand for the group).

What it leaves out: the menu records five of the fourteen groups (`ALLERGENS`); an allergy to
another group ("sesame") is a real allergy this menu cannot check, so a person asks.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cafe.world.spelling import drop_ignorable, spelling_key

__all__ = [
    "ALLERGENS_PATH",
    "AllergenGroup",
    "ALLERGEN_GROUPS",
    "ALLERGENS",
    "ALLERGEN_ALIASES",
    "ALLERGEN_KEYS",
    "NO_ALLERGY_WORDS",
    "load_allergen_groups",
    "allergen_group",
    "allergy_name",
    "allergen_key",
    "is_no_allergy",
]

# The standard's groups, as data (Regulation (EU) No 1169/2011, Annex II).
ALLERGENS_PATH = Path(__file__).resolve().parents[1] / "data" / "allergens.json"
# The fields each group carries in that file, declared once.
_GROUP_FIELDS = frozenset({"annex_ii", "names", "ingredients"})


@dataclass(frozen=True)
class AllergenGroup:
    """One Annex II group: its key, the Annex's wording, the words that name it, its ingredients."""

    key: str
    annex_ii: str
    names: frozenset[str]
    ingredients: frozenset[str]


def _words(source: str, where: str, raw: Any) -> frozenset[str]:
    if not isinstance(raw, list) or not all(isinstance(w, str) and w.strip() for w in raw):
        raise ValueError(f"{source}: field {where!r} must be a list of words, got {raw!r}.")
    return frozenset(spelling_key(w) for w in raw)


def load_allergen_groups(path: str | Path | None = None) -> Mapping[str, AllergenGroup]:
    """The groups in an allergen file (the course's `cafe/data/allergens.json` by default).

    Every field is checked, and a word that two groups share is refused: a word names one group.
    """
    path = ALLERGENS_PATH if path is None else Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    raw_groups = data.get("groups") if isinstance(data, Mapping) else None
    if not isinstance(raw_groups, Mapping) or not raw_groups:
        raise ValueError(f"{path}: needs a 'groups' object of group key -> fields.")
    groups: dict[str, AllergenGroup] = {}
    owner: dict[str, str] = {}
    for key, raw in raw_groups.items():
        if not isinstance(raw, Mapping) or set(raw) != _GROUP_FIELDS:
            raise ValueError(f"{path}: group {key!r} needs exactly {sorted(_GROUP_FIELDS)}.")
        names = _words(str(path), f"groups.{key}.names", raw["names"]) | {spelling_key(key)}
        ingredients = _words(str(path), f"groups.{key}.ingredients", raw["ingredients"])
        for word in names | ingredients:
            if owner.setdefault(word, key) != key:
                raise ValueError(f"{path}: {word!r} is in group {owner[word]!r} and {key!r}.")
        groups[key] = AllergenGroup(key, str(raw["annex_ii"]), names, ingredients)
    return MappingProxyType(groups)


# The fourteen groups, read once from the package's own data file.
ALLERGEN_GROUPS: Mapping[str, AllergenGroup] = load_allergen_groups()
# The groups the course's menu records for every item (`cafe/data/menu.json` tags items with these
# and no others): five of the fourteen, enough to make the course's unsafe orders real.
ALLERGENS: frozenset[str] = frozenset({"milk", "egg", "gluten", "nuts", "soy"})
# The keys a menu can be checked by. A declared allergy whose key is not one of these cannot be
# checked, however the menu is written.
ALLERGEN_KEYS: frozenset[str] = ALLERGENS
# Words that name a whole group ("dairy" -> milk), and ingredient words under one ("butter" ->
# milk): together, what `allergen_key` folds onto a group. Only the first kind names the group.
_GROUP_NAMES: Mapping[str, str] = MappingProxyType(
    {word: g.key for g in ALLERGEN_GROUPS.values() for word in g.names}
)
ALLERGEN_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        **{word: g.key for g in ALLERGEN_GROUPS.values() for word in g.ingredients},
        **_GROUP_NAMES,
    }
)

# The only words a ticket may write around a group's word and still name the group: "milk
# allergy", "allergic to milk", "allergy: milk". Nothing else, so "mild milk allergy" or "milk
# (whole milk is fine)" names no group, and is compared as written.
_FRAME_BEFORE = ("allergic to ", "allergy: ", "allergy ")
_FRAME_AFTER = (" allergy", " allergies")

# Words around an allergen in a declaration that do not change which group it puts at risk: "milk
# allergy", "allergic to nuts", "gluten-free", "coeliac disease", "cow's milk". Dropped before
# `allergen_key` looks the rest up. A word that does change it ("no", "not", "and") is kept, so the
# phrase stays unknown and is asked about rather than read the wrong way. Never used to compare a
# ticket with a declaration (`allergy_name` is, with `_FRAME_BEFORE` and `_FRAME_AFTER` only).
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


def _unframed(word: str) -> str:
    """'Allergic to Milk' -> 'milk': the `spelling_key`, with at most one frame on each side gone."""
    key = spelling_key(word)
    for before in _FRAME_BEFORE:
        if key.startswith(before):
            key = key[len(before) :]
            break
    for after in _FRAME_AFTER:
        if key.endswith(after):
            key = key[: -len(after)]
            break
    return key


def allergen_group(word: str) -> str | None:
    """The group `word` names as a whole ('Dairy' -> 'milk', 'nut allergy' -> 'nuts'), else None.

    Strict: an ingredient ('butter', 'almond', 'egg white') names part of a group, never the group,
    and a word with anything beside it but "allergy" or "allergic to" names nothing.
    """
    return _GROUP_NAMES.get(_unframed(word))


def allergy_name(word: str) -> str:
    """What two allergies are compared by: the group a word names ('dairy' -> 'milk'), else the
    word folded ('Butter allergy' -> 'butter'), so an ingredient is never its group."""
    rest = _unframed(word)
    return _GROUP_NAMES.get(rest, rest)


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
    """The group a declared allergy puts at risk: 'Dairy' -> 'milk', 'hazelnuts' -> 'nuts'.

    For asking the menu, so generous: an ingredient puts its group at risk (a menu that records
    nuts cannot promise an item holds no hazelnut). Never for comparing a ticket's allergy with
    the declared one: that is `allergy_name`. Handles the ways people write an allergy: any case and punctuation, a plural, "X allergy",
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
        if candidate in ALLERGEN_ALIASES:
            return ALLERGEN_ALIASES[candidate]
    return phrase
