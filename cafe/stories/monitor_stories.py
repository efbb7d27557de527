"""Scripted agents for session 15: four stories the run monitors are built to notice.

Session 15 (run monitors). Each story is a list of replies for the scripted model (`Reply`s),
calling the real tools of a monitored workbench (`cafe.monitors.monitored_tools`), so every check
really runs and every edit really lands in the git work tree. `story_replies(name)` builds one:

    explorer         twenty turns of reading (files, `ls`, `git log`, `grep`), then the fix and
                     the full suite: exploring, not stalling
    fast_finisher    a red full suite, the fix, a green `pytest -k split`, then "done"; asked for
                     the full suite, it runs it
    thrasher         plans three todos, then edits bill.py again and again without testing, and
                     says it is done (on turn 16: a budget of 16 turns runs out there)
    streak_after_green   the fix, a green suite, a bad edit, then six weighted failures in a row
                     with no check among them (three shell commands that fail, a missing file, a
                     timeout), then the suite and "done"
    streak_shell_edit    the same, with a `sed -i` on check_bill.py after green, which the
                     harness's edit tool never saw

The stories cost few real pytest runs on purpose (one to three each): the sessions run them on
shared machines. `story_timeout(name)` is the command timeout to run a story with: the streak
stories need a short one, so that their `sleep` really times out without a long wait; the others
keep the monitored tools' default, so a slow machine never turns a passing check into a timeout.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from cafe.endpoint.client.scripted import Reply
from cafe.monitors.tools import COMMAND_TIMEOUT_S
from cafe.stories.scenarios import call, edited_bill

__all__ = [
    "Story",
    "STORIES",
    "STORY_TIMEOUT_S",
    "SHELL_EDIT",
    "EXPLORER_READS",
    "TASK",
    "story_replies",
    "story_timeout",
]

# The stories, declared once (the module docstring says what each does).
Story = Literal["explorer", "fast_finisher", "thrasher", "streak_after_green", "streak_shell_edit"]
STORIES: frozenset[str] = frozenset(get_args(Story))

# Seconds a command may run in the streak stories: their other commands are `grep` and `git`,
# done in milliseconds even on a loaded machine, so their `sleep 10` is a real timeout without a
# long wait.
STORY_TIMEOUT_S = 1.5

# The shell-side edit: a debugging message added to the failing assert, by sed, in place. The
# backup suffix is attached (`-i.orig`), the one spelling GNU sed (Linux) and BSD sed (macOS) both
# read as in-place; the backup is then removed, so check_bill.py is the only file changed.
SHELL_EDIT = (
    "sed -i.orig 's/assert sum(shares) == 1000$/assert sum(shares) == 1000, shares/' "
    "check_bill.py && rm check_bill.py.orig"
)

# The explorer's twenty reads: files, then the shell's ways of looking around.
EXPLORER_READS: tuple[dict[str, Any], ...] = (
    call("read_file", path="bill.py"),
    call("read_file", path="check_bill.py"),
    call("read_file", path="pytest.ini"),
    call("run_command", command="ls -la"),
    call("run_command", command="git log --oneline"),
    call("run_command", command="grep -n split bill.py"),
    call("run_command", command="grep -n split check_bill.py"),
    call("run_command", command="wc -l bill.py check_bill.py"),
    call("run_command", command="grep -n PRICES bill.py"),
    call("run_command", command="grep -n def bill.py"),
    call("read_file", path="bill.py"),
    call("run_command", command="git show --stat HEAD"),
    call("run_command", command="grep -n round bill.py"),
    call("run_command", command="grep -n covers bill.py"),
    call("run_command", command="head -5 bill.py"),
    call("run_command", command="tail -5 bill.py"),
    call("run_command", command="grep -n assert check_bill.py"),
    call("run_command", command="git status --short"),
    call("read_file", path="check_bill.py"),
    call("run_command", command="python -c 'import bill; print(bill.split(1000, 3))'"),
)

# The task every story is given (and a live model too).
TASK = [
    {
        "role": "system",
        "content": "You maintain the café's till, a small Python project in a git repository. "
        "Use the tools to read files, edit them, run commands and the tests, and "
        "keep a todo board.",
    },
    {
        "role": "user",
        "content": "One of the till's tests fails. Find the bug in bill.py, fix it, check your "
        "fix, and say when you are done.",
    },
]

_DONE = "The split now adds up; the till's tests pass."


def _turn(*calls: dict[str, Any]) -> Reply:
    return {"content": None, "tool_calls": list(calls)}


def _streak(first_look: dict[str, Any]) -> list[Reply]:
    # No check runs between the bad edit and the abort: a check of any outcome would count as
    # verifying the edit, and the abort would then have no unverified edit to act on.
    return [
        _turn(call("write_file", path="bill.py", content=edited_bill("divmod"))),
        _turn(call("run_tests")),  # green: the known-good point
        _turn(call("write_file", path="bill.py", content=edited_bill("plus_1"))),  # a bad "tidy-up"
        _turn(first_look),
        _turn(call("run_command", command="grep -n divmod bill.py")),  # not there any more: +1
        _turn(call("run_command", command="git diff --exit-code bill.py")),  # it differs: +1
        _turn(call("read_file", path="receipt.py")),  # no such file: +1
        _turn(call("run_command", command="sleep 10")),  # a timeout: +2
        _turn(call("run_command", command="grep -n 'people + 1' check_bill.py")),  # +1
        _turn(call("run_tests")),
    ] + [_DONE] * 2  # "done", and once more if the verify-before-done gate answers it


def story_timeout(name: Story) -> float:
    """The command timeout a story runs with (see the module docstring)."""
    if name not in STORIES:
        raise ValueError(f"Unknown story {name!r}; the stories are {sorted(STORIES)}.")
    return STORY_TIMEOUT_S if name.startswith("streak") else COMMAND_TIMEOUT_S


def story_replies(name: Story) -> list[Reply]:
    """The scripted model's replies for one story (see the module docstring)."""
    if name == "explorer":
        return (
            [_turn(call("todo", action="add", item="fix the bill split"))]
            + [_turn(read) for read in EXPLORER_READS]
            + [
                _turn(call("write_file", path="bill.py", content=edited_bill("divmod"))),
                _turn(call("run_tests")),
                _turn(call("todo", action="done", item="fix the bill split")),
                _DONE,
            ]
        )
    if name == "fast_finisher":
        return [
            _turn(call("run_tests")),
            _turn(call("write_file", path="bill.py", content=edited_bill("divmod"))),
            _turn(call("run_command", command="pytest -k split")),
            _DONE,
            _turn(call("run_tests")),
            _DONE,
        ]
    if name == "thrasher":
        plan = [
            _turn(call("todo", action="add", item=item))
            for item in ("fix the bill split", "add a test for odd amounts", "tell the manager")
        ]
        edits = []
        for fix in ("round", "int", "comment", "round", "int", "comment"):
            edits += [
                _turn(call("read_file", path="bill.py")),
                _turn(call("write_file", path="bill.py", content=edited_bill(fix))),
            ]
        return plan + edits + [_DONE] * 2  # "done", and again if the gate refuses it
    if name == "streak_after_green":
        return _streak(call("read_file", path="check_bill.py"))
    if name == "streak_shell_edit":
        return _streak(call("run_command", command=SHELL_EDIT))
    raise ValueError(f"Unknown story {name!r}; the stories are {sorted(STORIES)}.")
