"""A CSV cell a spreadsheet will not read as a formula: one that starts with = + - @ or with a tab
or a carriage return (OWASP's list) is written with a leading ' (reader CC's finding 12: a learner
folder named "\\t=1+1" reached gradebook.csv as is)."""

from __future__ import annotations

import csv
import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.course.grading import writers
from cafe.course.grading.gradebook import Line

STARTS = "=+-@\t\r"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.sampled_from(list(STARTS) + ["a", " ", "'", "1"]), rest=st.text(max_size=8))
def test_no_cell_starts_a_formula(tmp_path, first, rest):
    name = first + rest
    writers.write_gradebook(
        [Line(name, "s01", "exercise", name, "passed", name)], tmp_path, "t", {}
    )
    text = (tmp_path / "gradebook.csv").read_bytes().decode("utf-8")
    [row] = list(csv.DictReader(io.StringIO(text, newline="")))
    # the oracle: a cell is its text, with a ' in front exactly when it starts with one of STARTS
    expected = "'" + name if name[:1] in STARTS else name
    assert row["learner"] == row["key"] == row["detail"] == expected


def test_the_readers_case_a_tab_before_an_equals(tmp_path):
    writers.write_gradebook([Line("\t=1+1", "", "submission", "\r=2", "note")], tmp_path, "t", {})
    text = (tmp_path / "gradebook.csv").read_bytes().decode("utf-8")
    [row] = list(csv.DictReader(io.StringIO(text, newline="")))
    assert (row["learner"], row["key"]) == ("'\t=1+1", "'\r=2")
