"""cafe.course: fixed headless text, predictions, compare, checkpoints, progress file.

The reveal switch has its own tests, in tests/test_reveals.py."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from cafe import course
from cafe.course import predictions

FIXED = datetime(2026, 11, 29, 12, 0, 0, tzinfo=timezone.utc)
PREDICTIONS = Path(__file__).resolve().parent.parent / "cafe" / "data" / "predictions"


def clock() -> datetime:
    return FIXED


pytestmark = pytest.mark.usefixtures(
    "home"
)  # each test: its own CAFE_HOME, headless (tests/conftest.py)


def progress(home: Path) -> dict:
    return json.loads((home / "progress.json").read_text())


# --- headless text ----------------------------------------------------------------------------


def test_headless_is_on_when_the_variable_is_set_or_there_is_no_kernel():
    assert course.headless({"CAFE_HEADLESS": "1"})
    assert course.headless({})  # pytest is not a Jupyter kernel


def test_predict_headless_prints_the_question_options_and_how_to_answer(capsys):
    course.predict("s07.stop_reason", "Which stop reason?", options=["passed", "retries_exhausted"])
    assert capsys.readouterr().out == (
        "[predict s07.stop_reason] Which stop reason?\n"
        "  options: passed | retries_exhausted\n"
        "  Record it before the run: set .value on the handle this cell assigned "
        "(the name left of `= course.predict(...)`) to your answer.\n"
    )


def test_predict_fallback_suggests_no_option_and_no_variable_name(capsys):
    # whichever option an example showed would read as a hint, and the handle's name is the notebook's
    course.predict("s07.ticket", "Does a ticket survive?", options=["no", "yes"])
    how = capsys.readouterr().out.splitlines()[-1]
    assert "'no'" not in how and "'yes'" not in how and "guess" not in how


def test_predict_headless_with_an_answer_prints_it(capsys):
    course.predict("s07.attempts", "How many attempts?", answer="3")
    assert capsys.readouterr().out == (
        "[predict s07.attempts] How many attempts?\n  your prediction: '3'\n"
    )


def test_show_outcome_prints_prediction_beside_outcome_and_saves_it(capsys, home):
    guess = course.predict("s07.stop_reason", "Which?", options=["passed", "retries_exhausted"])
    guess.value = "passed"
    capsys.readouterr()
    course.show_outcome(guess, "retries_exhausted", clock=clock)
    assert capsys.readouterr().out == (
        "[outcome s07.stop_reason]\n"
        "  you predicted: 'passed'\n"
        "  actual:        'retries_exhausted'\n"
        "  no match\n"
    )
    assert progress(home)["outcomes"]["s07.stop_reason"] == {
        "predicted": "passed",
        "actual": "retries_exhausted",
        "match": False,
        "saved_at": "2026-11-29T12:00:00+00:00",
    }


def test_show_outcome_matches_text_against_a_number(capsys):
    guess = course.predict("s07.attempts", "How many?", answer=" 3 ")
    course.show_outcome(guess, 3)
    assert capsys.readouterr().out.endswith("  actual:        3\n  match\n")


def test_show_outcome_without_a_prediction_says_so(capsys, home):
    guess = course.predict("s07.attempts", "How many?")
    capsys.readouterr()
    course.show_outcome(guess, 3)
    assert capsys.readouterr().out == (
        "[outcome s07.attempts]\n"
        "  you predicted: -\n"
        "  actual:        3\n"
        "  no prediction was recorded (predict before you run next time)\n"
    )
    assert progress(home)["outcomes"]["s07.attempts"]["match"] is None


def test_headless_output_is_the_same_on_every_run(capsys, answers):
    def run() -> str:
        guess = course.predict("s07.stop_reason", "Which?", options=["passed", "retries_exhausted"])
        course.reveal("s07.why_cap", answers_dir=answers)
        course.show_outcome(guess, "passed")
        course.checkpoint("s07", "attempts_to_pass", {"1": 2}, model="m")
        return capsys.readouterr().out

    assert run() == run()


def test_predict_in_jupyter_displays_the_widget_with_a_text_fallback(monkeypatch, capsys):
    import IPython.display

    shown = []
    monkeypatch.setattr(predictions, "headless", lambda environ=None: False)
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
    guess = course.predict("s07.stop_reason", "Which?", options=["passed", "retries_exhausted"])
    (bundle,) = shown
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == guess.text()
    assert capsys.readouterr().out == ""  # the widget, not the headless text


def test_handles_display_nothing_more_after_the_call_that_made_them(capsys, answers):
    handles = [
        course.predict("s07.a", "Q?"),
        course.reveal("s07.why_cap", answers_dir=answers),
        course.compare(right, double_check),
    ]
    capsys.readouterr()
    for handle in handles:  # what IPython calls for a trailing expression
        assert handle._ipython_display_() is None
    assert capsys.readouterr().out == ""


# --- predict widgets --------------------------------------------------------------------------


def test_predict_widget_change_records_the_value(home):
    guess = course.predict(
        "s07.stop_reason", "Which?", options=["passed", "retries_exhausted"], clock=clock
    )
    control = guess.widget()
    assert type(control).__name__ == "ToggleButtons"
    control.value = "retries_exhausted"  # what a click does
    assert guess.value == "retries_exhausted"
    assert progress(home)["predictions"]["s07.stop_reason"] == {
        "question": "Which?",
        "value": "retries_exhausted",
        "saved_at": "2026-11-29T12:00:00+00:00",
    }


def test_predict_buttons_show_each_option_whole():
    """Issue 37: 62 of 205 options were cut off ("nothing: it answe…") at a fixed button width.
    Each button is as wide as its text, and the row wraps instead of clipping."""
    options = ["nothing: it answers in plain text", "a", "the copy, the extra allergy and more"]
    control = course.predict("s07.long", "Which?", options=options + ["b", "c"]).widget()
    assert type(control).__name__ == "ToggleButtons"
    assert control.style.button_width == "auto"
    assert control.layout.flex_flow == "row wrap" and control.layout.width == "100%"
    assert list(control.tooltips) == options + ["b", "c"]


def test_every_declared_option_fits_one_button_line():
    """A button is one line of text; at the notebook's width (about 700 px of 13 px text) an
    option up to 60 characters fits, and the longest the course asks is well under it."""
    longest = max(
        (
            option
            for path in PREDICTIONS.glob("s*.json")
            for d in json.loads(path.read_text(encoding="utf-8")).values()
            for option in d["options"]
        ),
        key=len,
    )
    assert len(longest) <= 60, longest


def test_predict_plain_assignment_updates_the_widget():
    guess = course.predict("s07.stop_reason", "Which?", options=["passed", "retries_exhausted"])
    control = guess.widget()
    guess.value = "passed"
    assert control.value == "passed"


def test_predict_without_options_is_a_text_box_and_many_options_a_dropdown():
    assert type(course.predict("s07.free", "Why?").widget()).__name__ == "Text"
    many = course.predict("s07.many", "Which?", options=list("abcdefg"))
    assert type(many.widget()).__name__ == "Dropdown"
    assert many.widget().layout.width == "100%"  # the chosen option shows whole
    text = course.predict("s07.free", "Why?")
    text.widget().value = "because"
    assert text.value == "because"


def test_predict_rejects_a_value_outside_the_options():
    guess = course.predict("s07.stop_reason", "Which?", options=["passed"])
    with pytest.raises(ValueError, match="not one of the options"):
        guess.value = "maybe"


# --- compare ----------------------------------------------------------------------------------


def double_check(fn) -> list[str]:
    problems = []
    for x in (0, 2, 5):
        if fn(x) != 2 * x:
            problems.append(f"{x} gave {fn(x)!r}, expected {2 * x}")
    return problems


def stub(x):
    raise NotImplementedError("your turn")


def right(x):
    return 2 * x


def wrong(x):
    return x + 2


def test_compare_stub_is_not_attempted_yet(capsys):
    result = course.compare(stub, double_check)
    assert result == course.CompareResult("not_attempted", ())
    assert capsys.readouterr().out == (
        "[compare stub] not attempted yet: stub still raises NotImplementedError.\n"
        "  Replace the stub body with your own code, then run this cell again.\n"
    )


def test_compare_right_passes(capsys):
    result = course.compare(right, double_check)
    assert result.status == "passed" and result.passed and result.problems == ()
    assert capsys.readouterr().out == "[compare right] passed: every check holds.\n"


def test_compare_wrong_fails_with_each_problem(capsys):
    result = course.compare(wrong, double_check)
    assert result.status == "failed"
    assert result.problems == ("0 gave 2, expected 0", "5 gave 7, expected 10")
    assert capsys.readouterr().out == (
        "[compare wrong] failed: 2 problems\n  - 0 gave 2, expected 0\n  - 5 gave 7, expected 10\n"
    )


def test_compare_a_crash_in_the_learners_code_is_a_failure_not_a_traceback(capsys):
    def broken(x):
        return {}[x]

    result = course.compare(broken, double_check)
    assert result.status == "failed"
    assert result.problems == ("calling broken raised KeyError: 0",)


def test_compare_a_bug_in_the_check_itself_is_raised_not_blamed_on_the_learner():
    def buggy_check(fn):
        return [problem for problem in fn(1).missing_attribute]

    with pytest.raises(AttributeError):
        course.compare(right, buggy_check)


def test_compare_a_bug_in_the_check_is_raised_even_for_a_callable_object():
    # A learner's callable object has no code of its own to look for; what it raised still decides.
    class Doubler:
        def __call__(self, x):
            return 2 * x

    def buggy_check(fn):
        return [problem for problem in fn(1).missing_attribute]

    with pytest.raises(AttributeError):
        course.compare(Doubler(), buggy_check)


def test_compare_a_not_implemented_error_from_the_check_itself_is_raised():
    def unfinished_check(fn):
        fn(1)
        raise NotImplementedError("the check's author has not finished it")

    with pytest.raises(NotImplementedError, match="check's author"):
        course.compare(right, unfinished_check)


def test_compare_the_check_sees_the_learners_function_by_name():
    seen = []
    course.compare(right, lambda fn: seen.append(fn.__name__) or [])
    assert seen == ["right"]


def test_compare_a_check_that_returns_text_is_a_type_error():
    with pytest.raises(TypeError, match="must return a list of problem strings"):
        course.compare(right, lambda fn: "all good")


def test_compare_with_a_key_saves_the_status(home):
    course.compare(wrong, double_check, key="s07.double", clock=clock)
    assert progress(home)["exercises"]["s07.double"] == {
        "status": "failed",
        "problems": ["0 gave 2, expected 0", "5 gave 7, expected 10"],
        "saved_at": "2026-11-29T12:00:00+00:00",
    }


def test_compare_custom_hint_is_printed(capsys):
    course.compare(stub, double_check, hint="Start from the docstring.")
    assert capsys.readouterr().out.endswith("\n  Start from the docstring.\n")


# --- checkpoint -------------------------------------------------------------------------------


def test_checkpoint_prints_and_saves_value_model_and_time(capsys, home):
    course.checkpoint(
        "s07",
        "attempts_to_pass",
        {"1": 1, "2": 1, "3": 0, "exhausted": 1},
        model="cafe-scripted",
        clock=clock,
    )
    assert capsys.readouterr().out == (
        '[checkpoint s07.attempts_to_pass] banked {"1": 1, "2": 1, "3": 0, "exhausted": 1} '
        "(scripted; model: cafe-scripted)\n"
        "  saved to your progress file; course.load_progress() reads it back\n"
    )
    assert course.load_progress()["checkpoints"]["s07"]["attempts_to_pass"] == {
        "value": {"1": 1, "2": 1, "3": 0, "exhausted": 1},
        "model": "cafe-scripted",
        "source": "scripted",
        "saved_at": "2026-11-29T12:00:00+00:00",
    }


def test_checkpoint_labels_whose_number_it_is(home, capsys, monkeypatch):
    course.checkpoint("s06", "your_rule_catch_rate", 0.8, model="cafe-scripted", source="yours")
    assert "(yours; model: cafe-scripted)" in capsys.readouterr().out
    assert course.load_progress()["checkpoints"]["s06"]["your_rule_catch_rate"]["source"] == "yours"
    with pytest.raises(ValueError, match="yours, scripted, live"):
        course.checkpoint("s06", "x", 1, source="mine")
    monkeypatch.setenv("COURSE_MODE", "live")
    course.checkpoint("s06", "live_rate", 0.5, model="gpt")
    assert course.load_progress()["checkpoints"]["s06"]["live_rate"]["source"] == "live"


def test_checkpoint_keeps_other_entries(home):
    course.checkpoint("s07", "a", 1)
    course.checkpoint("s08", "b", [1, 2])
    course.checkpoint("s07", "a", 2)
    data = course.load_progress()
    assert data["checkpoints"]["s07"]["a"]["value"] == 2
    assert data["checkpoints"]["s08"]["b"]["value"] == [1, 2]
    assert data["checkpoints"]["s07"]["a"]["model"] is None


@pytest.mark.parametrize("value", [object(), float("nan"), {1.5: "x"}, {"a": [1, {2: 3}]}, {1, 2}])
def test_checkpoint_rejects_values_json_cannot_hold(value):
    with pytest.raises(TypeError, match="must be JSON data"):
        course.checkpoint("s07", "bad", value)


def test_checkpoint_rejects_a_bad_session():
    with pytest.raises(ValueError, match="'s07'"):
        course.checkpoint("07", "x", 1)


# --- import cost ------------------------------------------------------------------------------


def test_import_cafe_course_does_not_import_widgets_or_openai():
    code = "import sys, cafe.course; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    for heavy in ("ipywidgets", "IPython", "openai"):
        assert heavy not in loaded
