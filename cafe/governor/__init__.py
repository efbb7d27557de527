"""Session 14, host-supplied facts and the pace governor: what only the host knows, used to pace a run.

Read the files in this order:

- `facts.py`: `progress_signal` and `remediation_delivered`, plugged into session 13's detector;
- `pace.py`: `governor_pace_decision`, a pure function of a policy and an observation;
- `pacing.py`: the host side, feeding that decision from a running loop.

Lesson: sessions/s14-host-facts/lesson.md. Notebook: notebooks/s14-host-facts.ipynb.
"""

from __future__ import annotations

from cafe.governor.facts import (
    CALLBACK_NAMES,
    HOST_FACT_PATTERNS,
    NO_VERIFIER_PROGRESS_LIMIT_DEFAULT,
    STALL_DELIVERED_FIX_AFTER,
    VERIFY_STATE_RECURRENCE_HARD_DEFAULT,
    VERIFY_STATE_STALL_TURNS_DEFAULT,
    VERIFY_STATE_STREAK_DEFAULT,
    HostFactPattern,
    HostFacts,
    ProgressCheck,
    ProgressState,
    RemediationCheck,
    RemediationInfo,
    ask_remediation,
    check_callback,
    fold_progress,
    no_net_progress_cut,
    read_progress_value,
    remediation_due,
)
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
    CutReason,
    Decision,
    PaceDecision,
    PaceObservation,
    PacePolicy,
    decide_pace,
    decision_table,
    governor_pace_decision,
)
from cafe.governor.pacing import (
    PACE_CHECK_NOTE,
    PACE_STOP_REASONS,
    PaceGovernor,
    PaceStopReason,
    PaceTurn,
    TurnClock,
    VerifyReading,
    passing_tests,
    verify_state_of,
    wall_timeout,
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
    "PACE_STOP_REASONS",
    "POLICY_KEYS",
    "PaceDecision",
    "PaceGovernor",
    "PaceObservation",
    "PacePolicy",
    "PaceStopReason",
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
