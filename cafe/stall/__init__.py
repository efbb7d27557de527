"""Session 13, stall detection that reads the evidence: is the agent still fighting the same failure?

Plug-ins for session 01's loop, built on a real work tree (`cafe/world/workbench.py`) where the
agent's edits are real writes and its checks really run. Read the files in this order:

- `noise.py`: run-to-run noise in failure output, as rules by token class (random by construction);
- `runner_noise.py`: the noise a test runner writes in its own positions (clocks, durations, ids);
- `evidence.py`: when two failing outputs are the same failure (signatures);
- `failure_state.py`: the current-failure model, which failure is live and what is owed;
- `repeats.py`: the blind repeat counters a loop has before it reads evidence;
- `config.py`: the detector's knobs, their defaults and bounds;
- `escalation.py`: what a trip does: the one message a run is sent, and the stop;
- `checks.py`: the seam a stall check plugs into, and what it may answer;
- `verify.py`: the verify entrypoint, a real check before a claimed finish may stand;
- `memory.py`: what the detector remembers between turns, and the fold of one turn;
- `detector.py`: `StallDetector`, which puts them together;
- `run.py`: `run_with_stall`, the detector and the entrypoint plugged into the loop.

The scripted agents that drive the stories are on the stories shelf (`cafe/stories/scenarios.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from cafe.stall.checks import (
    StallCheck,
    StallReading,
    Trip,
)
from cafe.stall.config import (
    STALL_KNOB_DEFAULTS,
    STALL_KNOB_MINIMUMS,
    StallConfig,
    stall_config,
)
from cafe.stall.detector import (
    STALL_PATTERNS,
    STALL_STOP_REASONS,
    StallDetector,
    StallPattern,
    StallRun,
    StallStopReason,
)
from cafe.stall.escalation import (
    Escalation,
    StallWarning,
    register_recovery,
    register_trip,
)
from cafe.stall.evidence import (
    HANDBACK_MAX_CHARS,
    SNIPPET_MAX_CHARS,
    data_spans,
    failure_signature,
    failure_snippet,
    handback_snippet,
    normalize_evidence,
)
from cafe.stall.failure_state import (
    CurrentFailure,
    DiagnosticClass,
    FailureState,
    TurnClass,
    classify_turn,
    clear_current_failure,
    edited_after_last_check,
    fold_diagnostic,
)
from cafe.stall.memory import (
    DetectorState,
    TurnSnapshot,
    fold_turn,
    reset_action,
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
    REPEAT_SAME_ERROR,
    REPEAT_SAME_OBSERVATION,
    RepeatCounters,
    RepeatPattern,
    call_key,
    count_call,
    outside_the_model,
    repeat_trip,
)
from cafe.stall.run import (
    run_with_stall,
)
from cafe.stall.runner_noise import (
    outside_data_rules,
)
from cafe.stall.verify import (
    DEFAULT_MAX_VERIFY_ATTEMPTS,
    VERIFY_STOP_REASONS,
    VerifyEntrypoint,
    VerifyStopReason,
    scrub_output,
)

__all__ = [
    "CurrentFailure",
    "DEFAULT_MAX_VERIFY_ATTEMPTS",
    "DetectorState",
    "DiagnosticClass",
    "EPHEMERAL_PORT_FLOOR",
    "HANDBACK_MAX_CHARS",
    "Escalation",
    "FailureState",
    "REPEAT_PATTERNS",
    "REPEAT_SAME_ERROR",
    "REPEAT_SAME_OBSERVATION",
    "RepeatCounters",
    "RepeatPattern",
    "Rule",
    "SCOPES",
    "SNIPPET_MAX_CHARS",
    "STALL_KNOB_DEFAULTS",
    "STALL_KNOB_MINIMUMS",
    "STALL_PATTERNS",
    "STALL_STOP_REASONS",
    "Scope",
    "StallCheck",
    "StallConfig",
    "StallDetector",
    "StallPattern",
    "StallReading",
    "StallRun",
    "StallStopReason",
    "StallWarning",
    "Trip",
    "TurnClass",
    "TurnSnapshot",
    "VERIFY_STOP_REASONS",
    "VerifyEntrypoint",
    "VerifyStopReason",
    "anywhere_rules",
    "call_key",
    "classify_turn",
    "clear_current_failure",
    "count_call",
    "data_spans",
    "edited_after_last_check",
    "failure_signature",
    "failure_snippet",
    "fold_diagnostic",
    "fold_turn",
    "handback_snippet",
    "normalize_evidence",
    "outside_data_rules",
    "outside_the_model",
    "register_recovery",
    "register_trip",
    "repeat_trip",
    "reset_action",
    "rule",
    "run_with_stall",
    "scrub_output",
    "stall_config",
    "temp_rules",
]
