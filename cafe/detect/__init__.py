"""Session 06, detection: catch an unsafe, off-menu, 86'd, out-of-scope or injected order before the pass,
and measure both what detection misses and what containment still holds.

Read the files in this order:

- `normalize.py` and `views.py`: the text a scanner should read, whatever disguise the customer's
  words wear, and the readings a model could make of it (decoded, hidden characters read);
- `rules.py`: what a rule is, the word lists rules share (`cafe/data/detect_words.json`), and the
  helpers that build one;
- `phrases.py`, `structure.py`, `intent.py`, `grants.py`, `shapes.py`: the rules, cheapest first:
  famous phrases, what a request is made of (a tool result, a transcript, markup, hidden text, a
  claim of authority), and the shapes of what it asks;
- `checks.py`: `scan_text` and `scan_request`, the detectors in layers, cheapest first, and
  `check_ticket`, the checks a drafted ticket must pass (with `plain_text.py`: no field of a
  passing ticket holds hidden characters, odd spacing, or a doubt written into an allergy, "milk?");
- `confusion.py`: measuring a detector on a labelled corpus (precision, recall, false alarms), by
  half and by family;
- `model_judge.py`: a model as one more layer (`ModelJudge`), measured the same way;
- `harm.py` and `containment.py`: the guarantee behind the filter, measured with a model that
  obeys every instruction (`cafe/stories/obedient_drafter.py`).

Lesson: sessions/s06-detect/lesson.md. Notebook: notebooks/s06-detect.ipynb.
"""

from __future__ import annotations

from cafe.detect.checks import (
    DETECT_CHECKS,
    LAYERS,
    DetectLayer,
    check_ticket,
    scan_allergies,
    scan_layer,
    scan_request,
    scan_scope,
    scan_text,
)
from cafe.detect.confusion import (
    CORPORA,
    CORPUS_PATH,
    FAMILIES_PATH,
    FRESH_PATH,
    HALVES,
    LABELS,
    WEEK_PATH,
    Confusion,
    LabelledRequest,
    either,
    layer_report,
    load_corpus,
    measure,
    report_table,
)
from cafe.detect.containment import (
    APPROVALS,
    BATTERY,
    CAP,
    ENDINGS,
    Breach,
    ContainmentReport,
    Ending,
    benign_ending,
    breaches,
    measure_containment,
    run_drafter,
    screen,
)
from cafe.detect.grants import (
    GRANT_RULES,
)
from cafe.detect.harm import (
    harm,
)
from cafe.detect.intent import (
    INTENT_RULES,
)
from cafe.detect.model_judge import (
    JUDGE_GIVE_UP_AFTER,
    JUDGE_MAX_TOKENS,
    JUDGE_PROMPT,
    ModelJudge,
)
from cafe.detect.normalize import (
    LEET,
    SPLIT_MARKS,
    Normalized,
    normalize_text,
)
from cafe.detect.phrases import (
    INJECTION_PATTERNS,
    SCOPE_PATTERNS,
)
from cafe.detect.rules import (
    FRAGMENTS,
    SEP,
    WORDS_PATH,
    Rule,
    literal_words,
    near,
    rule,
    then,
    within,
    words,
)
from cafe.detect.shapes import (
    SHAPE_RULES,
)
from cafe.detect.structure import (
    STRUCTURE_FAMILIES,
    STRUCTURE_RULES,
)
from cafe.detect.views import (
    ENCODED_MIN,
    PERCENT_MIN,
    PRINTABLE_SHARE,
    ZERO_WIDTH_MIN,
    View,
    decoded_views,
)

__all__ = [
    "APPROVALS",
    "BATTERY",
    "benign_ending",
    "Breach",
    "breaches",
    "CAP",
    "check_ticket",
    "Confusion",
    "ContainmentReport",
    "CORPORA",
    "CORPUS_PATH",
    "decoded_views",
    "DETECT_CHECKS",
    "DetectLayer",
    "either",
    "ENCODED_MIN",
    "Ending",
    "ENDINGS",
    "FAMILIES_PATH",
    "FRAGMENTS",
    "FRESH_PATH",
    "GRANT_RULES",
    "HALVES",
    "harm",
    "INJECTION_PATTERNS",
    "INTENT_RULES",
    "JUDGE_GIVE_UP_AFTER",
    "JUDGE_MAX_TOKENS",
    "JUDGE_PROMPT",
    "LabelledRequest",
    "LABELS",
    "layer_report",
    "LAYERS",
    "LEET",
    "literal_words",
    "load_corpus",
    "measure",
    "measure_containment",
    "ModelJudge",
    "near",
    "normalize_text",
    "Normalized",
    "PERCENT_MIN",
    "PRINTABLE_SHARE",
    "report_table",
    "Rule",
    "rule",
    "run_drafter",
    "scan_allergies",
    "scan_layer",
    "scan_request",
    "scan_scope",
    "scan_text",
    "SCOPE_PATTERNS",
    "screen",
    "SEP",
    "SHAPE_RULES",
    "SPLIT_MARKS",
    "STRUCTURE_FAMILIES",
    "STRUCTURE_RULES",
    "then",
    "View",
    "WEEK_PATH",
    "within",
    "words",
    "WORDS_PATH",
    "ZERO_WIDTH_MIN",
]
