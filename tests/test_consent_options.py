"""cafe.consent.notes: every option name and alias the menu lists is read as that option.

The principle: a note that is one of the menu's own spellings of an option, alone or in a list
with others, is read as that option, never asked about and never refused as unknown. The notes
here are generated from the menu file itself (`cafe/data/menu.json`, read as JSON, not through
the reader under test), so an option added to the menu is covered the day it is added. The red
team's #86 found the spellings that start with a number word ("two sugars", "one shot"): a
count was taken off the front, and "sugars" is no option. The rule that decides between the two
readings is tested here too: the clause as it stands first, then a count.
"""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec, changes_to_confirm, kitchen_notes, read_notes, within_consent
from cafe.schema.ticket import Ticket
from cafe.world.menu import load_menu
from cafe.world.spelling import spelling_key

MENU = load_menu()
_DATA = json.loads((Path(__file__).resolve().parents[1] / "cafe/data/menu.json").read_text())
# Every (spelling as the menu file writes it, the option's name), from the file's own entries.
WRITTEN = sorted(
    (spelling, name)
    for group, entry in _DATA["modifiers"].items()
    if not group.startswith("_")
    for name, option in entry["options"].items()
    for spelling in (name, *option.get("aliases", ()))
)
# The words a count may be written in ("2 x decaf", "two decaf").
_NUMBER_WORDS = {1: "one", 2: "two", 3: "three"}
# What people put between the clauses of a list.
_SEPARATORS = (", ", "; ", " and ", "\n", " & ", " + ", ",", " ; ")


def _option(spelling: str):
    return MENU.modifiers[spelling_key(spelling)]


def _item_for(spelling: str) -> str:
    applies_to = _option(spelling).applies_to
    return "latte" if applies_to is None else sorted(applies_to)[0]


def _starts_with_a_count(spelling: str) -> bool:
    first = spelling.split()[0].lower()
    return first.isdigit() or first in _NUMBER_WORDS.values()


def test_menu_data_has_option_names_that_start_with_a_count():
    """The guard that keeps the next tests from passing on nothing: the menu file holds
    spellings that start with a number (the ones #86 found), and each names a kitchen option."""
    led = [spelling for spelling, _ in WRITTEN if _starts_with_a_count(spelling)]
    assert led
    assert all(spelling_key(spelling) in MENU.modifiers for spelling in led)


@pytest.mark.parametrize(("spelling", "name"), WRITTEN)
def test_read_notes_every_option_name_and_alias_alone_reads_as_that_option(spelling, name):
    """On one copy and on two, as written, in capitals and with courtesy: one modifier, the
    option the menu file lists the spelling under, on every copy, with no count read."""
    item = _item_for(spelling)
    for note in (spelling, spelling.upper(), f"{spelling}, thanks"):
        for items in ([item], [item, item]):
            reading = read_notes(note, items, MENU)
            assert reading.clean, (note, reading.problems)
            assert [(m.modifier.name, m.copies, m.counted) for m in reading.modifiers] == [
                (spelling_key(name), len(items), False)
            ], note


@given(data=st.data())
@settings(max_examples=300, deadline=None, derandomize=True)
def test_read_notes_option_names_in_a_list_read_as_each_option(data):
    """A list of spellings of different options that fit one item, joined as people join them:
    each clause reads as its option, and nothing is asked about."""
    spelling, _ = data.draw(st.sampled_from(WRITTEN))
    item = _item_for(spelling)
    fits = [(s, n) for s, n in WRITTEN if _option(s).applies(item)]
    chosen = data.draw(
        st.lists(st.sampled_from(fits), min_size=1, max_size=4, unique_by=lambda sn: sn[1])
    )
    separators = data.draw(st.lists(st.sampled_from(_SEPARATORS), min_size=3, max_size=3))
    note = chosen[0][0] + "".join(sep + s for sep, (s, _) in zip(separators, chosen[1:]))
    reading = read_notes(note, [item], MENU)
    assert reading.clean, (note, reading.problems)
    assert sorted(m.modifier.name for m in reading.modifiers) == sorted(
        spelling_key(n) for _, n in chosen
    ), note


@pytest.mark.parametrize(("spelling", "name"), WRITTEN)
def test_read_notes_a_count_before_or_after_an_option_name_is_still_a_count(spelling, name):
    """ "2 x extra shot", "two extra shot", "extra shot x2" on three copies: two copies. A count
    written in front of a name that is itself a spelling ("one" + "sugar" is "one sugar") is
    that spelling instead, by the rule, so it is left out here and tested below."""
    item = _item_for(spelling)
    for copies, word in _NUMBER_WORDS.items():
        for note in (f"{copies} x {spelling}", f"{word} {spelling}", f"{spelling} x{copies}"):
            if spelling_key(note) in MENU.modifiers:
                continue
            reading = read_notes(note, [item] * 3, MENU)
            assert reading.clean, (note, reading.problems)
            read = [(m.modifier.name, m.copies, m.counted) for m in reading.modifiers]
            assert read == [(spelling_key(name), copies, True)], note


def test_read_notes_the_whole_option_name_wins_before_a_count():
    """The docstring's rule, on its worked examples: "two sugars" is the menu's option on every
    copy; "two extra shot" is two copies of the extra shot ("extra shot" is a spelling and "two
    extra shot" is not); "one sugar" is the option, not one copy of "sugar"."""
    lattes = ["latte"] * 3
    assert kitchen_notes(read_notes("two sugars", lattes, MENU)) == "two sugars"
    assert kitchen_notes(read_notes("two extra shot", lattes, MENU)) == "2 x extra shot"
    assert kitchen_notes(read_notes("2 x two sugars", lattes, MENU)) == "2 x two sugars"
    assert kitchen_notes(read_notes("one sugar", lattes, MENU)) == "one sugar"
    assert kitchen_notes(read_notes("latte: one shot", ["latte", "croissant"], MENU)) == (
        "latte: single shot"
    )


@pytest.mark.parametrize(
    ("note", "items", "want"),
    [
        ("warm please", ["croissant"], "warmed"),
        ("warm please", ["latte"], "warm"),
        ("croissant: warm please", ["croissant", "latte"], "croissant: warmed"),
    ],
)
def test_read_notes_the_first_reading_that_fits_the_ticket_wins(note, items, want):
    """ "warm please" is the menu's spelling of the bakery's "warmed"; on a latte, which cannot
    be warmed, the reading with "please" taken off ("warm") is the one that fits."""
    assert kitchen_notes(read_notes(note, items, MENU)) == want


@given(data=st.data())
@settings(max_examples=150, deadline=None, derandomize=True)
def test_gate_approved_option_in_another_of_its_spellings_is_within_consent(data):
    """An approved option drafted in another spelling of the same option passes the gate, and
    front of house has nothing to ask; the same draft for an option nobody approved does not."""
    spelling, name = data.draw(st.sampled_from(WRITTEN))
    other = data.draw(st.sampled_from([s for s, n in WRITTEN if n == name]))
    item = _item_for(spelling)
    spec = OrderSpec(table=8, items=[item, item], notes=spelling)
    assert changes_to_confirm(spec, MENU) == ()
    ticket = Ticket(table=8, items=(item, item), allergies=(), notes=other)
    assert within_consent(ticket, spec, MENU), (spelling, other)
    unapproved = OrderSpec(table=8, items=[item, item], notes="")
    assert not within_consent(ticket, unapproved, MENU), other
