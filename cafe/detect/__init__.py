"""Session 06, detection: catch an unsafe, off-menu, 86'd, out-of-scope or injected order before the pass.

Read the files in this order:

- `normalize.py`: the text a scanner should read, whatever disguise the customer's words wear;
- `intent.py` and `shapes.py`: rules that read what a request asks for rather than famous phrases;
- `checks.py`: `check_ticket` and `check_request`, the detectors in layers, cheapest first;
- `confusion.py`: measuring a detector on a labelled corpus (precision, recall, false alarms).

Lesson: sessions/s06-detect/lesson.md. Notebook: notebooks/s06-detect.ipynb.
"""

from __future__ import annotations

from cafe.detect.checks import (
    DETECT_CHECKS,
    INJECTION_PATTERNS,
    LAYERS,
    SCOPE_PATTERNS,
    DetectLayer,
    check_ticket,
    scan_allergies,
    scan_layer,
    scan_request,
    scan_scope,
    scan_text,
)
from cafe.detect.confusion import (
    CORPUS_PATH,
    HALVES,
    JUDGE_PROMPT,
    LABELS,
    Confusion,
    LabelledRequest,
    ModelJudge,
    either,
    layer_report,
    load_corpus,
    measure,
    report_table,
)
from cafe.detect.intent import (
    INTENT_RULES,
    Rule,
)
from cafe.detect.normalize import (
    CONFUSABLES,
    LEET,
    Normalized,
    View,
    decoded_views,
    normalize_text,
)
from cafe.detect.shapes import (
    CONCESSION,
    SHAPE_RULES,
)

__all__ = [
    "CONCESSION",
    "CONFUSABLES",
    "CORPUS_PATH",
    "Confusion",
    "DETECT_CHECKS",
    "DetectLayer",
    "HALVES",
    "INJECTION_PATTERNS",
    "INTENT_RULES",
    "JUDGE_PROMPT",
    "LABELS",
    "LAYERS",
    "LEET",
    "LabelledRequest",
    "ModelJudge",
    "Normalized",
    "Rule",
    "SCOPE_PATTERNS",
    "SHAPE_RULES",
    "View",
    "check_ticket",
    "decoded_views",
    "either",
    "layer_report",
    "load_corpus",
    "measure",
    "normalize_text",
    "report_table",
    "scan_allergies",
    "scan_layer",
    "scan_request",
    "scan_scope",
    "scan_text",
]
