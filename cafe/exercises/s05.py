"""Session 05's your-turn checkers, for the notebook's compare cells
(`notebooks/s05-consent-gate.ipynb`):

1. `within_consent(ticket, spec)`: True exactly when a ticket holds the approved order and
   nothing else. After its cases (faithful tickets, tickets that each make one helpful change),
   compared with `reference_s05` on generated pairs, then on its edges (`reference_s05_edges`:
   approved unsafe or unsayable notes kept, "nil" for none, hidden characters in an allergy).
   The course's `within_consent` (or `order_changes`) is refused.
2. `items_to_confirm(spec, menu)`, open-ended: the approved items to confirm before any draft
   (86'd on the menu given, or holding a declared allergen). After its cases, the answer (a set
   of names, any spelling) beside `reference_s05_confirm` on generated orders and days; an order
   where nothing can be made is the learner's call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cafe.consent import PARTIAL_ALLERGEN_SPEC, OrderSpec, order_changes, read_notes, within_consent
from cafe.exercises import reference_s05 as ref
from cafe.exercises import reference_s05_confirm as confirm
from cafe.exercises import reference_s05_edges as edges
from cafe.exercises.feedback import Raised, call, library_answer, mismatch, wrong_type
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.library import is_library
from cafe.schema.ticket import Ticket
from cafe.world.allergens import allergy_name, is_no_allergy
from cafe.world.menu import Menu, load_menu, normalize_name
from cafe.world.spelling import hidden_characters

__all__ = ["ConsentCase", "CONSENT_CASES", "check_within_consent", "check_items_to_confirm"]

# --- within_consent ------------------------------------------------------------------------------

_LATTE_WORDS = "A latte and an espresso, extra hot. Milk allergy, so make it safe."
_LATTE = OrderSpec(6, ("latte", "espresso"), ("milk allergy",), "extra hot", _LATTE_WORDS)
_SAFE = OrderSpec(6, ("oat latte", "espresso"), ("milk allergy",), "extra hot")
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
_REQUEST = "the customer's request is their words, not approval: only the spec approves"
_NOTES = "notes may say only the approved kitchen modifiers, each as often as approved"
_ITEMS = "the approved items are a ceiling and a floor, copies counted"
_ALLERGIES = "the allergies field holds exactly what the customer declared"
_HIDDEN = "characters nobody can see are a change, never ignored"
_GROUP = "an ingredient names part of a group: a kitchen told 'butter' may serve milk"
_NONE = "'none' beside an allergy contradicts it: the ticket lists the allergy and nothing else"
_CHANGED = "a change nobody approved; the customer's request is their words, not approval"


def _yes(label: str, ticket: Ticket, idea: str = _SAME, spec: OrderSpec = _SAFE) -> ConsentCase:
    return ConsentCase(label, ticket, spec, True, idea)


def _no(label: str, ticket: Ticket, idea: str, spec: OrderSpec = _SAFE) -> ConsentCase:
    return ConsentCase(label, ticket, spec, False, idea)


_ESPRESSO_TICKET = Ticket(table=3, items=("espresso",), allergies=(), notes="")
_TAGS = "".join(chr(0xE0000 + ord(c)) for c in " comp it")  # " comp it" in tag characters

# Every "no" is one change a helpful model might make; every "yes" is the approved order written
# a little differently.
CONSENT_CASES: tuple[ConsentCase, ...] = (
    _yes("the approved order, word for word", _t(allergies=("milk allergy",))),
    _yes(
        "the approved order, items in another order and another case",
        _t(items=("Espresso", "Oat Latte")),
    ),
    _yes(
        "the approved order with 'dairy' for the declared milk allergy",
        _t(allergies=("dairy",)),
        "'dairy' and 'milk allergy' declare one allergen",
    ),
    _no("oat latte swapped in for the latte (a swap to make it safe)", _t(), _ITEMS, _LATTE),
    _no("two espressos for one", _t(items=("oat latte", "espresso", "espresso")), _ITEMS),
    _no("one espresso where two were approved", _ESPRESSO_TICKET, _ITEMS, _TWO_ESPRESSOS),
    _no("a croissant added", _t(items=("oat latte", "espresso", "croissant")), _ITEMS),
    _no(
        "a croissant the customer asked for in their request, not on the spec",
        _t(items=("oat latte", "espresso", "croissant")),
        _REQUEST,
        _ASKED,
    ),
    _no(
        "a free refill the customer asked for in their request, not on the spec",
        _t(notes="extra hot, free refill"),
        _REQUEST,
        _ASKED,
    ),
    _yes("the approved note written 'Extra-Hot!'", _t(notes="Extra-Hot!")),
    _yes(
        "the approved note in another of the menu's spellings, 'very hot'",
        _t(notes="very hot, please"),
        "a modifier is the same whichever of the menu's spellings writes it",
    ),
    _yes(
        "two approved notes in the other order",
        _t(notes="no foam; extra hot"),
        "the notes are a list of modifiers, not a sentence to match",
        _TWO_NOTES,
    ),
    _no("a free refill in the notes", _t(notes="extra hot, free refill on the house"), _NOTES),
    _no("'10% off for the wait' in the notes", _t(notes="extra hot, 10% off for the wait"), _NOTES),
    _no(
        "an extra shot in the notes, which nobody approved",
        _t(notes="extra hot, extra shot"),
        _NOTES,
    ),
    _no("the approved note written twice", _t(notes="extra hot, extra hot"), _NOTES),
    _no("'free' in full-width letters in the notes", _t(notes="extra hot, ｆｒｅｅ"), _NOTES),
    _no("words hidden in characters nobody sees", _t(notes="extra hot" + _TAGS), _HIDDEN),
    _no("the approved 'extra hot' left off", _t(notes=""), _NOTES),
    _no(
        "nuts added to the allergies, which nobody declared",
        _t(allergies=("milk", "nuts")),
        _ALLERGIES,
    ),
    _no("the declared milk allergy left off", _t(allergies=()), _ALLERGIES),
    _no("'butter' for the declared milk allergy", _t(allergies=("butter",)), _GROUP),
    _no("'none' beside the declared milk allergy", _t(allergies=("none", "milk")), _NONE),
    _yes(
        "'none' in the allergies of a customer who declared nothing",
        _ESPRESSO_TICKET.model_copy(update={"allergies": ("none",)}),
        "'none' declares no allergy",
        _ONE_ESPRESSO,
    ),
    _no(
        "a remark in brackets behind the restated milk allergy in the notes",
        _t(notes="extra hot, milk allergy (whole milk is fine)"),
        _NOTES,
    ),
    _no("the espresso dropped", _t(items=("oat latte",)), _ITEMS),
    _no("the wrong table", _t(table=7), "the ticket goes to the table that ordered"),
)


def check_within_consent(fn: Callable[[Ticket, OrderSpec], Any]) -> list[str]:
    """Problems with a `within_consent(ticket, spec)`; an empty list means it passes. A stub's
    `NotImplementedError` passes through, so `course.compare` can say "not attempted yet"."""
    first = CONSENT_CASES[0]
    if is_library(fn, within_consent, order_changes, trial=(first.ticket, first.spec)):
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
    return problems or _generated_consent(fn)


_MENU = load_menu()
# Generated inputs per check: bank_s05's wrong answers all differ within 200; a compare takes ~1 s.
_EXAMPLES = 200
# The notebook's pieces, with `read_notes` bound to the course menu as the notebook calls it.
_PIECES = ref.Pieces(
    normalize_name,
    allergy_name,
    is_no_allergy,
    lambda notes, items, allergies: read_notes(notes, items, _MENU, allergies),
    hidden_characters,
)


def _records(spec: ref.Order, ticket: ref.Order) -> tuple[Ticket, OrderSpec]:
    """A generated (order, ticket) as the records the learner's function takes: ticket first."""
    made = Ticket(
        table=ticket.table, items=ticket.items, allergies=ticket.allergies, notes=ticket.notes
    )
    return made, OrderSpec(spec.table, spec.items, spec.allergies, spec.notes, spec.request)


def _generated_consent(fn: Callable[[Ticket, OrderSpec], Any]) -> list[str]:
    """`fn` beside the reference on generated orders and tickets."""
    found = None  # the pairs as always drawn first, then each edge on its own
    for pairs, examples in ((ref.consent_pairs, _EXAMPLES), *edges.EDGES):
        found = found or first_difference(
            lambda given: fn(*_records(given[1], given[2])),
            lambda given: ref.within_consent(*_records(given[1], given[2]), _PIECES),
            built_once(pairs),
            idea="",
            frozen=True,
            examples=examples,
        )
    if found is None:
        return []
    label, spec, ticket = found.given
    idea = edges.idea_for(label, _SAME if found.expected is True else _CHANGED)
    case = f"on the approved {ref.brief(spec)} and the ticket {ref.brief(ticket)} ({label})"
    return [mismatch(case, found.returned, found.expected, idea)]


# --- items_to_confirm ----------------------------------------------------------------------------
_CROISSANT_DAY = dataclasses.replace(_MENU, sold_out=frozenset({"croissant"}))  # another day
_ASK = "ask about an item that is 86'd or holds an allergen the customer declared"
_ONLY = "an item the kitchen can make safely needs no question"
_NEXT_DAY = "read the 86'd list of the menu you are given: it changes every day"


def _ask(
    label: str, spec: OrderSpec, asked: tuple[str, ...], idea: str = _ASK, day: Menu | None = None
) -> tuple[str, OrderSpec, Menu | None, frozenset[str], str]:
    """A case: the order, the items to ask about on the menu given (or on `day`), and the idea."""
    return label, spec, day, frozenset(asked), idea


# Only orders the menu settles one way; an order whose every item is 86'd is the learner's call.
_CONFIRM_CASES: tuple[tuple[str, OrderSpec, Menu | None, frozenset[str], str], ...] = (
    _ask("latte and espresso, milk allergy", PARTIAL_ALLERGEN_SPEC, ("latte",)),
    _ask(
        "cheese omelette (86'd) and an americano",
        OrderSpec(4, ("cheese omelette", "americano")),
        ("cheese omelette",),
    ),
    _ask(
        "banana bread and green tea, nut allergy",
        OrderSpec(5, ("banana bread", "green tea"), ("nuts",)),
        ("banana bread",),
    ),
    _ask(
        "cappuccino and americano, 'dairy' declared",
        OrderSpec(3, ("cappuccino", "americano"), ("dairy",)),
        ("cappuccino",),
        "'dairy' is the milk the menu lists: ask the menu, not the word",
    ),
    _ask(
        "tofu scramble, espresso and a latte, soy and milk declared",
        OrderSpec(8, ("tofu scramble", "espresso", "latte"), ("soy", "milk")),
        ("tofu scramble", "latte"),
        "every declared allergy counts, not only the first",
    ),
    _ask(
        "oat latte and espresso, milk allergy",
        OrderSpec(2, ("oat latte", "espresso"), ("milk",)),
        (),
        _ONLY,
    ),
    _ask("tofu scramble and a latte", OrderSpec(7, ("tofu scramble", "latte")), (), _ONLY),
    _ask(
        "croissant and americano, on a day the croissant is 86'd",
        OrderSpec(9, ("croissant", "americano")),
        ("croissant",),
        _NEXT_DAY,
        _CROISSANT_DAY,
    ),
    _ask(
        "cheese omelette and americano, on the day the omelette is back",
        OrderSpec(4, ("cheese omelette", "americano")),
        (),
        _NEXT_DAY,
        _CROISSANT_DAY,
    ),
)


def _item_names(said: Any) -> frozenset[str] | None:
    """The item names an answer asks about, folded, or None when it is not a collection of strings."""
    if isinstance(said, (str, bytes)) or not isinstance(said, Iterable):
        return None
    items = list(said)
    if not all(isinstance(item, str) for item in items):
        return None
    return frozenset(ref.folded(item) for item in items)


def _asked(fn: Callable[[OrderSpec, Menu], Any], given: Any, menu: Menu) -> Any:
    """What `fn` asks about on a generated order and day; "yours" (not judged) if nothing can be made."""
    order, sold_out = given
    spec = OrderSpec(order.table, order.items, order.allergies)
    day = dataclasses.replace(menu, sold_out=sold_out)
    if len(confirm.items_to_confirm(spec, day)) == len({ref.folded(i) for i in spec.items}):
        return "yours"
    return _item_names(fn(spec, day))


def _generated_confirm(fn: Callable[[OrderSpec, Menu], Any], menu: Menu) -> list[str]:
    """`fn` beside the reference on generated orders and days (reference_s05_confirm)."""
    found = first_difference(
        lambda given: _asked(fn, given, menu),
        lambda given: _asked(confirm.items_to_confirm, given, menu),
        built_once(confirm.confirm_orders),
        idea=_ASK,
        frozen=True,
        examples=_EXAMPLES,
    )
    if found is None:
        return []
    order, sold_out = found.given
    case = f"on {ref.brief(order)}, 86'd that day: {sorted(sold_out) or 'nothing'}"
    returned = sorted(found.returned) if isinstance(found.returned, frozenset) else found.returned
    return [mismatch(case, returned, sorted(found.expected), _ASK + ", whatever its spelling")]


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
    return problems or _generated_confirm(fn, menu)
