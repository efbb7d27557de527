"""Scripted agents for the workbench: the stories session 13 tells, as fixed tool calls.

Sessions 13 to 15. A scripted agent is a list of replies for the scripted model (`Reply`s): each
turn calls the workbench's real tools (`cafe.world.workbench`), so the failures it meets are pytest's
own words. `scenario_replies(name)` builds one story (a thrash, a productive repair, ...);
`edited_bill(fix)` is the text of one real edit to the till's `bill.py`, and `BILL_FIXES` the
edits the stories use. With a live model the same workbench gets the model's own calls instead.

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, get_args

from cafe.endpoint.client.scripted import Reply
from cafe.world.workbench import project_file

__all__ = ["BILL_FIXES", "Scenario", "SCENARIOS", "call", "edited_bill", "scenario_replies"]

# Rewrites of the one line of bill.py that holds the bug (`share = amount // people` returns
# [333, 333, 333] for 1000 split three ways). Each is a real edit; what pytest says after it is
# what the scenarios below rely on.
_BUG = "    share = amount // people\n    return [share] * people\n"
BILL_FIXES: Mapping[str, str] = MappingProxyType(
    {
        # no change in behaviour: pytest still says `assert 999 == 1000`
        "round": "    share = round(amount / people)\n    return [share] * people\n",
        "int": "    share = int(amount / people)\n    return [share] * people\n",
        "comment": "    # each share is the bill divided by the number of people\n" + _BUG,
        # a different failure: `assert 1002 == 1000`
        "ceil": "    share = -(-amount // people)\n    return [share] * people\n",
        # the real fix: hand the leftover pence out one at a time
        "divmod": (
            "    share, leftover = divmod(amount, people)\n"
            "    return [share + 1 if i < leftover else share for i in range(people)]\n"
        ),
    }
)


def edited_bill(fix: str) -> str:
    """The full text of bill.py with the buggy lines replaced by `BILL_FIXES[fix]`, or by
    `share = amount // people + N` for `fix="plus_N"` (a different wrong total for every N)."""
    if fix.startswith("plus_"):
        body = f"    share = amount // people + {int(fix[5:])}\n    return [share] * people\n"
    elif fix in BILL_FIXES:
        body = BILL_FIXES[fix]
    else:
        raise ValueError(f"Unknown fix {fix!r}; use one of {sorted(BILL_FIXES)} or plus_N.")
    original = project_file("bill.py")
    assert _BUG in original, "the shipped bill.py no longer contains the bug the scenarios fix"
    return original.replace(_BUG, body)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One tool call as a scripted reply expects it: {"name": ..., "arguments": {...}}."""
    return {"name": name, "arguments": arguments}


def _turn(*calls: dict[str, Any]) -> Reply:
    return {"content": None, "tool_calls": list(calls)}


def _test() -> Reply:
    return _turn(call("run_tests"))


def _edit(fix: str) -> Reply:
    return _turn(call("write_file", path="bill.py", content=edited_bill(fix)))


def _edit_and_test(fix: str) -> Reply:
    return _turn(call("write_file", path="bill.py", content=edited_bill(fix)), call("run_tests"))


# The stories the scripted agent can replay, declared once:
#   thrash            test, then edits that leave the same failure, each followed by a re-test
#   same_turn_thrash  edit and re-test in ONE turn, the failure never changing
#   productive        each edit changes the failure, the last one fixes it, then "done"
#   edit_then_done    test, the right fix, then claims to be done without re-testing
#   retest_only       runs the failing tests again and again without touching anything
#   varied_failures   every edit produces a different wrong total: never the same failure twice
Scenario = Literal[
    "thrash", "same_turn_thrash", "productive", "edit_then_done", "retest_only", "varied_failures"
]
SCENARIOS: frozenset[str] = frozenset(get_args(Scenario))

_DONE = "The split now adds up; the till's tests should pass."


def scenario_replies(name: Scenario, *, rounds: int = 6) -> list[Reply]:
    """The scripted model's replies for one scenario. `rounds` sets how long the open-ended ones
    (thrash, same_turn_thrash, retest_only, varied_failures) keep going before claiming success."""
    wrong = ["round", "int", "comment"]
    if name == "thrash":
        replies: list[Reply] = [_test()]
        for i in range(rounds):
            replies += [_edit(wrong[i % len(wrong)]), _test()]
        return replies + [_DONE]
    if name == "same_turn_thrash":
        return [_test()] + [_edit_and_test(wrong[i % len(wrong)]) for i in range(rounds)] + [_DONE]
    if name == "productive":
        return [
            _test(),
            _turn(call("read_file", path="bill.py")),
            _edit("ceil"),
            _test(),
            _edit("divmod"),
            _test(),
            _DONE,
        ]
    if name == "edit_then_done":
        return [
            _test(),
            _edit("divmod"),
            _turn(call("todo", action="add", item="tell the manager")),
            _DONE,
        ]
    if name == "retest_only":
        return [_test() for _ in range(rounds)] + [_DONE]
    if name == "varied_failures":
        replies = [_test()]
        for i in range(1, rounds + 1):
            replies += [_edit(f"plus_{i}"), _test()]
        return replies + [_DONE]
    raise ValueError(f"Unknown scenario {name!r}; the scenarios are {sorted(SCENARIOS)}.")
