"""Session 05's banks: `check_within_consent` and `check_items_to_confirm` (cafe/exercises/s05.py).

The exercise ideas: the order front of house approved is a ceiling and a floor on the ticket
(items with their copies, the declared allergies, the approved kitchen modifiers, whatever the
spelling), and the customer's own words in `request` never approve anything; and a gate before the
loop asks the customer about an approved item no ticket can keep (86'd on the menu it is given, or
holding an allergen they declared), and about nothing else.

Each `within_consent` below is built from the pieces the notebook lists (`normalize_name`,
`allergy_name`, `is_no_allergy`, `read_notes`, and since 7 Dec 2026 (evening) `hidden_characters`,
which the notebook now says refuses what nobody sees in the allergies as in the notes). `learner_within_consent` is a right answer written
that way; the mutation benchmark mutates it (the course's `within_consent` delegates to
`order_changes`, whose fix texts a yes-or-no answer never shows).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from banks.harness import Bank, Entry
from cafe.consent import (
    changes_to_confirm,
    kitchen_notes,
    order_changes,
    read_notes,
    within_consent,
)
from cafe.consent.spec import OrderSpec
from cafe.exercises.s05 import check_items_to_confirm, check_within_consent
from cafe.schema.ticket import Ticket
from cafe.world.allergens import allergen_key, allergy_name, is_no_allergy
from cafe.world.menu import Menu, load_menu, normalize_name
from cafe.world.spelling import hidden_characters, spelling_key

MENU = load_menu()

# --- within_consent: a right answer in the notebook's pieces (the mutation target) ----------------


def _same_items(ticket: Ticket, spec: OrderSpec) -> bool:
    return Counter(map(normalize_name, ticket.items)) == Counter(map(normalize_name, spec.items))


def _same_allergies(ticket: Ticket, spec: OrderSpec) -> bool:
    written = [allergy_name(a) for a in ticket.allergies if not is_no_allergy(a)]
    beside = bool(written) and len(written) < len(ticket.allergies)  # "none" beside an allergy
    declared = {allergy_name(a) for a in spec.allergies if not is_no_allergy(a)}
    hidden = any(hidden_characters(a) for a in ticket.allergies)  # refused, never folded away
    return not beside and not hidden and set(written) == declared


def _adds_declared(reading: Any, spec: OrderSpec) -> bool:
    """Whether a modifier read from the notes adds an allergen the customer declared: an
    `unsafe_note` (the lesson's table 5), approved or not."""
    declared = {allergy_name(a) for a in spec.allergies if not is_no_allergy(a)}
    return any(allergy_name(a) in declared for m in reading.modifiers for a in m.modifier.allergens)


def _same_notes(ticket: Ticket, spec: OrderSpec) -> bool:
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    if not got.clean or _adds_declared(got, spec):
        return False
    return Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)


def learner_within_consent(ticket: Ticket, spec: OrderSpec) -> bool:
    """Right: table, items with copies, declared allergies, notes read against the menu."""
    if ticket.table != spec.table:
        return False
    if not _same_items(ticket, spec):
        return False
    if not _same_allergies(ticket, spec):
        return False
    return _same_notes(ticket, spec)


# --- within_consent: wrong -------------------------------------------------------------------


def _asked_for(clause: str, request: str) -> bool:
    return spelling_key(clause) in spelling_key(request)


def request_is_approval(ticket: Ticket, spec: OrderSpec) -> bool:
    """A note the customer asked for in their own words counts as approved."""
    got = read_notes(ticket.notes, ticket.items, MENU)
    unasked = [p for p in got.problems if not _asked_for(p.clause, spec.request)]
    want = read_notes(spec.notes, spec.items, MENU)
    notes = not unasked and not got.hidden
    notes = notes and Counter(m.key for m in got.modifiers) == Counter(
        m.key for m in want.modifiers
    )
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and _same_allergies(ticket, spec)
        and notes
    )


def requested_items_approved(ticket: Ticket, spec: OrderSpec) -> bool:
    """An item named in the customer's request may be added: they did ask for it."""
    extra = Counter(map(normalize_name, ticket.items)) - Counter(map(normalize_name, spec.items))
    asked = all(_asked_for(item, spec.request) for item in extra)
    short = Counter(map(normalize_name, spec.items)) - Counter(map(normalize_name, ticket.items))
    return (
        ticket.table == spec.table
        and asked
        and not short
        and _same_allergies(ticket, spec)
        and _same_notes(ticket, spec)
    )


def identical_notes(ticket: Ticket, spec: OrderSpec) -> bool:
    """The notes must read the same as the approved notes, case and punctuation aside."""
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and _same_allergies(ticket, spec)
        and spelling_key(ticket.notes) == spelling_key(spec.notes)
        and not read_notes(ticket.notes, ticket.items, MENU).hidden
    )


def set_of_items(ticket: Ticket, spec: OrderSpec) -> bool:
    """Compares which items, not how many of each."""
    same = {normalize_name(i) for i in ticket.items} == {normalize_name(i) for i in spec.items}
    return (
        ticket.table == spec.table
        and same
        and _same_allergies(ticket, spec)
        and _same_notes(ticket, spec)
    )


def ceiling_only(ticket: Ticket, spec: OrderSpec) -> bool:
    """Nothing beyond the order, but dropping an item or a copy is fine (less is safe)."""
    extra = Counter(map(normalize_name, ticket.items)) - Counter(map(normalize_name, spec.items))
    return (
        ticket.table == spec.table
        and not extra
        and _same_allergies(ticket, spec)
        and _same_notes(ticket, spec)
    )


def none_is_an_allergy(ticket: Ticket, spec: OrderSpec) -> bool:
    """Every word in the allergies field is an allergy, 'none' included."""
    written = {allergen_key(a) for a in ticket.allergies}
    same = written == {allergen_key(a) for a in spec.allergies}
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and same
        and _same_notes(ticket, spec)
    )


def modifiers_as_a_set(ticket: Ticket, spec: OrderSpec) -> bool:
    """The approved modifiers compared as a set, so one written twice still matches."""
    got = read_notes(ticket.notes, ticket.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    notes = got.clean and {m.key for m in got.modifiers} == {m.key for m in want.modifiers}
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and _same_allergies(ticket, spec)
        and notes
    )


def visible_notes_only(ticket: Ticket, spec: OrderSpec) -> bool:
    """Reads the notes against the menu, but lets characters nobody sees through."""
    got = read_notes(ticket.notes, ticket.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    notes = not got.problems and Counter(m.key for m in got.modifiers) == Counter(
        m.key for m in want.modifiers
    )
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and _same_allergies(ticket, spec)
        and notes
    )


def items_and_table_only(ticket: Ticket, spec: OrderSpec) -> bool:
    """Compares what is ordered for which table; the notes and allergies are 'just text'."""
    return ticket.table == spec.table and _same_items(ticket, spec)


_FORBIDDEN = ("free", "on the house", "refill", "comp", "discount", "off")


def forbidden_words(ticket: Ticket, spec: OrderSpec) -> bool:
    """The notes held to a list of words they may not say."""
    said = ticket.notes.lower()
    clean = not any(word in said for word in _FORBIDDEN)
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and _same_allergies(ticket, spec)
        and clean
    )


def raw_allergy_words(ticket: Ticket, spec: OrderSpec) -> bool:
    """Allergy words compared as written, so 'dairy' is not the declared 'milk allergy'."""
    written = {a.strip().lower() for a in ticket.allergies if not is_no_allergy(a)}
    same = written == {a.strip().lower() for a in spec.allergies}
    return (
        ticket.table == spec.table
        and _same_items(ticket, spec)
        and same
        and _same_notes(ticket, spec)
    )


def _rest_right(ticket: Ticket, spec: OrderSpec) -> bool:
    """The table, the allergies and the notes as the right answer compares them."""
    return (
        ticket.table == spec.table and _same_allergies(ticket, spec) and _same_notes(ticket, spec)
    )


def items_lowercased_only(ticket: Ticket, spec: OrderSpec) -> bool:
    """Item names lower-cased but not trimmed, so ' latte ' is not 'latte'."""
    same = Counter(i.lower() for i in ticket.items) == Counter(i.lower() for i in spec.items)
    return same and _rest_right(ticket, spec)


def approved_items_as_written(ticket: Ticket, spec: OrderSpec) -> bool:
    """Only the ticket's names are normalised; the approved ones are taken as written."""
    same = Counter(map(normalize_name, ticket.items)) == Counter(spec.items)
    return same and _rest_right(ticket, spec)


def allergies_counted(ticket: Ticket, spec: OrderSpec) -> bool:
    """Allergies counted like items, so 'milk' and 'dairy' on one ticket are two allergies."""
    written = Counter(allergy_name(a) for a in ticket.allergies if not is_no_allergy(a))
    same = written == Counter(allergy_name(a) for a in spec.allergies)
    return same and learner_within_consent(ticket, spec)


def allergies_subset(ticket: Ticket, spec: OrderSpec) -> bool:
    """Refuses an allergy nobody declared, but lets a declared one be left off."""
    written = {allergy_name(a) for a in ticket.allergies if not is_no_allergy(a)}
    fixed = ticket.model_copy(update={"allergies": spec.allergies})
    return written <= {allergy_name(a) for a in spec.allergies} and learner_within_consent(
        fixed, spec
    )


def allergies_by_group_at_risk(ticket: Ticket, spec: OrderSpec) -> bool:
    """Allergies compared by the group they put at risk (`allergen_key`): 'butter' reads as milk."""
    written = {allergen_key(a) for a in ticket.allergies if not is_no_allergy(a)}
    fixed = ticket.model_copy(update={"allergies": spec.allergies})
    same = written == {allergen_key(a) for a in spec.allergies}
    return same and learner_within_consent(fixed, spec)


def table_ignored(ticket: Ticket, spec: OrderSpec) -> bool:
    """Everything but the table."""
    return learner_within_consent(ticket.model_copy(update={"table": spec.table}), spec)


def modifiers_without_copies(ticket: Ticket, spec: OrderSpec) -> bool:
    """Modifiers compared by name and items, not by how many copies they are on."""
    got = read_notes(ticket.notes, ticket.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    keys = Counter((m.modifier.name, m.items) for m in got.modifiers)
    same = got.clean and keys == Counter((m.modifier.name, m.items) for m in want.modifiers)
    fixed = ticket.model_copy(update={"notes": spec.notes})
    return same and learner_within_consent(fixed, spec)


def notes_in_kitchen_words(ticket: Ticket, spec: OrderSpec) -> bool:
    """The notes compared in the menu's words (`kitchen_notes`): 'decaf' on two lattes and
    '2 x decaf' are written differently, and ask for the same thing."""
    got = read_notes(ticket.notes, ticket.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    same = got.clean and kitchen_notes(got) == kitchen_notes(want)
    fixed = ticket.model_copy(update={"notes": spec.notes})
    return same and learner_within_consent(fixed, spec)


# --- within_consent: right, shaped unlike the reference ------------------------------------------


def no_changes_named(ticket: Ticket, spec: OrderSpec) -> bool:
    """The course's `order_changes`, which the notebook reveals after the compare cell: within
    consent when it names none. It writes nothing of the exercise, so it is refused."""
    return not order_changes(ticket, spec)


def kitchen_spelling(ticket: Ticket, spec: OrderSpec) -> bool:
    """Right: everything folded to sorted tuples in the kitchen's spelling, then compared at once."""

    def shape(t: Any, notes_items: tuple[str, ...]) -> tuple[Any, ...] | None:
        reading = read_notes(t.notes, notes_items, MENU, spec.allergies)
        if reading.problems or reading.hidden or any(map(hidden_characters, t.allergies)):
            return None
        real = [a for a in t.allergies if not is_no_allergy(a)]
        return (
            t.table,
            tuple(sorted(normalize_name(i) for i in t.items)),
            tuple(sorted({allergy_name(a) for a in real})),
            len(t.allergies) - len(real) if real else 0,  # "none" beside an allergy
            # a modifier's items are a set: sorted before they are compared, never their repr,
            # whose order follows the process's hash seed (PYTHONHASHSEED)
            tuple(
                sorted(
                    (m.modifier.name, tuple(sorted(m.items)), m.copies) for m in reading.modifiers
                )
            ),
        )

    mine = shape(ticket, tuple(ticket.items))
    unsafe = _adds_declared(read_notes(ticket.notes, ticket.items, MENU, spec.allergies), spec)
    return mine is not None and mine == shape(spec, tuple(spec.items)) and not unsafe


# --- held-out readerE, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def approved_unsafe_note_kept(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong: never asks whether a modifier adds an allergen the customer declared, so the
    approved "butter on the side" copied for a milk allergy passes (an unsafe_note)."""
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    notes = got.clean and Counter(m.key for m in got.modifiers) == Counter(
        m.key for m in want.modifiers
    )
    same = ticket.table == spec.table and _same_items(ticket, spec)
    return same and _same_allergies(ticket, spec) and notes


def notes_without_allergies(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong: reads the notes without the declared allergies, so a note that only restates one
    (the kitchen reads the allergies field) is taken for a clause nobody approved."""
    got = read_notes(ticket.notes, ticket.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    keys = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    fixed = ticket.model_copy(update={"notes": spec.notes})
    return got.clean and keys and learner_within_consent(fixed, spec)


def reads_declared_restatements(ticket: Ticket, spec: OrderSpec) -> bool:
    """Right: reads the notes with the declared allergies, as the library does, so a note that
    restates one is no clause of its own."""
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    keys = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    fixed = ticket.model_copy(update={"notes": spec.notes})
    return got.clean and keys and learner_within_consent(fixed, spec)


# --- held-out readerH, 7 Dec 2026 (afternoon): written from the lesson alone ---------------------


def none_word_only(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong: drops only the word 'none' from the allergies (never calls `is_no_allergy`), so
    'N/A', 'nil' or blank for a customer who declared nothing reads as an allergy."""
    written = [a for a in ticket.allergies if a.strip().lower() != "none"]
    declared = [a for a in spec.allergies if a.strip().lower() != "none"]
    if written and len(written) < len(ticket.allergies):
        return False
    if {allergy_name(a) for a in written} != {allergy_name(a) for a in declared}:
        return False
    same = ticket.table == spec.table and _same_items(ticket, spec)
    return same and _same_notes(ticket, spec)


def unsayable_note_copied(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong: notes that read as the approved notes pass, clauses the menu cannot say included,
    so an approved 'birthday candle in the banana bread' copied to the ticket passes."""
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    if got.hidden or _adds_declared(got, spec):
        return False
    said = sorted(p.clause.lower() for p in got.problems)
    if said != sorted(p.clause.lower() for p in want.problems):
        return False
    keys = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    same = ticket.table == spec.table and _same_items(ticket, spec)
    return keys and same and _same_allergies(ticket, spec)


def hidden_allergy_folded(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong (reader H's, decided 7 Dec 2026 evening, once the notebook's pieces said it): reads
    each allergy by `allergy_name`, which folds a character nobody sees away, so "milk" with a
    zero-width space inside passes for the declared milk allergy."""
    written = [allergy_name(a) for a in ticket.allergies if not is_no_allergy(a)]
    if written and len(written) < len(ticket.allergies):
        return False
    declared = {allergy_name(a) for a in spec.allergies if not is_no_allergy(a)}
    same = ticket.table == spec.table and _same_items(ticket, spec)
    return same and set(written) == declared and _same_notes(ticket, spec)


# --- held-out reader L, 7 Dec 2026 (evening): written from the lesson alone ---------------------


def _notes_unsafe_when(
    adds: Callable[[str, OrderSpec], bool], ticket: Ticket, spec: OrderSpec
) -> bool:
    """The right answer, but a modifier is unsafe when `adds(allergen, spec)` says so."""
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    if not got.clean or any(adds(a, spec) for m in got.modifiers for a in m.modifier.allergens):
        return False
    keys = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    same = ticket.table == spec.table and _same_items(ticket, spec)
    return keys and same and _same_allergies(ticket, spec)


def unsafe_raw_words(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong (reader L's wrong_19): a modifier's allergen compared with the declared words as
    written, so the customer who declared 'dairy' gets the approved butter on the side."""
    declared = {a.strip().lower() for a in spec.allergies}
    return _notes_unsafe_when(lambda allergen, _: allergen in declared, ticket, spec)


def unsafe_by_substring(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong, the same kind in another shape: the allergen looked for inside the declared words
    ('milk' in 'Milk allergy'), so 'dairy' still declares nothing a modifier can add."""

    def adds(allergen: str, spec: OrderSpec) -> bool:
        return any(allergen in a.lower() for a in spec.allergies)

    return _notes_unsafe_when(adds, ticket, spec)


def items_strip_lower(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong (reader L's wrong_02): item names trimmed and lower-cased, spaces inside kept, so
    'flat  white' is not the approved 'flat white' (normalize_name: "one item")."""
    same = Counter(i.strip().lower() for i in ticket.items) == Counter(
        i.strip().lower() for i in spec.items
    )
    return same and _rest_right(ticket, spec)


def items_spaces_collapsed(ticket: Ticket, spec: OrderSpec) -> bool:
    """Wrong, the same kind in another shape: runs of spaces collapsed, other blank characters
    kept, so 'FLAT<tab>WHITE' is not the approved 'flat white'."""

    def name(item: str) -> str:
        return re.sub(" +", " ", item).strip().lower()

    same = Counter(map(name, ticket.items)) == Counter(map(name, spec.items))
    return same and _rest_right(ticket, spec)


# --- items_to_confirm -----------------------------------------------------------------------------


def reference_items_to_confirm(spec: OrderSpec, menu: Menu) -> list[str]:
    """The answer in cafe/data/answers/s05.json: 86'd or holding a declared allergen, each once."""
    return [
        item
        for item in dict.fromkeys(spec.items)
        if menu.is_sold_out(item) or any(menu.contains(item, a) for a in spec.allergies)
    ]


def allergens_only(spec: OrderSpec, menu: Menu) -> list[str]:
    """The course's gate unchanged: asks about declared allergens, never about the 86'd list."""
    return [i for i in spec.items if any(menu.contains(i, a) for a in spec.allergies)]


def sold_out_only(spec: OrderSpec, menu: Menu) -> list[str]:
    """Asks about the 86'd list only, and forgets the allergies."""
    return [i for i in spec.items if menu.is_sold_out(i)]


def the_omelette_by_name(spec: OrderSpec, menu: Menu) -> list[str]:
    """The story's one 86'd dish, hard-coded."""
    return [
        i
        for i in spec.items
        if i == "cheese omelette" or any(menu.contains(i, a) for a in spec.allergies)
    ]


def todays_menu(spec: OrderSpec, menu: Menu) -> list[str]:
    """Reads today's menu from the file instead of the menu it is given."""
    return reference_items_to_confirm(spec, load_menu())


def raw_allergen_names(spec: OrderSpec, menu: Menu) -> list[str]:
    """Compares the declared word with the menu's allergen names as written ('dairy' is not milk)."""
    return [
        i
        for i in spec.items
        if menu.is_sold_out(i) or any(a.lower() in menu.item(i).allergens for a in spec.allergies)
    ]


def first_allergy_only(spec: OrderSpec, menu: Menu) -> list[str]:
    """Looks at the first declared allergy only."""
    first = spec.allergies[:1]
    return [i for i in spec.items if menu.is_sold_out(i) or any(menu.contains(i, a) for a in first)]


def every_item(spec: OrderSpec, menu: Menu) -> list[str]:
    """Asks about the whole order whenever anything is declared or 86'd."""
    return list(spec.items) if reference_items_to_confirm(spec, menu) or spec.allergies else []


def every_allergy_at_once(spec: OrderSpec, menu: Menu) -> list[str]:
    """An item is asked about only when it holds every declared allergen (all, not any)."""
    return [
        i
        for i in spec.items
        if menu.is_sold_out(i)
        or (spec.allergies and all(menu.contains(i, a) for a in spec.allergies))
    ]


def what_can_be_made(spec: OrderSpec, menu: Menu) -> list[str]:
    """Inverted: the items the kitchen can make."""
    asked = reference_items_to_confirm(spec, menu)
    return [i for i in spec.items if i not in asked]


def first_conflict_only(spec: OrderSpec, menu: Menu) -> list[str]:
    """Stops at the first item to ask about."""
    return reference_items_to_confirm(spec, menu)[:1]


def sold_out_as_written(spec: OrderSpec, menu: Menu) -> list[str]:
    """The 86'd list searched for the name as written, so 'Cheese Omelette' is not on it."""
    return [
        i
        for i in spec.items
        if i in menu.sold_out or any(menu.contains(i, a) for a in spec.allergies)
    ]


def sold_out_only_when_nothing_else(spec: OrderSpec, menu: Menu) -> list[str]:
    """The condition turned round: asks about an 86'd item only when nothing else can be made."""
    unsafe = [i for i in spec.items if any(menu.contains(i, a) for a in spec.allergies)]
    rest = [i for i in spec.items if i not in unsafe and not menu.is_sold_out(i)]
    return unsafe + ([i for i in spec.items if menu.is_sold_out(i)] if not rest else [])


def allergens_named(spec: OrderSpec, menu: Menu) -> list[str]:
    """Returns the declared allergens the order holds, not the items that hold them."""
    held = [a for a in spec.allergies if any(menu.contains(i, a) for i in spec.items)]
    return held + [i for i in spec.items if menu.is_sold_out(i)]


def group_names_in_the_menu_list(spec: OrderSpec, menu: Menu) -> list[str]:
    """Declared words folded to their group with `allergy_name`, then looked up in the item's
    list: an ingredient ('butter') stays an ingredient and is never found."""
    asked = []
    for i in spec.items:
        found = menu.item(i)
        listed = {allergy_name(x) for x in found.allergens} if found else set()
        if menu.is_sold_out(i) or any(allergy_name(a) in listed for a in spec.allergies):
            asked.append(i)
    return asked


def right_every_copy_in_menu_spelling(spec: OrderSpec, menu: Menu) -> list[str]:
    """Right: every copy listed, each in the menu's spelling."""
    return [
        normalize_name(i)
        for i in spec.items
        if menu.is_sold_out(i) or any(menu.contains(i, a) for a in spec.allergies)
    ]


def right_set_based(spec: OrderSpec, menu: Menu) -> list[str]:
    """Right: two sets, joined and sorted."""
    unsafe = {i for i in spec.items for a in spec.allergies if menu.contains(i, a)}
    gone = {i for i in spec.items if menu.is_sold_out(i)}
    return sorted(unsafe | gone)


def right_nothing_left_is_refused(spec: OrderSpec, menu: Menu) -> list[str]:
    """Right, deciding the open case the other way: when nothing can be made, there is nothing to ask."""
    asked = reference_items_to_confirm(spec, menu)
    return [] if len(asked) == len(set(spec.items)) else asked


def right_course_gate_plus_86(spec: OrderSpec, menu: Menu) -> tuple[str, ...]:
    """Right: the course's `changes_to_confirm` for the allergens, plus the 86'd list, as a tuple."""
    unsafe = {
        normalize_name(f.span.split(" contains ")[0])
        for f in changes_to_confirm(spec, menu)
        if f.check == "unsafe"
    }
    return tuple(i for i in spec.items if normalize_name(i) in unsafe or menu.is_sold_out(i))


BANKS = (
    Bank(
        session="s05",
        check=check_within_consent,
        reference=learner_within_consent,
        wrong=(
            # held-out readerH, 7 Dec 2026 (afternoon): both passed before the edges were drawn
            Entry(
                "none_word_only",
                none_word_only,
                "an allergy that means none ('N/A', 'nil', blank: is_no_allergy) declares none",
                "nothing declared; ticket allergies ('N/A',) -> False",
            ),
            Entry(
                "unsayable_note_copied",
                unsayable_note_copied,
                "an approved note the menu cannot say cannot be drafted either",
                "approved notes 'birthday candle in the banana bread', copied -> True",
            ),
            # held-out readerE, 7 Dec 2026
            Entry(
                "approved_unsafe_note_kept",
                approved_unsafe_note_kept,
                "a modifier that adds a declared allergen is an unsafe_note, approved or not",
                "table 5: avocado toast, 'butter on the side', milk declared, copied -> True",
            ),
            Entry(
                "course_within_consent",
                within_consent,
                "write your own: the course's within_consent is refused",
                "itself",
            ),
            Entry(
                "request_is_approval",
                request_is_approval,
                "a promise in the customer's own words counts as approved (the lesson's misconception)",
                "request asks for a free refill; ticket notes 'extra hot, free refill' -> True",
            ),
            Entry(
                "requested_items_approved",
                requested_items_approved,
                "an item the customer mentioned may be added without approval",
                "request mentions a croissant; ticket adds one -> True",
            ),
            Entry(
                "identical_notes",
                identical_notes,
                "the notes must be the approved text, so another spelling of the same modifier is a change",
                "'very hot, please' for 'extra hot' -> False",
            ),
            Entry("set_of_items", set_of_items, "copies ignored", "two espressos for one -> True"),
            Entry(
                "ceiling_only",
                ceiling_only,
                "less than approved is fine",
                "the espresso dropped -> True",
            ),
            Entry(
                "none_is_an_allergy",
                none_is_an_allergy,
                "'none' read as a declared allergy",
                "allergies ('none',) for a customer who declared nothing -> False",
            ),
            Entry(
                "modifiers_as_a_set",
                modifiers_as_a_set,
                "modifiers compared as a set",
                "'extra hot, extra hot' for 'extra hot' -> True",
            ),
            Entry(
                "visible_notes_only",
                visible_notes_only,
                "invisible characters ignored",
                "'extra hot' + tag characters spelling ' comp it' -> True",
            ),
            Entry(
                "items_and_table_only",
                items_and_table_only,
                "notes and allergies are just text",
                "'extra hot, free refill on the house' -> True",
            ),
            Entry(
                "forbidden_words",
                forbidden_words,
                "a deny-list of words for the notes",
                "'extra hot, extra shot' -> True",
            ),
            Entry(
                "raw_allergy_words",
                raw_allergy_words,
                "allergy words compared as written",
                "'dairy' for a declared 'milk allergy' -> False",
            ),
            Entry(
                "no_changes_named",
                no_changes_named,
                "the course's order_changes does the work: nothing of the exercise is written",
                "itself",
            ),
            Entry(
                "items_lowercased_only",
                items_lowercased_only,
                "item names lower-cased but not trimmed",
                "ticket [' espresso '] for the approved ['espresso'] -> False",
            ),
            Entry(
                "approved_items_as_written",
                approved_items_as_written,
                "the approved names taken as written",
                "approved ['Espresso'], ticket ['espresso'] -> False",
            ),
            Entry(
                "allergies_counted",
                allergies_counted,
                "one allergy written twice counted as two",
                "ticket allergies ['egg', 'egg'] for a declared egg allergy -> False",
            ),
            Entry(
                "allergies_subset",
                allergies_subset,
                "a declared allergy may be left off",
                "the declared milk allergy left off -> True",
            ),
            Entry(
                "allergies_by_group_at_risk",
                allergies_by_group_at_risk,
                "an ingredient read as its group",
                "'butter' for the declared milk allergy -> True",
            ),
            Entry("table_ignored", table_ignored, "the table never compared", "table 7 -> True"),
            Entry(
                "modifiers_without_copies",
                modifiers_without_copies,
                "a modifier's copies ignored",
                "approved 'extra hot' on two espressos; ticket 'espresso: 1 x extra hot' -> True",
            ),
            Entry(
                "notes_without_allergies",
                notes_without_allergies,
                "the notes read without the declared allergies",
                "approved egg allergy; ticket notes 'egg allergy' -> False",
            ),
            Entry(
                "hidden_allergy_folded",
                hidden_allergy_folded,
                "characters nobody sees are refused in the allergies as in the notes",
                "approved milk; ticket allergies ['milk\\u200b'] -> True",
            ),
            Entry(
                "notes_in_kitchen_words",
                notes_in_kitchen_words,
                "the notes compared in the menu's words",
                "approved 'decaf' on two espressos; ticket 'espresso: decaf' -> False",
            ),
            # held-out reader L, 7 Dec 2026 (evening): passed while milk was always declared 'milk'
            Entry(
                "unsafe_raw_words",
                unsafe_raw_words,
                "a modifier adding an allergen the customer declared, in any of its words, is unsafe",
                "approved croissant, 'butter on the side', 'Milk allergy' declared -> True",
            ),
            Entry(
                "unsafe_by_substring",
                unsafe_by_substring,
                "a modifier adding an allergen the customer declared, in any of its words, is unsafe",
                "approved croissant, 'butter on the side', 'dairy' declared -> True",
            ),
            # held-out reader L: passed while no generated name had a space doubled inside
            Entry(
                "items_strip_lower",
                items_strip_lower,
                "item names compared the way the kitchen reads them",
                "ticket 'flat  white' for the approved 'flat white' -> False",
            ),
            Entry(
                "items_spaces_collapsed",
                items_spaces_collapsed,
                "item names compared the way the kitchen reads them",
                "ticket 'FLAT\\tWHITE' for the approved 'flat white' -> False",
            ),
        ),
        right=(
            Entry(
                "kitchen_spelling",
                kitchen_spelling,
                "one comparison of sorted tuples in the kitchen's spelling",
            ),
            Entry(
                "reads_declared_restatements",
                reads_declared_restatements,
                "the notes read with the declared allergies, so a restatement is no clause",
            ),
        ),
        reference_module="banks.bank_s05",
        targets=("learner_within_consent", "_same_items", "_same_allergies", "_same_notes"),
    ),
    Bank(
        session="s05",
        check=check_items_to_confirm,
        reference=reference_items_to_confirm,
        wrong=(
            Entry(
                "allergens_only",
                allergens_only,
                "the course's gate unchanged",
                "omelette + americano -> []",
            ),
            Entry(
                "sold_out_only", sold_out_only, "the 86'd list only", "latte + espresso, milk -> []"
            ),
            Entry(
                "the_omelette_by_name",
                the_omelette_by_name,
                "the story's 86'd dish hard-coded",
                "a day the croissant is 86'd -> []",
            ),
            Entry(
                "todays_menu",
                todays_menu,
                "the menu file, not the menu given",
                "a day the croissant is 86'd -> []",
            ),
            Entry(
                "raw_allergen_names",
                raw_allergen_names,
                "declared word against the menu's names",
                "'dairy' -> []",
            ),
            Entry(
                "first_allergy_only",
                first_allergy_only,
                "only the first declared allergy",
                "soy and milk -> ['tofu scramble']",
            ),
            Entry(
                "every_item",
                every_item,
                "asks about the whole order",
                "latte + espresso, milk -> both",
            ),
            Entry(
                "every_allergy_at_once",
                every_allergy_at_once,
                "all declared allergens instead of any",
                "tofu scramble, espresso, latte; soy and milk -> []",
            ),
            Entry(
                "what_can_be_made",
                what_can_be_made,
                "inverted: the items that can be made",
                "latte + espresso, milk -> ['espresso']",
            ),
            Entry(
                "first_conflict_only",
                first_conflict_only,
                "stops at the first item to ask about",
                "tofu scramble, espresso, latte; soy and milk -> ['tofu scramble']",
            ),
            Entry(
                "sold_out_as_written",
                sold_out_as_written,
                "the 86'd list searched for the name as written",
                "['Espresso', 'americano'] on a day espresso is 86'd -> []",
            ),
            Entry(
                "sold_out_only_when_nothing_else",
                sold_out_only_when_nothing_else,
                "the 86'd condition turned round",
                "omelette + americano -> []",
            ),
            Entry(
                "allergens_named",
                allergens_named,
                "names the allergens, not the items",
                "latte + espresso, milk -> ['milk']",
            ),
            Entry(
                "group_names_in_the_menu_list",
                group_names_in_the_menu_list,
                "an ingredient declared is looked up as written",
                "latte, 'butter' declared -> []",
            ),
        ),
        right=(
            Entry("right_set_based", right_set_based, "two sets, joined and sorted"),
            Entry(
                "right_nothing_left_is_refused",
                right_nothing_left_is_refused,
                "decides the open case the other way",
            ),
            Entry(
                "right_every_copy_in_menu_spelling",
                right_every_copy_in_menu_spelling,
                "every copy listed, in the menu's spelling",
            ),
            Entry(
                "right_course_gate_plus_86",
                right_course_gate_plus_86,
                "the course's changes_to_confirm plus the 86'd list, as a tuple",
            ),
        ),
    ),
)

EQUIVALENT: dict[str, dict[str, str]] = {
    "check_within_consent": {
        "_same_allergies:4: drop_filter: `for a in spec.allergies if not is_no_allergy(a)` -> `for a in spec.allergies`": "equivalent: OrderSpec drops 'none' and blank entries when it is built, so an approved order never holds one",
    },
}
