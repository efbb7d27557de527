"""The ticket the kitchen receives: an approved ticket, rewritten in the menu's own words.

Session 05 (`sessions/s05-consent-gate/lesson.md`, notebook `notebooks/s05-consent-gate.ipynb`).
A draft passes the gate when it means exactly the approved order, however it was spelt: "Latte ",
"ＥＸＴＲＡ-ＨＯＴ, please" and "Dairy" mean latte, extra hot and milk. The kitchen should still
read one spelling, the menu's, so nothing the drafter chose (odd letters, a courtesy word) travels
on. `kitchen_ticket(ticket, spec, menu)` returns that ticket: items as the menu names them, the
allergies as the customer declared them (the approved field, never the draft's), and the notes
as `kitchen_notes` writes the approved order's modifiers: nothing of the draft's notes is kept,
not even a restated allergy. It refuses a ticket that is not within consent: rewriting is for
tickets that already passed, never a repair.

What it leaves out: deciding that a ticket passed (`cafe.consent.changes.order_changes`, and
`cafe.detect.check_ticket` in session 06).
"""

from __future__ import annotations

from cafe.consent.changes import order_changes
from cafe.consent.notes import kitchen_notes, read_notes
from cafe.consent.spec import OrderSpec
from cafe.schema.ticket import Ticket
from cafe.world.menu import Menu, load_menu, normalize_name

__all__ = ["kitchen_ticket"]


def kitchen_ticket(ticket: Ticket, spec: OrderSpec, menu: Menu | None = None) -> Ticket:
    """`ticket`, within consent of `spec`, in the menu's own words (see the module docstring)."""
    menu = load_menu() if menu is None else menu
    changes = order_changes(ticket, spec, menu)
    if changes:
        raise ValueError(
            f"kitchen_ticket() rewrites a ticket that is within consent; this one has "
            f"{len(changes)} change(s), the first: {changes[0].kind} {changes[0].span!r}."
        )
    approved = read_notes(spec.notes, spec.items, menu, spec.allergies)
    items = tuple(
        item.name if (item := menu.item(name)) is not None else normalize_name(name)
        for name in ticket.items
    )
    return ticket.model_copy(
        update={"items": items, "allergies": spec.allergies, "notes": kitchen_notes(approved)}
    )
