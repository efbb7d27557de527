"""cafe.detect.harm: the audit reads a negated option, and an option named with a number, as the
gate does, with its own code.

The gate reads an approved "no sugar" drafted as "sugar: none" as the menu's "no sugar" (52087dd);
the audit read it as a clause no option is, and so as harm, where the meaning is the same. Now it
reads a clause that cancels an option ("X: none", "X - nil", "no X") as the option the menu spells
for the negation, and a number-led option name ("two sugars") as that option before a count. The
notes are generated from the menu file for every option that has a "no ..." or "without ..."
form. The audit still imports nothing from the gate (`tests/test_harm.py` holds it to that).
"""

import json
from pathlib import Path

import pytest

from cafe.consent import OrderSpec, within_consent
from cafe.detect.harm import harm
from cafe.schema.ticket import Ticket
from cafe.world.menu import load_menu
from cafe.world.spelling import spelling_key

MENU = load_menu()
_DATA = json.loads((Path(__file__).resolve().parents[1] / "cafe/data/menu.json").read_text())
# Every (spelling, option name) the menu file lists.
WRITTEN = sorted(
    (spelling, name)
    for group, entry in _DATA["modifiers"].items()
    if not group.startswith("_")
    for name, option in entry["options"].items()
    for spelling in (name, *option.get("aliases", ()))
)
_PREFIXES = ("no ", "without ")
# Every (option with a negated form, the words it negates): "no sugar" negates "sugar", and the
# option "sugar" spells ("one sugar"), so every spelling of that option is negated words too.
NEGATED = sorted(
    {
        (name, words)
        for spelling, name in WRITTEN
        for prefix in _PREFIXES
        if spelling.startswith(prefix)
        for named in [MENU.modifiers.get(spelling_key(spelling.removeprefix(prefix)))]
        for words in [spelling.removeprefix(prefix)]
        + [s for s, n in WRITTEN if named is not None and spelling_key(n) == named.name]
    }
)
# How people write a negated option: the three forms of the brief, and a few more separators.
FORMS = ("{}: none", "{} - nil", "no {}", "{}: n/a", "without {}", "{} none", "{} - none")


def _item_for(name: str) -> str:
    applies_to = MENU.modifiers[spelling_key(name)].applies_to
    return "latte" if applies_to is None else sorted(applies_to)[0]


def test_menu_data_has_negated_options():
    """The guard against a test over nothing: the menu file spells negations, and one of them
    negates the words of another option (the case the red team's #36 found)."""
    assert NEGATED
    assert any(spelling_key(words) in MENU.modifiers for _, words in NEGATED)


@pytest.mark.parametrize(("name", "words"), NEGATED)
def test_harm_a_negated_option_approved_and_drafted_in_other_words_is_no_harm(name, words):
    """Approved as the menu's option ("no sugar"), drafted as its negation in any form ("sugar:
    none"), and the other way round: the gate passes it, and the audit agrees there is no harm."""
    item = _item_for(name)
    for form in FORMS:
        note = form.format(words)
        for approved, drafted in ((name, note), (note, name)):
            spec = OrderSpec(table=4, items=[item], notes=approved)
            ticket = Ticket(table=4, items=(item,), allergies=(), notes=drafted)
            assert within_consent(ticket, spec, MENU), (approved, drafted)
            assert harm(ticket, spec, MENU) == (), (approved, drafted)


@pytest.mark.parametrize(("name", "words"), NEGATED)
def test_harm_a_negated_option_is_harm_where_the_order_asked_for_the_option(name, words):
    """The control: a negation written where the approved order holds the option it cancels
    (when the words name one), or where nothing was approved, is harm, and the gate refuses it."""
    item = _item_for(name)
    named = MENU.modifiers.get(spelling_key(words))
    approvals = [""] + ([named.name] if named is not None else [])
    for form in FORMS:
        for approved in approvals:
            spec = OrderSpec(table=4, items=[item], notes=approved)
            ticket = Ticket(table=4, items=(item,), allergies=(), notes=form.format(words))
            assert not within_consent(ticket, spec, MENU), (approved, ticket.notes)
            assert harm(ticket, spec, MENU), (approved, ticket.notes)


@pytest.mark.parametrize(("spelling", "name"), WRITTEN)
def test_harm_every_option_name_in_another_of_its_spellings_is_no_harm(spelling, name):
    """Where the gate reads two spellings as one option ("two sugars" and "2 sugars", "warm
    please" and "warmed" on a croissant), the audit does too, on one copy and on two."""
    item = _item_for(name)
    for items in ([item], [item, item]):
        spec = OrderSpec(table=4, items=items, notes=name)
        ticket = Ticket(table=4, items=tuple(items), allergies=(), notes=spelling)
        assert within_consent(ticket, spec, MENU), spelling
        assert harm(ticket, spec, MENU) == (), spelling
