"""Session 14's your-turn checkers: the governor's decision order, then a host reading of your own.

1. `check_overruled` checks the notebook's `my_overruled()`: for four of the five cut reasons, an
   observation whose own condition for that cut holds, yet the governor decides something else,
   because an earlier check takes the turn or the rest of the condition fails, with all four
   decisions different and none of them a plain `proceed`. Solving it means reasoning about the
   order of `cafe.governor.decide_pace`, not copying its table.
2. `check_reading` checks the notebook's `my_reading(view)`, a host reading for the till written
   any way the learner likes: nothing verified reads as None, a red run is a number (not None),
   and more passing tests read higher.

Notebook: notebooks/s14-host-facts.ipynb. Lesson: sessions/s14-host-facts/lesson.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cafe.governor.pace import (
    CUT_REASONS,
    EXTEND_MAX_DEFAULT,
    PACE_CHECK_MAX_DEFAULT,
    PaceObservation,
    governor_pace_decision,
)
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
    shown = f"{decision['action']} {decision['reason'] or ''}".strip()
    if decision["action"] == "proceed":
        return (
            f"{reason}: the governor just proceeds (no budget armed, done, or before the checkpoint); "
            "make it decide something"
        ), shown
    if decision["reason"] == reason:
        return (
            f"{reason}: the governor cut with {reason} itself: nothing overruled it. Which check "
            "comes earlier, or which other part of this cut's condition can you make false?"
        ), shown
    return None, shown


def check_overruled(fn: Callable[[], Mapping[str, Any]]) -> list[str]:
    """Problems with the learner's `my_overruled()`; empty when all four are overruled, four ways."""
    found = fn()
    if not isinstance(found, Mapping):
        return [
            f"my_overruled() should return a dict of cut reason -> observation, not {type(found).__name__}"
        ]
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


def _tests(ok: bool, output: str) -> ToolResult:
    return ToolResult("c", "run_tests", {}, ok, output, "verify")


def check_reading(reading: Callable[[TurnView], Any]) -> list[str]:
    """Problems with a learner's host reading over a few of the till's turns; empty when it holds."""
    quiet = _view(
        ToolResult("c", "read_file", {"path": "bill.py"}, True, "def split(...)", "observe")
    )
    edit_only = _view(
        ToolResult("c", "write_file", {"path": "bill.py"}, True, "wrote bill.py", "mutate")
    )
    all_red = _view(
        _tests(False, "FAILED check_bill.py::test_split\nERROR check_bill.py\n1 error in 0.05s")
    )
    three = _view(
        _tests(
            False,
            "FAILED check_bill.py::test_split - assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        )
    )
    four = _view(_tests(True, "4 passed in 0.02s"))
    problems = []
    for label, view in (
        ("a turn that only read a file", quiet),
        ("a turn that only wrote a file", edit_only),
    ):
        if reading(view) is not None:
            problems.append(
                f"{label}: nothing was verified, so the reading should be None, not {reading(view)!r}"
            )
    values = {}
    for label, view in (
        ("tests ran and none passed", all_red),
        ("3 of 4 passed", three),
        ("4 of 4 passed", four),
    ):
        value = reading(view)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{label}: tests ran, so the reading should be a number, not {value!r}")
        else:
            values[label] = value
    if len(values) == 3:
        low, mid, high = values.values()
        if not low < mid < high:
            problems.append(
                f"the readings should rise as more tests pass: got {low!r}, {mid!r}, {high!r} "
                "for none, 3 and 4 passing"
            )
    return problems
