"""cafe.exercises.s01: each checker passes the reference, says "not attempted" for the notebook's
stub, and fails a plausible wrong answer with a complaint that says what is wrong."""

import pytest

from cafe import course
from cafe.exercises.s01 import check_own_tool, check_repeat_guard, reference_guard
from cafe.loop.guards import repeat_guard
from cafe.loop.tools import ToolOutput
from cafe.loop.turns import Stop

# --- your turn 1: repeat_guard -----------------------------------------------------------------


def test_check_repeat_guard_reference_passes_compare():
    assert course.compare(reference_guard, check=check_repeat_guard).status == "passed"


def test_check_repeat_guard_refuses_the_course_s_guard():
    (problem,) = check_repeat_guard(repeat_guard)
    assert "course's `repeat_guard`" in problem and "write your own" in problem


def test_check_repeat_guard_shows_a_shrunk_turn_where_a_stray_space_is_tidied_away():
    def folded(view):
        def tidy(items):
            return [(i.name, {k: str(v).strip() for k, v in i.arguments.items()}) for i in items]

        asked = tidy(view.calls)
        return Stop("stuck", "x") if asked and asked == tidy(view.prev_dispatch) else None

    (problem,) = check_repeat_guard(folded)
    assert problem.startswith("on look_up{'item': 'latte") and "expected None" in problem


def test_check_repeat_guard_names_only_guard_fails_on_a_different_argument():
    def names_only(view):  # plausible: compares tool names and forgets the arguments
        same = [c.name for c in view.calls] == [r.name for r in view.prev_dispatch]
        return Stop("stuck", "repeat") if view.calls and same else None

    problems = check_repeat_guard(names_only)
    assert problems[0].startswith(
        "look_up scone after look_up latte: returned Stop(reason='stuck', detail='repeat'), "
        "expected None"
    ), problems
    assert course.compare(names_only, check=check_repeat_guard).status == "failed"


# --- your turn 2: a tool of the learner's own ----------------------------------------------------


def remove_from_ticket(item: str, quantity: int = 1) -> ToolOutput:
    """Take an item off the kitchen ticket.

    Args:
        item: the menu item, as the ticket spells it
        quantity: how many to take off
    """
    if not item.strip():
        return ToolOutput(False, "Name the item to remove, e.g. latte.")
    return ToolOutput(True, f"removed {quantity} x {item}")


def test_check_own_tool_a_documented_tool_that_answers_empty_arguments_passes():
    assert check_own_tool(remove_from_ticket) == []
    assert course.compare(remove_from_ticket, check=check_own_tool).status == "passed"


def test_check_own_tool_notebook_stub_is_not_attempted(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    namespace = run_notebook_source("s01-agent-loop")
    assert course.compare(namespace["my_tool"], check=check_own_tool).status == "not_attempted"
    assert (
        course.compare(namespace["repeat_guard"], check=check_repeat_guard).status
        == "not_attempted"
    )


def undocumented(item: str) -> str:
    """Take an item off the ticket."""
    return f"removed {item}"


def fussy(item: str) -> str:
    """Take an item off the ticket.

    Args:
        item: the menu item
    """
    if not item:
        raise ValueError("item is empty")
    return f"removed {item}"


@pytest.mark.parametrize(
    "fn, complaint",
    [
        (
            undocumented,
            "parameter 'item' has no line in an Args: block, so the model sees only its name",
        ),
        (
            fussy,
            "called with the smallest arguments {'item': ''}: fussy raised ValueError: item is empty",
        ),
        (lambda item: "removed", "tool() cannot build it: tool() needs a type hint"),
    ],
)
def test_check_own_tool_plausible_wrong_tools_fail_with_the_reason(fn, complaint):
    problems = check_own_tool(fn)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(fn, check=check_own_tool).status == "failed"


def test_check_own_tool_without_a_docstring_says_the_model_reads_it():
    def silent(item: str) -> str:
        return "ok"

    assert any("no docstring" in problem for problem in check_own_tool(silent))


# --- the checkpoint: the learner's own figure ------------------------------------------------

_GUARD_STUB = "raise NotImplementedError(\"your turn: return Stop('stuck', ...) or None\")"
# A right guard shaped unlike the course's: each call as (name, sorted arguments), compared as lists.
_GUARD_SOLVED = (
    "asked = [(c.name, sorted(dict(c.arguments).items())) for c in view.calls]\n"
    "    seen = [(r.name, sorted(dict(r.arguments).items())) for r in view.prev_dispatch]\n"
    "    return Stop('stuck', 'same calls again') if asked and asked == seen else None"
)


def _run_notebook(tmp_path, monkeypatch, replace=None):
    import contextlib
    import io
    from pathlib import Path

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    path = Path(__file__).resolve().parents[1] / "sessions" / "s01-agent-loop" / "notebook.py"
    source = path.read_text(encoding="utf-8")
    if replace:
        assert replace[0] in source, "the notebook's stub changed"
        source = source.replace(replace[0], replace[1])
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(path), "exec"), {"__name__": "__notebook__"})
    return course.load_progress()["checkpoints"]["s01"]


def test_notebook_stub_banks_only_the_scripted_figure(tmp_path, monkeypatch):
    checkpoints = _run_notebook(tmp_path, monkeypatch)
    assert checkpoints["order_turns"]["source"] == "scripted"
    assert checkpoints["order_turns"]["value"]["turns"] == 3
    assert "your_guard" not in checkpoints, "a stub's figures are never banked as the learner's"


def test_notebook_with_the_guard_solved_banks_the_learners_own_figure(tmp_path, monkeypatch):
    checkpoints = _run_notebook(tmp_path, monkeypatch, (_GUARD_STUB, _GUARD_SOLVED))
    yours = checkpoints["your_guard"]
    assert yours["source"] == "yours" and yours["model"] is None
    assert yours["value"] == {"stop_reason": "stuck", "turns": 2, "turns_without": 4}
