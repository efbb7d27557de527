"""cafe.course.reveals: a reveal switch holds nothing before the flip, loads its content after, and says
how to reveal where widgets do not draw. Notebooks call it as `course.reveal`, so that is checked too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import ANSWER

from cafe import course
from cafe.course.reveals import ANSWERS_DIR, Reveal, answers_path, reveal, reveal_now

pytestmark = pytest.mark.usefixtures(
    "home"
)  # each test: its own CAFE_HOME, headless (tests/conftest.py)


# --- the course toolkit re-exports the switch -------------------------------------------------


def test_course_reexports_the_reveal_switch():
    assert course.reveal is reveal
    assert course.reveal_now is reveal_now
    assert course.answers_path is answers_path
    assert course.Reveal is Reveal


def test_answers_path_is_the_session_file_in_the_answers_folder(answers):
    assert answers_path("s07.why_cap") == ANSWERS_DIR / "s07.json"
    assert answers_path("s07.why_cap", answers_dir=answers) == answers / "s07.json"


# --- headless text: how to reveal, never the content; reveal_now prints it ---------------------


def test_reveal_headless_prints_how_to_reveal_and_never_the_answer(capsys, answers):
    reveal("s07.why_cap", answers_dir=answers)
    out = capsys.readouterr().out
    assert out == (
        "[reveal s07.why_cap] Answer hidden. Flip the switch, or run: "
        'course.reveal_now("s07.why_cap")\n'
    )
    assert ANSWER not in out


def test_reveal_of_source_headless_names_the_object_not_its_code(capsys):
    reveal("s00.source", source=course.checkpoint)
    out = capsys.readouterr().out
    assert out == (
        "[reveal s00.source] Source hidden. Flip the switch, or run: "
        'course.reveal_now("s00.source", source=cafe.course.toolkit.checkpoint)\n'
    )
    assert "def checkpoint" not in out


def test_reveal_now_prints_the_answer(capsys, answers):
    reveal_now("s07.why_cap", answers_dir=answers)
    assert capsys.readouterr().out == f"[reveal s07.why_cap]\n{ANSWER}\n"


def test_reveal_now_joins_a_list_of_lines(capsys, answers):
    reveal_now("s07.lines", answers_dir=answers)
    assert capsys.readouterr().out == "[reveal s07.lines]\none\ntwo\n"


def test_reveal_now_with_source_prints_the_source(capsys):
    reveal_now("s00.source", source=course.headless)
    assert "def headless(environ" in capsys.readouterr().out


# --- the widget: nothing before the flip, the content after ----------------------------------


def test_reveal_widget_holds_no_answer_before_the_flip(answers):
    handle = reveal("s07.why_cap", answers_dir=answers)
    box = handle.widget()
    texts = [
        repr(box),
        repr(handle),
        repr(handle.toggle),
        repr(handle.output),
        json.dumps(handle.toggle.get_state(), default=str),
        json.dumps(handle.output.get_state(), default=str),
        json.dumps(box.get_state(), default=str),
        json.dumps(box._repr_mimebundle_(), default=str),
    ]
    for text in texts:
        assert ANSWER not in text
    assert handle.output.outputs == ()
    assert "s07.why_cap" in repr(handle.toggle)  # the switch is named


def test_reveal_flip_loads_the_answer_and_unflip_clears_it(answers):
    handle = reveal("s07.why_cap", answers_dir=answers)
    handle.widget()
    handle.toggle.value = True  # what a click does: the observer runs
    assert handle.output.outputs[0]["data"]["text/plain"] == ANSWER
    assert ANSWER in json.dumps(handle.output.get_state())
    handle.toggle.value = False
    assert handle.output.outputs == ()


def test_reveal_reads_the_answer_only_when_flipped(answers):
    handle = reveal("s07.why_cap", answers_dir=answers)
    handle.widget()
    (answers / "s07.json").write_text(json.dumps({"why_cap": "edited after the switch was drawn"}))
    handle.toggle.value = True
    assert handle.output.outputs[0]["data"]["text/plain"] == "edited after the switch was drawn"


def test_reveal_opens_no_answers_file_until_flipped(answers, monkeypatch):
    opened = []
    real_read_text = Path.read_text

    def spy(path, *args, **kwargs):
        opened.append(Path(path))
        return real_read_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", spy)
    handle = reveal("s07.why_cap", answers_dir=answers)
    handle.widget()
    assert opened == []  # drawing the switch read nothing
    handle.toggle.value = True
    assert opened == [answers / "s07.json"]
    assert handle.output.outputs[0]["data"]["text/plain"] == ANSWER


def test_reveal_of_an_answers_file_that_is_not_json_fails_only_when_flipped(answers, capsys):
    (answers / "s08.json").write_text("{ not json")
    handle = reveal("s08.why", answers_dir=answers)  # not parsed yet, so no error yet
    assert capsys.readouterr().out.startswith("[reveal s08.why] Answer hidden.")
    handle.widget()
    handle.toggle.value = True
    shown = handle.output.outputs[0]["data"]["text/plain"]
    assert shown.startswith("Cannot reveal s08.why:") and "not valid JSON" in shown


def test_reveal_of_source_flips_to_highlighted_source():
    handle = reveal("s00.source", source=course.headless)
    handle.widget()
    assert "def headless" not in json.dumps(handle.output.get_state())
    handle.toggle.value = True
    data = handle.output.outputs[0]["data"]
    assert data["text/plain"].startswith("def headless(")
    assert "<span" in data["text/html"]


def test_reveal_in_jupyter_displays_the_widget_with_a_text_fallback(answers, monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr("cafe.course.reveals.headless", lambda environ=None: False)
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append((obj, raw)))
    handle = reveal("s07.why_cap", answers_dir=answers)
    ((bundle, raw),) = shown
    assert raw is True
    assert (
        bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == handle.widget().model_id
    )
    assert bundle["text/plain"] == handle.text()
    assert ANSWER not in json.dumps(bundle)


# --- mistakes: each error names the file, the key or the object -------------------------------


def test_reveal_missing_key_is_reported_when_flipped_naming_the_file_and_the_key(answers):
    handle = reveal("s07.nope", answers_dir=answers)  # the file exists; its text is not read
    handle.widget()
    handle.toggle.value = True
    shown = handle.output.outputs[0]["data"]["text/plain"]
    assert shown.startswith("Cannot reveal s07.nope:") and "s07.json has no key 'nope'" in shown
    with pytest.raises(LookupError, match=r"s07\.json has no key 'nope'"):
        reveal_now("s07.nope", answers_dir=answers)


def test_reveal_missing_answers_file_is_reported_at_once_naming_the_file(answers):
    with pytest.raises(LookupError, match=r"No answers file .*s09\.json for reveal key 's09.why'"):
        reveal("s09.why", answers_dir=answers)
    with pytest.raises(LookupError, match=r"No answers file .*s09\.json"):
        reveal_now("s09.why", answers_dir=answers)


def test_reveal_bad_key_shape_says_how_to_write_it():
    with pytest.raises(ValueError, match="'<session>.<name>'"):
        reveal("why_cap")


def test_reveal_of_an_object_without_source_is_a_clear_error():
    with pytest.raises(LookupError, match="cannot show the source"):
        reveal("s00.len", source=len)


def test_reveal_of_the_session_00_answers_file_works(capsys):
    reveal("s00.why_tool_call")
    assert capsys.readouterr().out.startswith("[reveal s00.why_tool_call] Answer hidden.")
