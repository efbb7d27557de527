"""The trusted menu: what the café sells, what is in it, and what ran out today.

Session 03 (`sessions/s03-context`) drew the line between trusted data and the customer's
untrusted words; this module is the trusted side of that line, and sessions 06 and 07 check every
ticket against it. It adds:

- `MenuItem` and `Menu`, small frozen records loaded from `cafe/data/menu.json`;
- `load_menu()`, which refuses bad data with an error that names the file and the field;
- `Menu.can_check()`, which says whether the menu records a declared allergen's group at all
  (the groups, and how customers write allergies, are `cafe.world.allergens`);
- `Menu.modifier()`: the kitchen modifier a note names, from the file's `modifiers` section
  (`cafe.world.modifiers`; session 05 reads a ticket's notes against them);
- `Menu.prompt_text()` and `Menu.modifiers_text()`, the menu as the model is shown it.

What it leaves out: stock levels and prices over time (the 86'd list is one flag per item for the
day), and recipes. Prices are shown to the model but no session bills with them until S11.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cafe.world.allergens import (
    ALLERGEN_ALIASES,
    ALLERGEN_GROUPS,
    ALLERGEN_KEYS,
    ALLERGENS,
    NO_ALLERGY_WORDS,
    allergen_key,
    is_no_allergy,
    is_plain,
)
from cafe.world.modifiers import Modifier, parse_modifiers
from cafe.world.spelling import spelling_key

# `ALLERGENS` to `is_no_allergy` live in `cafe.world.allergens`; they are listed here too, so
# `from cafe.world.menu import allergen_key` keeps working.
__all__ = [
    "MENU_PATH",
    "MENU_FIELDS",
    "MENU_ALLERGEN_NAMES",
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
# How a menu file may name an allergen: a name of one of the groups the menu records ("milk",
# "dairy"), from the standard's data (`cafe/data/allergens.json`); never an ingredient ("butter").
MENU_ALLERGEN_NAMES: frozenset[str] = frozenset(
    name for key in ALLERGENS for name in ALLERGEN_GROUPS[key].names
)
# The top-level fields of a menu file, declared once; keys starting with "_" are comments.
MENU_FIELDS: tuple[str, ...] = ("items", "sold_out", "modifiers")


def normalize_name(text: str) -> str:
    """Lower-case, trim and collapse spaces, so 'Flat  White ' and 'flat white' are one item.

    For comparing names only. Python's `\\s` also takes in no-break and wide spaces and the
    invisible separators U+001C to U+001F, so 'flat<U+001F>white' compares as 'flat white' here;
    a ticket whose item is written that way is refused, not read (`cafe.detect.plain_text`,
    session 06), because a character nobody sees can carry a message.
    """
    return re.sub(r"\s+", " ", text).strip().lower()


@dataclass(frozen=True)
class MenuItem:
    """One thing the café sells. `allergens` holds the allergen groups it contains, as the menu
    file names them: each is one of the names of a group in `ALLERGENS` ("milk" or "dairy")."""

    name: str
    price: float
    allergens: frozenset[str]


@dataclass(frozen=True)
class Menu:
    """The day's menu: every item by normalized name, the names that are 86'd (sold out), and
    the kitchen modifiers by `spelling_key` of each spelling (none for a menu built in code)."""

    items: Mapping[str, MenuItem]
    sold_out: frozenset[str]
    source: str = "<memory>"
    modifiers: Mapping[str, Modifier] = field(default_factory=lambda: MappingProxyType({}))

    def item(self, name: str) -> MenuItem | None:
        """The item called `name` (any case or spacing), or None when it is not on the menu."""
        return self.items.get(normalize_name(name))

    def is_sold_out(self, name: str) -> bool:
        return normalize_name(name) in self.sold_out

    def contains(self, name: str, allergen: str) -> bool:
        """Whether the item `name` may contain `allergen`: 'dairy' is the milk group, and an
        ingredient puts its group at risk ('butter' for any item with milk)."""
        item = self.item(name)
        wanted = allergen_key(allergen)
        return item is not None and any(allergen_key(a) == wanted for a in item.allergens)

    def can_check(self, allergen: str) -> bool:
        """Whether a declared allergy is one this menu records ('milk allergy' yes, 'sesame' no).

        An allergy it cannot check must never pass as safe: `cafe.detect` reports it as
        `unknown_allergen` so a person confirms it. That includes a declaration that is not plain
        text (`is_plain`: "milk" with a zero-width space, or with a no-break space in "milk
        allergy"): the ticket would carry those characters as written, to whoever reads it next.
        """
        return is_plain(allergen) and allergen_key(allergen) in ALLERGEN_KEYS

    def modifier(self, text: str) -> Modifier | None:
        """The kitchen modifier `text` spells ("Extra-Hot" -> extra hot), or None when none does."""
        return self.modifiers.get(spelling_key(text))

    def modifiers_text(self) -> str:
        """The modifiers as the model is shown them: one line per group, with what it applies to."""
        groups: dict[str, list[Modifier]] = {}
        for modifier in dict.fromkeys(self.modifiers.values()):
            groups.setdefault(modifier.group, []).append(modifier)
        lines = []
        for group, options in groups.items():
            applies = options[0].applies_to
            target = "any item" if applies is None else ", ".join(sorted(applies))
            lines.append(f"- {group} ({target}): {', '.join(m.name for m in options)}")
        return "\n".join(lines)

    def prompt_text(self) -> str:
        """The menu as the model sees it: one line per item, 86'd items marked."""
        lines = []
        for item in self.items.values():
            contains = ", ".join(sorted(item.allergens)) or "none"
            status = "  [86'd today: do not order]" if item.name in self.sold_out else ""
            lines.append(f"- {item.name} (€{item.price:.2f}; contains: {contains}){status}")
        return "\n".join(lines)


def _bad(source: str, where: str, problem: str) -> ValueError:
    return ValueError(
        f"{source}: field {where!r} {problem}. Fix that entry in the menu file and load it again."
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
    unknown_allergens = sorted(names - MENU_ALLERGEN_NAMES)
    if unknown_allergens:
        raise _bad(
            source,
            f"{where}.allergens",
            f"names unknown allergen {unknown_allergens[0]!r} "
            f"(the groups this menu records: {', '.join(sorted(ALLERGENS))}, or another name of one)",
        )
    return MenuItem(name=normalize_name(name), price=float(price), allergens=names)


def _parse_items(source: str, raw_items: Any) -> dict[str, MenuItem]:
    if not isinstance(raw_items, Mapping) or not raw_items:
        raise _bad(source, "items", "must be a non-empty object of item name -> {price, allergens}")
    items: dict[str, MenuItem] = {}
    for name, entry in raw_items.items():
        item = _parse_item(source, name, entry)
        if item.name in items:
            raise _bad(source, f"items.{name}", "repeats an item already on the menu")
        items[item.name] = item
    return items


def parse_menu(data: Any, source: str = "<memory>") -> Menu:
    """Build a `Menu` from decoded JSON, checking every field; `source` names the file in errors.

    `modifiers` may be left out: a menu without it lets a ticket's notes say nothing at all.
    """
    if not isinstance(data, Mapping):
        raise _bad(source, "<top level>", "must be a JSON object with items and sold_out")
    # A misspelt "sold_out" would otherwise mean nothing is 86'd today, silently.
    unknown = sorted(k for k in data if k not in MENU_FIELDS and not str(k).startswith("_"))
    if unknown:
        raise _bad(
            source,
            unknown[0],
            f"is not a menu field (use {', '.join(MENU_FIELDS)}; start a comment key with '_')",
        )
    items = _parse_items(source, data.get("items"))
    raw_sold_out = data.get("sold_out", [])
    if not isinstance(raw_sold_out, list) or not all(isinstance(s, str) for s in raw_sold_out):
        raise _bad(source, "sold_out", f"must be a list of item names, got {raw_sold_out!r}")
    sold_out = frozenset(normalize_name(s) for s in raw_sold_out)
    strangers = sorted(sold_out - set(items))
    if strangers:
        raise _bad(source, "sold_out", f"lists {strangers[0]!r}, which is not on the menu")
    modifiers = parse_modifiers(data.get("modifiers", {}), items, MENU_ALLERGEN_NAMES, source)
    return Menu(MappingProxyType(items), sold_out, source, modifiers)


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
