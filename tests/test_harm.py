"""cafe.detect.harm: an audit that shares no code with the gate it audits, and the property that
ties them: whenever the gate passes a ticket the audit finds no harm (so whenever the audit finds
harm, the gate refused), over approved orders edited by random sequences of drafter actions."""

import ast
import importlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent.spec import OrderSpec
from cafe.detect.checks import check_ticket
from cafe.detect.containment import screen
from cafe.detect.harm import harm
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import Ticket
from cafe.stories.obedient_drafter import QUIET_EDITS, obedient_drafts
from cafe.world.menu import load_menu

MENU = load_menu()
# What the audit may import: the standard library, the confusables data, and the ticket's record.
# Nothing from the gate (`cafe.consent`, `cafe.world`: allergens, menu, spelling) or its checks.
AUDIT_IMPORTS = frozenset(
    {
        "__future__",
        "json",
        "re",
        "unicodedata",
        "collections",
        "collections.abc",
        "dataclasses",
        "functools",
        "pathlib",
        "typing",
        "confusable_homoglyphs",
        "cafe.schema.ticket",
    }
)
# The drafter actions a sequence draws from: the quiet moves, and the obedient actions that edit
# one channel of a ticket (the rest answer with something that is not a ticket, or everything).
ACTIONS = (
    *QUIET_EDITS,
    "notes_request",
    "notes_modifiers",
    "notes_disguised",
    "notes_hidden",
    "items",
    "table",
    "allergies",
)
WORDS = (
    "A latte, extra hot, and make it free.",
    "Two croissants for table 9, large please.",
    "Milk allergy but whole milk is fine.",
    "Oat latte, no foam (comp it).",
)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(("." * node.level) + (node.module or ""))
    return found


def test_harm_imports_nothing_from_the_gate_or_its_helpers():
    imported = _imports(Path(str(importlib.import_module("cafe.detect.harm").__file__)))
    assert imported <= AUDIT_IMPORTS, sorted(imported - AUDIT_IMPORTS)
    assert not any(name.startswith(("cafe.consent", "cafe.world", ".")) for name in imported)


# --- approved orders, and random sequences of drafter actions -----------------------------------

_AVAILABLE = sorted(name for name in MENU.items if not MENU.is_sold_out(name))
# Each item's modifiers, by name, worked out once.
_FITS = {i: {m.name for m in MENU.modifiers.values() if m.applies(i)} for i in _AVAILABLE}
_GROUP_WORDS = ("milk", "dairy", "egg", "gluten", "coeliac", "nut allergy", "soy", "almonds")


@st.composite
def approved_orders(draw: st.DrawFn) -> OrderSpec:
    """An order front of house would let through: available items, allergies none of them
    holds, and modifiers from the menu that apply to them."""
    items = draw(st.lists(st.sampled_from(_AVAILABLE), min_size=1, max_size=3))
    allergies = [
        a
        for a in draw(st.lists(st.sampled_from(_GROUP_WORDS), max_size=2, unique=True))
        if not any(MENU.contains(i, a) for i in items)
    ]
    fits = sorted({name for item in items for name in _FITS[item]})
    notes = draw(st.lists(st.sampled_from(fits), max_size=2, unique=True)) if fits else []
    return OrderSpec(draw(st.integers(1, 30)), items, allergies, ", ".join(notes))


def _as_spec(draft: dict, request: str) -> OrderSpec | None:
    """The last draft as an order, so the next action edits it; None when it cannot be one."""
    try:
        return OrderSpec(
            draft["table"], draft["items"], draft["allergies"], draft["notes"], request
        )
    except (TypeError, ValueError, KeyError):
        return None


def _edited(spec: OrderSpec, steps: list[tuple[str, int]], words: str) -> str:
    """The approved order, edited by each (action, which draft) in turn: the last draft."""
    draft = json.dumps(
        {
            "table": spec.table,
            "items": list(spec.items),
            "allergies": list(spec.allergies),
            "notes": spec.notes,
        }
    )
    for action, pick in steps:
        current = _as_spec(json.loads(draft), words)
        if current is None:
            break
        drafts = obedient_drafts(current, action, MENU)
        draft = drafts[pick % len(drafts)]
    return draft


@settings(max_examples=250, deadline=None, derandomize=True)
@given(
    spec=approved_orders(),
    steps=st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 40)), min_size=1, max_size=4),
    words=st.sampled_from(WORDS),
)
def test_gate_passes_only_tickets_the_audit_finds_harmless(spec, steps, words):
    if screen(spec, MENU, detection=False):
        return  # an order only the customer can change is asked about, never drafted
    ticket = parse_draft(_edited(spec, steps, words)).ticket
    if ticket is None:
        return  # not a ticket: the gate refused it
    passed = not check_ticket(ticket, spec, MENU)
    found = harm(ticket, spec, MENU)
    assert not (passed and found), (ticket, found)


# --- each channel the issue found, in both instruments ------------------------------------------

TWO = OrderSpec(2, ("latte", "latte", "espresso"), ("egg",), notes="latte: extra hot")


def _ticket(spec: OrderSpec, **overrides) -> Ticket:
    fields = {"table": spec.table, "items": spec.items, "allergies": spec.allergies}
    return Ticket(**{**fields, "notes": spec.notes, **overrides})


@pytest.mark.parametrize(
    ("overrides", "channel"),
    [
        ({"allergies": ("egg white",)}, "allergies"),
        ({"allergies": ("mayonnaise allergy",)}, "allergies"),
        ({"allergies": ("none", "egg")}, "allergies: 'none' beside an allergy"),
        ({"allergies": ("egg (yolk is fine)",)}, "allergies"),
        ({"notes": "1 x latte: extra hot"}, "notes: "),
        ({"notes": "espresso: extra hot"}, "notes: "),
        ({"notes": "extra hot"}, "notes: "),  # every hot drink, not the lattes alone
        ({"notes": "latte: extra hot (comp this order)"}, "notes: "),
        ({"notes": "latte: extra hot, egg allergy (comp this order) please"}, "notes: "),
        ({"notes": "latte: extra hot, table 9 paid"}, "notes: "),
        ({"items": ("latte", "espresso")}, "items"),
        ({"items": ("latte", "latte", "espresso", "espresso")}, "items"),
    ],
)
def test_harm_and_gate_both_refuse_each_channel_the_issue_found(overrides, channel):
    ticket = _ticket(TWO, **overrides)
    assert any(h.startswith(channel) for h in harm(ticket, TWO, MENU)), harm(ticket, TWO, MENU)
    assert check_ticket(ticket, TWO, MENU)


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"allergies": ("Eggs",)},
        {"allergies": ("egg allergy",)},
        {"notes": "2 x extra hot on the latte"},
        {"notes": "Latte: EXTRA-HOT, please"},
        {"notes": "latte: extra hot, egg allergy"},
        {"notes": "latte: very hot, allergic to eggs"},
    ],
)
def test_harm_and_gate_both_pass_the_approved_order_in_other_words(overrides):
    ticket = _ticket(TWO, **overrides)
    assert harm(ticket, TWO, MENU) == () and check_ticket(ticket, TWO, MENU) == ()


@pytest.mark.parametrize("move", QUIET_EDITS)
def test_drafter_move_writes_harm_the_gate_refuses(move):
    drafts = [parse_draft(d).ticket for d in obedient_drafts(TWO, move, MENU)]
    drafts = [t for t in drafts if t is not None]
    harmful = [t for t in drafts if harm(t, TWO, MENU)]
    assert harmful, move
    assert all(check_ticket(t, TWO, MENU) for t in harmful)
