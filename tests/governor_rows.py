"""The pace decision's reference cases (session 14), as table rows: one row per case.

Plain data: `policy` and `obs` are the dicts `governor_pace_decision` takes, `expect` the dict it
returns. Sources, named in each row's `case`:
    seed 003, "governor_pace_decision" (inputs, outputs, the five cut reasons, defaults 6 and 2,
        new_budget_ms = elapsed_ms + checkpoint_ms on extend only);
    the reference implementation, governors.harn `governor_pace_decision`: the ORDER of the checks,
        the reason strings of extend and pace_check, checkpoint_ms / expected_total_ms falling back
        to the armed budget when <= 0, "past the estimate" = elapsed_ms >= expected_total_ms +
        checkpoint_ms; and its test governors_test.harn::test_pace_action_of_over_real_decision.
A row marked `course` is one the course answers differently on purpose; `why` names the lesson
note that says so.

Every row says where its `expect` comes from (`source`): "reference" when a reference case or a
seed line states that answer (`cite` names it), "derived" when the course worked the answer out
from the reference's rules (`basis` says from which). `tests/test_governor.py` holds every row to
it.
"""

ARMED = {
    "armed_budget_ms": 30_000,
    "checkpoint_ms": 30_000,
    "expected_total_ms": 90_000,
    "elapsed_ms": 30_000,
    "made_progress": True,
}


def extend(new_budget_ms):
    return {
        "action": "extend",
        "new_budget_ms": new_budget_ms,
        "reason": "progress_within_estimate",
    }


PACE_CHECK = {"action": "pace_check", "reason": "over_estimate_while_progressing"}
PROCEED = {"action": "proceed"}


def cut(reason):
    return {"action": "cut", "reason": reason}


ROWS = [
    # the seed's own worked call
    dict(
        source="derived",
        basis="the call is seed 003's worked example; the answer from seed 003 §governor_pace_decision, The verdict (extend, new_budget_ms = elapsed_ms + checkpoint_ms); the reason strings of extend and pace_check are governors.harn's",
        case="seed 003 example: 42 s into a 60 s budget, one extension used, progressing",
        policy={"extend_max": 6, "pace_check_max": 2},
        obs={
            "armed_budget_ms": 60000,
            "elapsed_ms": 42000,
            "checkpoint_ms": 30000,
            "expected_total_ms": 55000,
            "made_progress": True,
            "verifier_signature_unchanged": False,
            "done": False,
            "extends_used": 1,
            "pace_checks_used": 0,
            "env_blame_without_infra": False,
        },
        expect=extend(72000),
    ),
    dict(
        source="reference",
        cite="governors_test.harn::test_pace_action_of_over_real_decision",
        case="governors_test.harn::test_pace_action_of_over_real_decision (armed, past checkpoint, no progress)",
        policy={},
        obs={"armed_budget_ms": 100, "elapsed_ms": 200, "made_progress": False},
        expect=cut("no_progress_at_checkpoint"),
    ),
    # proceed: inert budget, done, before the checkpoint
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: proceed when the budget is inert (armed_budget_ms <= 0)",
        case="proceed: no budget armed (armed_budget_ms 0), whatever else holds",
        policy={},
        obs={"armed_budget_ms": 0, "elapsed_ms": 999_999, "made_progress": False},
        expect=PROCEED,
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: proceed when the budget is inert (armed_budget_ms <= 0)",
        case="proceed: negative armed budget is inert too",
        policy={},
        obs={"armed_budget_ms": -5, "elapsed_ms": 10, "made_progress": False},
        expect=PROCEED,
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision reads a missing key as 0 or false, so the budget is inert",
        case="proceed: empty observation (every key missing reads as 0/false)",
        policy={},
        obs={},
        expect=PROCEED,
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: proceed when the run is done",
        case="proceed: done, even with no progress past the checkpoint",
        policy={},
        obs={**ARMED, "done": True, "made_progress": False},
        expect=PROCEED,
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: proceed when the checkpoint hasn't been reached yet",
        case="proceed: one ms before the checkpoint",
        policy={},
        obs={**ARMED, "elapsed_ms": 29_999},
        expect=PROCEED,
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: checkpoint_ms <= 0 falls back to the armed budget",
        case="checkpoint_ms missing falls back to the armed budget",
        policy={},
        obs={"armed_budget_ms": 30_000, "elapsed_ms": 29_999, "made_progress": True},
        expect=PROCEED,
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: checkpoint_ms <= 0 falls back to the armed budget; extend from seed 003 §governor_pace_decision, The verdict",
        case="checkpoint_ms 0 falls back to the armed budget (extend to elapsed + armed)",
        policy={},
        obs={
            "armed_budget_ms": 30_000,
            "checkpoint_ms": 0,
            "expected_total_ms": 90_000,
            "elapsed_ms": 30_000,
            "made_progress": True,
        },
        expect=extend(60_000),
    ),
    # the three evidence cuts, in order
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict (proceed only before the checkpoint), so at it the decision is taken",
        case="at the checkpoint exactly: the decision is taken (>=)",
        policy={},
        obs=dict(ARMED),
        expect=extend(60_000),
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: cut, no_progress_at_checkpoint (no progress by the checkpoint)",
        case="cut no_progress_at_checkpoint",
        policy={},
        obs={**ARMED, "made_progress": False},
        expect=cut("no_progress_at_checkpoint"),
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: cut, no_verifier_progress (writes happened, verifier signature unchanged)",
        case="cut no_verifier_progress (writes, verifier unchanged)",
        policy={},
        obs={**ARMED, "verifier_signature_unchanged": True},
        expect=cut("no_verifier_progress"),
    ),
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict lists env_blame_without_infra as a cut reason; the observation key of that name triggers it",
        case="cut env_blame_without_infra",
        policy={},
        obs={**ARMED, "env_blame_without_infra": True},
        expect=cut("env_blame_without_infra"),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: the order of the checks",
        case="order: no progress beats env blame",
        policy={},
        obs={**ARMED, "made_progress": False, "env_blame_without_infra": True},
        expect=cut("no_progress_at_checkpoint"),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: the order of the checks",
        case="order: no progress beats an unchanged verifier",
        policy={},
        obs={**ARMED, "made_progress": False, "verifier_signature_unchanged": True},
        expect=cut("no_progress_at_checkpoint"),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: the order of the checks",
        case="order: unchanged verifier beats env blame",
        policy={},
        obs={**ARMED, "verifier_signature_unchanged": True, "env_blame_without_infra": True},
        expect=cut("no_verifier_progress"),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: the evidence cuts are checked before the caps",
        case="evidence cuts come before the caps (verifier unchanged, extensions spent)",
        policy={},
        obs={**ARMED, "verifier_signature_unchanged": True, "extends_used": 6},
        expect=cut("no_verifier_progress"),
    ),
    # inside the estimate: extend, bounded by extend_max (default 6)
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: new_budget_ms is elapsed_ms + checkpoint_ms",
        case="extend: new_budget_ms = elapsed_ms + checkpoint_ms (not armed + checkpoint)",
        policy={},
        obs={**ARMED, "elapsed_ms": 45_000, "checkpoint_ms": 20_000},
        expect=extend(65_000),
    ),
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict: extend, bounded by extend_max (default 6); the reason strings of extend and pace_check are governors.harn's",
        case="extend with 5 of 6 extensions used",
        policy={},
        obs={**ARMED, "extends_used": 5},
        expect=extend(60_000),
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: past extend_max it becomes a cut with reason extend_budget_exhausted",
        case="cut extend_budget_exhausted at the default extend_max 6",
        policy={},
        obs={**ARMED, "extends_used": 6},
        expect=cut("extend_budget_exhausted"),
    ),
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict: bounded by extend_max, here 0",
        case="custom extend_max 0: the first checkpoint cuts a progressing run",
        policy={"extend_max": 0},
        obs=dict(ARMED),
        expect=cut("extend_budget_exhausted"),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: past the estimate means elapsed_ms >= expected_total_ms + checkpoint_ms",
        case="the last ms inside the estimate: extend",
        policy={},
        obs={**ARMED, "elapsed_ms": 119_999},
        expect=extend(149_999),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: past the estimate means elapsed_ms >= expected_total_ms + checkpoint_ms; seed 003 §governor_pace_decision, The verdict",
        case="the last ms inside the estimate, extensions spent: cut extend_budget_exhausted",
        policy={},
        obs={**ARMED, "elapsed_ms": 119_999, "extends_used": 6},
        expect=cut("extend_budget_exhausted"),
    ),
    # past the estimate (elapsed >= expected_total + checkpoint): pace_check, bounded by pace_check_max (2)
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: past the estimate means elapsed_ms >= expected_total_ms + checkpoint_ms; the reason strings of extend and pace_check are governors.harn's",
        case="past the estimate exactly (elapsed = expected_total + checkpoint): pace_check",
        policy={},
        obs={**ARMED, "elapsed_ms": 120_000},
        expect=PACE_CHECK,
    ),
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict: extend_max bounds extensions only; governors.harn governor_pace_decision",
        case="past the estimate, extensions spent: still pace_check (that cap guards extend only)",
        policy={},
        obs={**ARMED, "elapsed_ms": 120_000, "extends_used": 6},
        expect=PACE_CHECK,
    ),
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict: pace_check fires up to pace_check_max (default 2) times; the reason strings of extend and pace_check are governors.harn's",
        case="pace_check with 1 of 2 used",
        policy={},
        obs={**ARMED, "elapsed_ms": 150_000, "pace_checks_used": 1},
        expect=PACE_CHECK,
    ),
    dict(
        source="reference",
        cite="seed 003 §governor_pace_decision, The verdict: pace_check fires up to pace_check_max times, then cuts",
        case="cut pace_check_budget_exhausted at the default pace_check_max 2",
        policy={},
        obs={**ARMED, "elapsed_ms": 120_000, "pace_checks_used": 2},
        expect=cut("pace_check_budget_exhausted"),
    ),
    dict(
        source="derived",
        basis="seed 003 §governor_pace_decision, The verdict: pace_check_max, here 0",
        case="custom pace_check_max 0",
        policy={"pace_check_max": 0},
        obs={**ARMED, "elapsed_ms": 120_000},
        expect=cut("pace_check_budget_exhausted"),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: expected_total_ms <= 0 falls back to the armed budget",
        case="expected_total_ms missing falls back to the armed budget (past it at armed + checkpoint)",
        policy={},
        obs={
            "armed_budget_ms": 30_000,
            "checkpoint_ms": 30_000,
            "elapsed_ms": 60_000,
            "made_progress": True,
        },
        expect=PACE_CHECK,
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: expected_total_ms <= 0 falls back to the armed budget",
        case="expected_total_ms missing, one ms earlier: extend",
        policy={},
        obs={
            "armed_budget_ms": 30_000,
            "checkpoint_ms": 30_000,
            "elapsed_ms": 59_999,
            "made_progress": True,
        },
        expect=extend(89_999),
    ),
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision: a policy value of nil reads as the default",
        case="policy keys given as None read as the defaults",
        policy={"extend_max": None, "pace_check_max": None},
        obs={**ARMED, "extends_used": 6},
        expect=cut("extend_budget_exhausted"),
    ),
    # the reference reads ms with to_int (truncates); the course keeps the fraction.
    dict(
        source="derived",
        basis="governors.harn governor_pace_decision reads milliseconds with to_int, which drops the fraction",
        case="[reference to_int] fractional ms: the reference truncates elapsed to 30000 (new_budget 60000)",
        policy={},
        obs={**ARMED, "elapsed_ms": 30_000.7},
        expect=extend(60_000),
        course=extend(60_000.7),
        why="lesson 14, Where the reference differs: milliseconds are kept as given, not truncated",
    ),
]
