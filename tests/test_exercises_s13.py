"""Session 13's notebook banks the learner's own figures only from exercises that passed (issue 26),
and the checkers' generated inputs reach what the lesson names (issue 35).

The checkers themselves are tested through their banks (tests/banks/bank_s13.py, run by
tests/test_exercise_banks.py) and in tests/test_stall.py. Here: the noise pairs are one failure by
the course's own `failure_signature` and reach every kind and shape of noise; checksums and turns
reach the shapes reader M's wrong solutions missed; and the fresh process `check_signature` asks
gets a notebook's function, answers as this process does, refuses `hash()`, and never sees the key.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, find, given, settings

from cafe import course
from cafe.exercises.reference_s13 import different_failures, turns
from cafe.exercises.reference_s13_pairs import noise_pairs
from cafe.exercises.reference_s13_process import in_fresh_process
from cafe.exercises.s13 import check_signature
from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature, normalize_evidence
from cafe.world.processes import without_secrets

NOTEBOOK = Path(__file__).resolve().parents[1] / "sessions" / "s13-stall-detection" / "notebook.py"

# The stubs' bodies, and right answers shaped unlike the course's to put in their place.
_SOLVED = {
    'raise NotImplementedError("your turn: fold one turn\'s results into the failure state")': (
        "from cafe.stall.failure_state import classify_turn\n"
        "    from dataclasses import replace\n"
        "    kind, deciding = classify_turn(dispatch)\n"
        "    epoch = state.write_epoch + sum(r.kind == 'mutate' and r.ok for r in dispatch)\n"
        "    if kind == 'fail':\n"
        "        sig = failure_signature(deciding)\n"
        "        again = (state.last_diagnostic_class, state.last_diagnostic_signature) == ('fail', sig)\n"
        "        owed = edited_after_last_check(dispatch)\n"
        "        streak = state.same_diagnostic_streak + 1 if again else 1\n"
        "        return FailureState('fail', sig, epoch, streak, owed, owed)\n"
        "    if kind == 'edit':\n"
        "        live = state.last_diagnostic_class == 'fail'\n"
        "        return replace(state, write_epoch=epoch,\n"
        "                       edit_since_failure=state.edit_since_failure or live,\n"
        "                       reverify_owed=state.reverify_owed or live)\n"
        "    if kind == 'pass':\n"
        "        return FailureState('pass', None, epoch)\n"
        "    return state"
    ),
    'raise NotImplementedError("your turn: normalise the output, then hash it")': (
        "return normalize_evidence(output)"
    ),
}


def test_notebook_with_the_exercises_solved_banks_the_learners_own_figures(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    source = NOTEBOOK.read_text(encoding="utf-8")
    for stub, body in _SOLVED.items():
        assert stub in source, f"the notebook's stub changed: {stub}"
        source = source.replace(stub, body)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(NOTEBOOK), "exec"), {"__name__": "__notebook__"})
    checkpoints = course.load_progress()["checkpoints"]["s13"]
    assert checkpoints["stall_trips"]["source"] == "scripted"
    assert checkpoints["stall_trips"]["value"] == {
        "thrash_trip_turn": 6,
        "blind_caught_thrash": False,
        "changing_error_false_alarms": 0,
        "productive_false_alarms": 0,
    }
    yours = checkpoints["your_fold_and_signature"]
    assert yours["source"] == "yours" and yours["model"] is None
    assert yours["value"] == {
        "fold_streak_3_on_turn": 5,
        "detector_trip_turn": 6,
        "failures_by_your_signature": 2,
        "failures_by_failure_signature": 2,
    }
    assert course.load_progress()["exercises"]["s13.fold"]["status"] == "passed"


# --- the checkers' generated inputs and the fresh process (issue 35, reader M) -----------------

REACH = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _course_signature(output: str) -> str:
    return failure_signature(ToolResult("c", "run_tests", {}, False, output, "verify"))


@REACH
@given(noise_pairs())
def test_noise_pairs_are_one_failure_by_the_course_s_own_signature(pair):
    first, second, label = pair
    assert _course_signature(first) == _course_signature(second), label


@pytest.mark.parametrize(
    "kind",
    [
        "moved to another line",
        "moved, in a traceback",
        "ran slower",
        "ran in another temporary folder",
        "on another test worker",
        "an object at another address",
        "in colour and plain",
    ],
)
def test_noise_pairs_reach_every_kind_of_noise_the_notebook_names(kind):
    find(noise_pairs(), lambda pair: f"one failure, {kind}:" in pair[2], settings=REACH)


def test_noise_pairs_reach_the_shapes_the_notebook_s_examples_never_show():
    def reached(pattern: str) -> None:
        find(noise_pairs(), lambda pair: re.search(pattern, pair[2]) is not None, settings=REACH)

    reached(r"in \d\.\d\ds' and '.* in \d\d\.\d\ds'")  # a run under ten seconds, one over
    reached(r"/tmp/cafe-workbench-\w+/.*/tmp/cafe-workbench-\w+/")  # the workbench's folders
    reached(r"/var/folders/.*/T/tmp\w+/")  # macOS's temp root, tempfile's folder
    reached(r"line \d{4},")  # a traceback's line in a long file


def test_different_failures_reach_checksums_of_eight_hex_digits_and_bare_ones():
    def checksums(pattern: str):
        return lambda pair: "another checksum" in pair[2] and len(re.findall(pattern, pair[2])) >= 2

    find(different_failures(), checksums(r"checksum 0x[1-9a-f][0-9a-f]{7,}\b"), settings=REACH)
    find(different_failures(), checksums(r"checksum [0-9a-f]{8}\b"), settings=REACH)


def test_generated_turns_reach_a_forced_write_and_a_write_by_another_tool():
    def _forced(name, ok, output, kind):
        return ToolResult("c", name, {}, ok, output, kind, forced=True)

    def _result(name, ok, output, kind):
        return ToolResult("c", name, {}, ok, output, kind)

    def writes(case, which) -> bool:
        return any(r.kind == "mutate" and r.ok and which(r) for r in case[1])

    find(turns(_result, _forced), lambda case: writes(case, lambda r: r.forced), settings=REACH)
    find(
        turns(_result), lambda case: writes(case, lambda r: r.name != "write_file"), settings=REACH
    )


# A learner's cell, run as a notebook runs it: its own globals, a module no other process imports.
_LEARNER_CELL = """
import hashlib, re
from cafe.stall.evidence import normalize_evidence

RULES = [(re.compile(r"\\x1b\\[[0-9;]*m"), ""), (re.compile(r"(?<=\\.py):\\d+"), ":N")]


def masked(output):
    for pattern, mask in RULES:
        output = pattern.sub(mask, output)
    return output


def my_signature(output):
    return {digest}
"""


def _learner_signature(digest: str) -> Callable[[str], str]:
    namespace: dict[str, object] = {"__name__": "__notebook__"}
    exec(_LEARNER_CELL.format(digest=digest), namespace)
    found = namespace["my_signature"]
    assert callable(found)
    return found


def test_a_notebook_s_function_answers_in_a_fresh_process_as_it_does_here():
    signature = _learner_signature("hashlib.sha256(masked(output).encode()).hexdigest()")
    outputs = ["check_bill.py:21: in test_split", "\x1b[31mE   assert 999 == 1000\x1b[0m"]
    there = in_fresh_process(signature, outputs, without_secrets(os.environ))
    assert there == [("returned", signature(output)) for output in outputs]


def test_check_signature_refuses_a_notebook_signature_built_with_hash():
    problems = check_signature(_learner_signature("str(hash(normalize_evidence(masked(output))))"))
    assert len(problems) == 1 and "two fresh processes" in problems[0], problems
    assert "hash seed" in problems[0] and "check_bill.py:21" in problems[0]


def test_check_signature_passes_the_same_notebook_signature_built_with_hashlib():
    digest = "hashlib.md5(normalize_evidence(masked(output)).encode()).hexdigest()"
    assert check_signature(_learner_signature(digest)) == []


def test_the_fresh_process_is_started_without_the_course_key(monkeypatch):
    monkeypatch.setenv("CAFE_API_KEY", "sk-test-fresh-process-0123456789")
    problems = check_signature(
        lambda output: normalize_evidence(output) + os.environ.get("CAFE_API_KEY", "")
    )
    assert len(problems) == 1 and "two fresh processes" in problems[0], problems
    assert "sk-test" not in problems[0].split("here and", 1)[1]  # the child never had it


def test_what_cannot_be_sent_to_a_fresh_process_gets_no_answer_and_no_blame():
    lock = threading.Lock()

    def locked(output: str) -> str:
        with lock:
            return normalize_evidence(output)

    assert in_fresh_process(locked, ["E   assert 999 == 1000"], {}) is None
    assert check_signature(locked) == []
