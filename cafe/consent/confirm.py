"""The consent gate before a draft: orders no ticket can pass, and what front of house asks.

Session 05 (`sessions/s05-consent-gate/lesson.md`, notebook `notebooks/s05-consent-gate.ipynb`).
Some approved orders fail every check however well they are drafted: a latte for a customer who
declared a milk allergy (keeping it is unsafe, dropping or swapping it is a change nobody
approved), or notes the kitchen ticket cannot carry ("allergy: milk" is not a kitchen modifier;
"whipped cream" adds the milk they declared). Retrying such an order only spends the cap. It adds:

- `changes_to_confirm(spec, menu)`: one `Failure` per thing the customer must change before any
  draft can pass (empty when a ticket can pass as approved);
- `confirmation_question(spec, menu)`: the sentence front of house says to the customer.

Front of house (`cafe.repair.front.front_of_house`) asks `changes_to_confirm` before the loop
runs and sends the order back with `confirmation_question`; no draft is written. The customer's
answer is a new approved order (`dataclasses.replace`).
What it leaves out: 86'd items, which have the same shape (whether the gate should ask about
them too is the session's open exercise); the question never offers one "on its own", though.
"""

from __future__ import annotations

from cafe.consent.notes import NoteReading, hidden_span, read_notes
from cafe.consent.spec import OrderSpec
from cafe.schema.ticket import Failure, clip
from cafe.world.allergens import allergen_key
from cafe.world.menu import Menu

__all__ = ["changes_to_confirm", "confirmation_question"]


def _item_conflicts(spec: OrderSpec, menu: Menu) -> dict[str, list[str]]:
    """Each approved item (once) and the declared allergens it contains."""
    return {
        item: sorted({allergen_key(a) for a in spec.allergies if menu.contains(item, a)})
        for item in dict.fromkeys(spec.items)
    }


def _note_conflicts(reading: NoteReading, spec: OrderSpec) -> list[tuple[str, list[str]]]:
    """Each approved modifier that adds an allergen the customer declared, with those allergens."""
    declared = {allergen_key(a) for a in spec.allergies}
    found = []
    for note in reading.modifiers:
        hits = sorted({allergen_key(a) for a in note.modifier.allergens} & declared)
        if hits:
            found.append((note.modifier.name, hits))
    return found


def _unreadable(spec: OrderSpec, reading: NoteReading, label: str = "") -> list[str]:
    """The approved notes the kitchen ticket cannot carry, as a customer would read them, each
    after `label` (a failure's span is labelled; the question to the customer is not)."""
    shown = [hidden_span(spec.notes, reading.hidden, label)] if reading.hidden else []
    return shown + [f"{label} {p.clause}" if label else p.clause for p in reading.problems]


def changes_to_confirm(spec: OrderSpec, menu: Menu) -> tuple[Failure, ...]:
    """What the customer must change before any ticket for `spec` can pass (empty: nothing).

    An approved item that contains an allergen the customer declared, and an approved modifier
    that adds one, are `unsafe`; approved notes that are not kitchen modifiers the menu defines
    (or that hold characters a reader cannot see) are `out_of_scope`. Non-empty means nothing
    should be generated: the customer confirms a change first. (When every item contains one
    declared allergen there is nothing left to confirm; `cafe.repair.policy_failures` refuses
    that order before this runs.)
    """
    ask = "do not generate until they confirm"
    found = [
        Failure(
            "unsafe",
            f"{item} contains {', '.join(hits)}",
            f"ask the customer: drop {clip(item)} or choose another item; {ask}",
        )
        for item, hits in _item_conflicts(spec, menu).items()
        if hits
    ]
    reading = read_notes(spec.notes, spec.items, menu, spec.allergies)
    found += [
        Failure(
            "unsafe",
            f"{name} contains {', '.join(hits)}",
            f"ask the customer: leave {name!r} off or choose another; {ask}",
        )
        for name, hits in _note_conflicts(reading, spec)
    ]
    found += [
        Failure(
            "out_of_scope",
            span,
            "ask the customer: a ticket's notes hold only kitchen modifiers the menu defines, "
            f"and this is not one; {ask}",
        )
        for span in _unreadable(spec, reading, "(notes)")
    ]
    return tuple(found)


def _allergen_sentence(spec: OrderSpec, menu: Menu, reading: NoteReading) -> str:
    conflicts = _item_conflicts(spec, menu)
    unsafe = [
        f"the {item} contains {' and '.join(keys)}" for item, keys in conflicts.items() if keys
    ]
    unsafe += [
        f"the {name} adds {' and '.join(keys)}" for name, keys in _note_conflicts(reading, spec)
    ]
    if not unsafe:
        return ""
    # offered on their own: items with no declared allergen that the kitchen can make today
    safe = [item for item, keys in conflicts.items() if not keys and not menu.is_sold_out(item)]
    where = "their" if len(unsafe) > 1 else "its"
    declared = {k for keys in conflicts.values() for k in keys}
    declared |= {k for _, keys in _note_conflicts(reading, spec) for k in keys}
    told = f"{'; '.join(unsafe)}, and you told us about your "
    told += f"{'allergies' if len(declared) > 1 else 'allergy'}."
    if safe and len(unsafe) == sum(1 for keys in conflicts.values() if keys):
        alone = f"make the {' and the '.join(safe)} on {'its' if len(safe) == 1 else 'their'} own"
        return f"{told} Shall we {alone}, or would you like something else in {where} place?"
    return f"{told} Would you like something else in {where} place?"


def confirmation_question(spec: OrderSpec, menu: Menu) -> str:
    """What front of house asks the customer when `changes_to_confirm` is not empty ('' when it is)."""
    reading = read_notes(spec.notes, spec.items, menu, spec.allergies)
    sentences = [_allergen_sentence(spec, menu, reading)]
    unreadable = _unreadable(spec, reading)
    if unreadable:
        quoted = ", ".join(repr(clause) for clause in unreadable)
        sentences.append(
            f"The kitchen ticket can only carry our kitchen options, and {quoted} "
            f"{'is not one' if len(unreadable) == 1 else 'are not'}: what should we tell the "
            "kitchen instead?"
        )
    text = " ".join(s for s in sentences if s)
    return f"Table {spec.table}: {text}" if text else ""
