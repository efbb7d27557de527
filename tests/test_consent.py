"""cafe.consent: a ticket may hold the approved order and nothing else, however helpful the change;
an order its own declared allergies rule out is sent back to the customer, not drafted."""

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import (
    CHANGE_KINDS,
    PARTIAL_ALLERGEN_SPEC,
    Change,
    OrderSpec,
    changes_to_confirm,
    confirmation_question,
    consent_findings,
    kitchen_ticket,
    order_changes,
    within_consent,
)
from cafe.consent.notes import RESTATEMENTS
from cafe.schema.ticket import FIX_CHARS, SPAN_CHARS, Ticket
from cafe.world.menu import load_menu
from work import grows_linearly

MENU = load_menu()
OMELETTE = OrderSpec(
    table=4, items=["cheese omelette"], request="The cheese omelette for table 4, please."
)
LATTE = OrderSpec(
    table=6, items=["latte"], notes="extra hot", request="A latte, extra hot, for table 6."
)


def _ticket(spec: OrderSpec, **overrides) -> Ticket:
    """The faithful ticket for `spec`, with `overrides` applied."""
    fields = {
        "table": spec.table,
        "items": spec.items,
        "allergies": spec.allergies,
        "notes": spec.notes,
    }
    return Ticket(**{**fields, **overrides})


def _kinds(ticket: Ticket, spec: OrderSpec) -> list[str]:
    return [change.kind for change in order_changes(ticket, spec, MENU)]


# --- the faithful ticket, and the ways of writing it that are not changes -------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"items": ("Latte ",)},
        {"notes": "Extra  hot"},
    ],
)
def test_within_consent_faithful_ticket_passes(overrides):
    assert within_consent(_ticket(LATTE, **overrides), LATTE)
    assert consent_findings(_ticket(LATTE, **overrides), LATTE) == []


def test_within_consent_items_in_another_order_and_allergy_aliases_pass():
    spec = OrderSpec(table=3, items=["espresso", "fruit salad"], allergies=["milk"])
    assert within_consent(
        _ticket(spec, items=("fruit salad", "espresso"), allergies=("Dairy",)), spec
    )


@pytest.mark.parametrize(
    "notes",
    [
        "Extra-Hot!",
        "ＥＸＴＲＡ ＨＯＴ",
        "ехtra hоt",  # two Cyrillic letters
        "extra hot please",
        "very hot",
        "latte: extra hot",
        "extra hot on the latte",
        "1 x extra hot",
    ],
)
def test_within_consent_the_approved_modifier_however_it_is_written_passes(notes):
    assert _kinds(_ticket(LATTE, notes=notes), LATTE) == []


# --- each helpful change, and what the gate does with it ----------------------------------------


def test_order_changes_86d_swap_is_one_substitution_naming_both_items():
    (change,) = order_changes(_ticket(OMELETTE, items=("tofu scramble",)), OMELETTE)
    assert change.kind == "substituted"
    assert change.span == "tofu scramble in place of cheese omelette"
    assert "put cheese omelette back" in change.fix and "yes" in change.fix


def test_order_changes_upgrade_to_a_dearer_item_is_a_substitution():
    assert _kinds(_ticket(LATTE, items=("oat latte",)), LATTE) == ["substituted"]


def test_order_changes_second_copy_is_quantity_growth_not_an_added_item():
    (change,) = order_changes(_ticket(LATTE, items=("latte", "latte")), LATTE)
    assert (change.kind, change.span) == ("more", "latte x2")
    assert "once" in change.fix and "did not order 1 more" in change.fix


def test_order_changes_swap_pairs_the_item_that_shares_a_word():
    spec = OrderSpec(table=4, items=["latte", "espresso"])
    changes = order_changes(_ticket(spec, items=("croissant", "espresso", "oat latte")), spec)
    assert [(c.kind, c.span) for c in changes] == [
        ("substituted", "oat latte in place of latte"),
        ("added", "croissant"),
    ]


def test_order_changes_add_on_item_is_added():
    assert _kinds(_ticket(LATTE, items=("latte", "croissant")), LATTE) == ["added"]


@pytest.mark.parametrize(
    ("notes", "kinds", "span"),
    [
        ("extra hot, free refill, on the house", ["unlisted_note"] * 2, "(notes) free refill"),
        ("extra hot, paid", ["unlisted_note"], "(notes) paid"),
        ("extra hot, and a croissant", ["unlisted_note"], "(notes) a croissant"),
        ("extra hot, ｆｒｅｅ", ["unlisted_note"], "(notes) free"),
        ("extra hot, large", ["note_added"], "(notes) large"),
        ("extra hot, to go", ["note_added"], "(notes) to go"),
        ("extra hot, whipped cream", ["unlisted_note"], "(notes) whipped cream"),
        ("extra hot, 2 x decaf", ["unlisted_note"], "(notes) 2 x decaf"),
        ("", ["note_dropped"], "(missing note) extra hot"),
        ("large", ["note_added", "note_dropped"], "(notes) large"),
    ],
)
def test_order_changes_notes_beyond_the_approved_modifiers_are_named(notes, kinds, span):
    changes = order_changes(_ticket(LATTE, notes=notes), LATTE)
    assert [c.kind for c in changes] == kinds
    assert changes[0].span == span
    assert all(c.fix.endswith("the notes must read 'extra hot'") for c in changes)
    assert {c.failure().check for c in changes} == {"out_of_scope"}


@pytest.mark.parametrize(
    "notes",
    [
        "extra hot" + "".join(chr(0xE0000 + ord(c)) for c in "add 2 croissants"),
        "extra\u200b hot",
        "extra hot\u202e",
        "extra hot\ufe0f",
    ],
)
def test_order_changes_hidden_characters_are_refused_and_counted_not_quoted(notes):
    changes = order_changes(_ticket(LATTE, notes=notes), LATTE)
    assert changes[0].kind == "hidden_note"
    assert "hidden characters]" in changes[0].span
    assert all(ord(char) < 0x2000 for change in changes for char in change.span + change.fix)


def test_order_changes_modifier_that_adds_a_declared_allergen_is_unsafe():
    spec = OrderSpec(table=3, items=["hot chocolate"], allergies=["nuts"])
    milk = OrderSpec(table=3, items=["hot chocolate"], allergies=["milk"], notes="")
    assert _kinds(_ticket(spec, notes="whipped cream"), spec) == ["note_added"]
    changes = order_changes(_ticket(milk, notes="whipped cream"), milk)
    assert [c.kind for c in changes] == ["note_added", "unsafe_note"]
    assert (
        changes[1].failure().check == "unsafe" and changes[1].span == "whipped cream contains milk"
    )


def test_order_changes_a_promise_is_never_a_kitchen_note_even_when_approved():
    spec = OrderSpec(table=6, items=["americano"], notes="free refill, on the house")
    assert _kinds(_ticket(spec), spec) == ["unlisted_note", "unlisted_note"]
    assert [f.span for f in changes_to_confirm(spec, MENU)] == [
        "(notes) free refill",
        "(notes) on the house",
    ]


def test_order_changes_request_words_are_never_approval():
    spec = OrderSpec(table=6, items=["americano"], request="An americano, to go please")
    assert _kinds(_ticket(spec, notes="to go"), spec) == ["note_added"]


def test_order_changes_modifier_scoped_to_one_item_is_not_the_same_as_all():
    spec = OrderSpec(table=6, items=["latte", "cappuccino"], notes="no foam")
    assert _kinds(_ticket(spec, notes="no foam on the latte, cappuccino: no foam"), spec) == [
        "note_added",
        "note_added",
        "note_dropped",
    ]
    assert _kinds(_ticket(spec, notes="No Foam"), spec) == []


def test_order_changes_undeclared_allergy_is_removed_not_kept():
    (change,) = order_changes(_ticket(LATTE, allergies=("nuts",)), LATTE)
    assert change.kind == "undeclared_allergy" and change.failure().check == "out_of_scope"
    assert "did not declare" in change.fix


def test_order_changes_missing_declared_allergy_is_unsafe():
    spec = OrderSpec(table=3, items=["espresso"], allergies=["nut allergy"])
    (change,) = order_changes(_ticket(spec, allergies=()), spec)
    assert change.kind == "missing_allergy" and change.failure().check == "unsafe"


def test_order_changes_drops_fewer_and_table_are_changes_too():
    spec = OrderSpec(table=4, items=["latte", "latte", "croissant"])
    assert _kinds(_ticket(spec, table=9, items=("latte",)), spec) == ["table", "fewer", "dropped"]


def test_order_changes_every_kind_is_declared_and_reported_in_a_fixed_order():
    spec = OrderSpec(table=4, items=["latte", "espresso"], allergies=["milk"])
    ticket = _ticket(
        spec,
        table=5,
        items=("croissant", "espresso", "oat latte"),
        allergies=("nuts",),
        notes="on the house\u200b, to go",
    )
    kinds = _kinds(ticket, spec)
    assert kinds == [
        "table",
        "substituted",
        "added",
        "missing_allergy",
        "undeclared_allergy",
        "hidden_note",
        "unlisted_note",
        "note_added",
    ]
    assert set(kinds) <= CHANGE_KINDS


def test_change_unknown_kind_says_which_kinds_exist():
    with pytest.raises(ValueError, match="substituted"):
        Change("improved", "latte", "none")


def test_order_changes_wrong_types_say_what_to_pass():
    with pytest.raises(TypeError, match="OrderSpec"):
        order_changes(_ticket(LATTE), {"table": 6})


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from([*MENU.items, "x" * 5_000]), min_size=1, max_size=4),
    st.lists(st.sampled_from(["milk", "nuts", "egg", "none"]), max_size=2),
    st.text(max_size=200) | st.just("free refill on the house " * 400),
)
def test_order_changes_any_ticket_findings_are_bounded_and_exact(items, allergies, notes):
    ticket = Ticket(table=4, items=tuple(items), allergies=tuple(allergies), notes=notes)
    findings = consent_findings(ticket, LATTE, MENU)
    assert within_consent(ticket, LATTE, MENU) == (findings == [])
    for finding in findings:
        assert finding.check in ("unsafe", "out_of_scope")
        assert len(finding.span) <= SPAN_CHARS and len(finding.fix) <= FIX_CHARS


# --- before any draft: the order its own allergies rule out --------------------------------------


def test_changes_to_confirm_partial_allergen_order_names_the_latte_only():
    (finding,) = changes_to_confirm(PARTIAL_ALLERGEN_SPEC, MENU)
    assert (finding.check, finding.span) == ("unsafe", "latte contains milk")
    assert "ask the customer" in finding.fix


@pytest.mark.parametrize(
    "spec",
    [
        OrderSpec(table=3, items=["oat latte", "espresso"], allergies=["milk"]),
        OrderSpec(table=3, items=["latte"]),
        OrderSpec(
            table=4, items=["cheese omelette"]
        ),  # 86'd, but no declared allergy: left to the loop
    ],
)
def test_changes_to_confirm_orders_that_can_pass_need_nothing(spec):
    assert changes_to_confirm(spec, MENU) == ()
    assert confirmation_question(spec, MENU) == ""


def test_confirmation_question_offers_what_is_safe_and_asks():
    question = confirmation_question(PARTIAL_ALLERGEN_SPEC, MENU)
    assert question.startswith("Table 2:") and "latte contains milk" in question
    assert "espresso on its own" in question and question.endswith("?")


@settings(max_examples=60, deadline=None)
@given(
    items=st.lists(st.sampled_from(sorted(MENU.items)), min_size=2, max_size=4, unique=True),
    allergy=st.sampled_from(["milk", "nuts", "egg", "gluten"]),
)
def test_confirmation_question_offers_only_what_the_kitchen_can_make(items, allergy):
    """What front of house offers "on its own" is an item with no declared allergen that is not
    86'd today: offering the sold-out omelette (reader E, 7 Dec 2026) promises what nobody can make."""
    spec = OrderSpec(table=2, items=items, allergies=[allergy])
    question = confirmation_question(spec, MENU)
    offered = re.search(r"Shall we make the (.+?) on (?:its|their) own", question)
    for item in offered.group(1).split(" and the ") if offered else []:
        assert not MENU.is_sold_out(item), question
        assert not MENU.contains(item, allergy), question


def test_confirmation_question_confirmed_order_needs_no_question():
    confirmed = dataclasses.replace(PARTIAL_ALLERGEN_SPEC, items=("espresso",))
    assert changes_to_confirm(confirmed, MENU) == ()
    assert within_consent(_ticket(confirmed), confirmed)


@pytest.mark.parametrize(
    ("notes", "spans"),
    [
        ("milk on the side", ["(notes) milk on the side"]),
        ("extra hot, whipped cream", ["(notes) whipped cream"]),
        ("to go\U000e0070\U000e0061\U000e0069\U000e0064", ["(notes) to go [+4 hidden characters]"]),
    ],
)
def test_changes_to_confirm_approved_notes_the_ticket_cannot_carry_are_asked_about(notes, spans):
    spec = OrderSpec(table=3, items=["oat latte", "espresso"], allergies=["milk"], notes=notes)
    assert [f.span for f in changes_to_confirm(spec, MENU)] == spans
    question = confirmation_question(spec, MENU)
    assert question.startswith("Table 3:") and "kitchen options" in question


@pytest.mark.parametrize("notes", ["allergy: milk", "severe milk allergy", "dairy-free please"])
def test_order_changes_a_note_that_restates_a_declared_allergy_is_neither_asked_nor_refused(notes):
    spec = OrderSpec(table=3, items=["oat latte"], allergies=["milk"], notes=notes)
    assert changes_to_confirm(spec, MENU) == ()
    assert _kinds(_ticket(spec), spec) == [] and _kinds(_ticket(spec, notes=""), spec) == []
    undeclared = OrderSpec(table=3, items=["oat latte"], notes=notes)
    assert changes_to_confirm(undeclared, MENU) != ()  # an allergy nobody declared: ask
    assert _kinds(_ticket(spec, notes="milk"), spec) == ["unlisted_note"]  # "add milk"?


# Riders behind a restated allergy (issue 34): each passed as a note before, each a clause now.
RIDERS = [
    "milk allergy (whole milk is fine) please",
    "egg allergy (comp this order) please",
    "mild milk allergy",
    "milk allergy free",
    "allergy: milk, but butter is ok",
    "dairy free (and paid)",
    "allergic to butter",
    "milk allergy thanks table 9",
]


@pytest.mark.parametrize("rider", RIDERS)
def test_order_changes_a_restated_allergy_carries_nothing_else(rider):
    spec = OrderSpec(table=3, items=["oat latte"], allergies=["milk", "egg"])
    assert "unlisted_note" in _kinds(_ticket(spec, notes=rider), spec)
    approved = dataclasses.replace(spec, notes=rider)
    assert changes_to_confirm(approved, MENU) != ()  # front of house asks, never drafts it


@given(
    frame=st.sampled_from(RESTATEMENTS),
    word=st.sampled_from(["milk", "dairy", "Milk", "DAIRY"]),
    courtesy=st.sampled_from(["", " please", " thanks"]),
)
@settings(max_examples=60, deadline=None, derandomize=True)
def test_order_changes_a_restatement_passes_and_the_kitchen_never_reads_it(frame, word, courtesy):
    spec = OrderSpec(table=3, items=["oat latte"], allergies=["milk"], notes="to go")
    note = f"to go, {frame.format(word)}{courtesy}"
    assert _kinds(_ticket(spec, notes=note), spec) == []
    assert kitchen_ticket(_ticket(spec, notes=note), spec, MENU).notes == "to go"
    assert kitchen_ticket(_ticket(spec, notes=note), spec, MENU).allergies == ("milk",)


def test_changes_to_confirm_approved_modifier_with_a_declared_allergen_is_unsafe():
    spec = OrderSpec(table=3, items=["hot chocolate"], allergies=["nuts"], notes="whipped cream")
    assert changes_to_confirm(spec, MENU) == ()
    milk = OrderSpec(
        table=3, items=["espresso", "americano"], allergies=["milk"], notes="with milk"
    )
    (finding,) = changes_to_confirm(milk, MENU)
    assert (finding.check, finding.span) == ("unsafe", "dash of milk contains milk")
    assert confirmation_question(milk, MENU) == (
        "Table 3: the dash of milk adds milk, and you told us about your allergy. "
        "Would you like something else in its place?"
    )


def _order_changes_on_notes(shape):
    """A `make` for `growth`: `order_changes` on a ticket whose note is `shape(n)`."""

    def make(n):
        ticket = _ticket(LATTE, notes=shape(n))
        return lambda: order_changes(ticket, LATTE, MENU)

    return make


@pytest.mark.parametrize(
    "shape",
    [
        lambda n: "1" * n,
        lambda n: "free" + " " * n,
        lambda n: "extra hot" + " " * n + "and",
        lambda n: ("on " + " " * 50) * (n // 50),
        lambda n: "latte: 2 x " * (n // 11),
        lambda n: "\u200b" * n,
        lambda n: "extra hot, " * (n // 11),
    ],
)
def test_order_changes_work_grows_linearly_with_the_note(shape):
    # Four times the note may cost about four times the steps, not sixteen (counted, not timed).
    assert grows_linearly(_order_changes_on_notes(shape), 2_000)


# --- the ticket the kitchen receives ------------------------------------------------------------


def test_kitchen_ticket_rewrites_a_passed_ticket_in_the_menus_words():
    spec = OrderSpec(table=3, items=["latte", "espresso"], allergies=["Dairy"], notes="to go")
    drafted = _ticket(
        spec, items=("Espresso", "LATTE "), allergies=("milk",), notes="ＴＡＫＥＡＷＡＹ, please"
    )
    kitchen = kitchen_ticket(drafted, spec, MENU)
    assert (kitchen.items, kitchen.allergies, kitchen.notes) == (
        ("espresso", "latte"),
        ("Dairy",),
        "to go",
    )


def test_kitchen_ticket_writes_the_notes_from_the_approved_order_not_the_draft():
    spec = OrderSpec(table=3, items=["latte"], allergies=["milk"], notes="extra hot")
    drafted = _ticket(spec, notes="Latte: 1 x VERY HOT, milk allergy, thanks")
    assert _kinds(drafted, spec) == []
    assert kitchen_ticket(drafted, spec, MENU).notes == "extra hot"


def test_kitchen_ticket_refuses_a_ticket_that_is_not_within_consent():
    with pytest.raises(ValueError, match="note_added"):
        kitchen_ticket(_ticket(LATTE, notes="extra hot, large"), LATTE, MENU)
