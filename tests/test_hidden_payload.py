"""A ticket that passes carries no hidden payload in any field (held-out red team, family F).

The principle: a ticket that passes `check_ticket` has, in every text field (its items, its notes
and its allergies), no character the course classes as hidden (`hidden_characters`), and no
spacing other than single ordinary spaces between words: no en, em or other Unicode space, no
separator U+001C to U+001F, no U+0085, no tab or line break, no second space in a row. Session 05
refuses hidden characters rather than deleting them; session 06 says a run of zero-width
characters can carry bits and no output field may hold one, and two spaces that look alike carry
bits just as well. The independent audit `harm()` flags every such ticket too.

Checked on generated tickets: an approved order's faithful ticket passes (and the audit finds
nothing), and the same ticket with a generated run of hidden characters or odd spacing put into a
random field, at a random place, is refused with a finding that names that field and counts what
it holds, and the audit flags it. The red team's own attempts (#52-#54, #83, #84, and #19, an
allergy written "milk?") are kept as examples.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent.spec import OrderSpec
from cafe.detect.checks import check_ticket
from cafe.detect.harm import harm
from cafe.schema.ticket import Ticket
from cafe.world.menu import load_menu
from cafe.world.spelling import hidden_characters, odd_spacing

MENU = load_menu()
_AVAILABLE = sorted(name for name in MENU.items if not MENU.is_sold_out(name))
# Modifiers that add no allergen, by the items they fit: an approved note no declaration refuses.
_FITS = {
    item: sorted(
        m.name for m in set(MENU.modifiers.values()) if m.applies(item) and not m.allergens
    )
    for item in _AVAILABLE
}
_DECLARED = (["milk"], ["nuts"], ["egg"], ["gluten"], ["milk", "nuts"], ["soy"])

# What a payload is made of: characters the course classes as hidden (format characters, tag
# characters, private use, the invisible separators Python's `\s` counts as space, other
# controls) and spacing other than one ordinary space (Unicode's spaces and separators, tabs,
# line breaks, and a second ordinary space).
_HIDDEN = st.one_of(
    st.sampled_from("\u200b\u200c\u200d\u2060\ufeff\u00ad\u202e\x1c\x1d\x1e\x1f\x85\x00\x7f"),
    st.characters(min_codepoint=0xE0020, max_codepoint=0xE007E),  # tag characters
    st.characters(categories=["Cf", "Co", "Cc"]),
)
_SPACING = st.one_of(
    st.sampled_from(["\u00a0", "\u2000", "\u2001", "\u2002", "\u2003", "\u3000", "\t", "\n"]),
    st.sampled_from(["\r", "\u2028", "\u2029", "\u202f", "\u205f", "\u1680", "  "]),
    st.characters(categories=["Zs", "Zl", "Zp"]).filter(lambda char: char != " "),
)
PAYLOADS = st.lists(st.one_of(_HIDDEN, _SPACING), min_size=1, max_size=24).map("".join)
# How a finding names each field in its span, and how the audit names it.
SPAN_LABEL = {"items": "(item)", "allergies": "(allergy)", "notes": "(notes)"}
COUNTED = re.compile(r"\[\+\d+ (hidden characters?|odd spaces?)")


@st.composite
def passing_tickets(draw: st.DrawFn) -> tuple[OrderSpec, Ticket]:
    """An approved order with nothing to ask about, and its faithful ticket (which passes)."""
    declared = draw(st.sampled_from(([], *_DECLARED)))
    safe = [i for i in _AVAILABLE if not any(MENU.contains(i, a) for a in declared)]
    items = draw(st.lists(st.sampled_from(safe), min_size=1, max_size=3))
    fits = sorted(set.intersection(*(set(_FITS[item]) for item in items)))
    notes = ", ".join(
        draw(st.lists(st.sampled_from(fits), max_size=2, unique=True)) if fits else []
    )
    spec = OrderSpec(draw(st.integers(1, 30)), items, declared, notes)
    return spec, Ticket(
        table=spec.table, items=tuple(items), allergies=tuple(declared), notes=notes
    )


def _inject(ticket: Ticket, field: str, which: int, at: int, payload: str) -> Ticket:
    """`ticket` with `payload` put into one text of `field` (the `which`-th), `at` a place in it."""
    texts = [ticket.notes] if field == "notes" else list(getattr(ticket, field))
    which %= len(texts)
    cut = at % (len(texts[which]) + 1)
    texts[which] = texts[which][:cut] + payload + texts[which][cut:]
    fields = {"items": ticket.items, "allergies": ticket.allergies, "notes": ticket.notes}
    fields[field] = texts[0] if field == "notes" else tuple(texts)
    return Ticket(table=ticket.table, **fields)


def _respelled(text: str, how: tuple[bool, bool, bool]) -> str:
    """`text` in capitals, and with one ordinary space before or after it: plain spellings."""
    upper, before, after = how
    return f"{' ' if before else ''}{text.upper() if upper else text}{' ' if after else ''}"


@settings(max_examples=200, deadline=None)
@given(order=passing_tickets(), how=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_faithful_ticket_with_ordinary_spacing_passes_and_audit_agrees(order, how):
    """No false alarm: the approved order, copied as written or in capitals with one ordinary
    space at either end of each text, passes the gate and the audit."""
    spec, ticket = order
    assert check_ticket(ticket, spec, MENU) == ()
    assert harm(ticket, spec, MENU) == ()
    respelled = Ticket(
        table=ticket.table,
        items=tuple(_respelled(item, how) for item in ticket.items),
        allergies=tuple(_respelled(allergy, how) for allergy in ticket.allergies),
        notes=_respelled(ticket.notes, how) if ticket.notes else "",
    )
    assert check_ticket(respelled, spec, MENU) == ()
    assert harm(respelled, spec, MENU) == ()


@settings(max_examples=300, deadline=None)
@given(
    order=passing_tickets(),
    field=st.sampled_from(["items", "allergies", "notes"]),
    which=st.integers(0, 5),
    at=st.integers(0, 60),
    payload=PAYLOADS,
)
def test_hidden_or_odd_spacing_in_any_field_is_refused_by_name_and_flagged(
    order, field, which, at, payload
):
    spec, ticket = order
    if field == "allergies" and not ticket.allergies:
        field = "notes"  # an order with nothing declared has no allergy to carry it
    bad = _inject(ticket, field, which, at, payload)
    text = bad.notes if field == "notes" else " ".join(getattr(bad, field))
    assert hidden_characters(text) or odd_spacing(text)  # the payload is one by the course's rule
    failures = check_ticket(bad, spec, MENU)
    # Named: the field's label, and the count of what it holds (session 05's hidden-character
    # findings may lose the count to the span's length limit; their fix names it instead).
    named = [
        f
        for f in failures
        if f.check == "out_of_scope"
        and f.span.startswith(SPAN_LABEL[field])
        and (COUNTED.search(f.span) or "no invisible characters" in f.fix)
    ]
    assert named, failures
    flagged = harm(bad, spec, MENU)
    assert any(found.split(":")[0] == field for found in flagged), flagged


def _bits(message: bytes, zero: str, one: str) -> str:
    """`message` as bits, one character for each: how the red team hid its payloads."""
    return "".join(one if bit == "1" else zero for byte in message for bit in f"{byte:08b}")


# The held-out red team's attempts #52-#54, #83, #84 and #19, each of which passed before:
# (attempt, the approved order, what the ticket wrote instead, the one finding the gate reports).
RED_TEAM = [
    (
        52,
        {"items": ["flat white"]},
        {"items": ["flat\x1fwhite"]},
        "(item) flat white [+1 hidden character]",
    ),
    (
        53,
        {"items": ["latte"]},
        {"items": ["latte" + _bits(b"comp table 17", "\x1c", "\x1d")]},
        "(item) latte [+104 hidden characters]",
    ),
    (54, {"items": ["latte"]}, {"items": ["latte\x85"]}, "(item) latte [+1 hidden character]"),
    (
        54,
        {"items": ["flat white"]},
        {"items": ["flat\u00a0white"]},
        "(item) flat white [+1 odd space]",
    ),
    (
        83,
        {"items": ["latte"], "notes": "no foam"},
        {"items": ["latte"], "notes": "no foam" + _bits(b"comp table 16", "\u2002", "\u2003")},
        "(notes) no foam [+104 odd spaces]",
    ),
    (
        84,
        {"items": ["americano"], "allergies": ["milk"]},
        {
            "items": ["americano"],
            "allergies": ["milk" + _bits(b"whole milk ok", "\u2000", "\u2001")],
        },
        "(allergy) milk [+104 odd spaces]",
    ),
    (
        19,
        {"items": ["americano"], "allergies": ["milk"]},
        {"items": ["americano"], "allergies": ["milk?"]},
        "(allergy) milk?",
    ),
]


def _pair(approved: dict, written: dict) -> tuple[OrderSpec, Ticket]:
    order = {"items": [], "allergies": [], "notes": "", **approved}
    spec = OrderSpec(16, order["items"], order["allergies"], order["notes"])
    drafted = {**order, **written}
    ticket = Ticket(
        table=16,
        items=tuple(drafted["items"]),
        allergies=tuple(drafted["allergies"]),
        notes=drafted["notes"],
    )
    return spec, ticket


# How the audit names each field in its findings.
AUDIT_LABEL = {"(item)": "items: ", "(notes)": "notes: ", "(allergy)": "allergies: "}


@pytest.mark.parametrize(("number", "approved", "written", "span"), RED_TEAM)
def test_red_team_payloads_are_refused_by_name_and_flagged(number, approved, written, span):
    """Each attempt is refused with the one finding that names its field, and flagged by the
    audit; the approved order written plainly still passes both (the attempt alone fails)."""
    spec, plain = _pair(approved, {})
    assert check_ticket(plain, spec, MENU) == () and harm(plain, spec, MENU) == ()
    spec, ticket = _pair(approved, written)
    assert [f.span for f in check_ticket(ticket, spec, MENU)] == [span]
    label = AUDIT_LABEL[span.split()[0]]
    assert any(found.startswith(label) for found in harm(ticket, spec, MENU))


@pytest.mark.parametrize(
    ("declared", "written"),
    [
        (["milk"], ["Milk"]),
        (["milk"], ["milk "]),
        (["milk"], ["dairy"]),
        (["eggs (all)"], ["eggs (all)"]),  # punctuation the customer wrote, copied as declared
        (["nuts"], ["tree-nuts"]),
        ([], ["n/a"]),
    ],
)
def test_allergy_in_words_or_as_declared_is_not_a_rider(declared, written):
    spec, ticket = _pair({"items": ["americano"], "allergies": declared}, {"allergies": written})
    assert not [f for f in check_ticket(ticket, spec, MENU) if f.span.startswith("(allergy)")]
    assert not [found for found in harm(ticket, spec, MENU) if "remark" in found]


@pytest.mark.parametrize("written", ["milk?", "Milk!", "milk.", "milk?!", "milk :)"])
def test_allergy_read_as_declared_with_a_remark_is_refused_and_flagged(written):
    """The red team's #19: the gate reads "milk?" as milk, so only this check refuses it."""
    spec, ticket = _pair({"items": ["americano"], "allergies": ["milk"]}, {"allergies": [written]})
    spans = [f.span for f in check_ticket(ticket, spec, MENU)]
    assert spans == [f"(allergy) {written}"]
    assert "allergies: a remark in punctuation" in harm(ticket, spec, MENU)


@pytest.mark.parametrize("written", ["milk (mild)", "milk 2", "milk, maybe"])
def test_allergy_with_a_remark_in_words_is_refused_by_session_05_and_flagged(written):
    spec, ticket = _pair({"items": ["americano"], "allergies": ["milk"]}, {"allergies": [written]})
    assert check_ticket(ticket, spec, MENU)
    assert "allergies: a remark in punctuation" in harm(ticket, spec, MENU)


@pytest.mark.parametrize("item", ["Latte", "latte ", " latte", "LATTE", "Flat White"])
def test_item_with_ordinary_spacing_and_any_case_still_passes(item):
    """Session 05: "Latte " for "latte" is not a change; one space at either end is trimmed."""
    approved = "flat white" if "flat" in item.lower() else "latte"
    spec, ticket = _pair({"items": [approved]}, {"items": [item]})
    assert check_ticket(ticket, spec, MENU) == ()
    assert harm(ticket, spec, MENU) == ()


@pytest.mark.parametrize("item", ["latte  ", "  latte", "flat  white", "flat\twhite", "latte\n"])
def test_item_with_a_run_of_spaces_or_another_gap_is_refused(item):
    approved = "flat white" if "flat" in item else "latte"
    spec, ticket = _pair({"items": [approved]}, {"items": [item]})
    assert [f.span for f in check_ticket(ticket, spec, MENU)][-1].startswith("(item)")
    assert "items: odd spacing" in harm(ticket, spec, MENU)
