"""Session 14, host-supplied facts and the pace governor: what only the host knows, used to pace a run.

Read the files in this order:

- `facts.py`: `progress_signal` and `remediation_delivered`, plugged into session 13's detector;
- `pace.py`: `governor_pace_decision`, a pure function of a policy and an observation;
- `pacing.py`: the host side, feeding that decision from a running loop.

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

from cafe.governor.facts import (
    VERIFY_STATE_STREAK_DEFAULT,
    VERIFY_STATE_STALL_TURNS_DEFAULT,
    VERIFY_STATE_RECURRENCE_HARD_DEFAULT,
    NO_VERIFIER_PROGRESS_LIMIT_DEFAULT,
    STALL_DELIVERED_FIX_AFTER,
    CALLBACK_NAMES,
    HostFactPattern,
    HOST_FACT_PATTERNS,
    HostFacts,
    ProgressCheck,
    RemediationCheck,
    ProgressState,
    RemediationInfo,
    check_callback,
    read_progress_value,
    fold_progress,
    no_net_progress_cut,
    remediation_due,
    ask_remediation,
)
from cafe.governor.pace import (
    Decision,
    CutReason,
    DECISIONS,
    CUT_REASONS,
    EXTEND_REASON,
    PACE_CHECK_REASON,
    REASONS_BY_DECISION,
    EXTEND_MAX_DEFAULT,
    PACE_CHECK_MAX_DEFAULT,
    POLICY_KEYS,
    OBSERVATION_KEYS,
    PacePolicy,
    PaceObservation,
    PaceDecision,
    decide_pace,
    governor_pace_decision,
    decision_table,
)
from cafe.governor.pacing import (
    PACE_CHECK_NOTE,
    VerifyReading,
    verify_state_of,
    passing_tests,
    TurnClock,
    PaceTurn,
    wall_timeout,
    PaceGovernor,
)

__all__ = [
    "CALLBACK_NAMES",
    "CUT_REASONS",
    "CutReason",
    "DECISIONS",
    "Decision",
    "EXTEND_MAX_DEFAULT",
    "EXTEND_REASON",
    "HOST_FACT_PATTERNS",
    "HostFactPattern",
    "HostFacts",
    "NO_VERIFIER_PROGRESS_LIMIT_DEFAULT",
    "OBSERVATION_KEYS",
    "PACE_CHECK_MAX_DEFAULT",
    "PACE_CHECK_NOTE",
    "PACE_CHECK_REASON",
    "POLICY_KEYS",
    "PaceDecision",
    "PaceGovernor",
    "PaceObservation",
    "PacePolicy",
    "PaceTurn",
    "ProgressCheck",
    "ProgressState",
    "REASONS_BY_DECISION",
    "RemediationCheck",
    "RemediationInfo",
    "STALL_DELIVERED_FIX_AFTER",
    "TurnClock",
    "VERIFY_STATE_RECURRENCE_HARD_DEFAULT",
    "VERIFY_STATE_STALL_TURNS_DEFAULT",
    "VERIFY_STATE_STREAK_DEFAULT",
    "VerifyReading",
    "ask_remediation",
    "check_callback",
    "decide_pace",
    "decision_table",
    "fold_progress",
    "governor_pace_decision",
    "no_net_progress_cut",
    "passing_tests",
    "read_progress_value",
    "remediation_due",
    "verify_state_of",
    "wall_timeout",
]
