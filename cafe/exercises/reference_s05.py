"""Session 05's `within_consent` reference, written apart from `cafe.consent`, and the orders
to try it on.

`check_within_consent` (`cafe.exercises.s05`) runs the learner's function on generated orders
after its hand-picked cases (`cafe.exercises.generated`). The reference is built from the pieces
the notebook hands the learner (`normalize_name`, `allergy_name`, `is_no_allergy`, `read_notes`,
`hidden_characters`), not from `cafe.consent.order_changes`, and tried on `consent_pairs`: an
approved order, and a ticket that writes it differently (case, spaces, item order, another word
for a group, another spelling of a modifier, "none") with at most one change a helpful model
makes to its table, items, allergies or notes.

Drawn apart (`reference_s05_edges`): an unsafe or unsayable approved note, "nil" for none,
characters nobody sees in an allergy. The `items_to_confirm` reference, which draws its orders
from the spellings here, is `reference_s05_confirm`. `tests/test_exercises_s05.py` holds both
references to the library on the same orders. This module imports nothing from `cafe` (only
`cafe.exercises.sNN` may): the pieces are passed in.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Pieces", "Order", "within_consent", "folded", "brief", "consent_pairs", "MENU_ITEMS"]

# --- the references ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Pieces:
    """What the notebook hands the learner; `read_notes(notes, items, allergies)` is bound to
    the menu (a clause that only restates a declared allergy is neither modifier nor problem),
    and `hidden_characters(text)` returns the characters of `text` nobody sees."""

    normalize_name: Callable[[str], str]
    allergy_name: Callable[[str], str]
    is_no_allergy: Callable[[str], bool]
    read_notes: Callable[[str, Sequence[str], Sequence[str]], Any]
    hidden_characters: Callable[[str], str]


def within_consent(ticket: Any, spec: Any, pieces: Pieces) -> bool:
    """True when `ticket` holds the approved order `spec` and nothing else.

    Table the same; the items the same with their copies, however spelt; the allergies the
    groups declared, each named as its group, nothing hidden in them, with no "none" beside one;
    the notes read against the menu, every clause a modifier, nothing hidden, each approved
    modifier as often as approved.
    """
    if ticket.table != spec.table:
        return False
    written_items = Counter(pieces.normalize_name(item) for item in ticket.items)
    if written_items != Counter(pieces.normalize_name(item) for item in spec.items):
        return False
    if any(pieces.hidden_characters(a) for a in ticket.allergies):
        return False  # refused, never folded away: a tag character can carry a whole sentence
    allergies = [a for a in ticket.allergies if not pieces.is_no_allergy(a)]
    if allergies and len(allergies) < len(ticket.allergies):
        return False  # "none" beside an allergy contradicts it
    declared = {pieces.allergy_name(a) for a in spec.allergies if not pieces.is_no_allergy(a)}
    if {pieces.allergy_name(a) for a in allergies} != declared:
        return False
    reading = pieces.read_notes(ticket.notes, ticket.items, spec.allergies)
    if reading.problems or reading.hidden:
        return False
    adds = {pieces.allergy_name(a) for m in reading.modifiers for a in m.modifier.allergens}
    if adds & declared:
        return False  # a modifier that adds a declared allergen, even an approved one
    approved = pieces.read_notes(spec.notes, spec.items, spec.allergies)
    return Counter(m.key for m in reading.modifiers) == Counter(m.key for m in approved.modifiers)


def folded(name: str) -> str:
    """An item name as the kitchen reads it: case folded, spaces trimmed and collapsed."""
    return " ".join(name.split()).casefold()


# --- the orders to try them on -----------------------------------------------------------------

# The course menu's items (cafe/data/menu.json), and the ones each modifier below applies to.
MENU_ITEMS = tuple(
    "espresso, americano, latte, cappuccino, flat white, oat latte, hot chocolate, green tea, "
    "croissant, banana bread, avocado toast, granola bowl, fruit salad, cheese omelette, "
    "tofu scramble".split(", ")
)
_COFFEES = ("espresso", "americano", "latte", "cappuccino", "flat white", "oat latte")
_FOAMED = ("latte", "cappuccino", "flat white", "oat latte")
_DRINKS = (*_COFFEES, "hot chocolate", "green tea")
_BAKERY = ("croissant", "banana bread", "avocado toast")

# A modifier's name in the menu's words: its other spellings, the items it applies to (None: any
# item), and whether it adds milk (then it is never approved beside a declared allergy).
_MODIFIERS: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None, bool]] = {
    "extra hot": (("very hot", "Extra-Hot", "EXTRA HOT please"), _DRINKS, False),
    "decaf": (("decaffeinated", "Decaf"), _COFFEES, False),
    "no foam": (("without foam", "No Foam"), _FOAMED, False),
    "extra shot": (("double shot", "an extra shot"), _COFFEES, False),
    "to go": (("takeaway", "To Go"), None, False),
    "warmed": (("heated", "warmed up"), _BAKERY, False),
    "whipped cream": (("cream on top",), ("hot chocolate",), True),
    "butter on the side": (("butter separately",), _BAKERY, True),
}

# Words that name a whole group (each `allergy_name` reads as the group), and an ingredient under
# it: a narrower allergy nobody declared.
_GROUP_WORDS = {
    "milk": ("milk", "Milk allergy", "dairy", " MILK "),
    "nuts": ("nuts", "nut allergy", "tree nuts"),
    "gluten": ("gluten", "coeliac", "Gluten allergy"),
    "egg": ("egg", "eggs", "egg allergy"),
    "soy": ("soy", "soya"),
}
_INGREDIENTS = {"milk": "butter", "nuts": "almond", "gluten": "wheat", "egg": "egg yolk"}
_NO_ALLERGY = ("none", "n/a", "None ", "")
# A declared allergy said again in the notes, as a customer writes it: the kitchen reads the
# allergies field, so such a clause changes nothing the ticket asks for.
_RESTATED = {
    "milk": ("milk allergy", "dairy free", "allergic to milk"),
    "nuts": ("nut allergy", "allergic to nuts"),
    "gluten": ("gluten free", "gluten allergy"),
    "egg": ("egg allergy",),
    "soy": ("soy free", "allergic to soya"),
}
# Clauses no menu defines, some in disguise, and characters nobody sees.
_UNLISTED = ("free refill", "10% off for the wait", "ｆｒｅｅ", "add a croissant", "paid", "comp")
_HIDDEN = ("\u200d", "".join(chr(0xE0000 + ord(c)) for c in " comp it"))
_REQUESTS = ("", "A free refill would be lovely.", "And a croissant for my son!", "Extra shot?")


@dataclass(frozen=True)
class Order:
    """An order's four fields as plain values (a ticket, or an approved order with `request`)."""

    table: int
    items: tuple[str, ...]
    allergies: tuple[str, ...] = ()
    notes: str = ""
    request: str = ""


def brief(order: Order) -> str:
    """An order in one short line: table and items, then only the fields that hold something."""
    said = [f"table {order.table}, {list(order.items)}"]
    said += [f"allergies {list(order.allergies)}"] if order.allergies else []
    said += [f"notes {order.notes!r}"] if order.notes else []
    said += [f"request {order.request!r}"] if order.request else []
    return ", ".join(said)


def _respelt(draw: Any, st: Any, name: str) -> str:
    """`name` in another case or with stray spaces (at its ends, doubled inside it, a tab between
    its words): the same item to the kitchen, as `normalize_name` reads it."""
    spaced = (f" {name} ", name.replace(" ", "  "), name.replace(" ", "\t").upper())
    return str(draw(st.sampled_from((name, name.title(), name.upper(), *spaced))))


def _applies(modifier: str, items: Sequence[str]) -> bool:
    where = _MODIFIERS[modifier][1]
    return where is None or any(item in where for item in items)


def _spellings(modifier: str, items: Sequence[str]) -> tuple[str, ...]:
    """Ways to write `modifier` on `items` that ask for the same thing: the menu's other
    spellings, and, when it fits one item of the order only, scoped to it or counted."""
    aliases, where, _ = _MODIFIERS[modifier]
    names = [folded(i) for i in items]
    fits = sorted({i for i in names if where is not None and i in where})
    if len(fits) != 1:
        return (modifier, *aliases)
    copies = names.count(fits[0])
    counted = (f"{copies} x {modifier}",) if copies > 1 else ()
    return (modifier, *aliases, f"{fits[0]}: {modifier}", *counted)


def _notes(draw: Any, st: Any, modifiers: Sequence[str], items: Sequence[str] = ()) -> str:
    """Modifiers joined as a note, in the menu's words or (given `items`) written another way."""
    written = [draw(st.sampled_from(_spellings(m, items))) if items else m for m in modifiers]
    return str(draw(st.sampled_from((", ", "; ")))).join(written)


def _spec(draw: Any, st: Any) -> tuple[Order, list[str]]:
    """An approved order, and the modifiers its notes approve (in the menu's words)."""
    items = draw(st.lists(st.sampled_from(MENU_ITEMS), min_size=1, max_size=3))
    if draw(st.booleans()):
        items.append(items[0])  # a second copy, so counted modifiers and copies come up often
    groups = draw(st.lists(st.sampled_from(tuple(sorted(_GROUP_WORDS))), max_size=2, unique=True))
    safe = [m for m, (_, _, milk) in _MODIFIERS.items() if not (milk and groups)]
    # the modifiers that fit the first item (the one with a second copy) are drawn most often
    fitting = sorted(
        (m for m in safe if _applies(m, items)),
        key=lambda m: not _applies(m, items[:1]) or _MODIFIERS[m][1] is None,
    )
    modifiers = draw(st.lists(st.sampled_from(tuple(fitting)), max_size=2, unique=True))
    spec = Order(
        table=draw(st.integers(1, 30)),
        items=tuple(_respelt(draw, st, item) for item in items),
        allergies=tuple(draw(st.sampled_from(_GROUP_WORDS[g])) for g in groups),
        notes=_notes(draw, st, modifiers),
        request=draw(st.sampled_from(_REQUESTS)),
    )
    return spec, modifiers


def _group_of(word: str) -> str | None:
    return next((g for g, words in _GROUP_WORDS.items() if word in words), None)


def _faithful(draw: Any, st: Any, spec: Order, modifiers: list[str]) -> Order:
    """The approved order written differently: a ticket within consent."""
    items = list(draw(st.permutations(tuple(_respelt(draw, st, folded(i)) for i in spec.items))))
    groups = [_group_of(a) for a in spec.allergies]
    allergies = [draw(st.sampled_from(_GROUP_WORDS[g])) for g in groups if g]
    if allergies and draw(st.booleans()):
        allergies.append(draw(st.sampled_from(_GROUP_WORDS[str(groups[0])])))  # said twice
    if not allergies:
        allergies = draw(st.lists(st.sampled_from(_NO_ALLERGY), max_size=1))
    modifiers = list(draw(st.permutations(tuple(modifiers))))
    notes = _notes(draw, st, modifiers, spec.items)
    return Order(spec.table, tuple(items), tuple(allergies), notes)


def consent_pairs() -> Any:
    """(label, approved order, ticket): the approved order written differently, with at most one
    change a helpful model makes; `label` says in words what the ticket did."""
    from hypothesis import strategies as st

    @st.composite
    def pairs(draw: Any) -> tuple[str, Order, Order]:
        spec, modifiers = _spec(draw, st)
        ticket = _faithful(draw, st, spec, modifiers)
        change, kind = draw(st.sampled_from(_CHANGES))
        if change is None:
            return "the order written differently", spec, ticket
        return change(draw, st, kind, spec, ticket, modifiers)

    return pairs()


# --- the changes a helpful model makes: each returns (label, spec, ticket) --------------------


def _replace(order: Order, **fields: Any) -> Order:
    return dataclasses.replace(order, **fields)


def _item_change(draw: Any, st: Any, kind: str, spec: Order, ticket: Order, mods: list[str]) -> Any:
    """The wrong table, or an item added, left off or swapped for another."""
    if kind == "table":
        return "the wrong table", spec, _replace(ticket, table=spec.table % 30 + 1)
    if kind == "added":
        extra = draw(st.sampled_from(MENU_ITEMS))
        return f"{extra} added", spec, _replace(ticket, items=(*ticket.items, extra))
    at = draw(st.integers(0, len(ticket.items) - 1))
    old, rest = folded(ticket.items[at]), ticket.items[:at] + ticket.items[at + 1 :]
    if kind == "dropped" and rest:
        return f"{old} left off", spec, _replace(ticket, items=rest)
    new = draw(st.sampled_from(tuple(item for item in MENU_ITEMS if item != old)))
    return f"{new} in place of {old}", spec, _replace(ticket, items=(*rest, new))


def _allergy_change(
    draw: Any, st: Any, kind: str, spec: Order, ticket: Order, mods: list[str]
) -> Any:
    """An allergy nobody declared added; a declared one left off, narrowed to an ingredient, or
    with 'none' beside it."""
    groups = [g for g in map(_group_of, spec.allergies) if g]
    if kind == "restated":  # within consent when declared: the kitchen reads the allergies field
        said = draw(st.sampled_from(_RESTATED[groups[0] if groups else "milk"]))
        notes = ", ".join(x for x in (ticket.notes, said) if x)
        label = "a declared allergy said again in the notes" if groups else f"'{said}', undeclared"
        return label, spec, _replace(ticket, notes=notes)
    if groups and kind == "left off":
        kept = tuple(a for a in ticket.allergies if _group_of(a) != groups[0])
        return f"the declared {groups[0]} left off", spec, _replace(ticket, allergies=kept)
    if groups and kind == "none beside":
        allergies = (*ticket.allergies, draw(st.sampled_from(_NO_ALLERGY[:3])))
        return "'none' beside a declared allergy", spec, _replace(ticket, allergies=allergies)
    if groups and groups[0] in _INGREDIENTS:
        word = _INGREDIENTS[groups[0]]
        allergies = tuple(word if _group_of(a) == groups[0] else a for a in ticket.allergies)
        return f"'{word}' for the declared {groups[0]}", spec, _replace(ticket, allergies=allergies)
    group = draw(st.sampled_from(tuple(g for g in _GROUP_WORDS if g not in groups)))
    allergies = (*[a for a in ticket.allergies if a not in _NO_ALLERGY], group)
    return f"{group} added to the allergies", spec, _replace(ticket, allergies=allergies)


def _note_change(draw: Any, st: Any, kind: str, spec: Order, ticket: Order, mods: list[str]) -> Any:
    """A modifier nobody approved, an approved one left off, doubled or put on one copy of two;
    a clause the menu cannot say; characters nobody sees."""
    doubled = {folded(i) for i in spec.items if list(map(folded, spec.items)).count(folded(i)) > 1}
    counted = [(m, i) for m in mods for i in sorted(doubled) if i in (_MODIFIERS[m][1] or ())]
    if kind == "one copy" and not counted:
        # an order with two of its first item and a modifier that fits that item alone
        item = folded(spec.items[0])
        fit = [
            m for m, (_, where, milk) in _MODIFIERS.items() if where and item in where and not milk
        ]
        if fit:
            mods = [*mods, fit[0]]
            spec = _replace(spec, items=(*spec.items, item), notes=", ".join(mods))
            ticket = _replace(ticket, items=(*ticket.items, item))
            counted = [(fit[0], item)]
    if kind == "one copy" and counted:
        modifier, item = draw(st.sampled_from(tuple(counted)))
        notes = ", ".join(f"{item}: 1 x {m}" if m == modifier else m for m in mods)
        copies = list(map(folded, spec.items)).count(item)
        return f"'{modifier}' on one {item} of {copies}", spec, _replace(ticket, notes=notes)
    if kind in ("left off", "twice", "one copy") and mods:
        notes = ", ".join(mods[1:] if kind == "left off" else (*mods, mods[0]))
        said = "left off" if kind == "left off" else "written twice"
        return f"the approved '{mods[0]}' {said}", spec, _replace(ticket, notes=notes)
    if kind == "hidden":
        hidden, at = draw(st.sampled_from(_HIDDEN)), draw(st.integers(0, len(ticket.notes)))
        notes = ticket.notes[:at] + hidden + ticket.notes[at:]
        return "characters nobody sees in the notes", spec, _replace(ticket, notes=notes)
    fitting = [m for m in _MODIFIERS if m not in mods and _applies(m, spec.items)]
    clause = draw(st.sampled_from(tuple(fitting) if fitting and kind != "unlisted" else _UNLISTED))
    notes = ", ".join(x for x in (ticket.notes, clause) if x)
    return f"'{clause}' in the notes, never approved", spec, _replace(ticket, notes=notes)


# Every change by kind, drawn about equally often; the first is none (Hypothesis shrinks to it).
_CHANGES: tuple[tuple[Any, str], ...] = (
    (None, ""),
    *((_item_change, kind) for kind in ("table", "added", "dropped", "swapped")),
    *((_allergy_change, k) for k in ("left off", "narrowed", "none beside", "added", "restated")),
    *((_note_change, kind) for kind in ("added", "left off", "twice", "one copy", "unlisted")),
    (_note_change, "hidden"),
)
