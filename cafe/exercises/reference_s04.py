"""Session 04's reference: which failures a draft must give, read from the draft itself (not from
pydantic, not from `cafe.schema.parsing`), and the drafts to try it on.

`check_failures_from` (`cafe.exercises.s04`) hands the learner's `failures_from` the
`ValidationError` of each generated bad draft and compares the (check, field) pairs it reports
with `failure_pairs`, and reads each span with `quotes` and `shows_as_text`; `check_closed_table_schema` lets the strict server judge generated tickets
with the learner's schema and compares with `failure_pairs(ticket) == []`.
`tests/test_exercise_references.py` holds `failure_pairs` to the library's `failures_from`.

The contract as the lesson states it: `table` a whole number from 1 to `MAX_TABLE` (no text, no
true/false, no fraction); `items` a non-empty list of names; `allergies` a list of names, empty
when none; `notes` text, empty when none; no other field. Values are drawn at and either side of
each edge: tables 0, 1, 30 and 31, an empty and a one-item list, text where a number or a list
belongs, fields spelt in another case.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "FIELDS",
    "LAST_TABLE",
    "failure_pairs",
    "strict_admits",
    "quotes",
    "shows_as_text",
    "bad_drafts",
    "tickets",
    "near_tickets",
]

# The ticket's four fields, in the kitchen's order, and the café's last table (lesson: 1 to 30).
FIELDS = ("table", "items", "allergies", "notes")
LAST_TABLE = 30


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _holds(field: str, value: Any) -> bool:
    """Whether `value` is what `field` must hold."""
    if field == "table":
        whole = isinstance(value, int) and not isinstance(value, bool)
        return whole and 1 <= value <= LAST_TABLE
    if field == "items":
        return _names(value) and len(value) > 0
    if field == "allergies":
        return _names(value)
    return isinstance(value, str)  # notes


def failure_pairs(draft: dict[str, Any]) -> list[tuple[str, str]]:
    """(check, field) for every failure `draft` must give, sorted: one per field and check."""
    found = {("missing_field", f) for f in FIELDS if f not in draft}
    found |= {("unknown_field", key) for key in draft if key not in FIELDS}
    found |= {("bad_value", f) for f in FIELDS if f in draft and not _holds(f, draft[f])}
    return sorted(found)


def strict_admits(ticket: dict[str, Any]) -> bool:
    """Whether a strict server enforcing a closed-table schema sends `ticket`: it keeps the
    contract, or breaks it only with an empty items list (a length, which strict servers drop)."""
    excused = [("bad_value", "items")] if ticket.get("items") == [] else []
    return failure_pairs(ticket) in ([], excused)


def quotes(span: str, value: Any) -> bool:
    """Does `span` quote `value` (or one of its elements), as Python or as JSON writes it?"""
    forms = [value, *(value if isinstance(value, list) else [])]
    texts = [repr(v) for v in forms] + [json.dumps(v) for v in forms]
    return any(text[:20] in span for text in texts)


def shows_as_text(span: str, value: Any) -> bool:
    """Does `span` show a value that is not text (or one of its elements) in quotes, as if it
    were text: `table = '31'` for the number 31, `items = '1'` for the element 1?"""
    forms = [value, *(value if isinstance(value, list) else [])]
    return any(
        re.search(rf"(['\"]){re.escape(str(v))}\1", span)
        for v in forms
        if not isinstance(v, str) and str(v)
    )


_MISSING = object()  # a field left out of the draft
_GOOD: dict[str, tuple[Any, ...]] = {
    "table": (1, 4, LAST_TABLE - 1, LAST_TABLE),
    "items": (["latte"], ["latte", "scone"], ["Flat White ", "latte", "latte"]),
    "allergies": ([], ["milk"], ["milk", "Nuts "]),
    "notes": ("", "extra hot", "  "),
}
_BAD: dict[str, tuple[Any, ...]] = {
    "table": (0, -1, LAST_TABLE + 1, 99, "4", "7 ", 7.5, None, True, False, [4]),
    "items": ([], "latte", [1], ["latte", 2], None, [["latte"]], {"latte": 1}),
    "allergies": ("milk", None, [1], {}, ["milk", None]),
    "notes": (None, 5, ["extra hot"], False),
}
_EXTRA_KEYS = ("quantity", "Table", "ITEMS", "note", "allergy")


def _field(name: str) -> Any:
    from hypothesis import strategies as st

    good, bad = st.sampled_from(_GOOD[name]), st.sampled_from(_BAD[name])
    return st.one_of(good, bad, st.just(_MISSING))


def _draft(values: tuple[Any, ...], extra: dict[str, Any]) -> dict[str, Any]:
    draft = {f: v for f, v in zip(FIELDS, values, strict=True) if v is not _MISSING}
    return {**draft, **extra}


def tickets() -> Any:
    """Drafts, good and bad: each field good, bad at or beside an edge, or missing, and up to two
    fields the contract does not have."""
    from hypothesis import strategies as st

    extra = st.dictionaries(
        st.sampled_from(_EXTRA_KEYS), st.sampled_from((1, "x", None)), max_size=2
    )
    return st.builds(_draft, st.tuples(*(_field(f) for f in FIELDS)), extra)


def bad_drafts() -> Any:
    """`near_tickets()` and `tickets()` that break the contract somewhere: each has at least
    one failure, one edge met alone or several at once."""
    from hypothesis import strategies as st

    return st.one_of(near_tickets(), tickets()).filter(lambda draft: bool(failure_pairs(draft)))


def _one_off(good: tuple[Any, ...], field: int, value: Any, extra: dict[str, Any]) -> Any:
    values = list(good)
    if field < len(FIELDS):
        values[field] = value
    return _draft(tuple(values), extra)


def near_tickets() -> Any:
    """Good tickets with at most one field bad or missing, or one field too many: each edge
    is met alone, so a schema that opens one is seen letting a ticket through."""
    from hypothesis import strategies as st

    good = st.tuples(*(st.sampled_from(_GOOD[f]) for f in FIELDS))
    # every (field, bad value) pair in one list, so each is drawn about as often as the others
    changes = [(len(FIELDS), None)] + [
        (n, value) for n, f in enumerate(FIELDS) for value in (*_BAD[f], _MISSING)
    ]
    extra = st.dictionaries(st.sampled_from(_EXTRA_KEYS), st.just(1), max_size=1)
    return st.builds(
        lambda g, c, e: _one_off(g, c[0], c[1], e), good, st.sampled_from(changes), extra
    )
