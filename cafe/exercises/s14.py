"""Session 14's your-turn checkers: the governor's decision order, then a host reading of your own.

1. `check_overruled` checks the notebook's `my_overruled()`: for four of the five cut reasons, an
   observation whose own condition for that cut holds, yet the governor decides something else,
   because an earlier check takes the turn or the rest of the condition fails, with all four
   decisions different and none of them a plain `proceed`. Solving it means reasoning about the
   order of `cafe.governor.decide_pace`, not copying its table.
2. `check_reading` checks the notebook's `my_reading(view)`, a host reading for the till written
   any way the learner likes: nothing verified reads as None; a turn whose tests ran (an edit
   before them in the same turn included) reads a number; and the numbers rise from a suite that
   did not load, through 0, 1 and 3 of 4 passing, to all 4. Then the same properties on
   generated turns (`cafe.exercises.reference_s14`: reads and edits before and after the runs,
   reads of notes and logs that quote a run among them, suites of 1 to 12 tests, pytest's header
   and failure lines, warnings, the suite run twice or three times in a turn, a run a hook
   forced; a turn whose later run is redder reads a number, whichever run it reads). The
   course's `passing_tests` is refused: the exercise is a reading of your own.

Notebook: notebooks/s14-host-facts.ipynb. Lesson: sessions/s14-host-facts/lesson.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_broken
from cafe.exercises.library import is_library
from cafe.exercises.reference_s14 import (
    QUIET_CALLS,
    Turn,
    falling_turns,
    greener_pairs,
    pytest_output,
    quiet_turns,
)
from cafe.governor.pace import (
    CUT_REASONS,
    EXTEND_MAX_DEFAULT,
    PACE_CHECK_MAX_DEFAULT,
    PaceObservation,
    governor_pace_decision,
)
from cafe.governor.pacing import passing_tests
from cafe.loop.agent import ToolResult, TurnView

__all__ = ["OVERRULED_REASONS", "check_overruled", "check_reading"]

# The cut whose condition cannot be overruled once the checkpoint has passed (it is checked
# first), and the four the exercise asks about, in the governor's order.
NOT_OVERRULABLE = "no_progress_at_checkpoint"
OVERRULED_REASONS: tuple[str, ...] = tuple(r for r in CUT_REASONS if r != NOT_OVERRULABLE)


def _condition(reason: str, obs: PaceObservation) -> bool:
    """Whether the observation shows the fact a cut reason is named after (default policy)."""
    if reason == "no_verifier_progress":
        return obs.verifier_signature_unchanged
    if reason == "env_blame_without_infra":
        return obs.env_blame_without_infra
    if reason == "extend_budget_exhausted":
        return obs.extends_used >= EXTEND_MAX_DEFAULT
    if reason == "pace_check_budget_exhausted":
        return obs.pace_checks_used >= PACE_CHECK_MAX_DEFAULT
    raise ValueError(f"{reason!r} is not one of {OVERRULED_REASONS}")


_FACT = {
    "no_verifier_progress": "verifier_signature_unchanged must be True",
    "env_blame_without_infra": "env_blame_without_infra must be True",
    "extend_budget_exhausted": f"extends_used must be at least extend_max ({EXTEND_MAX_DEFAULT})",
    "pace_check_budget_exhausted": f"pace_checks_used must be at least pace_check_max ({PACE_CHECK_MAX_DEFAULT})",
}


def _one(reason: str, obs: Any) -> tuple[str | None, str | None]:
    """(the problem, or None; the decision as 'action reason', or None) for one observation."""
    if not isinstance(obs, Mapping):
        return f"{reason}: give an observation dict, not {type(obs).__name__}", None
    try:
        record = PaceObservation.from_mapping(obs)
    except (TypeError, ValueError) as exc:
        return f"{reason}: the governor refuses this observation: {exc}", None
    if not _condition(reason, record):
        return f"{reason}: its condition does not hold here ({_FACT[reason]})", None
    decision = governor_pace_decision({}, obs)
    shown = f"{decision['action']} {decision.get('reason') or ''}".strip()
    if decision["action"] == "proceed":
        return (
            f"{reason}: the governor just proceeds (no budget armed, done, or before the checkpoint); "
            "make it decide something"
        ), shown
    if decision.get("reason") == reason:
        return (
            f"{reason}: the governor cut with {reason} itself: nothing overruled it. Which check "
            "comes earlier, or which other part of this cut's condition can you make false?"
        ), shown
    return None, shown


def check_overruled(fn: Callable[[], Mapping[str, Any]]) -> list[str]:
    """Problems with the learner's `my_overruled()`; empty when all four are overruled, four ways."""
    found = call(fn)
    if isinstance(found, Raised):
        return [found.problem("my_overruled()")]
    if not isinstance(found, Mapping):
        return [wrong_type("my_overruled()", found, "a dict of cut reason -> observation")]
    problems = []
    if NOT_OVERRULABLE in found:
        problems.append(
            f"{NOT_OVERRULABLE}: leave it out. It is the first check after the checkpoint, so "
            "once the governor decides anything, nothing can overrule it"
        )
    missing = [r for r in OVERRULED_REASONS if r not in found]
    if missing:
        problems.append(f"missing: {', '.join(missing)} (one observation for each)")
    unknown = sorted(set(found) - set(CUT_REASONS))
    if unknown:
        problems.append(
            f"not cut reasons: {', '.join(map(str, unknown))} (the reasons are {list(CUT_REASONS)})"
        )
    decided: dict[str, str] = {}
    for reason in OVERRULED_REASONS:
        if reason in found:
            problem, shown = _one(reason, found[reason])
            if problem:
                problems.append(problem)
            elif shown is not None:
                decided[reason] = shown
    seen: dict[str, str] = {}
    for reason, shown in decided.items():
        if shown in seen:
            problems.append(
                f"{reason}: decided '{shown}', like {seen[shown]}; every answer must be different"
            )
        seen.setdefault(shown, reason)
    return problems


def _view(*results: ToolResult) -> TurnView:
    return TurnView(2, 10, (), (), tuple(results), 0.0)


def _tests(ok: bool, output: str, forced: bool = False) -> ToolResult:
    return ToolResult("c", "run_tests", {}, ok, output, "verify", forced)


_EDIT = ToolResult("c", "write_file", {"path": "bill.py"}, True, "wrote bill.py", "mutate")
_READ = ToolResult("c", "read_file", {"path": "bill.py"}, True, "def split(...)", "observe")
_SPLIT = "FAILED check_bill.py::test_split - assert 999 == 1000"
# Turns where nothing was verified: the reading is None, whatever else happened.
QUIET_VIEWS: tuple[tuple[str, TurnView], ...] = (
    ("a turn that only read a file", _view(_READ)),
    ("a turn that only wrote a file", _view(_EDIT)),
)
# Turns where the tests ran, from none passing to all four: each reads a number...
RISING_VIEWS: tuple[tuple[str, TurnView], ...] = (
    ("the suite did not even load (1 error)", _view(_tests(False, f"{_SPLIT}\n1 error in 0.05s"))),
    ("0 of 4 passed", _view(_tests(False, f"{_SPLIT}\n4 failed in 0.02s"))),
    ("1 of 4 passed", _view(_tests(False, f"{_SPLIT}\n3 failed, 1 passed in 0.02s"))),
    (
        "3 of 4 passed, after an edit in the same turn",
        _view(_EDIT, _tests(False, f"{_SPLIT}\n1 failed, 3 passed in 0.02s")),
    ),
    ("4 of 4 passed", _view(_tests(True, "4 passed in 0.02s"))),
    (
        "1 of 4 passed, then all 4 on a second run in the same turn",
        _view(
            _tests(False, f"{_SPLIT}\n3 failed, 1 passed in 0.02s"),
            _EDIT,
            _tests(True, "4 passed in 0.02s"),
        ),
    ),
)
# ...and each of these pairs (lower, higher) must read strictly higher for the second: a suite
# that did not load and one where every test failed may read alike, both below 1 of 4 passing;
# a turn whose second run went green reads above 3 of 4, whatever its first run read.
RISES: tuple[tuple[int, int], ...] = ((0, 2), (1, 2), (2, 3), (3, 4), (3, 5))
READING_IDEA = (
    "a host reading counts what the turn's test runs verified (a file that says tests passed is "
    "no run): None when nothing ran, a number that rises with every test that passes"
)


def _read_number(reading: Callable[[TurnView], Any], label: str, view: TurnView) -> Any:
    """The reading of one view where tests ran; a problem string when it is not a number."""
    value = call(reading, view)
    if isinstance(value, Raised):
        return value.problem(label)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return mismatch(label, value, Described("a number"), READING_IDEA)
    return value


def _quiet(name: str) -> ToolResult:
    """One of a generated turn's reads and edits (`QUIET_CALLS`), as the loop records it."""
    tool, path, kind, output = QUIET_CALLS[name]
    return ToolResult("c", tool, {"path": path}, True, output, kind)


def _turn_view(turn: Turn) -> TurnView:
    """The `TurnView` of a generated turn: its reads and edits, then its test runs, if any (the
    last one forced, when a hook ran it), then the reads and edits after them."""
    runs = [_tests(n == turn.total, pytest_output(turn, n)) for n in turn.earlier]
    last = _tests(turn.passed == turn.total, pytest_output(turn), forced=turn.forced)
    checks = runs + [last] if turn.total else []
    return _view(*map(_quiet, turn.before), *checks, *map(_quiet, turn.after))


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value == value


def _generated_problems(reading: Callable[[TurnView], Any]) -> list[str]:
    """The smallest generated turn (or pair of turns) where a stated property fails."""
    found = first_broken(
        lambda turn: reading(_turn_view(turn)), built_once(quiet_turns), lambda t, v: v is not None
    )
    if found:
        return [counterexample(Described(str(found[0])), found[1], None, READING_IDEA)]

    def both(pair: tuple[Turn, Turn]) -> tuple[Any, Any]:
        return reading(_turn_view(pair[0])), reading(_turn_view(pair[1]))

    def broken(pair: tuple[Turn, Turn], read: Any) -> bool:
        if not isinstance(read, tuple):  # it raised
            return True
        return not (_number(read[0]) and _number(read[1]) and read[0] < read[1])

    found = first_broken(both, built_once(greener_pairs), broken)
    if found is None:
        return _falling_problems(reading)
    (low, high), read = found
    if not isinstance(read, tuple):
        return [f"on {high}: your reading raised ({read!r})"]
    if not _number(read[0]) or not _number(read[1]):
        turn, value = (low, read[0]) if not _number(read[0]) else (high, read[1])
        return [counterexample(Described(str(turn)), value, Described("a number"), READING_IDEA)]
    expected = Described(f"more than {read[0]!r} (what {str(low).replace('a turn: ', '')} read)")
    return [counterexample(Described(str(high)), read[1], expected, READING_IDEA)]


# Generated turns whose later run is redder: only "a number" is asked of them (reference_s14).
_FALLING_EXAMPLES = 60


def _falling_problems(reading: Callable[[TurnView], Any]) -> list[str]:
    """The smallest generated turn whose later run is redder where the reading is not a number."""
    found = first_broken(
        lambda turn: reading(_turn_view(turn)),
        built_once(falling_turns),
        lambda turn, value: not _number(value),
        examples=_FALLING_EXAMPLES,
    )
    if found is None:
        return []
    return [counterexample(Described(str(found[0])), found[1], Described("a number"), READING_IDEA)]


def check_reading(reading: Callable[[TurnView], Any]) -> list[str]:
    """Problems with a learner's host reading over a few of the till's turns; empty when it holds."""
    if is_library(reading, passing_tests, trial=(RISING_VIEWS[0][1],)):
        return [library_answer("passing_tests")]
    problems: list[str] = []
    for label, view in QUIET_VIEWS:
        value = call(reading, view)
        if isinstance(value, Raised):
            problems.append(value.problem(label))
        elif value is not None:
            problems.append(mismatch(label, value, None, READING_IDEA))
    read = [(label, _read_number(reading, label, view)) for label, view in RISING_VIEWS]
    problems += [value for _, value in read if isinstance(value, str)]
    for lower, higher in RISES:
        (low_label, low), (label, value) = read[lower], read[higher]
        if not isinstance(low, str) and not isinstance(value, str) and not low < value:
            expected = Described(f"more than {low!r} (what {low_label} read)")
            problems.append(mismatch(label, value, expected, READING_IDEA))
    return problems or _generated_problems(reading)
