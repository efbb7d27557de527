"""Session 12, a model as judge, calibrated against the deterministic checks before it is believed.

Read the files in this order:

- `grading.py`: asking a model whether a ticket is right, and reading its answer as a verdict;
- `calibration.py`: the judge measured against session 06's checks (agreement, bias, trust).

Lesson: sessions/s12-model-judge/lesson.md. Notebook: notebooks/s12-model-judge.ipynb.
"""

from __future__ import annotations

from cafe.judge.calibration import (
    FAULTS,
    TRUST_MINIMUMS,
    VERBOSE_NOTES,
    Calibration,
    Fault,
    LabelledTicket,
    PositionReport,
    TrustReading,
    calibrate,
    catch_rate_by_notes,
    cohen_kappa,
    grade_of,
    labelled_tickets,
    position_probe,
    scripted_judge,
    trust_reading,
)
from cafe.judge.grading import (
    CHOICES,
    VERBOSE_NOTES_CHARS,
    VERDICTS,
    BiasedJudge,
    Choice,
    Grade,
    ModelJudge,
    Preference,
    Verdict,
    grade_messages,
    judge_system_prompt,
    prefer_messages,
    read_grade_request,
    read_verdict,
)

__all__ = [
    "BiasedJudge",
    "CHOICES",
    "Calibration",
    "Choice",
    "FAULTS",
    "Fault",
    "Grade",
    "LabelledTicket",
    "ModelJudge",
    "PositionReport",
    "Preference",
    "TRUST_MINIMUMS",
    "TrustReading",
    "VERBOSE_NOTES",
    "VERBOSE_NOTES_CHARS",
    "VERDICTS",
    "Verdict",
    "calibrate",
    "catch_rate_by_notes",
    "cohen_kappa",
    "grade_messages",
    "grade_of",
    "judge_system_prompt",
    "labelled_tickets",
    "position_probe",
    "prefer_messages",
    "read_grade_request",
    "read_verdict",
    "scripted_judge",
    "trust_reading",
]
