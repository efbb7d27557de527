"""Session 05, the consent gate: the order the customer approved bounds what a ticket may hold.

Read the files in this order:

- `spec.py`: `OrderSpec`, the order as front of house approved it, and the session's stories;
- `notes.py`: a ticket's notes read as an allow-list of the menu's kitchen modifiers;
- `negation.py`: how `notes.py` reads a clause that cancels an option ("sugar: none");
- `changes.py`: `order_changes`, every way a drafted ticket departs from the approved order;
- `kitchen.py`: `kitchen_ticket`, a ticket that passed, rewritten in the menu's own words;
- `confirm.py`: `changes_to_confirm` and `confirmation_question`, for an order no ticket can pass.

Lesson: sessions/s05-consent-gate/lesson.md. Notebook: notebooks/s05-consent-gate.ipynb.
"""

from __future__ import annotations

from cafe.consent.changes import (
    CHANGE_KINDS,
    UNSAFE_CHANGES,
    Change,
    ChangeKind,
    consent_findings,
    order_changes,
    within_consent,
)
from cafe.consent.confirm import (
    changes_to_confirm,
    confirmation_question,
)
from cafe.consent.kitchen import (
    kitchen_ticket,
)
from cafe.consent.notes import (
    COURTESY,
    RESTATEMENTS,
    NoteModifier,
    NoteProblem,
    NoteReading,
    hidden_span,
    kitchen_notes,
    read_notes,
)
from cafe.consent.spec import (
    PARTIAL_ALLERGEN_SPEC,
    TEMPTING_ORDERS,
    OrderSpec,
)

__all__ = [
    "Change",
    "CHANGE_KINDS",
    "ChangeKind",
    "changes_to_confirm",
    "confirmation_question",
    "consent_findings",
    "COURTESY",
    "hidden_span",
    "kitchen_notes",
    "kitchen_ticket",
    "NoteModifier",
    "NoteProblem",
    "NoteReading",
    "order_changes",
    "OrderSpec",
    "PARTIAL_ALLERGEN_SPEC",
    "read_notes",
    "RESTATEMENTS",
    "TEMPTING_ORDERS",
    "UNSAFE_CHANGES",
    "within_consent",
]
