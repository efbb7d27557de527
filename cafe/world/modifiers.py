"""The kitchen modifiers the menu defines: the only things a ticket's notes may say.

The café's world (session 01's shelf), taught in session 05 (`sessions/s05-consent-gate/lesson.md`,
notebook `notebooks/s05-consent-gate.ipynb`). A kitchen acts on a ticket's notes, so notes that
may hold any text are a second, unchecked order: "and a croissant", "paid", "ｆｒｅｅ". The menu
file therefore lists, beside its items, every modifier the kitchen knows (`modifiers`: extra hot,
no foam, decaf, to go, ...), grouped, each with the items it applies to, the other spellings it
accepts, what it adds to the price and which allergens it adds.
It adds:

- `Modifier`, one option as a frozen record;
- `parse_modifiers(data, items, allergens, source)`: the `modifiers` section of the menu file,
  checked field by field, as a lookup from `spelling_key` to `Modifier`. Two options spelled
  alike are a load error, so every spelling means exactly one option.

Rules the data keeps, and why: `applies_to` names menu items (or is `"*"` for every item);
`allergens` are what an option ADDS (an option never takes one away: a latte without milk is the
oat latte, a different item); `price` is informational, for the till: a priced option passes only
when the order approved it, like any other. Prices, payment and comps are never modifiers.

What it leaves out: reading a ticket's notes against these (`cafe.consent.notes`, session 05).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from cafe.world.spelling import hidden_characters, spelling_key

__all__ = ["EVERY_ITEM", "Modifier", "parse_modifiers"]

# What `applies_to` holds for a modifier every item takes ("to go").
EVERY_ITEM = "*"
# The fields an option may carry, declared once.
_OPTION_FIELDS = frozenset({"aliases", "allergens", "price"})


@dataclass(frozen=True)
class Modifier:
    """One kitchen modifier: its group, its name as the menu spells it, what it applies to.

    `applies_to` is None when every item takes it. `allergens` are menu allergen names it adds.
    """

    group: str
    name: str
    applies_to: frozenset[str] | None
    allergens: frozenset[str]
    price: float = 0.0

    def applies(self, item: str) -> bool:
        """Whether this modifier can go on `item` (a normalised item name)."""
        return self.applies_to is None or item in self.applies_to


def _problem(source: str, field: str, problem: str) -> ValueError:
    return ValueError(
        f"{source}: field {field!r} {problem}. Fix that entry in the menu file and load it again."
    )


def _applies_to(source: str, where: str, raw: Any, items: Collection[str]) -> frozenset[str] | None:
    if raw == EVERY_ITEM:
        return None
    if not isinstance(raw, list) or not raw or not all(isinstance(i, str) for i in raw):
        raise _problem(
            source, f"{where}.applies_to", f"must be a list of item names or '*', got {raw!r}"
        )
    names = frozenset(" ".join(name.split()).lower() for name in raw)
    strangers = sorted(names - set(items))
    if strangers:
        raise _problem(
            source, f"{where}.applies_to", f"names {strangers[0]!r}, which is not on the menu"
        )
    return names


def _option(
    source: str, where: str, name: str, raw: Any, allergens: Collection[str]
) -> tuple[tuple[str, ...], frozenset[str], float]:
    """(spellings, allergens, price) of one option, each checked."""
    if not isinstance(raw, Mapping):
        raise _problem(source, where, f"must be an object (aliases, allergens, price), not {raw!r}")
    unknown = sorted(set(raw) - _OPTION_FIELDS)
    if unknown:
        raise _problem(
            source,
            f"{where}.{unknown[0]}",
            "is not an option field (use aliases, allergens, price)",
        )
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
        raise _problem(source, f"{where}.aliases", f"must be a list of spellings, got {aliases!r}")
    added = raw.get("allergens", [])
    if not isinstance(added, list) or not all(isinstance(a, str) for a in added):
        raise _problem(
            source, f"{where}.allergens", f"must be a list of allergen names, got {added!r}"
        )
    strange = sorted({a.strip().lower() for a in added} - set(allergens))
    if strange:
        raise _problem(source, f"{where}.allergens", f"names unknown allergen {strange[0]!r}")
    price = raw.get("price", 0.0)
    if isinstance(price, bool) or not isinstance(price, (int, float)) or not math.isfinite(price):
        raise _problem(source, f"{where}.price", f"must be a number of euros, got {price!r}")
    return (name, *aliases), frozenset(a.strip().lower() for a in added), float(price)


def _group(
    source: str, group: str, raw: Any, items: Collection[str], allergens: Collection[str]
) -> list[tuple[str, Modifier]]:
    """(spelling, modifier) for every spelling of every option of one group."""
    where = f"modifiers.{group}"
    if not isinstance(raw, Mapping) or set(raw) != {"applies_to", "options"}:
        raise _problem(source, where, "must be an object with exactly applies_to and options")
    applies = _applies_to(source, where, raw["applies_to"], items)
    options = raw["options"]
    if not isinstance(options, Mapping) or not options:
        raise _problem(
            source, f"{where}.options", "must be a non-empty object of option name -> fields"
        )
    found = []
    for name, option in options.items():
        spellings, added, price = _option(
            source, f"{where}.options.{name}", name, option, allergens
        )
        modifier = Modifier(group, spelling_key(name), applies, added, price)
        found += [(spelling, modifier) for spelling in spellings]
    return found


def parse_modifiers(
    data: Any, items: Collection[str], allergens: Collection[str], source: str = "<memory>"
) -> Mapping[str, Modifier]:
    """The menu file's `modifiers` section as `spelling_key(spelling) -> Modifier`, every field checked.

    `items` are the menu's item names (normalised) and `allergens` the allergen names a menu may
    use. A spelling that two options share, or one with hidden characters, is refused.
    """
    if not isinstance(data, Mapping):
        raise _problem(
            source, "modifiers", "must be an object of group name -> {applies_to, options}"
        )
    found: dict[str, Modifier] = {}
    for group, raw in data.items():
        if str(group).startswith("_"):
            continue  # a comment
        for spelling, modifier in _group(source, str(group), raw, items, allergens):
            key = spelling_key(spelling)
            if not key or hidden_characters(spelling):
                raise _problem(source, f"modifiers.{group}", f"spells an option as {spelling!r}")
            if key in found:
                raise _problem(
                    source,
                    f"modifiers.{group}",
                    f"spells {spelling!r} like {found[key].name!r} of group {found[key].group!r}; "
                    "every spelling must mean one option",
                )
            found[key] = modifier
    return MappingProxyType(found)
