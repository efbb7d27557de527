"""Session 12, a model as judge, calibrated against the deterministic checks before it is believed.

Read the files in this order:

- `grading.py`: asking a model whether a ticket is right, and reading its answer as a verdict;
- `biased.py`: the scripted judge with biases you dial, realised exactly on the tickets it is told
  about, for offline runs;
- `labelled.py`: right and broken tickets, each labelled by session 06's checks;
- `calibration.py`: the judge measured against those labels (agreement, kappa, the biases);
- `trust.py`: the course's rule for when a calibrated judge may be used;
- `experiment_arms.py`: `cafe experiment 12` on your model (the verbosity split).

Lesson: sessions/s12-model-judge/lesson.md. Notebook: notebooks/s12-model-judge.ipynb.
"""

from __future__ import annotations

from cafe.judge.biased import (
    BiasedJudge,
    quota_keys,
)
from cafe.judge.calibration import (
    Calibration,
    PositionReport,
    calibrate,
    catch_rate_by_notes,
    cohen_kappa,
    grade_of,
    position_probe,
    probe_pairs,
    scripted_judge,
)
from cafe.judge.grading import (
    CHOICES,
    VERBOSE_NOTES_CHARS,
    VERDICTS,
    Choice,
    Grade,
    ModelJudge,
    Preference,
    Verdict,
    grade_messages,
    judge_system_prompt,
    order_text,
    prefer_messages,
    read_grade_request,
    read_verdict,
    ticket_text,
)
from cafe.judge.labelled import (
    FAULTS,
    VERBOSE_NOTES,
    Fault,
    LabelledTicket,
    labelled_tickets,
)
from cafe.judge.trust import (
    TRUST_MINIMUMS,
    TrustReading,
    trust_reading,
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
    "order_text",
    "position_probe",
    "prefer_messages",
    "probe_pairs",
    "quota_keys",
    "read_grade_request",
    "read_verdict",
    "scripted_judge",
    "ticket_text",
    "trust_reading",
]
