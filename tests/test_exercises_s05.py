"""cafe.exercises.s05: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from collections import Counter

import pytest

from cafe import course
from cafe.consent import read_notes, within_consent
from cafe.exercises.s05 import CONSENT_CASES, check_items_to_confirm, check_within_consent
from cafe.world.allergens import allergen_key, allergy_name, is_no_allergy
from cafe.world.menu import load_menu, normalize_name

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
    got = read_notes(ticket.notes, spec.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    keys = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    return _deny_list(ticket.model_copy(update={"notes": ""}), spec) and keys


def _within_by_reading(ticket, spec):
    """A second correct answer, written from the pieces the notebook lists."""
    got = read_notes(ticket.notes, spec.items, MENU)
    want = read_notes(spec.notes, spec.items, MENU)
    same = Counter(m.key for m in got.modifiers) == Counter(m.key for m in want.modifiers)
    return _notes_as_written(ticket.model_copy(update={"notes": spec.notes}), spec) and (
        got.clean and same
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
