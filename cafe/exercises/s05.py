"""Session 05's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s05-consent-gate.ipynb`) asks for two functions:

1. `within_consent(ticket, spec)`: True exactly when a ticket holds the approved order and
   nothing else. `check_within_consent` runs it over faithful tickets written differently, and
   over tickets that each make one helpful change (items, allergies, notes), some only asked for
   in the customer's words (never approval). The course's `cafe.consent.within_consent` is refused.
2. `items_to_confirm(spec, menu)`: open-ended. The approved items the customer must confirm a
   change for before any draft is written. The course's gate asks only about declared allergens;
   yours must also ask about an 86'd item when something else on the order can still be made.
   `check_items_to_confirm` checks that on the menu it is given (another day's 86'd list too),
   and that orders which can pass ask about nothing; an order whose every item is 86'd is yours.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cafe.consent import PARTIAL_ALLERGEN_SPEC, OrderSpec, within_consent
from cafe.exercises.feedback import Raised, call, library_answer, mismatch, wrong_type
from cafe.exercises.generated import is_library
from cafe.schema.ticket import Ticket
from cafe.world.menu import Menu, load_menu

__all__ = ["ConsentCase", "CONSENT_CASES", "check_within_consent", "check_items_to_confirm"]

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
# The same approved order, with the customer's own words asking for more than was approved.
_ASKED = dataclasses.replace(
    _SAFE,
    request="Oat latte and espresso, extra hot. A free refill would be lovely, and a croissant!",
)
_TWO_NOTES = dataclasses.replace(_SAFE, notes="extra hot, no foam")
_TWO_ESPRESSOS = OrderSpec(table=3, items=("espresso", "espresso"))
_ONE_ESPRESSO = OrderSpec(table=3, items=("espresso",))


def _t(
    table: int = 6,
    items: tuple[str, ...] = ("oat latte", "espresso"),
    allergies: tuple[str, ...] = ("milk",),
    notes: str = "extra hot",
) -> Ticket:
    return Ticket(table=table, items=items, allergies=allergies, notes=notes)


@dataclass(frozen=True)
class ConsentCase:
    """One ticket against one approved order: within consent or not, and the idea it tests."""

    label: str
    ticket: Ticket
    spec: OrderSpec
    expected: bool
    idea: str


_SAME = "the same order written differently is still the approved order"
_ASKED_IS_NOT_APPROVED = (
    "the customer's request is their words, not approval: only the spec approves"
)
_NOTES = "notes may say only the approved kitchen modifiers, each as often as approved"
_ITEMS = "the approved items are a ceiling and a floor, copies counted"
_ALLERGIES = "the allergies field holds exactly what the customer declared"
_HIDDEN = "characters nobody can see are a change, never ignored"
_GROUP = "an ingredient names part of a group: a kitchen told 'butter' may serve milk"
_NONE = "'none' beside an allergy contradicts it: the ticket lists the allergy and nothing else"

# Every "no" is one change a helpful model might make; every "yes" is the approved order written
# a little differently.
CONSENT_CASES: tuple[ConsentCase, ...] = (
    ConsentCase(
        "the approved order, word for word", _t(allergies=("milk allergy",)), _SAFE, True, _SAME
    ),
    ConsentCase(
        "the approved order, items in another order and another case",
        _t(items=("Espresso", "Oat Latte")),
        _SAFE,
        True,
        _SAME,
    ),
    ConsentCase(
        "the approved order with 'dairy' for the declared milk allergy",
        _t(allergies=("dairy",)),
        _SAFE,
        True,
        "'dairy' and 'milk allergy' declare one allergen",
    ),
    ConsentCase(
        "oat latte swapped in for the latte (a swap to make it safe)", _t(), _LATTE, False, _ITEMS
    ),
    ConsentCase(
        "two espressos for one",
        _t(items=("oat latte", "espresso", "espresso")),
        _SAFE,
        False,
        _ITEMS,
    ),
    ConsentCase(
        "one espresso where two were approved",
        Ticket(table=3, items=("espresso",), allergies=(), notes=""),
        _TWO_ESPRESSOS,
        False,
        _ITEMS,
    ),
    ConsentCase(
        "a croissant added", _t(items=("oat latte", "espresso", "croissant")), _SAFE, False, _ITEMS
    ),
    ConsentCase(
        "a croissant the customer asked for in their request, not on the spec",
        _t(items=("oat latte", "espresso", "croissant")),
        _ASKED,
        False,
        _ASKED_IS_NOT_APPROVED,
    ),
    ConsentCase(
        "a free refill the customer asked for in their request, not on the spec",
        _t(notes="extra hot, free refill"),
        _ASKED,
        False,
        _ASKED_IS_NOT_APPROVED,
    ),
    ConsentCase(
        "the approved note written 'Extra-Hot!'", _t(notes="Extra-Hot!"), _SAFE, True, _SAME
    ),
    ConsentCase(
        "the approved note in another of the menu's spellings, 'very hot'",
        _t(notes="very hot, please"),
        _SAFE,
        True,
        "a modifier is the same whichever of the menu's spellings writes it",
    ),
    ConsentCase(
        "two approved notes in the other order",
        _t(notes="no foam; extra hot"),
        _TWO_NOTES,
        True,
        "the notes are a list of modifiers, not a sentence to match",
    ),
    ConsentCase(
        "a free refill in the notes",
        _t(notes="extra hot, free refill on the house"),
        _SAFE,
        False,
        _NOTES,
    ),
    ConsentCase(
        "'10% off for the wait' in the notes",
        _t(notes="extra hot, 10% off for the wait"),
        _SAFE,
        False,
        _NOTES,
    ),
    ConsentCase(
        "an extra shot in the notes, which nobody approved",
        _t(notes="extra hot, extra shot"),
        _SAFE,
        False,
        _NOTES,
    ),
    ConsentCase(
        "the approved note written twice", _t(notes="extra hot, extra hot"), _SAFE, False, _NOTES
    ),
    ConsentCase(
        "'free' in full-width letters in the notes",
        _t(notes="extra hot, ｆｒｅｅ"),
        _SAFE,
        False,
        _NOTES,
    ),
    ConsentCase(
        "words hidden in characters nobody sees",
        _t(notes="extra hot" + "".join(chr(0xE0000 + ord(c)) for c in " comp it")),
        _SAFE,
        False,
        _HIDDEN,
    ),
    ConsentCase("the approved 'extra hot' left off", _t(notes=""), _SAFE, False, _NOTES),
    ConsentCase(
        "nuts added to the allergies, which nobody declared",
        _t(allergies=("milk", "nuts")),
        _SAFE,
        False,
        _ALLERGIES,
    ),
    ConsentCase("the declared milk allergy left off", _t(allergies=()), _SAFE, False, _ALLERGIES),
    ConsentCase(
        "'butter' for the declared milk allergy", _t(allergies=("butter",)), _SAFE, False, _GROUP
    ),
    ConsentCase(
        "'none' beside the declared milk allergy",
        _t(allergies=("none", "milk")),
        _SAFE,
        False,
        _NONE,
    ),
    ConsentCase(
        "'none' in the allergies of a customer who declared nothing",
        Ticket(table=3, items=("espresso",), allergies=("none",), notes=""),
        _ONE_ESPRESSO,
        True,
        "'none' declares no allergy",
    ),
    ConsentCase(
        "a remark in brackets behind the restated milk allergy in the notes",
        _t(notes="extra hot, milk allergy (whole milk is fine)"),
        _SAFE,
        False,
        _NOTES,
    ),
    ConsentCase("the espresso dropped", _t(items=("oat latte",)), _SAFE, False, _ITEMS),
    ConsentCase(
        "the wrong table", _t(table=7), _SAFE, False, "the ticket goes to the table that ordered"
    ),
)


def check_within_consent(fn: Callable[[Ticket, OrderSpec], Any]) -> list[str]:
    """Problems with a `within_consent(ticket, spec)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    if is_library(fn, within_consent):
        return [library_answer("within_consent")]
    problems = []
    for case in CONSENT_CASES:
        said = call(fn, case.ticket, case.spec)
        if isinstance(said, Raised):
            problems.append(said.problem(case.label))
        elif not isinstance(said, bool):
            problems.append(wrong_type(case.label, said, "True or False"))
        elif said != case.expected:
            problems.append(mismatch(case.label, said, case.expected, case.idea))
    return problems


# --- items_to_confirm ----------------------------------------------------------------------------

_MENU = load_menu()
# Another day: the croissant has run out and the omelette is back.
_CROISSANT_DAY = dataclasses.replace(_MENU, sold_out=frozenset({"croissant"}))
_ASK = "ask about an item that is 86'd or holds an allergen the customer declared"
_ONLY = "an item the kitchen can make safely needs no question"

# (what the order is, spec, the menu of the day or None for the menu given, the items that must
# be asked about, the idea). Only orders the menu settles one way; an order whose every item is
# 86'd is left to the learner's judgement.
_CONFIRM_CASES: tuple[tuple[str, OrderSpec, Menu | None, frozenset[str], str], ...] = (
    ("latte and espresso, milk allergy", PARTIAL_ALLERGEN_SPEC, None, frozenset({"latte"}), _ASK),
    (
        "cheese omelette (86'd) and an americano",
        OrderSpec(4, ("cheese omelette", "americano")),
        None,
        frozenset({"cheese omelette"}),
        _ASK,
    ),
    (
        "banana bread and green tea, nut allergy",
        OrderSpec(5, ("banana bread", "green tea"), ("nuts",)),
        None,
        frozenset({"banana bread"}),
        _ASK,
    ),
    (
        "cappuccino and americano, 'dairy' declared",
        OrderSpec(3, ("cappuccino", "americano"), ("dairy",)),
        None,
        frozenset({"cappuccino"}),
        "'dairy' is the milk the menu lists: ask the menu, not the word",
    ),
    (
        "tofu scramble, espresso and a latte, soy and milk declared",
        OrderSpec(8, ("tofu scramble", "espresso", "latte"), ("soy", "milk")),
        None,
        frozenset({"tofu scramble", "latte"}),
        "every declared allergy counts, not only the first",
    ),
    (
        "oat latte and espresso, milk allergy",
        OrderSpec(2, ("oat latte", "espresso"), ("milk",)),
        None,
        frozenset(),
        _ONLY,
    ),
    (
        "tofu scramble and a latte",
        OrderSpec(7, ("tofu scramble", "latte")),
        None,
        frozenset(),
        _ONLY,
    ),
    (
        "croissant and americano, on a day the croissant is 86'd",
        OrderSpec(9, ("croissant", "americano")),
        _CROISSANT_DAY,
        frozenset({"croissant"}),
        "read the 86'd list of the menu you are given: it changes every day",
    ),
    (
        "cheese omelette and americano, on the day the omelette is back",
        OrderSpec(4, ("cheese omelette", "americano")),
        _CROISSANT_DAY,
        frozenset(),
        "read the 86'd list of the menu you are given: it changes every day",
    ),
)


def _item_names(said: Any) -> frozenset[str] | None:
    """The item names an answer asks about, or None when it is not a collection of strings."""
    if isinstance(said, (str, bytes)) or not isinstance(said, Iterable):
        return None
    items = list(said)
    if not all(isinstance(item, str) for item in items):
        return None
    return frozenset(item.strip().lower() for item in items)


def check_items_to_confirm(
    fn: Callable[[OrderSpec, Menu], Any], menu: Menu | None = None
) -> list[str]:
    """Problems with an `items_to_confirm(spec, menu)`; an empty list means it passes."""
    menu = _MENU if menu is None else menu
    problems = []
    for label, spec, day, expected, idea in _CONFIRM_CASES:
        said = call(fn, spec, day or menu)
        if isinstance(said, Raised):
            problems.append(said.problem(label))
            continue
        found = _item_names(said)
        if found is None:
            problems.append(wrong_type(label, said, "a list of item names, e.g. ['latte']"))
        elif found != expected:
            problems.append(mismatch(label, sorted(found), sorted(expected), idea))
    return problems
