"""Live cells meet a dead or slow endpoint: one line, the notebook goes on, nothing banked is lost."""

from __future__ import annotations

import pytest

from cafe import course
from cafe.course.live import each_live, live_story
from cafe.endpoint.errors import ConfigError, EndpointError

pytestmark = pytest.mark.usefixtures("home")


def _timeout() -> str:
    raise EndpointError(
        "http://127.0.0.1:8011/v1 did not answer within 60 s. Try again.", kind="timeout"
    )


def test_a_story_that_runs_returns_its_value(capsys):
    story = live_story("s08.session", lambda: 42)
    assert story.ok and story.value == 42 and story.failed is None
    assert not story.skipped("the replay")
    assert capsys.readouterr().out == ""


def test_an_endpoint_problem_is_one_line_and_a_noted_failure(capsys):
    story = live_story("s08.session", _timeout, model="smollm2")
    out = capsys.readouterr().out
    assert not story.ok and story.failed == "timeout" and story.value is None
    assert "live: s08.session stopped: http://127.0.0.1:8011/v1 did not answer within 60 s." in out
    assert "Traceback" not in out and "Try again" not in out  # the first sentence only
    noted = course.load_progress()["live_failures"]["s08.session"]
    assert noted["kind"] == "timeout" and noted["model"] == "smollm2"
    assert story.skipped("the replay cell")
    assert "skipped: the replay cell needs s08.session" in capsys.readouterr().out


def test_a_set_up_problem_is_still_raised():
    def missing() -> None:
        raise ConfigError("CAFE_MODEL is not set.")

    with pytest.raises(ConfigError):
        live_story("s08.session", missing)


def test_each_live_sets_aside_only_the_items_that_failed(capsys):
    def draft(table: int) -> int:
        if table == 3:
            _timeout()
        return table * 10

    batch = each_live("s09.shift", [1, 2, 3, 4], draft)
    assert batch.done == [(1, 10), (2, 20), (4, 40)] and batch.failed == [(3, "timeout")]
    assert batch.values == [10, 20, 40]
    assert "1 of 4 items hit an endpoint problem (timeout)" in capsys.readouterr().out
    assert not batch.skipped("the report")  # three orders ran: the report has something to show


def test_each_live_with_every_item_failed_skips_what_needs_it(capsys):
    batch = each_live("s09.shift", [1, 2], lambda _: _timeout())
    assert batch.values == [] and len(batch.failed) == 2
    assert batch.skipped("the report")


def test_a_failed_story_keeps_the_figure_banked_before(capsys):
    course.checkpoint("s08", "matched", 3, model="smollm2", source="live")
    failed = live_story("s08.session", _timeout)
    course.checkpoint("s08", "matched", 0, model="smollm2", needs=[failed])
    assert "not replaced" in capsys.readouterr().out
    assert course.load_progress()["checkpoints"]["s08"]["matched"]["value"] == 3


def test_a_failed_story_with_nothing_banked_banks_the_failure_not_a_figure():
    failed = live_story("s08.session", _timeout)
    course.checkpoint("s08", "matched", 0, model="smollm2", needs=[failed])
    banked = course.load_progress()["checkpoints"]["s08"]["matched"]["value"]
    assert banked["failed"] == "timeout" and banked["story"] == "s08.session"


def test_a_story_that_ran_banks_its_figure():
    ran = live_story("s08.session", lambda: 3)
    course.checkpoint("s08", "matched", ran.value, model="smollm2", needs=[ran])
    assert course.load_progress()["checkpoints"]["s08"]["matched"]["value"] == 3


def test_a_bad_key_is_refused_before_the_model_is_called():
    called = []
    with pytest.raises(ValueError):
        live_story("session eight", lambda: called.append(1))
    assert called == []


def test_print_table_pads_each_column_to_its_widest_cell(capsys):
    course.print_table([(1, "latte"), (12, "tea")], ["table", "item"])
    assert capsys.readouterr().out == "table  item\n1      latte\n12     tea\n"


def test_counted_counts_calls_and_passes_replies_through(capsys):
    counted = course.Counted(lambda messages: len(messages), announce=True)
    assert counted([1, 2]) == 2 and counted([]) == 0 and counted.calls == 2
    assert "waiting for draft 2" in capsys.readouterr().out
