"""cafe.exercises.generated.is_library: the course's own function handed in as the learner's is
found however it is reached, and a learner's own function is not."""

from __future__ import annotations

import functools

from cafe.consent import within_consent
from cafe.consent import within_consent as approved
from cafe.exercises.generated import is_library


def by_its_name(ticket, spec):
    return within_consent(ticket, spec)


def by_an_alias(ticket, spec):
    return approved(ticket, spec)


def by_a_nested_call(ticket, spec):
    def inner():
        return approved(ticket, spec)

    return inner()


def learners_own(ticket, spec):
    return ticket.items == spec.items and ticket.table == spec.table


def test_the_function_and_every_way_of_calling_it_are_found():
    for fn in (
        within_consent,
        approved,
        functools.partial(within_consent),
        by_its_name,
        by_an_alias,
        by_a_nested_call,
    ):
        assert is_library(fn, within_consent), fn


def test_a_learners_own_function_is_not():
    assert not is_library(learners_own, within_consent)
    assert not is_library(lambda ticket, spec: True, within_consent)
