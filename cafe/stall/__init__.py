"""Session 13, stall detection that reads the evidence: is the agent still fighting the same failure?

A plug-in for session 01's loop, built on a real work tree (`cafe/world/workbench.py`) where the
agent's edits are real writes and its checks really run. Read the files in this order:

- `noise.py`: run-to-run noise in failure output, as rules by token class (random by construction);
- `runner_noise.py`: the noise a test runner writes in its own positions (clocks, durations, ids);
- `evidence.py`: when two failing outputs are the same failure (signatures);
- `failure_state.py`: the current-failure model, which failure is live and what is owed;
- `repeats.py`: the blind repeat counters a loop has before it reads evidence;
- `checks.py`: the seam a stall check plugs into, and what it may answer;
- `detector.py`: `StallDetector` and `run_with_stall`, which put them together.

The scripted agents that drive the stories are on the stories shelf (`cafe/stories/scenarios.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from cafe.stall.checks import (
    StallCheck,
    StallReading,
    Trip,
)
from cafe.stall.detector import (
    MAX_STALL_WARNINGS,
    STALL_KNOB_DEFAULTS,
    STALL_PATTERNS,
    DetectorState,
    StallConfig,
    StallDetector,
    StallPattern,
    StallRun,
    StallWarning,
    TurnSnapshot,
    reset_action,
    run_with_stall,
    stall_config,
)
from cafe.stall.evidence import (
    SNIPPET_MAX_CHARS,
    data_spans,
    failure_signature,
    failure_snippet,
    normalize_evidence,
)
from cafe.stall.failure_state import (
    CurrentFailure,
    DiagnosticClass,
    FailureState,
    TurnClass,
    classify_turn,
    clear_current_failure,
    fold_diagnostic,
)
from cafe.stall.noise import (
    EPHEMERAL_PORT_FLOOR,
    SCOPES,
    Rule,
    Scope,
    anywhere_rules,
    rule,
    temp_rules,
)
from cafe.stall.repeats import (
    REPEAT_PATTERNS,
    REPEATED_FAILURE_AFTER,
    RepeatCounters,
    RepeatPattern,
    action_key,
    count_repeats,
    repeat_trip,
)
from cafe.stall.runner_noise import (
    outside_data_rules,
)

__all__ = [
    "CurrentFailure",
    "DetectorState",
    "DiagnosticClass",
    "EPHEMERAL_PORT_FLOOR",
    "FailureState",
    "MAX_STALL_WARNINGS",
    "REPEATED_FAILURE_AFTER",
    "REPEAT_PATTERNS",
    "RepeatCounters",
    "RepeatPattern",
    "Rule",
    "SCOPES",
    "SNIPPET_MAX_CHARS",
    "STALL_KNOB_DEFAULTS",
    "STALL_PATTERNS",
    "Scope",
    "StallCheck",
    "StallConfig",
    "StallDetector",
    "StallPattern",
    "StallReading",
    "StallRun",
    "StallWarning",
    "Trip",
    "TurnClass",
    "TurnSnapshot",
    "action_key",
    "anywhere_rules",
    "classify_turn",
    "clear_current_failure",
    "count_repeats",
    "data_spans",
    "failure_signature",
    "failure_snippet",
    "fold_diagnostic",
    "normalize_evidence",
    "outside_data_rules",
    "repeat_trip",
    "reset_action",
    "rule",
    "run_with_stall",
    "stall_config",
    "temp_rules",
]
