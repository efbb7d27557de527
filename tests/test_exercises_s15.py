"""cafe.exercises.s15: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from __future__ import annotations

from cafe import course
from cafe.exercises.s15 import RESTORE_CASES, TIER_TABLE, check_can_restore, check_verification_tier
from cafe.monitors.snapshots import can_restore
from cafe.monitors.tiers import is_verification_command, verification_tier


def _stub(*args):
    raise NotImplementedError("your turn")


def reference_tier(command):
    return verification_tier(command) if is_verification_command(command) else None


def test_tier_table_agrees_with_the_library_both_ways():
    assert {expected for _, expected, _ in TIER_TABLE} == {"fast", "slow", None}
    assert check_verification_tier(reference_tier) == []
    assert course.compare(reference_tier, check=check_verification_tier).status == "passed"


def test_tier_stub_is_not_attempted():
    assert course.compare(_stub, check=check_verification_tier).status == "not_attempted"


def test_tier_wrong_answers_are_named_with_their_rule():
    invocation = check_verification_tier(
        lambda c: (
            None
            if not is_verification_command(c)
            else ("slow" if "pytest" in c else reference_tier(c))
        )
    )
    assert (
        invocation
        and all("pytest" in p for p in invocation)
        and any("-k narrows" in p for p in invocation)
    )
    substring = check_verification_tier(lambda c: "fast" if "check" in c else reference_tier(c))
    assert any("not the whole word check" in p for p in substring)


def test_restore_cases_agree_with_the_library_both_ways():
    assert {case[3] for case in RESTORE_CASES} == {True, False}
    assert check_can_restore(can_restore) == []
    assert course.compare(can_restore, check=check_can_restore).status == "passed"


def test_restore_stub_is_not_attempted():
    assert course.compare(_stub, check=check_can_restore).status == "not_attempted"


def test_restore_wrong_answers_name_the_case():
    def captured_only(at_green, at_abort, captured):  # trusts the captures, never looks at the tree
        return (
            at_green is not None
            and at_abort is not None
            and all(captured.get(p) == at_green.get(p, "<head>") for p in captured)
        )

    problems = check_can_restore(captured_only)
    assert problems and any("behind the harness's back" in p for p in problems)
    (wrong,) = check_can_restore(lambda g, a, c: "yes")
    assert wrong.endswith("returned str ('yes'); return True or False")


def test_tier_table_passed_through_is_not_the_learners_work():
    answers = {command: expected for command, expected, _ in TIER_TABLE}
    problems = check_verification_tier(lambda c: answers.get(c, "slow"))
    assert problems and all("expected" in p or "more rows" in p for p in problems)
    assert course.compare(lambda c: answers[c], check=check_verification_tier).status == "failed"


def test_tier_examples_hold_no_answers():
    from cafe.exercises.s15 import TIER_EXAMPLES, TIER_HELD_OUT

    assert all(isinstance(command, str) for command in TIER_EXAMPLES)
    assert not {c for c, _, _ in TIER_HELD_OUT} & {c for c, _, _ in TIER_TABLE}
    assert all(reference_tier(c) == expected for c, expected, _ in TIER_HELD_OUT)


# --- the checkpoint: the learner's own figures -----------------------------------------------

_SOLVED = {
    "raise NotImplementedError(\"your turn: 'fast', 'slow', or None when the command checks nothing\")": (
        "from cafe.monitors.runners import verification_tier as tier\n"
        "    from cafe.monitors.tiers import is_verification_command as verifies\n"
        "    return tier(command) if verifies(command) else None"
    ),
    'raise NotImplementedError(\n        "your turn: True only if every path mutated since green can be put back"\n    )': (
        "if at_green is None or at_abort is None:\n"
        "        return False\n"
        "    for path in {**at_green, **at_abort}:\n"
        "        then, now = at_green.get(path, '<head>'), at_abort.get(path, '<head>')\n"
        "        if then != now and captured.get(path) != then:\n"
        "            return False\n"
        "    return True"
    ),
}


def test_notebook_with_the_exercises_solved_banks_the_learners_own_figures(tmp_path, monkeypatch):
    import contextlib
    import io
    from pathlib import Path

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    path = Path(__file__).resolve().parents[1] / "sessions" / "s15-run-monitors" / "notebook.py"
    source = path.read_text(encoding="utf-8")
    for stub, body in _SOLVED.items():
        assert stub in source, f"the notebook's stub changed: {stub}"
        source = source.replace(stub, body)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(path), "exec"), {"__name__": "__notebook__"})
    checkpoints = course.load_progress()["checkpoints"]["s15"]
    assert checkpoints["monitor_messages"]["source"] == "scripted"
    yours = checkpoints["your_gates"]
    assert yours["source"] == "yours" and yours["model"] is None
    agreed, total = yours["value"]["tier_agrees"].split(" of ")
    assert agreed == total and int(total) >= 5
    assert yours["value"]["restore_gate"] == {"library": True, "yours": True}
