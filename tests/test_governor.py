"""Tests for cafe/governor/pace.py: the pace governor's decision table, its records, the dict edge,
and the your-turn check (`cafe/exercises/s14.py`).

The table-driven tests go through the records (`decide_pace`); the tests of missing keys,
fallbacks and caller mistakes go through the dicts (`governor_pace_decision`). The host side that
drives a running loop (`PaceGovernor`) is tested in tests/test_pacing.py.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import sys
from pathlib import Path

import governor_rows
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.exercises.s14 import OVERRULED_REASONS, check_overruled, check_reading
from cafe.governor.pace import (
    CUT_REASONS,
    DECISIONS,
    EXTEND_MAX_DEFAULT,
    EXTEND_REASON,
    OBSERVATION_KEYS,
    PACE_CHECK_MAX_DEFAULT,
    PACE_CHECK_REASON,
    POLICY_KEYS,
    REASONS_BY_DECISION,
    PaceDecision,
    PaceObservation,
    PacePolicy,
    decide_pace,
    decision_table,
    governor_pace_decision,
)

# A run at its first checkpoint, progressing, well inside its estimate: the governor extends.
# Each test changes only what it is about.
BASE = {
    "elapsed_ms": 30_000,
    "armed_budget_ms": 30_000,
    "checkpoint_ms": 30_000,
    "expected_total_ms": 90_000,
    "made_progress": True,
    "done": False,
    "verifier_signature_unchanged": False,
    "env_blame_without_infra": False,
    "extends_used": 0,
    "pace_checks_used": 0,
}


BASE_RECORD = PaceObservation(**BASE)


def decide(policy=None, **changes):
    """The decision for BASE with `changes`, through the records; as a dict, to compare easily."""
    return decide_pace(
        PacePolicy(**(policy or {})), dataclasses.replace(BASE_RECORD, **changes)
    ).as_dict()


# --- the closed sets ------------------------------------------------------------------------


def test_closed_sets_match_the_contract():
    assert DECISIONS == {"proceed", "extend", "pace_check", "cut"}
    # the five cut reasons, in check order (each position spelled out: the order is the contract)
    assert len(CUT_REASONS) == 5
    assert CUT_REASONS[0] == "no_progress_at_checkpoint"
    assert CUT_REASONS[1] == "no_verifier_progress"
    assert CUT_REASONS[2] == "env_blame_without_infra"
    assert CUT_REASONS[3] == "extend_budget_exhausted"
    assert CUT_REASONS[4] == "pace_check_budget_exhausted"
    assert set(REASONS_BY_DECISION) == DECISIONS
    assert EXTEND_MAX_DEFAULT == 6 and PACE_CHECK_MAX_DEFAULT == 2
    assert POLICY_KEYS == ("extend_max", "pace_check_max")
    assert len(OBSERVATION_KEYS) == 10


def test_governor_decision_imports_nothing_of_the_harness():
    # The decision is pure: cafe/governor/pace.py imports no cafe module (the host side, which
    # reads the loop's turns, is cafe.governor.pacing). Read statically, as the architecture test does.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import style_check

    package = Path(__file__).resolve().parent.parent / "cafe"
    needed = [
        edge.target for edge in style_check.imports(package) if edge.source == "cafe.governor.pace"
    ]
    assert needed == []


def test_worked_example_extends_to_elapsed_plus_checkpoint():
    # The lesson's worked example: a one-minute budget, 42 s in, one extension already used.
    obs = {
        "done": False,
        "made_progress": True,
        "elapsed_ms": 42000,
        "armed_budget_ms": 60000,
        "expected_total_ms": 55000,
        "checkpoint_ms": 30000,
        "extends_used": 1,
        "pace_checks_used": 0,
        "verifier_signature_unchanged": False,
        "env_blame_without_infra": False,
    }
    policy = {"pace_check_max": 2, "extend_max": 6}
    assert governor_pace_decision(policy, obs) == {
        "action": "extend",
        "new_budget_ms": 72000,
        "reason": "progress_within_estimate",
    }


# --- proceed --------------------------------------------------------------------------------


@pytest.mark.parametrize("armed", [0, -1, -30_000])
def test_proceed_when_budget_not_armed(armed):
    # Inert budget wins over everything, even an observation that would otherwise be cut.
    assert decide(armed_budget_ms=armed, made_progress=False) == {"action": "proceed"}


def test_proceed_when_done_even_without_progress():
    assert decide(done=True, made_progress=False, env_blame_without_infra=True) == {
        "action": "proceed"
    }


def test_proceed_before_checkpoint_even_without_progress():
    assert decide(elapsed_ms=29_999, made_progress=False) == {"action": "proceed"}


def test_checkpoint_reached_exactly_is_decided():
    assert decide(elapsed_ms=30_000)["action"] == "extend"
    assert decide(elapsed_ms=30_000, made_progress=False)["action"] == "cut"


# --- the evidence cuts, and their order -----------------------------------------------------


def test_cut_no_progress_at_checkpoint():
    assert decide(made_progress=False) == {"action": "cut", "reason": "no_progress_at_checkpoint"}


def test_cut_no_verifier_progress_when_writes_moved_nothing():
    assert decide(verifier_signature_unchanged=True) == {
        "action": "cut",
        "reason": "no_verifier_progress",
    }


def test_cut_env_blame_without_infra():
    assert decide(env_blame_without_infra=True) == {
        "action": "cut",
        "reason": "env_blame_without_infra",
    }


@pytest.mark.parametrize(
    "changes, reason",
    [
        # no progress beats everything after it
        (
            {"made_progress": False, "verifier_signature_unchanged": True},
            "no_progress_at_checkpoint",
        ),
        ({"made_progress": False, "env_blame_without_infra": True}, "no_progress_at_checkpoint"),
        ({"made_progress": False, "extends_used": 6}, "no_progress_at_checkpoint"),
        # an unchanged verifier beats env blame and the spent budgets
        (
            {"verifier_signature_unchanged": True, "env_blame_without_infra": True},
            "no_verifier_progress",
        ),
        ({"verifier_signature_unchanged": True, "extends_used": 6}, "no_verifier_progress"),
        # env blame beats the spent budgets
        ({"env_blame_without_infra": True, "extends_used": 6}, "env_blame_without_infra"),
        (
            {"env_blame_without_infra": True, "elapsed_ms": 120_000, "pace_checks_used": 2},
            "env_blame_without_infra",
        ),
    ],
)
def test_cut_reason_order_earlier_reason_wins(changes, reason):
    assert decide(**changes) == {"action": "cut", "reason": reason}


# --- extend ---------------------------------------------------------------------------------


def test_extend_new_budget_is_elapsed_plus_checkpoint():
    assert decide(elapsed_ms=47_500, checkpoint_ms=10_000) == {
        "action": "extend",
        "new_budget_ms": 57_500,
        "reason": EXTEND_REASON,
    }


def test_extend_allowed_up_to_default_cap():
    assert decide(extends_used=5)["action"] == "extend"
    assert decide(extends_used=6) == {"action": "cut", "reason": "extend_budget_exhausted"}


def test_extend_cap_from_policy():
    assert decide({"extend_max": 2}, extends_used=1)["action"] == "extend"
    assert decide({"extend_max": 2}, extends_used=2)["reason"] == "extend_budget_exhausted"
    assert decide({"extend_max": 0})["reason"] == "extend_budget_exhausted"


def test_extend_budget_exhausted_only_inside_estimate():
    # Past the estimate the extend counter no longer matters: it is a pace check.
    assert decide(elapsed_ms=120_000, extends_used=99)["action"] == "pace_check"


# --- pace_check and the exact boundary of "past the estimate" -------------------------------


def test_past_estimate_boundary_is_expected_total_plus_checkpoint():
    # expected_total 90 000 + checkpoint 30 000 = 120 000
    assert decide(elapsed_ms=119_999)["action"] == "extend"
    assert decide(elapsed_ms=120_000) == {"action": "pace_check", "reason": PACE_CHECK_REASON}
    assert decide(elapsed_ms=120_001)["action"] == "pace_check"


def test_past_estimate_boundary_with_float_ms():
    assert decide(elapsed_ms=119_999.5)["action"] == "extend"
    assert decide(elapsed_ms=120_000.0)["action"] == "pace_check"


def test_pace_check_allowed_up_to_default_cap():
    assert decide(elapsed_ms=120_000, pace_checks_used=1)["action"] == "pace_check"
    assert decide(elapsed_ms=120_000, pace_checks_used=2) == {
        "action": "cut",
        "reason": "pace_check_budget_exhausted",
    }


def test_pace_check_cap_from_policy():
    assert (
        decide({"pace_check_max": 0}, elapsed_ms=120_000)["reason"] == "pace_check_budget_exhausted"
    )
    assert (
        decide({"pace_check_max": 5}, elapsed_ms=120_000, pace_checks_used=4)["action"]
        == "pace_check"
    )


def test_pace_check_budget_exhausted_only_past_estimate():
    assert decide(pace_checks_used=99)["action"] == "extend"


# --- new_budget_ms only on extend -----------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"armed_budget_ms": 0},
        {"elapsed_ms": 1},
        {"made_progress": False},
        {"extends_used": 6},
        {"elapsed_ms": 120_000},
        {"elapsed_ms": 120_000, "pace_checks_used": 2},
    ],
)
def test_new_budget_ms_absent_unless_extend(changes):
    decision = decide(**changes)
    assert decision["action"] != "extend"
    assert "new_budget_ms" not in decision


# --- missing keys and fallbacks -------------------------------------------------------------


def test_missing_keys_read_as_zero_and_false():
    # Only a budget: elapsed reads 0, below the checkpoint (which falls back to the budget).
    assert governor_pace_decision({}, {"armed_budget_ms": 1_000}) == {"action": "proceed"}
    # At the checkpoint with made_progress missing: read as False, so cut.
    assert governor_pace_decision({}, {"armed_budget_ms": 1_000, "elapsed_ms": 1_000}) == {
        "action": "cut",
        "reason": "no_progress_at_checkpoint",
    }


def test_empty_observation_proceeds():
    assert governor_pace_decision({}, {}) == {"action": "proceed"}


def test_none_reads_as_missing():
    obs = {
        **BASE,
        "extends_used": None,
        "verifier_signature_unchanged": None,
        "checkpoint_ms": None,
    }
    assert governor_pace_decision({"extend_max": None}, obs) == decide()


@pytest.mark.parametrize("checkpoint", [None, 0, -5])
def test_checkpoint_falls_back_to_armed_budget(checkpoint):
    obs = {**BASE, "armed_budget_ms": 20_000, "elapsed_ms": 25_000, "checkpoint_ms": checkpoint}
    if checkpoint is None:
        del obs["checkpoint_ms"]
    # checkpoint is 20 000: reached at 25 000, and the new budget is 25 000 + 20 000
    assert governor_pace_decision({}, obs)["new_budget_ms"] == 45_000
    assert governor_pace_decision({}, {**obs, "elapsed_ms": 19_999}) == {"action": "proceed"}


@pytest.mark.parametrize("expected", [None, 0, -1])
def test_expected_total_falls_back_to_armed_budget(expected):
    obs = {
        **BASE,
        "armed_budget_ms": 20_000,
        "checkpoint_ms": 10_000,
        "expected_total_ms": expected,
    }
    if expected is None:
        del obs["expected_total_ms"]
    # expected total is 20 000, so "past the estimate" starts at 20 000 + 10 000
    assert governor_pace_decision({}, {**obs, "elapsed_ms": 29_999})["action"] == "extend"
    assert governor_pace_decision({}, {**obs, "elapsed_ms": 30_000})["action"] == "pace_check"


def test_defaults_apply_when_policy_empty():
    assert decide({}, extends_used=5) == decide({"extend_max": 6}, extends_used=5)
    assert decide({}, extends_used=6) == decide({"extend_max": 6}, extends_used=6)
    past = {"elapsed_ms": 120_000}
    assert decide({}, pace_checks_used=1, **past)["action"] == "pace_check"
    assert decide({}, pace_checks_used=2, **past)["action"] == "cut"


# --- caller mistakes ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, [], "extend_max=6", 6])
def test_policy_not_a_dict_raises_type_error(bad):
    with pytest.raises(TypeError, match="policy must be a dict"):
        governor_pace_decision(bad, BASE)


@pytest.mark.parametrize("bad", [None, [("elapsed_ms", 1)], "obs"])
def test_observation_not_a_dict_raises_type_error(bad):
    with pytest.raises(TypeError, match="observation must be a dict"):
        governor_pace_decision({}, bad)


def test_unknown_observation_key_raises_with_suggestion():
    with pytest.raises(
        ValueError, match=r"unknown observation key 'elapsed'.*did you mean 'elapsed_ms'"
    ):
        governor_pace_decision({}, {"armed_budget_ms": 1, "elapsed": 5})


def test_unknown_policy_key_raises_with_suggestion():
    with pytest.raises(ValueError, match=r"did you mean 'extend_max'"):
        governor_pace_decision({"extends_max": 3}, BASE)


@pytest.mark.parametrize(
    "key, value",
    [
        ("elapsed_ms", "30000"),
        ("elapsed_ms", True),
        ("armed_budget_ms", [1]),
        ("made_progress", 1),
        ("made_progress", "yes"),
        ("done", 0),
        ("extends_used", 1.0),
        ("pace_checks_used", False),
    ],
)
def test_observation_wrong_type_raises_type_error(key, value):
    with pytest.raises(TypeError, match=key):
        decide(**{key: value})


@pytest.mark.parametrize(
    "key, value",
    [
        ("elapsed_ms", -1),
        ("elapsed_ms", math.nan),
        ("checkpoint_ms", math.inf),
        ("extends_used", -1),
    ],
)
def test_observation_bad_value_raises_value_error(key, value):
    with pytest.raises(ValueError, match=key):
        decide(**{key: value})


@pytest.mark.parametrize(
    "policy", [{"extend_max": -1}, {"pace_check_max": "2"}, {"extend_max": 2.5}]
)
def test_policy_bad_cap_raises(policy):
    with pytest.raises((TypeError, ValueError), match="policy"):
        decide(policy)


def test_bad_value_raises_even_when_branch_not_reached():
    # The budget is inert, but a wrong-typed flag is still a caller mistake worth hearing about.
    with pytest.raises(TypeError, match="env_blame_without_infra"):
        governor_pace_decision({}, {"armed_budget_ms": 0, "env_blame_without_infra": "no"})


# --- the records ----------------------------------------------------------------------------


def test_records_worked_example_extends_to_elapsed_plus_checkpoint():
    obs = PaceObservation(
        elapsed_ms=42_000,
        armed_budget_ms=60_000,
        expected_total_ms=55_000,
        checkpoint_ms=30_000,
        made_progress=True,
        extends_used=1,
    )
    assert decide_pace(PacePolicy(), obs) == PaceDecision(
        "extend", EXTEND_REASON, new_budget_ms=72_000
    )


def test_records_defaults_match_missing_keys():
    assert (
        PacePolicy()
        == PacePolicy.from_mapping({})
        == PacePolicy(EXTEND_MAX_DEFAULT, PACE_CHECK_MAX_DEFAULT)
    )
    assert PaceObservation() == PaceObservation.from_mapping({"elapsed_ms": None})
    assert PaceObservation.from_mapping(BASE).as_dict() == BASE
    assert tuple(PaceObservation().as_dict()) == OBSERVATION_KEYS


def test_records_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        BASE_RECORD.elapsed_ms = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PacePolicy().extend_max = 1  # type: ignore[misc]


def test_reasons_by_decision_is_read_only():
    with pytest.raises(TypeError):
        REASONS_BY_DECISION["proceed"] = frozenset({"x"})  # type: ignore[index]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"elapsed_ms": "30000"}, TypeError),
        ({"made_progress": 1}, TypeError),
        ({"extends_used": 2.0}, TypeError),
        ({"elapsed_ms": -1}, ValueError),
        ({"armed_budget_ms": math.inf}, ValueError),
        ({"pace_checks_used": -1}, ValueError),
    ],
)
def test_pace_observation_built_directly_checks_its_values(kwargs, error):
    (key,) = kwargs
    with pytest.raises(error, match=key):
        PaceObservation(**kwargs)


@pytest.mark.parametrize(
    "args",
    [
        ("stop",),  # not a decision
        ("proceed", EXTEND_REASON),  # proceed carries no reason
        ("cut",),  # a cut needs one of CUT_REASONS
        ("cut", "tired"),
        ("pace_check", EXTEND_REASON),  # the wrong decision's reason
        ("extend", EXTEND_REASON),  # extend needs new_budget_ms
        ("cut", "no_progress_at_checkpoint", 10_000),  # only extend carries new_budget_ms
    ],
)
def test_pace_decision_refuses_inconsistent_fields(args):
    with pytest.raises(ValueError, match="PaceDecision"):
        PaceDecision(*args)


def test_pace_decision_as_dict_has_only_the_keys_it_carries():
    assert PaceDecision("proceed").as_dict() == {"action": "proceed"}
    assert PaceDecision("pace_check", PACE_CHECK_REASON).as_dict() == {
        "action": "pace_check",
        "reason": PACE_CHECK_REASON,
    }
    extend = PaceDecision("extend", EXTEND_REASON, new_budget_ms=5)
    assert list(extend.as_dict()) == ["action", "new_budget_ms", "reason"]


# --- properties -----------------------------------------------------------------------------

_ms = st.one_of(st.none(), st.integers(-50_000, 500_000), st.floats(-1e3, 5e5, allow_nan=False))
_count = st.one_of(st.none(), st.integers(0, 10))
_flag = st.one_of(st.none(), st.booleans())

observations = st.fixed_dictionaries(
    {},
    optional={
        "armed_budget_ms": _ms,
        "elapsed_ms": st.one_of(st.none(), st.integers(0, 500_000), st.floats(0, 5e5)),
        "checkpoint_ms": _ms,
        "expected_total_ms": _ms,
        "made_progress": _flag,
        "verifier_signature_unchanged": _flag,
        "done": _flag,
        "extends_used": _count,
        "pace_checks_used": _count,
        "env_blame_without_infra": _flag,
    },
)
policies = st.fixed_dictionaries({}, optional={"extend_max": _count, "pace_check_max": _count})


@settings(max_examples=400, deadline=None)
@given(policy=policies, obs=observations)
def test_decision_property_closed_consistent_pure(policy, obs):
    policy_before, obs_before = copy.deepcopy(policy), copy.deepcopy(obs)
    decision = governor_pace_decision(policy, obs)

    assert decision["action"] in DECISIONS
    allowed = REASONS_BY_DECISION[decision["action"]]
    if allowed:
        assert decision["reason"] in allowed
    else:
        assert "reason" not in decision
    assert ("new_budget_ms" in decision) == (decision["action"] == "extend")
    expected_keys = {"action"} | ({"reason"} if allowed else set())
    expected_keys |= {"new_budget_ms"} if decision["action"] == "extend" else set()
    assert set(decision) == expected_keys

    # pure: the same input gives the same output, and the inputs are left as they were
    assert governor_pace_decision(policy, obs) == decision
    assert policy == policy_before and obs == obs_before


@settings(max_examples=300, deadline=None)
@given(policy=policies, obs=observations)
def test_decision_property_extend_moves_deadline_past_now(policy, obs):
    decision = governor_pace_decision(policy, obs)
    if decision["action"] == "extend":
        # Never behind now; equal only when float rounding swallows a checkpoint far below a
        # millisecond (1 + 2e-95 == 1.0), which hypothesis once found.
        assert decision["new_budget_ms"] >= (obs.get("elapsed_ms") or 0)
    if decision["action"] != "proceed":
        # anything but proceed means a budget was armed and the run was not done
        assert (obs.get("armed_budget_ms") or 0) > 0 and not obs.get("done")


# --- decision_table and the your-turn check -------------------------------------------------


def test_decision_table_rows_have_every_key_and_the_decision():
    rows = decision_table([{}, {**BASE, "made_progress": False}, BASE])
    assert [row["action"] for row in rows] == ["proceed", "cut", "extend"]
    assert rows[1]["reason"] == "no_progress_at_checkpoint"
    assert rows[0]["new_budget_ms"] is None and rows[2]["new_budget_ms"] == 60_000
    assert all(set(OBSERVATION_KEYS) <= set(row) for row in rows)


def _overruled_reference() -> dict:
    """One answer to the notebook's puzzle: each cut's own fact holds, an earlier check or the
    rest of its condition decides, and the four decisions differ."""
    run = {
        "armed_budget_ms": 30_000,
        "checkpoint_ms": 30_000,
        "expected_total_ms": 90_000,
        "elapsed_ms": 30_000,
        "made_progress": True,
    }
    return {
        "no_verifier_progress": {
            **run,
            "made_progress": False,
            "verifier_signature_unchanged": True,
        },
        "env_blame_without_infra": {
            **run,
            "verifier_signature_unchanged": True,
            "env_blame_without_infra": True,
        },
        "extend_budget_exhausted": {**run, "elapsed_ms": 120_000, "extends_used": 6},
        "pace_check_budget_exhausted": {**run, "pace_checks_used": 2},
    }


def test_check_overruled_passes_a_reference_answer():
    assert check_overruled(_overruled_reference) == []
    assert set(_overruled_reference()) == set(OVERRULED_REASONS)


def test_check_overruled_complains_when_the_cut_itself_wins():
    answer = {**_overruled_reference(), "extend_budget_exhausted": {**BASE, "extends_used": 6}}
    (problem,) = check_overruled(lambda: answer)
    assert problem.startswith(
        "extend_budget_exhausted: the governor cut with extend_budget_exhausted itself"
    )


def test_check_overruled_complains_when_every_answer_is_the_same_earlier_cut():
    lazy = {
        reason: {**obs, "made_progress": False} for reason, obs in _overruled_reference().items()
    }
    problems = check_overruled(lambda: lazy)
    assert len(problems) == 3 and all("every answer must be different" in p for p in problems)


def test_check_overruled_complains_about_proceed_a_missing_fact_and_the_first_reason():
    answer = {
        **_overruled_reference(),
        "no_progress_at_checkpoint": {**BASE, "made_progress": False},
    }
    answer["env_blame_without_infra"] = {**BASE, "elapsed_ms": 1}
    answer["pace_check_budget_exhausted"] = {**BASE}
    problems = check_overruled(lambda: answer)
    assert problems[0].startswith("no_progress_at_checkpoint: leave it out")
    assert any(
        p.startswith("env_blame_without_infra: its condition does not hold") for p in problems
    )
    assert any(
        p.startswith("pace_check_budget_exhausted: its condition does not hold") for p in problems
    )


def test_check_overruled_reports_a_refused_observation():
    answer = {
        **_overruled_reference(),
        "no_verifier_progress": {**BASE, "verifier_unchanged": True},
    }
    (problem,) = check_overruled(lambda: answer)
    assert problem.startswith("no_verifier_progress: the governor refuses this observation")


def test_check_reading_passes_the_till_reading_and_fails_one_that_invents_zero():
    from banks.bank_s14 import right_fraction

    from cafe.governor.pacing import passing_tests

    assert check_reading(right_fraction) == []  # a learner's own reading
    refused = check_reading(passing_tests)  # the course's own is not the learner's work
    assert refused and "write your own" in refused[0], refused
    problems = check_reading(lambda view: 0)
    assert any("only read a file: returned 0, expected None" in p for p in problems)
    assert any("returned 0, expected more than 0" in p for p in problems)
    raising = check_reading(lambda view: view.dispatch[0].output.split()[0] + 1)
    assert raising and all("raised" in p for p in raising[:2]), raising


# --- the notebook's your-turn: the stubs are not attempted, the references pass -------------


def _notebook_stubs() -> dict:
    import ast
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "sessions" / "s14-host-facts" / "notebook.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    stubs = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name in ("my_overruled", "my_reading")
    ]
    namespace: dict = {}
    exec(compile(ast.Module(stubs, []), str(source), "exec"), namespace)
    return namespace


def test_notebook_exercise_stubs_not_attempted_references_pass(capsys):
    from cafe import course
    from cafe.governor.pacing import passing_tests

    stubs = _notebook_stubs()
    assert course.compare(stubs["my_overruled"], check=check_overruled).status == "not_attempted"
    assert course.compare(stubs["my_reading"], check=check_reading).status == "not_attempted"
    assert course.compare(_overruled_reference, check=check_overruled).status == "passed"
    from banks.bank_s14 import right_fraction

    assert course.compare(right_fraction, check=check_reading).status == "passed"
    assert course.compare(passing_tests, check=check_reading).status == "failed"


# --- the reference cases, as rows (tests/governor_rows.py) ---------------------------------


@pytest.mark.parametrize("row", governor_rows.ROWS, ids=lambda row: row["case"][:80])
def test_pace_decision_row_says_where_its_expectation_comes_from(row):
    from stall_rows import provenance_problem

    assert provenance_problem(row) is None, row["case"]


@pytest.mark.parametrize("row", governor_rows.ROWS, ids=lambda row: row["case"][:80])
def test_pace_decision_row_matches_the_reference_or_the_documented_course_choice(row):
    expected = row.get("course", row["expect"])
    assert governor_pace_decision(row["policy"], row["obs"]) == expected
    if "course" in row:
        assert "Where the reference differs" in row["why"]
