"""Session 05's unsettled mutmut survivor, settled: reading the approved notes without the
declared allergies is equivalent (docs/notes/checker-mutation.md, 7 Dec 2026 morning).

The survivor is `bank_s05._same_notes` with `want = read_notes(spec.notes, spec.items, MENU)`:
the approved notes read without `spec.allergies`. The allergies change one thing in a reading: a
clause that only restates a declared allergy (`RESTATEMENTS`: "milk allergy", "allergic to
nuts", ...) is skipped instead of read like any other clause. `_same_notes` compares the
approved reading's modifiers alone, so the mutant differs only if some such clause, read without
the allergies, is a modifier. None is: the first test reads every one of them, for every group
of the fourteen and next to every item of the menu. The second tries to tell the two apart on
generated orders whose notes restate allergies, declared or not, and cannot.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest
from banks.bank_s05 import _same_notes
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from cafe.consent.notes import RESTATEMENTS, read_notes
from cafe.consent.spec import OrderSpec
from cafe.exercises import reference_s05 as ref
from cafe.exercises.s05 import _records
from cafe.schema.ticket import Ticket
from cafe.world.allergens import ALLERGEN_GROUPS
from cafe.world.menu import load_menu

MENU = load_menu()
SEEDED = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
# Every clause that restates an allergy, for every group the course knows and every word for it.
RESTATED = sorted(
    {
        frame.format(word)
        for frame in RESTATEMENTS
        for g in ALLERGEN_GROUPS.values()
        for word in g.names
    }
)
# A group's words, by group: a declaration an approved order may carry.
GROUP_WORDS = {key: sorted(group.names) for key, group in ALLERGEN_GROUPS.items()}


def same_notes_without_allergies(ticket: Ticket, spec: OrderSpec) -> bool:
    """The mutant: the approved notes read without the declared allergies."""
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU)
    if not got.clean:
        return False
    return Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)


@pytest.mark.parametrize("items", [ref.MENU_ITEMS, *[(item,) for item in ref.MENU_ITEMS]])
def test_no_restatement_read_without_its_allergy_is_a_modifier(items):
    """Read without the allergies, a restatement is a clause the menu cannot say, never a
    modifier: next to the whole menu, or next to any one item (a clause may name its item)."""
    for clause in RESTATED:
        for written in (clause, f"{clause} please", clause.upper()):
            assert read_notes(written, items, MENU).modifiers == (), written


@st.composite
def restating_pairs(draw: Any) -> tuple[Ticket, OrderSpec]:
    """A generated (ticket, approved order) whose approved notes also restate allergies: the
    approved order's own, allergies of any of the fourteen groups declared beside them, and
    groups nobody declared; the ticket's notes restate some too."""
    _, spec, ticket = draw(ref.consent_pairs())
    groups = draw(st.lists(st.sampled_from(sorted(GROUP_WORDS)), max_size=3, unique=True))
    declared = (*spec.allergies, *(draw(st.sampled_from(GROUP_WORDS[g])) for g in groups))
    frames = st.sampled_from(RESTATEMENTS)
    words = st.sampled_from(sorted({w for g in GROUP_WORDS.values() for w in g}))
    restated = draw(st.lists(st.builds(str.format, frames, words), min_size=1, max_size=3))
    again = draw(st.lists(st.builds(str.format, frames, words), max_size=2))
    approved = dataclasses.replace(
        spec, allergies=declared, notes=", ".join(x for x in (spec.notes, *restated) if x)
    )
    written = dataclasses.replace(ticket, notes=", ".join(x for x in (ticket.notes, *again) if x))
    return _records(approved, written)


def test_restating_pairs_reach_a_clause_the_allergies_change():
    """The search below is not idle: it reaches approved notes whose reading the allergies
    change (a restatement skipped with them, refused without)."""

    def changed(pair: tuple[Ticket, OrderSpec]) -> bool:
        spec = pair[1]
        with_them = read_notes(spec.notes, spec.items, MENU, spec.allergies)
        return with_them.problems != read_notes(spec.notes, spec.items, MENU).problems

    find(restating_pairs(), changed, settings=SEEDED)


@SEEDED
@given(restating_pairs())
def test_the_approved_notes_read_without_allergies_agree_with_the_bank_s_answer(pair):
    ticket, spec = pair
    assert same_notes_without_allergies(ticket, spec) == _same_notes(ticket, spec), pair
