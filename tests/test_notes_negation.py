"""cafe.consent.notes: a clause that cancels a modifier or an allergy is never read as it.

"sugar: none" is no sugar, "extra shot - nil" is no extra shot, "milk allergy - none" takes the
allergy back. Each is read as the option the menu spells for the negation ("no sugar"), or
refused so front of house asks the customer; never as the modifier it cancels, and never as a
restatement of the allergy. The clauses here are generated from the menu and the allergen data
(every spelling, every negating word, either side, any separator, case and spacing), not copied
from the notes that first got through (a held-out red team, 7 Dec 2026: "separate board - none",
"extra shot: nil", "sugar: none" read as "one sugar", "milk allergy, none").
"""

from itertools import cycle, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec, changes_to_confirm, kitchen_notes, order_changes, read_notes
from cafe.consent.negation import EMPTY_NOTES, NEGATED_FORMS, NEGATING
from cafe.consent.notes import RESTATEMENTS
from cafe.schema.ticket import Ticket
from cafe.world.allergens import ALLERGEN_GROUPS
from cafe.world.menu import ALLERGENS, load_menu

MENU = load_menu()
# Every way the menu spells an option, and an item each option applies to.
SPELLINGS = sorted(MENU.modifiers)
ANY_ITEM = "latte"
# What a person puts between a negating word and the rest.
SEPARATORS = (" - ", ": ", ", ", "_", " ", ":", " -- ", " / ", " — ", "; ", " and ", "\n", " (")
# Every declared allergy restated in every frame the notes accept as a restatement.
RESTATED = sorted(
    (group, frame.format(word))
    for group in ALLERGENS
    for word in ALLERGEN_GROUPS[group].names
    for frame in RESTATEMENTS
)


def _item_for(spelling: str) -> str:
    applies_to = MENU.modifiers[spelling].applies_to
    return ANY_ITEM if applies_to is None else sorted(applies_to)[0]


def _negated(text: str, word: str, before: bool, separator: str) -> str:
    return f"{word}{separator}{text}" if before else f"{text}{separator}{word}"


def _is_negation_option(name: str) -> bool:
    """Whether the menu spells this option as a negation ("no sugar", "without ice", "no milk")."""
    spellings = [s for s, m in MENU.modifiers.items() if m.name == name]
    return any(s.startswith(form.split("{}")[0]) for s in spellings for form in NEGATED_FORMS)


def _assert_never_read_as(note: str, spelling: str, item: str) -> None:
    cancelled = MENU.modifiers[spelling].name
    reading = read_notes(note, [item], MENU)
    read = [m.modifier.name for m in reading.modifiers]
    assert cancelled not in read, (note, read)
    assert cancelled not in kitchen_notes(reading).split(", "), note
    # What it does read as is an option the menu spells as a negation, or nothing (then asked).
    assert all(_is_negation_option(name) for name in read), (note, read)
    assert read or reading.problems, note


def test_read_notes_every_spelling_negated_either_side_is_never_that_option():
    """Exhaustive over spellings x negating words x sides; the separator rotates through
    `SEPARATORS` so every one is used with many spellings (the Hypothesis test mixes them)."""
    separators = cycle(SEPARATORS)
    for spelling, word, before in product(SPELLINGS, NEGATING, (True, False)):
        note = _negated(spelling, word, before, next(separators))
        _assert_never_read_as(note, spelling, _item_for(spelling))


@given(
    spelling=st.sampled_from(SPELLINGS),
    word=st.sampled_from(NEGATING),
    before=st.booleans(),
    separator=st.sampled_from(SEPARATORS),
    case=st.sampled_from([str.lower, str.upper, str.title, str.swapcase]),
    padding=st.sampled_from(["", " ", "  ", "\t"]),
    scoped=st.booleans(),
    courtesy=st.sampled_from(["", " please", ", thanks", "!"]),
)
@settings(max_examples=400, deadline=None, derandomize=True)
def test_read_notes_a_negated_option_in_any_case_and_spacing_is_never_that_option(
    spelling, word, before, separator, case, padding, scoped, courtesy
):
    item = _item_for(spelling)
    clause = case(_negated(spelling, word, before, padding + separator + padding))
    note = f"{padding}{item}: {clause}{courtesy}" if scoped else f"{clause}{courtesy}{padding}"
    _assert_never_read_as(note, spelling, item)


@pytest.mark.parametrize(("group", "restated"), RESTATED)
def test_read_notes_a_negated_restatement_is_never_a_restatement(group, restated):
    """Every restatement, with every negating word on either side, is asked about: the reading
    holds a problem and no modifier, so it never passes as the allergy said again."""
    separators = cycle(SEPARATORS)
    for word, before in product(NEGATING, (True, False)):
        note = _negated(restated, word, before, next(separators))
        reading = read_notes(note, ["americano"], MENU, [group])
        assert reading.problems and not reading.modifiers, note
    assert read_notes(restated, ["americano"], MENU, [group]).clean  # the control


@given(
    restated=st.sampled_from(RESTATED),
    word=st.sampled_from(NEGATING),
    before=st.booleans(),
    separator=st.sampled_from(SEPARATORS),
    case=st.sampled_from([str.lower, str.upper, str.title]),
    neighbour=st.sampled_from(["", "to go, ", "extra hot and "]),
)
@settings(max_examples=200, deadline=None, derandomize=True)
def test_read_notes_a_negated_restatement_beside_other_clauses_is_asked_about(
    restated, word, before, separator, case, neighbour
):
    group, text = restated
    note = neighbour + case(_negated(text, word, before, separator))
    reading = read_notes(note, ["latte"], MENU, [group])
    assert reading.problems, note
    assert all(not m.modifier.allergens for m in reading.modifiers), note


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_read_notes_none_is_never_read_as_one(spelling):
    """ "none" holds "one": glued or spaced to a spelling it is never a count of one copy, and
    never the option ("sugar: none" was read as "one sugar": "none" was dropped as courtesy,
    and "sugar" is the menu's own spelling of "one sugar"; no number reading was involved)."""
    item = _item_for(spelling)
    for note in (f"none {spelling}", f"none x {spelling}", f"{spelling} none", f"none{spelling}"):
        reading = read_notes(note, [item, item], MENU)
        assert MENU.modifiers[spelling].name not in [m.modifier.name for m in reading.modifiers]
        assert not any(m.counted and m.copies == 1 for m in reading.modifiers), note


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_read_notes_every_spelling_still_reads_as_its_option(spelling):
    """The negation reading is tried only on a clause that is no menu spelling as it stands, so
    the menu's own negative options ("no foam", "not too hot", "without ice") keep their reading."""
    item, name = _item_for(spelling), MENU.modifiers[spelling].name
    for note in (spelling, f"{spelling} please", f"{spelling.upper()}, thanks"):
        assert [m.modifier.name for m in read_notes(note, [item], MENU).modifiers] == [name]
    counted = read_notes(f"{spelling} x2", [item, item], MENU).modifiers
    assert [(m.modifier.name, m.copies) for m in counted] in ([(name, 2)], []), spelling


@pytest.mark.parametrize(
    ("note", "items", "want"),
    [
        ("sugar: none", ["americano"], "no sugar"),
        ("Sugar:None", ["americano"], "no sugar"),
        ("one sugar - n/a", ["americano"], "no sugar"),
        ("zero sugar", ["latte"], "no sugar"),
        ("ice: none", ["latte"], "no ice"),
        ("hold the onions", ["avocado toast"], "no onions"),
        ("milk: none", ["americano"], "black"),
        ("latte: foam - nil", ["latte", "americano"], "latte: no foam"),
    ],
)
def test_read_notes_a_negation_the_menu_spells_reads_as_that_option(note, items, want):
    assert kitchen_notes(read_notes(note, items, MENU)) == want


@pytest.mark.parametrize("empty", sorted(EMPTY_NOTES))
def test_read_notes_none_alone_is_no_notes_and_beside_a_clause_is_asked_about(empty):
    assert read_notes(empty, ["latte"], MENU).clean
    assert read_notes(f"{empty.upper()}, thanks", ["latte"], MENU).clean
    beside = read_notes(f"extra shot, {empty}", ["latte"], MENU)
    assert beside.modifiers == () and len(beside.problems) == 2


@pytest.mark.parametrize(
    ("approved", "items", "drafted"),
    [
        ("sugar: none", ["americano"], "one sugar"),
        ("vanilla: n/a", ["latte"], "vanilla syrup"),
        ("whipped cream: none", ["hot chocolate"], "whipped cream"),
        ("extra shot - nil", ["flat white"], "extra shot"),
        ("cinnamon: none", ["cappuccino"], "cinnamon on top"),
    ],
)
def test_changes_a_negated_approved_note_never_lets_the_option_through(approved, items, drafted):
    """A ticket adding the option the approved note cancels is a change; and the approved note
    is either read as the menu's negation ("no sugar") or asked about before any draft."""
    spec = OrderSpec(table=15, items=items, notes=approved)
    ticket = Ticket(table=15, items=tuple(items), allergies=(), notes=drafted)
    assert order_changes(ticket, spec, MENU)
    asked = changes_to_confirm(spec, MENU)
    assert asked or kitchen_notes(read_notes(approved, items, MENU)) == "no sugar", asked


@pytest.mark.parametrize(
    ("allergies", "approved", "items", "drafted"),
    [
        (["nuts"], "separate board", ["avocado toast"], "separate board - none"),
        (["nuts"], "clean equipment", ["avocado toast"], "clean equipment: n/a"),
        (["nuts"], "separate board", ["croissant"], "n/a separate board"),
        ([], "extra shot", ["latte"], "extra shot: nil"),
        (["milk"], "", ["americano"], "Milk allergy - none"),
        (["milk"], "", ["americano"], "dairy free - n/a"),
        (["nuts"], "", ["fruit salad"], "allergic to nuts_nil"),
        (["milk"], "", ["americano"], "milk allergy, none"),
    ],
)
def test_order_changes_a_ticket_cancelling_an_approved_note_or_allergy_is_a_change(
    allergies, approved, items, drafted
):
    spec = OrderSpec(table=14, items=items, allergies=allergies, notes=approved)
    ticket = Ticket(table=14, items=tuple(items), allergies=tuple(allergies), notes=drafted)
    assert order_changes(ticket, spec, MENU)
