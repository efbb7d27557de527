"""Front of house: the question asked before the kitchen's loop runs, and the order it sends back.

Session 07 (`sessions/s07-repair-loop/lesson.md`, notebook `notebooks/s07-repair-loop.ipynb`).
`repair_ticket` (`cafe.repair.reask`) ends every run on one of three stop reasons, and none of them
is "ask the customer". Some orders cannot pass as approved: "a latte and an espresso, milk
allergy" still holds a safe item, so the policy pre-check does not refuse it, but keeping the
latte is unsafe and dropping it is a change nobody approved. The loop would spend its whole cap on
drafts that all fail `unsafe`. Front of house catches it first, with session 05's consent gate:

- `front_of_house(spec, menu)`: `SentBack` when the customer must confirm a change
  (`cafe.consent.changes_to_confirm` is not empty), None when the order may go to the kitchen;
- `SentBack`: the order, the conflicting items as findings, and the sentence to say
  (`cafe.consent.confirmation_question`). It is not a stop reason: the loop never ran.

A request the loop's own pre-check refuses (`policy_failures`) is left to the loop, which ends it
on `policy_violation`: a refused request is not a question for the customer, and when every item
contains the allergen there is nothing left to confirm. The customer's answer is a new
`OrderSpec`, which comes through front of house again like any other order.

What it leaves out: 86'd items (session 05's open exercise; session 07's omelette runs into the
cap to show what a cap does), and taking the customer's answer (a person does that).
"""

from __future__ import annotations

from dataclasses import dataclass

from cafe.consent import OrderSpec, changes_to_confirm, confirmation_question
from cafe.repair.reask import policy_failures
from cafe.schema.ticket import Failure
from cafe.world.menu import Menu, load_menu

__all__ = ["SentBack", "front_of_house"]


@dataclass(frozen=True)
class SentBack:
    """An order front of house sent back to the customer before any draft was written.

    `conflicts` are the approved items the customer's own declared allergies rule out (one
    `unsafe` finding each); `question` is what front of house asks them.
    """

    spec: OrderSpec
    conflicts: tuple[Failure, ...]
    question: str

    def __post_init__(self) -> None:
        if not isinstance(self.spec, OrderSpec):
            raise TypeError(f"SentBack.spec must be an OrderSpec, not {type(self.spec).__name__}.")
        object.__setattr__(self, "conflicts", tuple(self.conflicts))
        if not self.conflicts or not all(isinstance(f, Failure) for f in self.conflicts):
            raise ValueError(
                "SentBack.conflicts lists the Failures that send the order back, at least one; "
                "an order with none goes to the kitchen (front_of_house returns None)."
            )
        if not isinstance(self.question, str) or not self.question.strip():
            raise ValueError("SentBack.question is the sentence to ask the customer; it is empty.")


def front_of_house(spec: OrderSpec, menu: Menu | None = None) -> SentBack | None:
    """Before the kitchen drafts anything: the order to send back to the customer, or None.

    None means "go ahead": call `repair_ticket` (which still refuses a request its policy
    pre-check blocks). A `SentBack` means no draft should be made until the customer confirms
    a change.
    """
    if not isinstance(spec, OrderSpec):
        raise TypeError(
            f"front_of_house() takes a cafe.consent.OrderSpec, not {type(spec).__name__}."
        )
    menu = load_menu() if menu is None else menu
    if policy_failures(spec, menu):
        return None  # refused by the loop's pre-check: policy_violation, not a question
    conflicts = changes_to_confirm(spec, menu)
    if not conflicts:
        return None
    return SentBack(spec, conflicts, confirmation_question(spec, menu))
