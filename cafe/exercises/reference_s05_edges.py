"""Session 05's generated consent pairs with the change the lesson's table 5 is about: an approved
modifier that adds an allergen the customer declared, kept on the ticket.

The lesson's table of change kinds has the row "`unsafe_note`: whipped cream for a customer who
declared milk: rejects it as `unsafe`", and its table 5 says what keeping the approved butter
does: "`check_ticket` reports an `unsafe_note`, as `unsafe`. ... Every way out is a change only
the customer can make." So a ticket that copies such an order is still not within consent.
Front of house sends that order back before any draft, so a shift never shows it to the gate;
the yes-or-no form (`within_consent`) must still say no. `reference_s05.within_consent` says so;
`unsafe_kept` draws the orders, and `UNSAFE_IDEA` is the line the feedback shows.

Like `reference_s05`, it imports nothing from `cafe` but the exercises' own references.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# the approved order and its faithful ticket, drawn as consent_pairs draws them
from cafe.exercises.reference_s05 import Order, _faithful, _spec

__all__ = ["unsafe_kept", "UNSAFE_IDEA", "idea_for"]

UNSAFE_IDEA = (
    "a modifier that adds an allergen the customer declared is an unsafe_note, approved or not "
    "(the lesson's table 5): only the customer can change it"
)

# Items a milk modifier applies to on the course menu, and that modifier in the menu's words.
_MILK_MODIFIER = {
    "croissant": "butter on the side",
    "avocado toast": "butter on the side",
    "hot chocolate": "whipped cream",
}
_NO_ALLERGY = ("none", "n/a", "none ", "")
_KEPT = "an unsafe modifier approved:"


def idea_for(label: str, otherwise: str) -> str:
    """The idea to show for a generated pair: `UNSAFE_IDEA` for an unsafe modifier kept."""
    return UNSAFE_IDEA if label.startswith(_KEPT) else otherwise


def _with_milk_modifier(order: Order, item: str) -> Order:
    """`order` with `item` added, a declared milk allergy, and the item's milk modifier noted."""
    allergies = [a for a in order.allergies if a.strip().casefold() not in _NO_ALLERGY]
    notes = [order.notes] if order.notes else []
    return dataclasses.replace(
        order,
        items=(*order.items, item),
        allergies=(*allergies, "milk"),
        notes=", ".join([*notes, _MILK_MODIFIER[item]]),
    )


def unsafe_kept() -> Any:
    """(label, approved order, ticket): an approved order and a ticket that writes it
    differently, as `consent_pairs` draws them with no change, where the order now holds an item
    with its milk modifier approved beside a declared milk allergy, and the ticket keeps it."""
    from hypothesis import strategies as st

    @st.composite
    def kept(draw: Any) -> tuple[str, Order, Order]:
        spec, modifiers = _spec(draw, st)
        ticket = _faithful(draw, st, spec, modifiers)
        item = draw(st.sampled_from(tuple(_MILK_MODIFIER)))
        label = f"{_KEPT} '{_MILK_MODIFIER[item]}' kept, milk declared"
        return label, _with_milk_modifier(spec, item), _with_milk_modifier(ticket, item)

    return kept()
