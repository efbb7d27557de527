"""cafe.course.strict: with CAFE_STRICT=1 a failed exercise, an unanswered prediction or a live error
fails its cell, and nbval over a learner's notebook names exactly those cells; unset, nothing fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import learners
import pytest

from cafe import course
from cafe.course import strict as strict_mode
from cafe.endpoint.errors import ConfigError, EndpointError

pytestmark = pytest.mark.usefixtures("home")  # each test: its own CAFE_HOME, headless


def _wrong_check(fn):
    return [] if fn(1) == 2 else ["f(1) should be 2"]


# --- the switch ------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["1", "true", "YES", " on "])
def test_strict_is_on_for_the_true_words(raw):
    assert strict_mode.is_strict({"CAFE_STRICT": raw}) is True


@pytest.mark.parametrize("raw", ["", "0", "false", "no", "off"])
def test_strict_is_off_when_unset_or_a_false_word(raw):
    assert strict_mode.is_strict({"CAFE_STRICT": raw}) is False
    assert strict_mode.is_strict({}) is False


def test_strict_names_a_value_that_is_neither():
    with pytest.raises(ConfigError, match=r"CAFE_STRICT is 'maybe'.*export CAFE_STRICT=1"):
        strict_mode.is_strict({"CAFE_STRICT": "maybe"})


def test_strict_is_read_when_the_cell_runs_not_at_import(monkeypatch):
    monkeypatch.delenv("CAFE_STRICT", raising=False)
    strict_mode.fail_cell("nothing happens")
    monkeypatch.setenv("CAFE_STRICT", "1")
    with pytest.raises(course.StrictModeError, match="CAFE_STRICT=1"):
        strict_mode.fail_cell("now it fails")


# --- the three cells it fails, outside a kernel (where it raises) --------------------------------


def test_compare_failed_raises_in_strict_mode_after_saving_the_status(monkeypatch, capsys, home):
    monkeypatch.setenv("CAFE_STRICT", "1")
    with pytest.raises(course.StrictModeError, match=r"\[compare <lambda>\] failed: 1 problem"):
        course.compare(lambda x: x, _wrong_check, key="s00.strict_demo")
    assert "f(1) should be 2" in capsys.readouterr().out
    assert course.load_progress()["exercises"]["s00.strict_demo"]["status"] == "failed"


def test_compare_not_attempted_raises_in_strict_mode(monkeypatch):
    monkeypatch.setenv("CAFE_STRICT", "1")

    def stub(x):
        raise NotImplementedError("your turn")

    with pytest.raises(course.StrictModeError, match="not attempted yet"):
        course.compare(stub, _wrong_check)


def test_compare_passed_and_every_default_run_never_raise(monkeypatch):
    monkeypatch.setenv("CAFE_STRICT", "1")
    assert course.compare(lambda x: x + 1, _wrong_check).passed
    monkeypatch.delenv("CAFE_STRICT")
    assert course.compare(lambda x: x, _wrong_check).status == "failed"


def test_show_outcome_without_a_prediction_raises_in_strict_mode(monkeypatch, home):
    monkeypatch.setenv("CAFE_STRICT", "1")
    handle = course.predict("s00.strict_guess", "How many?", options=["1", "2"])
    with pytest.raises(course.StrictModeError, match="s00.strict_guess.*no prediction"):
        course.show_outcome(handle, "2")
    assert course.load_progress()["outcomes"]["s00.strict_guess"]["match"] is None
    handle.value = "1"
    course.show_outcome(handle, "2")  # a prediction that missed is not a failure


def test_live_story_endpoint_problem_raises_in_strict_mode(monkeypatch, home):
    def down():
        raise EndpointError("no answer in 30 s", kind="timeout")

    assert course.live_story("s00.strict_live", down).failed == "timeout"
    monkeypatch.setenv("CAFE_STRICT", "1")
    with pytest.raises(course.StrictModeError, match=r"s00.strict_live.*\(timeout\)"):
        course.live_story("s00.strict_live", down)
    with pytest.raises(course.StrictModeError):
        course.each_live("s00.strict_batch", [1, 2], lambda item: down())


# --- nbval over learners' notebooks --------------------------------------------------------------

FAILED = re.compile(r"^FAILED (\S+\.ipynb)::Cell (\d+)", re.M)


def _nbval(folder: Path, strict: bool) -> tuple[set[tuple[str, int]], str]:
    """nbval over every notebook in `folder`, in a fresh pytest; the (notebook, cell) that failed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "CAFE_STRICT"))}
    env.update(CAFE_HEADLESS="1", COURSE_MODE="offline", CAFE_HOME=str(folder / "home"))
    # nbval is the only plugin this run uses: loading the others installed (hypothesis, xdist,
    # randomly, anyio) cost about 1.7 s of CPU a run and changes no cell's verdict
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if strict:
        env["CAFE_STRICT"] = "1"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "nbval.plugin"]
        + [
            "--nbval-lax",
            "--nbval-current-env",
            "-o",
            "addopts=",
            *sorted(p.name for p in folder.glob("*.ipynb")),
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return {(name, int(cell)) for name, cell in FAILED.findall(run.stdout)}, run.stdout


@pytest.mark.slow
def test_nbval_in_strict_mode_fails_exactly_the_learners_shortfalls(tmp_path):
    """A done notebook passes; one with three shortfalls (a wrong exercise, an unanswered
    prediction, a live error) fails exactly those three cells; an untouched one fails every outcome
    and every compare. The three shortfalls share one notebook (one kernel, not three): nbval judges
    each cell on its own, so the exact set still says each shortfall fails its own cell and no
    other cell fails, as three notebooks of one shortfall each did."""
    nb = learners.load("s00-setup.ipynb")
    done = learners.answered(learners.solved_s00(nb))
    wrong = learners.wrong(learners.solved_s00(nb, ("responder",)), "tool_arguments", "return {}")
    shortfalls = learners.live_down(
        learners.answered(wrong, skip=("s00.two_tools",)), "s00.live_reply"
    )
    for name, made in [("done", done), ("shortfalls", shortfalls), ("untouched", nb)]:
        learners.save(made, tmp_path / f"{name}.ipynb")
    failed, out = _nbval(tmp_path, strict=True)

    def cell(text: str) -> int:
        return learners.code_cell_number(nb, text)

    outcomes = [cell(f"show_outcome({h}") for h in ("\n    guess,", "guess_tools", "guess_again")]
    compares = [cell("course.compare(tool_arguments"), cell("course.compare(responder")]
    assert failed == {
        ("shortfalls.ipynb", cell("course.compare(tool_arguments")),
        ("shortfalls.ipynb", cell("course.show_outcome(guess_tools")),
        ("shortfalls.ipynb", cell('course.live_story("s00.live_reply"')),
        # not attempted is not done: an untouched notebook fails every outcome and every compare
        *(("untouched.ipynb", number) for number in outcomes + compares),
    }, out


@pytest.mark.slow
def test_nbval_without_strict_mode_passes_a_learners_notebook_whatever_they_did(tmp_path):
    """One notebook holds every shortfall an untouched one has (an exercise not attempted, every
    prediction unanswered) and two more (a wrong exercise, a live error): it passes, so a second,
    untouched notebook (and its kernel) would check nothing more."""
    nb = learners.load("s00-setup.ipynb")
    wrong = learners.wrong(nb, "tool_arguments", "return {}")
    code = [cell for cell in wrong["cells"] if cell["cell_type"] == "code"]
    stub = code[learners.code_cell_number(wrong, "def responder(")]["source"]
    assert "raise NotImplementedError(" in "".join(stub)  # responder is still not attempted
    learners.save(learners.live_down(wrong, "s00.live_reply"), tmp_path / "wrong.ipynb")
    failed, out = _nbval(tmp_path, strict=False)
    assert failed == set(), out
    assert " passed" in out
