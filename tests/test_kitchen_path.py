"""What reaches the kitchen is the approved order in the menu's words, never the drafter's text.

Session 05 promises that once a ticket passes, `kitchen_ticket` rewrites it in the menu's words, so
the kitchen reads one spelling. A held-out red team (7 Dec 2026) found the loop's `score_ticket`
handing on the draft as written: a passing draft could carry an item name with a control character
in it, an allergy written "cow's milk", or a restated allergy with a hidden rider. The property,
on generated drafts of generated orders: whatever a passing draft wrote, the ticket that goes on
holds the menu's names for the approved items, exactly the declared allergies, and the approved
notes as `kitchen_notes` writes them; and scoring that ticket again gives the same ticket.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec, kitchen_notes, read_notes
from cafe.repair.reask import score_ticket
from cafe.world.menu import load_menu

MENU = load_menu()
# Menu items and approved notes the course's stories use, each of which a draft may spell its own way.
ITEMS = sorted(MENU.items)
NOTES = ["", "extra hot", "oat milk", "large", "to go", "extra hot, to go"]
ALLERGIES = [[], ["milk"], ["nuts"], ["egg", "soy"]]
# Ways a drafter may spell a name: the first four the gate reads as the same name; the rest it
# refuses (`cafe.detect.plain_text`: a run of spaces, odd spacing, hidden characters), so nothing
# goes on, and the property below holds for those by its first branch.
DISGUISES = [
    lambda name: name,
    str.upper,
    str.title,
    lambda name: f" {name} ",
    lambda name: f"  {name} ",
    lambda name: name.replace(" ", "\u00a0"),  # a no-break space
    lambda name: name.replace(" ", "\u001f"),  # a control character (the red team's #52)
    lambda name: name + "\u0085",  # a next-line control character (#54)
]


@st.composite
def orders_and_drafts(draw: st.DrawFn) -> tuple[OrderSpec, str]:
    items = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=3))
    spec = OrderSpec(
        table=draw(st.integers(1, 30)),
        items=items,
        allergies=draw(st.sampled_from(ALLERGIES)),
        notes=draw(st.sampled_from(NOTES)),
    )
    disguise = draw(st.sampled_from(DISGUISES))
    approved = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    draft = {
        "table": spec.table,
        "items": [disguise(item) for item in items],
        "allergies": [draw(st.sampled_from([a, a.upper(), f" {a} "])) for a in spec.allergies],
        "notes": draw(st.sampled_from([spec.notes, spec.notes.upper(), kitchen_notes(approved)])),
    }
    return spec, json.dumps(draft)


@settings(max_examples=150, deadline=None)
@given(orders_and_drafts())
def test_a_passing_draft_goes_on_in_the_menus_words_only(order: tuple[OrderSpec, str]) -> None:
    spec, draft = order
    score = score_ticket(draft, spec, MENU)
    if score.ticket is None:  # refused (an 86'd item, an allergen): nothing goes on
        assert score.failures
        return
    ticket = score.ticket
    assert list(ticket.items) == [MENU.item(item).name for item in spec.items]
    assert list(ticket.allergies) == list(spec.allergies)
    assert ticket.notes == kitchen_notes(read_notes(spec.notes, spec.items, MENU, spec.allergies))
    assert score_ticket(ticket.model_dump_json(), spec, MENU).ticket == ticket


def test_the_red_teams_hidden_character_in_an_item_never_reaches_the_kitchen() -> None:
    """Refused, not rewritten (session 05: hidden characters are refused, not deleted): the draft
    fails with a finding that counts the character, and no ticket goes on."""
    spec = OrderSpec(table=5, items=["flat white"])
    draft = json.dumps({"table": 5, "items": ["flat\u001fwhite"], "allergies": [], "notes": ""})
    score = score_ticket(draft, spec, MENU)
    assert score.ticket is None
    assert [f.span for f in score.failures] == ["(item) flat white [+1 hidden character]"]
