"""cafe.report.banked: every banked checkpoint with its model, and entries that cannot be shown named in words."""

from __future__ import annotations

import json

import pytest

from cafe import course
from cafe.report.banked import VALUE_CHARS, banked_checkpoints, render_banked_text


def _progress(**sessions):
    return {"version": 1, "checkpoints": sessions}


def test_banked_checkpoints_lists_each_with_its_model_by_session():
    view = banked_checkpoints(
        _progress(
            s07={
                "attempts_to_pass": {
                    "value": {"1": 3},
                    "model": "cafe-scripted",
                    "saved_at": "2026-11-30T12:00:00+00:00",
                }
            },
            s02={"pass_rate": {"value": 0.9, "model": "my-model"}},
        )
    )
    assert [(c.session, c.name, c.model) for c in view.checkpoints] == [
        ("s02", "pass_rate", "my-model"),
        ("s07", "attempts_to_pass", "cafe-scripted"),
    ]
    assert view.models == {"my-model": 1, "cafe-scripted": 1} and view.problems == ()
    text = render_banked_text(view)
    assert "s07.attempts_to_pass  [cafe-scripted]" in text and "my-model (1)" in text


def test_banked_checkpoints_session_that_no_longer_exists_is_reported_not_raised():
    view = banked_checkpoints(
        _progress(
            s42={"speed": {"value": 1}, "cost": {"value": 2}},
            s07={"x": {"value": 1, "model": None}},
        )
    )
    assert [c.session for c in view.checkpoints] == ["s07"]
    (problem,) = view.problems
    assert "no session 42" in problem and "cost, speed" in problem and "2 checkpoints" in problem
    assert "Not shown: s42" in render_banked_text(view)


def test_banked_checkpoints_entry_without_a_value_or_a_bad_tag_is_reported():
    view = banked_checkpoints(
        _progress(s07={"odd": 5}, latte={"y": {"value": 1}}, s03=["not", "a", "map"])
    )
    assert view.checkpoints == ()
    assert len(view.problems) == 3
    assert any("s07.odd is not a banked checkpoint" in p for p in view.problems)
    assert any("'latte' is not a session tag" in p for p in view.problems)


def test_banked_checkpoints_empty_or_missing_section_says_nothing_is_banked():
    assert "No checkpoints banked yet" in render_banked_text(banked_checkpoints({"version": 1}))
    assert banked_checkpoints({"checkpoints": 3}).problems


def test_banked_checkpoint_long_value_is_cut_for_display():
    view = banked_checkpoints(_progress(s07={"big": {"value": list(range(200))}}))
    assert len(view.checkpoints[0].value_text()) == VALUE_CHARS
    assert view.checkpoints[0].value == list(range(200))


@pytest.mark.usefixtures("home")
def test_banked_checkpoints_reads_what_course_checkpoint_saved(capsys):
    course.checkpoint("s07", "attempts_to_pass", {"1": 2, "exhausted": 1}, model="cafe-scripted")
    course.checkpoint("s09", "shift", {"runs": 20}, model="my-model")
    view = banked_checkpoints()
    assert {(c.session, c.model) for c in view.checkpoints} == {
        ("s07", "cafe-scripted"),
        ("s09", "my-model"),
    }
    assert json.loads(view.checkpoints[1].value_text()) == {"runs": 20}
