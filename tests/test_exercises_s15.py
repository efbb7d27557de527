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
    assert check_can_restore(lambda g, a, c: "yes") == ["return True or False, not 'yes'"]
