"""cafe.course.cells: the course key's shape, how a callable is named, and when cells print plain text."""

from __future__ import annotations

import pytest

from cafe import course
from cafe.course.cells import HEADLESS_VARIABLE, headless, source_name, split_key


def test_split_key_gives_the_session_and_the_name():
    assert split_key("s07.why_cap") == ("s07", "why_cap")


@pytest.mark.parametrize(
    "key", ["why_cap", "s7.why_cap", "s07.", "s07.why cap", "s07.1st", 7, None]
)
def test_split_key_rejects_anything_else_and_shows_the_shape(key):
    with pytest.raises(ValueError, match="'<session>.<name>'"):
        split_key(key)


def test_source_name_is_module_and_qualified_name():
    assert source_name(course.checkpoint) == "cafe.course.toolkit.checkpoint"
    assert source_name(course.Prediction.text) == "cafe.course.predictions.Prediction.text"


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_headless_is_on_when_the_variable_says_so(value):
    assert headless({HEADLESS_VARIABLE: value})


def test_headless_is_on_without_a_kernel_even_when_the_variable_says_no():
    assert headless({HEADLESS_VARIABLE: "0"})  # pytest is not a Jupyter kernel


def test_course_shares_these_rather_than_copying_them():
    assert course.headless is headless
    assert course.HEADLESS_VARIABLE == HEADLESS_VARIABLE
