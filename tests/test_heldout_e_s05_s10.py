"""The holes held-out reader E found in the checkers of sessions 05, 07, 09 and 10 (7 Dec 2026),
each closed by the rule the lesson states and tested here on generated inputs of the kind, not on
the reader's input.

The reader's own solutions are in the banks (tests/banks/bank_s05.py, bank_s07.py, bank_s09.py,
bank_s10.py); the tests below write other functions that break the same rule in another way, so a
checker that learned only the reader's cases would still fail here.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.consent import read_notes, within_consent
from cafe.exercises.generated import outcome
from cafe.exercises.reference_s05 import within_consent as reference_within_consent
from cafe.exercises.reference_s05_edges import UNSAFE_IDEA, unsafe_kept
from cafe.exercises.reference_s07 import ORDINALS, names_attempt
from cafe.exercises.reference_s10 import classify_runs, failure_class
from cafe.exercises.s05 import _PIECES, _records, check_within_consent
from cafe.exercises.s07 import check_attempt_failure_view
from cafe.exercises.s10 import _sent_back, check_classify
from cafe.repair.reask import Attempt, RepairResult
from cafe.schema.ticket import Failure
from cafe.taxonomy import classify
from cafe.taxonomy.runs import Run
from cafe.world.allergens import allergy_name, is_no_allergy
from cafe.world.menu import load_menu

MENU = load_menu()

SEEDED = settings(
    max_examples=200,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


# --- session 05: a modifier that adds a declared allergen is an unsafe_note, approved or not ----


@SEEDED
@given(unsafe_kept())
def test_reference_s05_and_the_course_refuse_every_approved_unsafe_modifier_kept(pair) -> None:
    """The lesson's table 5: keep the butter for a milk allergy and the gate reports an
    unsafe_note. The course's within_consent and the checker's reference both say no."""
    _, spec, ticket = pair
    made, approved = _records(spec, ticket)
    assert within_consent(made, approved) is False
    assert reference_within_consent(made, approved, _PIECES) is False


def test_check_within_consent_refuses_a_gate_that_reads_only_the_added_notes_for_allergens() -> (
    None
):
    """Another way to miss it: allergens looked for only on modifiers nobody approved, as if an
    approved one were safe because it was approved."""
    from banks.bank_s05 import approved_unsafe_note_kept

    def added_only(ticket, spec):
        got = read_notes(ticket.notes, ticket.items, MENU, spec.allergies)
        approved = {
            m.key for m in read_notes(spec.notes, spec.items, MENU, spec.allergies).modifiers
        }
        declared = {allergy_name(a) for a in spec.allergies if not is_no_allergy(a)}
        added = [m for m in got.modifiers if m.key not in approved]
        if any(allergy_name(a) in declared for m in added for a in m.modifier.allergens):
            return False
        return approved_unsafe_note_kept(ticket, spec)

    problems = check_within_consent(added_only)
    assert len(problems) == 1 and UNSAFE_IDEA in problems[0], problems


# --- session 10: an order sent back has no class; a span is compared as quoted ----------------


@SEEDED
@given(classify_runs(Run, RepairResult, Attempt, Failure, _sent_back))
def test_reference_s10_agrees_with_classify_on_runs_sent_back_too(run: Run) -> None:
    """The checker's reference refuses what the course's classify refuses, sent-back orders
    included (tests/test_exercise_references.py draws no sent-back order)."""
    assert repr(outcome(failure_class, run)) == repr(outcome(classify, run))


def test_check_classify_rejects_a_sent_back_order_given_any_class() -> None:
    def sent_back_blocked(run: Any) -> str:  # "refused before any draft" read as blocked
        return "blocked" if run.sent_back is not None else failure_class(run)

    problems = check_classify(sent_back_blocked)
    assert len(problems) == 1 and "sent back before any draft" in problems[0], problems
    assert "returned 'blocked'" in problems[0]


def test_check_classify_takes_any_refusal_of_a_sent_back_order() -> None:
    """The notebook names only run.transport and run.result: a function that trips on the missing
    result refuses the order, which is what the lesson asks."""

    def trips(run: Any) -> str:
        if run.transport is None and run.result.stop_reason == "policy_violation":
            return "blocked"  # run.result is None on an order sent back: AttributeError
        return failure_class(run)

    assert check_classify(trips) == []


def test_check_classify_rejects_spans_compared_without_case() -> None:
    def casefolded(run: Any) -> str:
        if run.transport is not None or run.sent_back is not None:
            return failure_class(run)
        if run.result.stop_reason == "policy_violation":
            return "blocked"
        keys = [{(f.check, f.span.casefold()) for f in a.failures} for a in run.result.attempts]
        if set.intersection(*keys):
            return "systematic"
        return failure_class(run)

    problems = check_classify(casefolded)
    assert len(problems) == 1 and "'Espresso'" in problems[0], problems


# --- session 07: "Say which attempt failed": an ordinal says which as well as a digit -----------


@SEEDED
@given(
    st.integers(1, len(ORDINALS)),
    st.integers(1, 40),
    st.sampled_from(("attempt", "draft", "try")),
    st.sampled_from((str.lower, str.upper, str.title)),
)
def test_an_ordinal_names_its_attempt_and_no_other(number, other, noun, case):
    """ "Your second attempt failed" names attempt 2, in words or as "2nd", in any case; it does
    not name attempt 3, so a view naming the wrong attempt in words is still refused."""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number, "th")
    for said in (ORDINALS[number - 1], f"{number}{suffix}"):
        line = case(f"Your {said} {noun} failed:")
        assert names_attempt([line], number), line
        assert names_attempt([line], other) == (other == number), (line, other)


def test_check_attempt_failure_view_takes_the_attempt_in_words_and_refuses_the_wrong_one():
    def in_words(failures, attempt, shift=0):
        said = (ORDINALS + ("",) * 40)[attempt - 1 + shift] or f"#{attempt + shift}"
        lines = [f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in failures]
        return "\n".join([f"The {said} draft was rejected:", *lines])

    assert check_attempt_failure_view(in_words) == []
    problems = check_attempt_failure_view(lambda failures, attempt: in_words(failures, attempt, -1))
    assert problems and "naming attempt" in problems[0], problems
