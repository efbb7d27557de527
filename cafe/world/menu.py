"""The trusted menu: what the café sells, what is in it, and what ran out today.

Session 03 (`sessions/s03-context`) drew the line between trusted data and the customer's
untrusted words; this module is the trusted side of that line, and sessions 06 and 07 check every
ticket against it. It adds:

- `MenuItem` and `Menu`, small frozen records loaded from `cafe/data/menu.json`;
- `load_menu()`, which refuses bad data with an error that names the file and the field;
- `allergen_key()`, which folds the ways customers write an allergy ("dairy", "eggs", "nut
  allergy", "allergic to almonds") onto the menu's names, and `Menu.can_check()`, which says
  whether the menu records that allergen at all; `is_no_allergy()` spots "none" and "n/a";
- `Menu.prompt_text()`, the menu as the model is shown it.

What it leaves out: stock levels and prices over time (the 86'd list is one flag per item for the
day), and recipes. Prices are shown to the model but no session bills with them until S11.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = [
    "MENU_PATH",
    "ALLERGENS",
    "ALLERGEN_ALIASES",
    "ALLERGEN_KEYS",
    "NO_ALLERGY_WORDS",
    "MenuItem",
    "Menu",
    "normalize_name",
    "allergen_key",
    "is_no_allergy",
    "parse_menu",
    "load_menu",
]

# The menu that ships with the course (invented for teaching; edit it to make your own café).
MENU_PATH = Path(__file__).resolve().parents[1] / "data" / "menu.json"

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

# What a customer writes for "no allergy": dropped, never checked. Compared with everything but
# letters removed, so "N/A", "n.a.", "None." and "" all match.
NO_ALLERGY_WORDS: frozenset[str] = frozenset(
    {
        "",
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
_NOT_A_LETTER = re.compile(r"[\W\d_]+")  # keeps letters of any script: "牛奶" is not "none"


def normalize_name(text: str) -> str:
    """Lower-case, trim and collapse spaces, so 'Flat  White ' and 'flat white' are one item."""
    return re.sub(r"\s+", " ", text).strip().lower()


def is_no_allergy(word: str) -> bool:
    """Whether a declared allergy means "none": 'none', 'N/A', '' and the like (`NO_ALLERGY_WORDS`)."""
    return _NOT_A_LETTER.sub("", word.lower()) in NO_ALLERGY_WORDS


def _allergy_phrase(word: str) -> str:
    """'I'm allergic to Almonds (all).' -> 'almonds': lower case, no brackets, punctuation or framing."""
    text = _NOT_A_WORD.sub(" ", _BRACKETED.sub(" ", word.lower().replace("\u2019", "'")))
    return " ".join(w for w in text.split() if w not in _FRAMING_WORDS)


def allergen_key(word: str) -> str:
    """The key an allergen word is compared by: 'Dairy' -> 'milk', 'hazelnuts' -> 'nuts'.

    Handles the ways people write an allergy: any case and punctuation, a plural, "X allergy",
    "allergic to X", "X protein", a remark in brackets. A word it does not know comes back as the
    cleaned phrase ('Shellfish allergy' -> 'shellfish'), which no menu allergen equals.
    """
    phrase = _allergy_phrase(word)
    candidates = [phrase]
    if phrase.endswith("s"):  # a plural: "almonds", "soybeans", "eggs"
        candidates.append(phrase[:-1])
    for candidate in candidates:
        if candidate in ALLERGENS:
            return ALLERGEN_ALIASES.get(candidate, candidate)
        if candidate in ALLERGEN_ALIASES:
            return ALLERGEN_ALIASES[candidate]
    return phrase


@dataclass(frozen=True)
class MenuItem:
    """One thing the café sells. `allergens` holds the names the menu file uses (from `ALLERGENS`)."""

    name: str
    price: float
    allergens: frozenset[str]


@dataclass(frozen=True)
class Menu:
    """The day's menu: every item by normalized name, and the names that are 86'd (sold out)."""

    items: Mapping[str, MenuItem]
    sold_out: frozenset[str]
    source: str = "<memory>"

    def item(self, name: str) -> MenuItem | None:
        """The item called `name` (any case or spacing), or None when it is not on the menu."""
        return self.items.get(normalize_name(name))

    def is_sold_out(self, name: str) -> bool:
        return normalize_name(name) in self.sold_out

    def contains(self, name: str, allergen: str) -> bool:
        """Whether the item `name` contains `allergen` (an alias like 'dairy' counts as 'milk')."""
        item = self.item(name)
        wanted = allergen_key(allergen)
        return item is not None and any(allergen_key(a) == wanted for a in item.allergens)

    def can_check(self, allergen: str) -> bool:
        """Whether a declared allergy is one this menu records ('milk allergy' yes, 'sesame' no).

        An allergy it cannot check must never pass as safe: `cafe.detect` reports it as
        `unknown_allergen` so a person confirms it.
        """
        return allergen_key(allergen) in ALLERGEN_KEYS

    def prompt_text(self) -> str:
        """The menu as the model sees it: one line per item, 86'd items marked."""
        lines = []
        for item in self.items.values():
            contains = ", ".join(sorted(item.allergens)) or "none"
            status = "  [86'd today: do not order]" if item.name in self.sold_out else ""
            lines.append(f"- {item.name} (€{item.price:.2f}; contains: {contains}){status}")
        return "\n".join(lines)


def _bad(source: str, field: str, problem: str) -> ValueError:
    return ValueError(
        f"{source}: field {field!r} {problem}. Fix that entry in the menu file and load it again."
    )


def _parse_item(source: str, name: Any, data: Any) -> MenuItem:
    where = f"items.{name}"
    if not isinstance(name, str) or not normalize_name(name):
        raise _bad(source, where, "needs a non-empty item name")
    if not isinstance(data, Mapping):
        raise _bad(
            source, where, f"must be an object with price and allergens, not {type(data).__name__}"
        )
    unknown = set(data) - {"price", "allergens"}
    if unknown:
        raise _bad(
            source, f"{where}.{sorted(unknown)[0]}", "is not a menu field (use price and allergens)"
        )
    price = data.get("price")
    if (
        isinstance(price, bool)
        or not isinstance(price, (int, float))
        or not math.isfinite(price)
        or price <= 0
    ):
        raise _bad(source, f"{where}.price", f"must be a positive number, got {price!r}")
    allergens = data.get("allergens")
    if not isinstance(allergens, list) or not all(isinstance(a, str) for a in allergens):
        raise _bad(
            source, f"{where}.allergens", f"must be a list of allergen names, got {allergens!r}"
        )
    names = frozenset(normalize_name(a) for a in allergens)
    unknown_allergens = sorted(names - ALLERGENS)
    if unknown_allergens:
        raise _bad(
            source,
            f"{where}.allergens",
            f"names unknown allergen {unknown_allergens[0]!r} "
            f"(known: {', '.join(sorted(ALLERGENS))})",
        )
    return MenuItem(name=normalize_name(name), price=float(price), allergens=names)


def parse_menu(data: Any, source: str = "<memory>") -> Menu:
    """Build a `Menu` from decoded JSON, checking every field; `source` names the file in errors."""
    if not isinstance(data, Mapping):
        raise _bad(source, "<top level>", "must be a JSON object with items and sold_out")
    # A misspelt "sold_out" would otherwise mean nothing is 86'd today, silently. Keys that start
    # with "_" are comments.
    unknown = sorted(
        k for k in data if k not in ("items", "sold_out") and not str(k).startswith("_")
    )
    if unknown:
        raise _bad(
            source,
            unknown[0],
            "is not a menu field (use items and sold_out; start a comment key with '_')",
        )
    raw_items = data.get("items")
    if not isinstance(raw_items, Mapping) or not raw_items:
        raise _bad(source, "items", "must be a non-empty object of item name -> {price, allergens}")
    items: dict[str, MenuItem] = {}
    for name, entry in raw_items.items():
        item = _parse_item(source, name, entry)
        if item.name in items:
            raise _bad(source, f"items.{name}", "repeats an item already on the menu")
        items[item.name] = item
    raw_sold_out = data.get("sold_out", [])
    if not isinstance(raw_sold_out, list) or not all(isinstance(s, str) for s in raw_sold_out):
        raise _bad(source, "sold_out", f"must be a list of item names, got {raw_sold_out!r}")
    sold_out = frozenset(normalize_name(s) for s in raw_sold_out)
    strangers = sorted(sold_out - set(items))
    if strangers:
        raise _bad(source, "sold_out", f"lists {strangers[0]!r}, which is not on the menu")
    return Menu(items=MappingProxyType(items), sold_out=sold_out, source=source)


def load_menu(path: str | Path | None = None) -> Menu:
    """Load and check a menu file (the course's own `cafe/data/menu.json` by default)."""
    path = MENU_PATH if path is None else Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(
            f"{path}: no such menu file. Pass the path of a menu JSON file, "
            f"or nothing to use the course menu at {MENU_PATH}."
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})."
        ) from None
    return parse_menu(data, source=str(path))
