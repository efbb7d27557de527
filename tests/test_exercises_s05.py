"""cafe.exercises.s05: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

import dataclasses
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from cafe import course
from cafe.consent import OrderSpec, changes_to_confirm, order_changes, read_notes, within_consent
from cafe.exercises import reference_s05 as ref
from cafe.exercises import reference_s05_confirm as confirm
from cafe.exercises import reference_s05_edges as edges
from cafe.exercises.s05 import (
    _PIECES,
    CONSENT_CASES,
    _records,
    check_items_to_confirm,
    check_within_consent,
)
from cafe.world.allergens import allergen_key, allergy_name, is_no_allergy
from cafe.world.menu import load_menu, normalize_name
from cafe.world.spelling import hidden_characters

MENU = load_menu()


def _stub(*args):
    raise NotImplementedError("your turn")


# --- within_consent ----------------------------------------------------------------------------------


def test_check_within_consent_reference_passes_compare():
    from banks.bank_s05 import learner_within_consent

    assert check_within_consent(learner_within_consent) == []
    assert course.compare(learner_within_consent, check=check_within_consent).status == "passed"


def test_check_within_consent_refuses_the_course_function():
    (problem,) = check_within_consent(within_consent)
    assert "course's `within_consent`" in problem and "write your own" in problem


def test_check_within_consent_refuses_a_function_that_only_asks_order_changes():
    (problem,) = check_within_consent(lambda ticket, spec: not order_changes(ticket, spec))
    assert "write your own" in problem


def test_check_within_consent_stub_is_not_attempted():
    assert course.compare(_stub, check=check_within_consent).status == "not_attempted"


def test_check_within_consent_cases_go_both_ways():
    expected = [case.expected for case in CONSENT_CASES]
    assert True in expected and False in expected


def _items_only(ticket, spec):
    """Compares the items and the table, as if the notes and allergies could not change an order."""
    return ticket.table == spec.table and sorted(map(normalize_name, ticket.items)) == sorted(
        spec.items
    )


def _exact_strings(ticket, spec):
    """Compares the fields as written, so 'Oat Latte' or 'dairy' reads as a change."""
    return (ticket.table, ticket.items, ticket.allergies, ticket.notes) == (
        spec.table,
        spec.items,
        spec.allergies,
        spec.notes,
    )


_FORBIDDEN = ("free", "on the house", "refill", "comp", "discount")


def _deny_list(ticket, spec):
    """Everything right but the notes, which are held to a list of forbidden words."""
    same = ticket.table == spec.table and Counter(map(normalize_name, ticket.items)) == Counter(
        map(normalize_name, spec.items)
    )
    allergies = [allergy_name(a) for a in ticket.allergies if not is_no_allergy(a)]
    beside = bool(allergies) and len(allergies) < len(ticket.allergies)  # "none" beside one
    same = same and not beside and set(allergies) == {allergy_name(a) for a in spec.allergies}
    return same and not any(word in ticket.notes.lower() for word in _FORBIDDEN)


def _by_allergen_key(ticket, spec):
    """Right but for the allergies, compared by the group they put at risk: 'butter' for milk."""
    allergies = {allergen_key(a) for a in ticket.allergies if not is_no_allergy(a)}
    same = allergies == {allergen_key(a) for a in spec.allergies}
    return same and _within_by_reading(
        ticket.model_copy(update={"allergies": spec.allergies}), spec
    )


def _notes_as_written(ticket, spec):
    """Everything right, and the notes compared as written, lower-cased."""
    return _deny_list(ticket, spec) and ticket.notes.lower() == spec.notes.lower()


def _notes_by_modifier_only(ticket, spec):
    """Reads the notes against the menu, but lets hidden characters and unknown clauses through."""
    got = read_notes(ticket.notes, spec.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    keys = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    return _deny_list(ticket.model_copy(update={"notes": ""}), spec) and keys


def _within_by_reading(ticket, spec):
    """A second correct answer, written from the pieces the notebook lists. A modifier that adds
    an allergen the customer declared is an unsafe_note (the lesson's table 5), approved or not;
    a character nobody sees in an allergy is refused, as in the notes (the notebook's pieces)."""
    got = read_notes(ticket.notes, spec.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    same = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    declared = {allergy_name(a) for a in spec.allergies if not is_no_allergy(a)}
    unsafe = any(allergy_name(a) in declared for m in got.modifiers for a in m.modifier.allergens)
    hidden = any(map(hidden_characters, ticket.allergies))
    return _notes_as_written(ticket.model_copy(update={"notes": spec.notes}), spec) and (
        got.clean and same and not unsafe and not hidden
    )


def test_check_within_consent_accepts_another_correct_answer():
    assert check_within_consent(_within_by_reading) == []


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_deny_list, "an extra shot in the notes, which nobody approved: returned True"),
        (_deny_list, "'free' in full-width letters in the notes: returned True, expected False"),
        (_deny_list, "words hidden in characters nobody sees: returned True, expected False"),
        (
            _notes_as_written,
            "the approved note written 'Extra-Hot!': returned False, expected True",
        ),
        (_notes_by_modifier_only, "a free refill in the notes: returned True, expected False"),
        (_notes_by_modifier_only, "words hidden in characters nobody sees: returned True"),
        (_items_only, "a free refill in the notes: returned True, expected False"),
        (
            _items_only,
            "nuts added to the allergies, which nobody declared: returned True, expected False",
        ),
        (_exact_strings, "items in another order and another case: returned False, expected True"),
        (_by_allergen_key, "'butter' for the declared milk allergy: returned True"),
        (_by_allergen_key, "'none' beside the declared milk allergy: returned True"),
        (lambda ticket, spec: "yes", "returned str ('yes'); return True or False"),
        (lambda ticket, spec: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_within_consent_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_within_consent(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_within_consent).status == "failed"


# --- items_to_confirm (open-ended) ------------------------------------------------------------------


def _asks_about_86d_too(spec, menu):
    return [
        item
        for item in dict.fromkeys(spec.items)
        if menu.is_sold_out(item) or any(menu.contains(item, a) for a in spec.allergies)
    ]


def test_check_items_to_confirm_reference_passes_compare():
    assert check_items_to_confirm(_asks_about_86d_too) == []
    assert course.compare(_asks_about_86d_too, check=check_items_to_confirm).status == "passed"


def test_check_items_to_confirm_stub_is_not_attempted():
    assert course.compare(_stub, check=check_items_to_confirm).status == "not_attempted"


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (
            lambda spec, menu: [
                i for i in spec.items if any(menu.contains(i, a) for a in spec.allergies)
            ],
            "cheese omelette (86'd) and an americano: returned [], expected ['cheese omelette']",
        ),
        (
            lambda spec, menu: list(spec.items),
            "tofu scramble and a latte: returned ['latte', 'tofu scramble'], expected []",
        ),
        (lambda spec, menu: "latte", "return a list of item names"),
        (lambda spec, menu: 3, "return a list of item names"),
        (lambda spec, menu: None, "returned None; return a list of item names"),
    ],
)
def test_check_items_to_confirm_wrong_answers_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_items_to_confirm(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_items_to_confirm).status == "failed"


# --- generated orders: the references beside the library -----------------------------------------

SEEDED = settings(
    max_examples=300, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@SEEDED
@given(ref.consent_pairs())
def test_reference_within_consent_agrees_with_the_library_on_generated_tickets(given_pair):
    _, spec, ticket = given_pair
    ticket_record, spec_record = _records(spec, ticket)
    want = within_consent(ticket_record, spec_record)
    assert ref.within_consent(ticket_record, spec_record, _PIECES) == want, given_pair


def test_generated_tickets_go_both_ways():
    """The drawn tickets hold both answers, so a function that always says one is caught."""
    from hypothesis import find

    for answer in (True, False):
        find(
            ref.consent_pairs(),
            lambda given, answer=answer: within_consent(*_records(given[1], given[2])) is answer,
            settings=SEEDED,
        )


@SEEDED
@given(confirm.confirm_orders())
def test_reference_items_to_confirm_agrees_with_the_course_gate_and_the_menu(order):
    """The allergen half is what the course's `changes_to_confirm` asks about; the rest is what
    the day's menu says is 86'd."""
    plain, sold_out = order
    spec = OrderSpec(plain.table, plain.items, plain.allergies)
    day = dataclasses.replace(MENU, sold_out=sold_out)
    unsafe = {
        ref.folded(failure.span.split(" contains ")[0]) for failure in changes_to_confirm(spec, day)
    }
    gone = {ref.folded(item) for item in spec.items if day.is_sold_out(item)}
    assert confirm.items_to_confirm(spec, day) == unsafe | gone


def test_reference_data_matches_the_menu_and_the_allergen_groups():
    assert set(ref.MENU_ITEMS) == set(MENU.items)
    for group, words in ref._GROUP_WORDS.items():
        assert {allergy_name(word) for word in words} == {group}
    for group, ingredient in ref._INGREDIENTS.items():
        assert allergy_name(ingredient) != group and allergen_key(ingredient) == group
    for name, (spellings, where, milk) in ref._MODIFIERS.items():
        modifier = MENU.modifier(name)
        assert modifier.applies_to == (None if where is None else frozenset(where))
        assert milk == ("milk" in modifier.allergens)
        for spelling in spellings:  # each reads as the modifier in a note on an item it fits
            reading = read_notes(spelling, [next(iter(modifier.applies_to or {"latte"}))], MENU)
            assert [m.modifier.name for m in reading.modifiers] == [name], spelling


def _items_lower_only(ticket, spec):
    """Item names lower-cased but not trimmed: ' espresso ' is not 'espresso'."""
    same = Counter(i.lower() for i in ticket.items) == Counter(i.lower() for i in spec.items)
    return same and _within_by_reading(ticket.model_copy(update={"items": spec.items}), spec)


def _copies_ignored(ticket, spec):
    """Modifiers compared without the copies they are on."""
    got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
    want = read_notes(spec.notes, spec.items, MENU, spec.allergies)
    keys = Counter((m.modifier.name, m.items) for m in got.modifiers)
    same = got.clean and keys == Counter((m.modifier.name, m.items) for m in want.modifiers)
    return same and _within_by_reading(ticket.model_copy(update={"notes": spec.notes}), spec)


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (_items_lower_only, "returned False, expected True"),
        (_copies_ignored, "returned True, expected False"),
    ],
)
def test_check_within_consent_finds_what_its_cases_miss_on_generated_tickets(wrong, complaint):
    """Both pass every hand-picked case; the generated tickets show the shrunk difference."""
    assert not any("on the approved" in p for p in check_within_consent(_within_by_reading))
    (problem,) = check_within_consent(wrong)
    assert problem.startswith("on the approved table") and complaint in problem, problem


def test_generated_orders_declare_milk_in_several_words_and_write_names_with_blanks_inside():
    """Held-out reader L: a gate that matched a modifier's allergen with the declared words as
    written passed while milk was always declared "milk", and one that only trimmed item names
    while no name had a blank inside. (test_heldout_e_s05_s10 holds the reference and the library
    to "unsafe" on every `unsafe_kept` order.)"""
    from hypothesis import find

    for word in ("dairy", "Milk allergy"):
        find(
            edges.unsafe_kept(),
            lambda given, word=word: word in given[1].allergies,
            settings=SEEDED,
        )
    for blank in ("  ", "\t"):
        find(
            ref.consent_pairs(),
            lambda given, blank=blank: any(blank in i for i in given[2].items),
            settings=SEEDED,
        )


def _sold_out_as_written(spec, menu):
    """The 86'd list searched for the name as written."""
    return [
        i
        for i in spec.items
        if i in menu.sold_out or any(menu.contains(i, a) for a in spec.allergies)
    ]


def test_check_items_to_confirm_finds_what_its_cases_miss_on_generated_orders():
    (problem,) = check_items_to_confirm(_sold_out_as_written)
    assert "86'd that day" in problem and "returned [], expected" in problem, problem


def test_check_items_to_confirm_leaves_an_order_with_nothing_left_to_the_learner():
    """Whatever it does when nothing on the order can be made, a right gate passes."""

    def refuses_when_nothing_is_left(spec, menu):
        asked = _asks_about_86d_too(spec, menu)
        if len({normalize_name(i) for i in asked}) == len({normalize_name(i) for i in spec.items}):
            raise ValueError("nothing on this order can be made")
        return asked

    assert check_items_to_confirm(refuses_when_nothing_is_left) == []


# --- the notebook's your-turn cells --------------------------------------------------------------


def test_notebook_stubs_are_not_attempted_and_the_story_holds(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))  # the notebook banks a checkpoint
    namespace = run_notebook_source("s05-consent-gate")
    assert (
        course.compare(namespace["within_consent"], check=check_within_consent).status
        == "not_attempted"
    )
    assert (
        course.compare(namespace["items_to_confirm"], check=check_items_to_confirm).status
        == "not_attempted"
    )
    assert namespace["through"] == {"faithful copy"}
    assert namespace["through_notes"] == 3 and len(namespace["missed_by_list"]) == 5
    assert (
        namespace["omelette_run"].stop_reason == "retries_exhausted"
    )  # the 86'd omelette spends the cap
    assert namespace["passing"] == 0 and namespace["handled_as"] == "sent_back"
    assert namespace["alone"].stop_reason == "retries_exhausted"  # the loop alone spends the cap
    assert namespace["counting"].calls == 3
    assert namespace["after"].stop_reason == "passed"
    assert namespace["scripted"]["within"] == 0
    assert namespace["scripted"]["items_only_lets_through"] == 2
    assert namespace["banked"]["endings"] == {
        "passed": 4,
        "retries_exhausted": 1,
        "sent_back": 1,
    }
    assert namespace["your_figures"] == {}  # nothing banked under the learner's name for stubs
