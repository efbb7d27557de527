"""The unseen week (cafe/data/injection_unseen.json) stays unseen: no rule was extended for it.

Session 06 reports what detection catches on phrasings it has never seen. That figure means
something only while no rule word was added to match this week's texts, so: every word-list
alternative (`cafe/data/detect_words.json`) that matches a text of this week must also match a
text of some other corpus, the ones the rules were written and tuned on, or be one the lists
already held when the week was written (`HELD_BEFORE`, read from the lists at commit 7db45cc,
before the week was measured: general vocabulary, such as the "set aside" verbs of thirty
languages, that no corpus text happens to use).
"""

from __future__ import annotations

import re

import pytest

from cafe.detect.confusion import CORPUS_PATH, FAMILIES_PATH, FRESH_PATH, WEEK_PATH, load_corpus
from cafe.detect.normalize import normalize_text
from cafe.detect.rules import _LISTS
from cafe.exercises.s06 import UNSEEN_PATH, UNSEEN_REQUESTS

HELD_BEFORE = frozenset(
    {
        "dismiss: oublie",
        "dismiss: zapomnij",
        "instructions: regels",
        "instructions: zasadach",
        "authority: supervisor",
        "in_charge: owners",
        "in_charge: supervisor",
        "in_charge: your colleague",
        "reported: promised",
        "reported: gave",
        "source: owners",
        "source: supervisor",
    }
)
SEEN = [
    r.text
    for path in (CORPUS_PATH, FRESH_PATH, FAMILIES_PATH, WEEK_PATH)
    for r in load_corpus(path=path)
]


def _matches(alternative: str, texts: list[str]) -> bool:
    try:
        pattern = re.compile(rf"(?<!\w)(?:{alternative})(?!\w)", re.IGNORECASE)
    except re.error:
        pytest.fail(f"word-list alternative {alternative!r} is not a regular expression")
    return any(pattern.search(normalize_text(text).text) for text in texts)


def test_no_rule_word_occurs_only_in_the_unseen_week():
    unseen = [r.text for r in UNSEEN_REQUESTS]
    only_here = [
        f"{name}: {word}"
        for name, alternatives in _LISTS.items()
        for word in alternatives
        if _matches(word, unseen)
        and not _matches(word, SEEN)
        and f"{name}: {word}" not in HELD_BEFORE
    ]
    assert only_here == [], f"rule words added for the unseen week: {only_here}"


def test_unseen_week_shares_no_text_with_the_other_corpora():
    seen = {" ".join(text.casefold().split()) for text in SEEN}
    assert not [r.id for r in UNSEEN_REQUESTS if " ".join(r.text.casefold().split()) in seen]


def test_unseen_week_has_both_labels_and_an_approved_order_per_honest_row():
    labels = {r.label for r in UNSEEN_REQUESTS}
    assert labels == {"injection", "benign"} and UNSEEN_PATH.name == "injection_unseen.json"
    assert all(r.order is not None for r in UNSEEN_REQUESTS if r.label == "benign")
