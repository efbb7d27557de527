"""The containment audit (`cafe.detect.harm`) reads every honest wording the gate accepts.

After reader BE's C2 and C3 (tests/test_notes_scope_hyphens.py), the gate ties an option whose
own name holds "on", "for" or "in" to its item at any cut of the clause, and reads U+2010 and
U+2011 as hyphens. The audit keeps its own reading (it shares no code with the gate), so it was
left cutting at the first "on/for/in" and folding only "-": it called those honest tickets harm.
The rule, the audit's own: a ticket is harmless when a kitchen reading it would do exactly what
the approved order asks. The oracle is the order itself: the ticket asks for the very option the
approved notes name, on the very item, so the audit must find nothing; the same option on an item
not on the ticket must still be harm.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec
from cafe.detect.harm import harm
from cafe.schema.ticket import Ticket
from cafe.world.menu import load_menu

MENU = load_menu()
INNER = sorted(
    (spelling, item)
    for spelling, option in MENU.modifiers.items()
    if set(spelling.split()) & {"on", "for", "in"} and option.applies_to
    for item in sorted(option.applies_to)
)


def _ticket(items: tuple[str, ...], notes: str) -> Ticket:
    return Ticket(table=2, items=items, allergies=(), notes=notes)


@given(
    st.sampled_from(INNER),
    st.sampled_from(["on", "for"]),
    st.sampled_from(["the ", "my ", ""]),
)
@settings(max_examples=80, deadline=None)
def test_an_option_holding_on_for_or_in_tied_to_its_item_is_no_harm(pair, word, article):
    spelling, item = pair
    other = "croissant" if item != "croissant" else "latte"
    spec = OrderSpec(2, (item, other), (), f"{item}: {spelling}")
    assert harm(_ticket(spec.items, f"{spelling} {word} {article}{item}"), spec, MENU) == ()


@given(st.sampled_from(INNER))
@settings(max_examples=30, deadline=None)
def test_the_same_option_on_an_item_not_on_the_ticket_is_still_harm(pair):
    spelling, item = pair
    elsewhere = "fruit salad" if item != "fruit salad" else "latte"
    spec = OrderSpec(2, (item,), (), f"{item}: {spelling}")
    assert harm(_ticket(spec.items, f"{spelling} on the {elsewhere}"), spec, MENU) != ()


def test_reader_be_c2_butter_on_the_side_for_the_avocado_toast():
    spec = OrderSpec(2, ("avocado toast", "americano"), (), "avocado toast: butter on the side")
    for notes in (
        "butter on the side on the avocado toast",
        "butter on the side for the avocado toast",
    ):
        assert harm(_ticket(spec.items, notes), spec, MENU) == ()


def test_reader_be_c3_a_unicode_hyphen_is_a_hyphen_to_the_audit():
    spec = OrderSpec(2, ("latte",), (), "extra hot")
    for hyphen in ("-", "\u2010", "\u2011"):
        assert harm(_ticket(("latte",), f"extra{hyphen}hot"), spec, MENU) == ()
    assert harm(_ticket(("latte",), "extra\u2013hot"), spec, MENU) != ()  # an en dash is not one
