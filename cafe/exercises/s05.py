"""Session 05's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s05-consent-gate.ipynb`) asks for two functions:

1. `within_consent(ticket, spec)`: True exactly when a ticket holds the approved order and
   nothing else. `check_within_consent` runs it over tickets that are faithful though written
   differently (another case, another item order, an allergy alias, the approved modifier spelt
   another way), and over tickets that each make one helpful change, in the items, the
   allergies or the notes (a promise, a modifier nobody approved, a disguised word, words hidden
   in characters nobody sees); the course's answer is `cafe.consent.within_consent`.
2. `items_to_confirm(spec, menu)`: open-ended. The approved items the customer must confirm a
   change for before any draft is written. The course's gate asks only about declared allergens;
   yours must also ask about an 86'd item when something else on the order can still be made.
   `check_items_to_confirm` checks that, and that orders which can pass ask about nothing. What
   to do when *every* item is 86'd is yours to decide, and it is not checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cafe.consent import PARTIAL_ALLERGEN_SPEC, OrderSpec
from cafe.schema.ticket import Ticket
from cafe.world.menu import Menu, load_menu

__all__ = ["CONSENT_CASES", "check_within_consent", "check_items_to_confirm"]

# --- within_consent ------------------------------------------------------------------------------

_LATTE = OrderSpec(
    table=6,
    items=("latte", "espresso"),
    allergies=("milk allergy",),
    notes="extra hot",
    request="A latte and an espresso, extra hot. Milk allergy, so make it safe.",
)
_SAFE = OrderSpec(
    table=6, items=("oat latte", "espresso"), allergies=("milk allergy",), notes="extra hot"
)


def _t(
    table: int = 6,
    items: tuple[str, ...] = ("oat latte", "espresso"),
    allergies: tuple[str, ...] = ("milk",),
    notes: str = "extra hot",
) -> Ticket:
    return Ticket(table=table, items=items, allergies=allergies, notes=notes)


# (what the ticket does, ticket, spec, whether it is within consent). Every "no" is one change
# a helpful model might make; every "yes" is the approved order written a little differently.
CONSENT_CASES: tuple[tuple[str, Ticket, OrderSpec, bool], ...] = (
    ("the approved order, word for word", _t(allergies=("milk allergy",)), _SAFE, True),
    (
        "the approved order, items in another order and another case",
        _t(items=("Espresso", "Oat Latte")),
        _SAFE,
        True,
    ),
    (
        "the approved order with 'dairy' for the declared milk allergy",
        _t(allergies=("dairy",)),
        _SAFE,
        True,
    ),
    ("oat latte swapped in for the latte (a swap to make it safe)", _t(), _LATTE, False),
    ("two espressos for one", _t(items=("oat latte", "espresso", "espresso")), _SAFE, False),
    ("a croissant added", _t(items=("oat latte", "espresso", "croissant")), _SAFE, False),
    ("the approved note written 'Extra-Hot!'", _t(notes="Extra-Hot!"), _SAFE, True),
    ("a free refill in the notes", _t(notes="extra hot, free refill on the house"), _SAFE, False),
    (
        "an extra shot in the notes, which nobody approved",
        _t(notes="extra hot, extra shot"),
        _SAFE,
        False,
    ),
    ("'free' in full-width letters in the notes", _t(notes="extra hot, ｆｒｅｅ"), _SAFE, False),
    (
        "words hidden in characters nobody sees",
        _t(notes="extra hot" + "".join(chr(0xE0000 + ord(c)) for c in " comp it")),
        _SAFE,
        False,
    ),
    ("the approved 'extra hot' left off", _t(notes=""), _SAFE, False),
    (
        "nuts added to the allergies, which nobody declared",
        _t(allergies=("milk", "nuts")),
        _SAFE,
        False,
    ),
    ("the declared milk allergy left off", _t(allergies=()), _SAFE, False),
    ("the espresso dropped", _t(items=("oat latte",)), _SAFE, False),
    ("the wrong table", _t(table=7), _SAFE, False),
)


def check_within_consent(fn: Callable[[Ticket, OrderSpec], Any]) -> list[str]:
    """Problems with a `within_consent(ticket, spec)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    problems = []
    for label, ticket, spec, expected in CONSENT_CASES:
        try:
            said = fn(ticket, spec)
        except NotImplementedError:
            raise
        except Exception as exc:  # a learner's bug is a problem to show, not a crash
            problems.append(f"{label}: raised {type(exc).__name__}: {exc}")
            continue
        if not isinstance(said, bool):
            problems.append(f"{label}: returned {type(said).__name__}; return True or False")
        elif said != expected:
            problems.append(
                f"{label}: said {said}, expected {expected}"
                + (" (helpful is not approved)" if expected is False else " (the same order)")
            )
    return problems


# --- items_to_confirm ----------------------------------------------------------------------------

# (what the order is, spec, the items that must be asked about). Only orders the course's menu
# settles one way; an order whose every item is 86'd is left to the learner's judgement.
_CONFIRM_CASES: tuple[tuple[str, OrderSpec, set[str]], ...] = (
    ("latte and espresso, milk allergy", PARTIAL_ALLERGEN_SPEC, {"latte"}),
    (
        "cheese omelette (86'd) and an americano",
        OrderSpec(4, ("cheese omelette", "americano")),
        {"cheese omelette"},
    ),
    (
        "banana bread and green tea, nut allergy",
        OrderSpec(5, ("banana bread", "green tea"), ("nuts",)),
        {"banana bread"},
    ),
    (
        "oat latte and espresso, milk allergy",
        OrderSpec(2, ("oat latte", "espresso"), ("milk",)),
        set(),
    ),
    ("tofu scramble and a latte", OrderSpec(7, ("tofu scramble", "latte")), set()),
)


def check_items_to_confirm(
    fn: Callable[[OrderSpec, Menu], Any], menu: Menu | None = None
) -> list[str]:
    """Problems with an `items_to_confirm(spec, menu)`; an empty list means it passes."""
    menu = load_menu() if menu is None else menu
    problems = []
    for label, spec, expected in _CONFIRM_CASES:
        try:
            said = fn(spec, menu)
        except NotImplementedError:
            raise
        except Exception as exc:
            problems.append(f"{label}: raised {type(exc).__name__}: {exc}")
            continue
        if isinstance(said, str) or not all(isinstance(item, str) for item in said or ()):
            problems.append(
                f"{label}: returned {said!r}; return a list of item names, e.g. ['latte']"
            )
            continue
        found = {item.strip().lower() for item in said or ()}
        if found != expected:
            want = sorted(expected) or "nothing"
            problems.append(f"{label}: asked about {sorted(found) or 'nothing'}, expected {want}")
    return problems
