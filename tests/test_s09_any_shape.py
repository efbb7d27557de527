"""`check_summarize` holds a `summarize(runs)` to the notebook's "anything with an `ending`": its
generated shifts mix RunRecords, namespaces, namedtuples, `__slots__` objects and dataclasses
(reader CB, 8 Dec 2026: `vars(run)['ending']` passed). The oracle is written here."""

from collections import namedtuple
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.exercises.s09 import check_summarize
from cafe.report.records import ENDINGS

Row = namedtuple("Row", "ending")


class Slotted:
    __slots__ = ("ending",)

    def __init__(self, ending):
        self.ending = ending


@dataclass
class Plain:
    ending: str


def _counts(endings):
    counts = dict.fromkeys(ENDINGS, 0)
    for ending in endings:
        if ending not in counts:
            raise ValueError(f"no such ending {ending!r}")
        counts[ending] += 1
    return counts


def _by_attribute(runs):
    return _counts(run.ending for run in runs)


def test_every_shape_counts_with_an_oracle():
    runs = [Row("passed"), Slotted("sent_back"), Plain("passed")]
    assert _by_attribute(runs) == {**dict.fromkeys(ENDINGS, 0), "passed": 2, "sent_back": 1}


def test_reading_the_ending_as_an_attribute_passes():
    assert check_summarize(_by_attribute) == []


# a reader that gets the ending some way other than the attribute: each fails on some shape
_READERS = {
    "vars": lambda run: vars(run)["ending"],
    "__dict__": lambda run: run.__dict__["ending"],
    "getattr on __dict__ only": lambda run: run.__dict__.get("ending"),
    "_asdict or vars": lambda run: (
        run._asdict()["ending"] if hasattr(run, "_asdict") else vars(run)["ending"]
    ),
}


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.nested_given])
@given(st.sampled_from(sorted(_READERS)))
def test_a_reader_that_needs_one_shape_is_refused(name):
    read = _READERS[name]
    assert check_summarize(lambda runs: _counts(read(run) for run in runs)), name
