"""Held-out reader H's wrong-way verdicts (7 Dec 2026, afternoon), each closed by the rule it
broke, and each rule tested on generated inputs rather than on the reader's one witness (the
reader's solutions themselves are banked in tests/banks/bank_s05.py, bank_s07.py, bank_s09.py).

- s05 `within_consent`: an allergy that means none, however written ('N/A', 'nil', blank), declares
  no allergy; an approved note the menu cannot say is not within consent when copied; and (the
  evening's leftover, once the notebook's pieces said it) a character nobody sees inside an
  allergy is refused, as in the notes.
- s07 `attempt_failure_view`: the attempt is named in a header line, above the failures.
- s09 `cost_by_ending`: a run with one token count missing has an unknown cost, and adds nothing.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import HealthCheck, given, settings

from cafe.consent import within_consent
from cafe.exercises import reference_s05_edges as edges
from cafe.exercises import reference_s07 as ref_s07
from cafe.exercises import reference_s09 as ref_s09
from cafe.exercises.s05 import _PIECES, _records, check_within_consent
from cafe.exercises.s05 import ref as ref_s05
from cafe.report.records import Price, RunRecord
from cafe.report.summary import cost_by_ending
from cafe.schema.ticket import Failure

SEEDED = settings(
    max_examples=100, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


# --- s05: nothing declared, written any way; an unsayable approved note ---------------------------


@SEEDED
@given(edges.nothing_declared())
def test_nothing_declared_written_any_way_is_within_consent_for_reference_and_library(pair):
    label, spec, ticket = pair
    made = _records(spec, ticket)
    assert ref_s05.within_consent(*made, _PIECES) is True, pair
    assert within_consent(*made) is True, pair


@SEEDED
@given(edges.unsayable_kept())
def test_an_unsayable_approved_note_copied_is_not_within_consent_for_reference_and_library(pair):
    label, spec, ticket = pair
    made = _records(spec, ticket)
    assert ref_s05.within_consent(*made, _PIECES) is False, pair
    assert within_consent(*made) is False, pair


@SEEDED
@given(edges.hidden_allergy())
def test_a_hidden_character_in_an_allergy_is_not_within_consent_for_reference_and_library(pair):
    label, spec, ticket = pair
    made = _records(spec, ticket)
    assert ref_s05.within_consent(*made, _PIECES) is False, pair
    assert within_consent(*made) is False, pair


def test_check_within_consent_rejects_an_allergy_read_past_its_hidden_character():
    """Reader H's shape: each allergy read by `allergy_name`, which folds a zero-width space
    away. Rejected on a generated ticket, with the idea the notebook's pieces now state."""
    from banks.bank_s05 import hidden_allergy_folded

    problems = check_within_consent(hidden_allergy_folded)
    assert len(problems) == 1 and edges.HIDDEN_IDEA in problems[0], problems
    assert "characters nobody sees in the allergy" in problems[0]


# --- s07: the header above the failures -----------------------------------------------------------


@SEEDED
@given(ref_s07.failure_sets(Failure))
def test_a_view_whose_attempt_line_comes_last_breaks_the_header_rule(given_view):
    failures, attempt = given_view
    view = ref_s07.view(failures, attempt)
    assert ref_s07.view_problem(view, failures, attempt) is None
    header, *rows = view.splitlines()
    moved = "\n".join([*rows, header])
    found = ref_s07.view_problem(moved, failures, attempt)
    assert found is not None and "header line" in found[0], (moved, found)


# --- s09: half-reported usage ---------------------------------------------------------------------


@SEEDED
@given(ref_s09.priced_shifts(RunRecord, Price))
def test_reference_cost_split_agrees_with_the_library_with_half_reported_usage(shift):
    runs, prices = shift
    assert ref_s09.cost_split(runs, prices) == cost_by_ending(runs, prices)


def test_half_reported_usage_is_drawn_and_adds_nothing():
    """The generated shifts hold runs with one count missing (a RunRecord cannot hold one, so
    they are plain objects with the four fields the notebook names), and such a run costs 0."""
    from hypothesis import find

    half = find(
        ref_s09.priced_shifts(RunRecord, Price),
        lambda shift: any(
            isinstance(run, SimpleNamespace) and run.model in shift[1] for run in shift[0]
        ),
        settings=SEEDED,
    )
    runs, prices = half
    assert all(cost == 0.0 for cost in ref_s09.cost_split(runs, prices).values()), half
