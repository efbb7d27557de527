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
  word itself (folded, a plural as its singular) for anything else;
- `allergen_key()`: the group a declared allergy puts at risk, ingredients folded onto their group
  ("hazelnuts" -> nuts), for asking the menu. Every part must be understood: a remark in brackets
  is dropped only when it says how severe or how much ("Almonds (all)"); "milk (and eggs)", "soy,
  milk" or anything else it does not know comes back as written, so a check that cannot read it
  fails closed (`Menu.can_check`) and a person asks;
- `is_no_allergy()`, an allow-list for "none": blank, or letters spelling none, n/a, nil and the
  like. "🥜" or "!!!" is an allergy nobody can check, never "no allergy".

- `is_plain()`: whether a declaration is plain text, with no character nobody can see
  (`hidden_characters`: a zero-width space, a direction override, tag characters that can spell a
  whole sentence) and no spacing but single ordinary spaces (`odd_spacing`). The readings above
  look through those characters, which is the safe side for asking whether an item holds an
  allergen; but a ticket carries the declaration as written, so `Menu.can_check` says no to one
  that is not plain, and a person confirms it in plain words.

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

from cafe.world.spelling import drop_ignorable, hidden_characters, odd_spacing, spelling_key

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
    "is_plain",
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
# allergy", "allergic to milk", "allergy to milk", "allergy: milk". Nothing else, so "mild milk
# allergy" or "milk (whole milk is fine)" names no group, and is compared as written.
_FRAME_BEFORE = ("allergic to ", "allergy to ", "allergy: ", "allergy ")
_FRAME_AFTER = (" allergy", " allergies")

# The only words a remark in brackets may hold for `allergen_key` to drop it: how severe, how much
# of the group ("Almonds (all)", "milk (severe)", "nuts [anaphylactic]"). An allow-list, short on
# purpose: a bracket holding any other word ("milk (and eggs)", "egg (white)") may name an allergy,
# so the declaration is not understood and a person asks.
_REMARK_WORDS = frozenset(
    {
        *("all", "any", "every", "kind", "kinds", "type", "types"),
        *("severe", "severely", "mild", "mildly", "moderate", "very", "extremely", "serious"),
        *("anaphylactic", "anaphylaxis", "life", "threatening"),
        *("allergy", "allergies", "allergic", "intolerance", "intolerant"),
    }
)

# Words around an allergen in a declaration that do not change which group it puts at risk: "milk
# allergy", "allergic to nuts", "gluten-free", "coeliac disease", "cow's milk", and the remark words.
# Dropped at the ends of a clause before `allergen_key` looks the rest up, never from its middle
# ("soy allergy milk" is two allergies, not "soy milk"). A word that does change it ("no", "not",
# "and") is kept, so the phrase stays unknown and is asked about rather than read the wrong way.
# Never used to compare a ticket with a declaration (`allergy_name` is, with the frames above).
_FRAMING_WORDS = _REMARK_WORDS | frozenset(
    {
        *("allergen", "to", "sensitivity", "sensitive"),
        *("i", "i'm", "im", "am", "have", "has", "an", "a"),
        *("protein", "proteins", "free", "disease", "products"),
        *("cow's", "cows", "goat's", "goats", "sheep's"),
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
        "noknownallergies",
        "noknownallergy",
        "nofoodallergies",
        "noknownfoodallergies",
    }
)

# Brackets of every kind, read after NFKC (full-width ones are plain by then): Unicode's opening
# and closing punctuation below U+3020 (( [ { ⟨ 【 〔 alike; NFKC folds the later ones but two onto
# these), and an innermost pair with what it holds. Any other bracket is a clause end.
_OPEN, _CLOSE = (
    re.escape("".join(c for c in map(chr, range(0x3020)) if unicodedata.category(c) == kind))
    for kind in ("Ps", "Pe")
)
_BRACKET = re.compile(f"[{_OPEN}{_CLOSE}]")
_INNERMOST = re.compile(f"[{_OPEN}]([^{_OPEN}{_CLOSE}]*)[{_CLOSE}]")
# Remarks in brackets inside brackets, at most this deep ("milk (severe (all))"): nobody nests
# deeper, and the bound keeps the reading linear in the text's length.
_NESTING = 3
# A declaration read piece by piece: a word (letters or digits, "cow's" one word), a hyphen or
# underscore inside a word ("gluten-free", read as a space), a space, or one other character.
_PIECE = re.compile(r"([^\W_]+(?:'[^\W_]+)*)|(?<=[^\W_])[-_\u2010\u2011](?=[^\W_])|\s+|(.)", re.S)
# Symbols people write between two allergies ("milk & eggs"), read like punctuation: they end a
# clause. Any other character that is neither a word, a space nor punctuation (an emoji, "©") is
# not understood, so the declaration goes to a person.
_BETWEEN = frozenset("+&|<>=~*^`")
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
    rest = _singular(_unframed(word))  # "almonds" and "almond" are one allergy
    return _GROUP_NAMES.get(rest, rest)


def is_no_allergy(word: str) -> bool:
    """Whether a declared allergy means "none": blank, or letters spelling 'none', 'N/A', 'nil' ...

    An allow-list: anything else is an allergy, including one the menu cannot check. "🥜", "!!!"
    and "0" are not "none": a check that does not understand a declaration must not drop it.
    Nor is a declaration holding a character nobody can see ("none" followed by tag characters
    that spell "milk", or those characters alone): it is kept, and the menu cannot check it
    (`is_plain`), so a person asks.
    """
    if hidden_characters(word):
        return False
    if not drop_ignorable(unicodedata.normalize("NFKC", word)).strip():
        return True  # nothing declared
    return _SPACING.sub("", spelling_key(word)) in NO_ALLERGY_WORDS


def _singular(phrase: str) -> str:
    """'almonds' -> 'almond', 'anchovies' -> 'anchovy': a plural whose singular the table lists,
    folded onto it (no plural in the table names another group); anything else as it is."""
    if phrase.endswith("ies") and phrase[:-3] + "y" in ALLERGEN_ALIASES:
        return phrase[:-3] + "y"
    if phrase.endswith("s") and phrase[:-1] in ALLERGEN_ALIASES:
        return phrase[:-1]
    return phrase


def _clauses(text: str) -> list[list[str]] | None:
    """'allergic to milk, severe' -> [['allergic', 'to', 'milk'], ['severe']]: the words of each
    clause in `spelling_key` form, punctuation ending a clause; None when a character is neither
    a word, a space nor punctuation ('milk 🥜': a part nobody can read)."""
    clauses: list[list[str]] = [[]]
    for piece in _PIECE.finditer(text):
        word, other = piece.group(1), piece.group(2)
        if word:
            clauses[-1].extend(spelling_key(word).split())
        elif other is not None:
            if not (unicodedata.category(other).startswith("P") or other in _BETWEEN):
                return None
            clauses.append([])
    return clauses


def _is_remark(inside: str) -> bool:
    """Whether a bracket holds only remark words (and punctuation): 'all', 'severe, anaphylactic'."""
    clauses = _clauses(inside)
    return clauses is not None and all(w in _REMARK_WORDS for clause in clauses for w in clause)


def _without_remarks(text: str) -> str | None:
    """`text` with each bracket that holds only remark words made a clause break ('Almonds (all)'
    -> 'Almonds , '); None when a bracket holds anything else ('milk (and eggs)', 'egg (white)':
    it may name an allergy) or is left unpaired."""
    for _ in range(_NESTING):
        inside = _INNERMOST.findall(text)
        if not inside:
            break
        if not all(_is_remark(remark) for remark in inside):
            return None
        text = _INNERMOST.sub(" , ", text)
    return None if _BRACKET.search(text) else text


def is_plain(word: str) -> bool:
    """Whether a declaration can be read at all: no character nobody can see, and no spacing but
    single ordinary spaces (" MILK " is plain; "milk  allergy" and a no-break space are not)."""
    return not hidden_characters(word) and not odd_spacing(word)


def _allergy_phrase(word: str) -> str | None:
    """'I'm allergic to Almonds (all).' -> 'almonds': the one clause left once remarks in brackets
    and framing at a clause's ends are gone ('' when nothing is left). None when any part is not
    understood: a bracket that is not a remark, a symbol, a second clause ('soy, milk'), or
    framing inside a clause ('soy allergy milk'): each may name another allergy."""
    text = drop_ignorable(unicodedata.normalize("NFKC", word))
    kept = _without_remarks(text.replace("\u2019", "'").replace("\u2018", "'"))
    clauses = None if kept is None else _clauses(kept)
    if clauses is None:
        return None
    phrases = []
    for clause in clauses:
        named = [i for i, w in enumerate(clause) if w not in _FRAMING_WORDS]
        if named and named[-1] - named[0] + 1 != len(named):
            return None
        if named:
            phrases.append(" ".join(clause[named[0] : named[-1] + 1]))
    if len(phrases) > 1:
        return None
    return phrases[0] if phrases else ""


def allergen_key(word: str) -> str:
    """The group a declared allergy puts at risk: 'Dairy' -> 'milk', 'hazelnuts' -> 'nuts'.

    For asking the menu, so generous: an ingredient puts its group at risk (a menu that records
    nuts cannot promise an item holds no hazelnut). Never for comparing a ticket's allergy with
    the declared one: that is `allergy_name`. Handles the ways people write one allergy: any case
    and punctuation, a plural, "X allergy", "allergic to X", "X protein", a remark in brackets
    that only says how severe or how much ("Almonds (all)"). Every other part must be understood:
    a phrase it does not know comes back cleaned ('Shellfish allergy' -> 'shellfish', 'milk and
    eggs'), and a declaration with a part it cannot read ('milk (and eggs)', 'soy, milk', '🥜')
    comes back as written, so no menu allergen equals it and a person asks (`Menu.can_check`).
    """
    phrase = _allergy_phrase(word)
    if not phrase:
        return " ".join(unicodedata.normalize("NFKC", word).casefold().split())
    return ALLERGEN_ALIASES.get(_singular(phrase), phrase)
