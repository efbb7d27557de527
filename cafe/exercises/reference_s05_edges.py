"""Session 05's generated consent pairs with the change the lesson's table 5 is about: an approved
modifier that adds an allergen the customer declared, kept on the ticket.

The lesson's table of change kinds has the row "`unsafe_note`: whipped cream for a customer who
declared milk: rejects it as `unsafe`", and its table 5 says what keeping the approved butter
does: "`check_ticket` reports an `unsafe_note`, as `unsafe`. ... Every way out is a change only
the customer can make." So a ticket that copies such an order is still not within consent.
Front of house sends that order back before any draft, so a shift never shows it to the gate;
the yes-or-no form (`within_consent`) must still say no. `reference_s05.within_consent` says so;
`unsafe_kept` draws the orders (milk declared in any of the group's words, "dairy", "Milk
allergy", and each milk modifier in any spelling the menu accepts: held-out reader L, 7 Dec 2026,
found a gate that matched the words as written), and `UNSAFE_IDEA` is the line the feedback shows.

Two more edges the pairs rarely reach (held-out reader H, 7 Dec 2026): `nothing_declared`, a
customer who declared nothing and a ticket that says so as "N/A", "nil" or blank (`is_no_allergy`:
"blank, or letters spelling 'none', 'N/A', 'nil'"), within consent; and `unsayable_kept`, an
approved note the menu cannot say copied to the ticket ("cannot be drafted either"), not within it.
And one the notebook's pieces name since 7 Dec 2026 (evening): `hidden_allergy`, a faithful
ticket with a character nobody sees inside one of its allergies ("milk" and a zero-width space),
refused as in the notes, never folded away by `allergy_name`.

Like `reference_s05`, it imports nothing from `cafe` but the exercises' own references.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# the approved order and its faithful ticket, drawn as consent_pairs draws them
from cafe.exercises.reference_s05 import _GROUP_WORDS, Order, _faithful, _spec

__all__ = ["unsafe_kept", "nothing_declared", "unsayable_kept", "hidden_allergy", "EDGES"]
__all__ += ["idea_for", "UNSAFE_IDEA", "NONE_IDEA", "UNSAYABLE_IDEA", "HIDDEN_IDEA"]

UNSAFE_IDEA = (
    "a modifier that adds an allergen the customer declared, in whatever words ('dairy' is milk), "
    "is an unsafe_note, approved or not (the lesson's table 5): only the customer can change it"
)

# Items a milk modifier applies to on the course menu (cafe/data/menu.json), and the ways the
# menu lets a note write one. The customer declares milk in any of the group's words ("dairy",
# "Milk allergy"): the modifier adds the allergen, whatever word declared it.
_MILK_MODIFIER = {
    "croissant": ("butter on the side", "butter separately"),
    "avocado toast": ("butter on the side",),
    "hot chocolate": ("whipped cream", "cream on top"),
    "americano": ("dash of milk", "splash of milk", "room for milk"),
}
_NO_ALLERGY = ("none", "n/a", "none ", "")
_KEPT = "an unsafe modifier approved:"
# "Nothing declared" as people write it: every spelling `is_no_allergy` reads as none (its
# docstring: "blank, or letters spelling 'none', 'N/A', 'nil'"; OrderSpec's: "none", "n/a", "").
_NOTHING = ("N/A", "n/a", "nil", "Nil", "NONE", "None.", "", "  ", "n.a.", "no allergies")
_NOTHING_LABEL = "nothing declared, written"
# Approved notes the menu cannot say: the lesson's birthday candle, a promise, a request.
_UNSAYABLE = ("birthday candle in the banana bread", "10% off for the wait", "welcome back")
_UNSAYABLE_LABEL = "an approved note the menu cannot say, copied:"
UNSAYABLE_IDEA = (
    "an approved note the menu cannot say cannot be drafted either (the lesson): a kitchen "
    "ticket's notes hold only the menu's modifiers"
)
NONE_IDEA = "an allergy that means none ('N/A', 'nil', blank: is_no_allergy) declares no allergy"
# Characters nobody sees: a zero-width space, joiner and word joiner, a byte-order mark, and
# " comp" in Unicode tag characters (a whole word no screen draws).
_HIDDEN = ("\u200b", "\u200d", "\u2060", "\ufeff", "".join(chr(0xE0000 + ord(c)) for c in " comp"))
_HIDDEN_LABEL = "characters nobody sees in the allergy"
HIDDEN_IDEA = (
    "characters nobody sees are refused in the allergies as in the notes (hidden_characters), "
    "never folded away: the field records what the customer declared, and nothing else"
)


def idea_for(label: str, otherwise: str) -> str:
    """The idea to show for a generated pair: `UNSAFE_IDEA` for an unsafe modifier kept,
    `NONE_IDEA` for a "nothing declared" spelling, `UNSAYABLE_IDEA` for an unsayable note,
    `HIDDEN_IDEA` for an allergy with a character nobody sees."""
    if label.startswith(_NOTHING_LABEL):
        return NONE_IDEA
    if label.startswith(_UNSAYABLE_LABEL):
        return UNSAYABLE_IDEA
    if label.startswith(_HIDDEN_LABEL):
        return HIDDEN_IDEA
    return UNSAFE_IDEA if label.startswith(_KEPT) else otherwise


def _with_milk_modifier(order: Order, item: str, milk: str, note: str) -> Order:
    """`order` with `item` added, milk declared as `milk`, and the milk modifier `note` noted."""
    allergies = [a for a in order.allergies if a.strip().casefold() not in _NO_ALLERGY]
    notes = [order.notes] if order.notes else []
    return dataclasses.replace(
        order,
        items=(*order.items, item),
        allergies=(*allergies, milk),
        notes=", ".join([*notes, note]),
    )


def unsafe_kept() -> Any:
    """(label, approved order, ticket): an approved order and a ticket that writes it
    differently, as `consent_pairs` draws them with no change, where the order now holds an item
    with a milk modifier approved beside a milk allergy declared in any of the group's words, and
    the ticket keeps it (the allergy, too, in any of them)."""
    from hypothesis import strategies as st

    @st.composite
    def kept(draw: Any) -> tuple[str, Order, Order]:
        spec, modifiers = _spec(draw, st)
        ticket = _faithful(draw, st, spec, modifiers)
        item = draw(st.sampled_from(tuple(_MILK_MODIFIER)))
        note, written = (draw(st.sampled_from(_MILK_MODIFIER[item])) for _ in range(2))
        declared, said = (draw(st.sampled_from(_GROUP_WORDS["milk"])) for _ in range(2))
        label = f"{_KEPT} '{note}' kept, {declared!r} declared"
        spec = _with_milk_modifier(spec, item, declared, note)
        return label, spec, _with_milk_modifier(ticket, item, said, written)

    return kept()


def nothing_declared() -> Any:
    """(label, approved order, ticket): an order whose customer declared no allergy, in the
    allergies field or as a spelling of none, and a faithful ticket that writes none its own way
    (the order's other fields as `consent_pairs` draws them). Within consent: True."""
    from hypothesis import strategies as st

    @st.composite
    def written(draw: Any) -> tuple[str, Order, Order]:
        spec, modifiers = _spec(draw, st)
        declared = tuple(draw(st.lists(st.sampled_from(_NOTHING), max_size=1)))
        spec = dataclasses.replace(spec, allergies=declared)
        ticket = _faithful(draw, st, spec, modifiers)
        said = draw(st.sampled_from(_NOTHING))
        label = f"{_NOTHING_LABEL} {said!r}"
        return label, spec, dataclasses.replace(ticket, allergies=(said,))

    return written()


def unsayable_kept() -> Any:
    """(label, approved order, ticket): an order whose approved notes hold a clause the menu
    cannot say (the lesson: "cannot be drafted either"), and a faithful ticket that copies it."""
    from hypothesis import strategies as st

    @st.composite
    def kept(draw: Any) -> tuple[str, Order, Order]:
        spec, modifiers = _spec(draw, st)
        ticket = _faithful(draw, st, spec, modifiers)
        clause = draw(st.sampled_from(_UNSAYABLE))
        spec = dataclasses.replace(spec, notes=", ".join(x for x in (spec.notes, clause) if x))
        label = f"{_UNSAYABLE_LABEL} {clause!r}"
        return label, spec, dataclasses.replace(ticket, notes=spec.notes)

    return kept()


def hidden_allergy() -> Any:
    """(label, approved order, ticket): an order as `consent_pairs` draws it and a faithful
    ticket with a character nobody sees put inside one of its allergies (or, when it lists
    none, an allergy of hidden characters alone, or with "none" around them). Never within
    consent: the lesson refuses what nobody can see rather than deleting it, and the notebook's
    pieces say the allergies are read the same way."""
    from hypothesis import strategies as st

    @st.composite
    def hidden(draw: Any) -> tuple[str, Order, Order]:
        spec, modifiers = _spec(draw, st)
        ticket = _faithful(draw, st, spec, modifiers)
        allergies = list(ticket.allergies) or [draw(st.sampled_from(("", "none")))]
        which = draw(st.integers(0, len(allergies) - 1))
        at = draw(st.integers(0, len(allergies[which])))
        char = draw(st.sampled_from(_HIDDEN))
        written = allergies[which][:at] + char + allergies[which][at:]
        allergies[which] = written
        label = f"{_HIDDEN_LABEL} {written!r}"
        return label, spec, dataclasses.replace(ticket, allergies=tuple(allergies))

    return hidden()


# The edges drawn after the generated pairs, each on its own: (strategy, examples).
EDGES = ((unsafe_kept, 20), (nothing_declared, 20), (unsayable_kept, 20), (hidden_allergy, 20))
