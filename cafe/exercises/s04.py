"""Session 04's your-turn checkers: pydantic's errors as the course's failures, and a schema that
closes the table range.

- `check_failures_from(fn)` judges your `failures_from(error)`: given the `ValidationError` that
  `Ticket` raised for a bad draft, return `Failure`s with the course's check names
  (`missing_field`, `unknown_field`, `bad_value`), a span that names the field (and, for a bad
  value, quotes it as the draft held it, as Python or JSON writes it: a number is not shown as
  text; a missing field held no value, so its span quotes none), a fix that names the field and
  what it must hold, and one failure per field and check however many list elements were wrong.
  Then on generated bad drafts (`cafe.exercises.reference_s04.bad_drafts`: every field good, bad
  at or beside an edge, or missing, fields spelt in another case), held to the same rules and to
  the failures `reference_s04.failure_pairs` reads from the draft.
- `check_closed_table_schema(fn)` judges your `closed_schema()`: a strict ticket schema (every
  field required, no other fields) that uses none of the keywords `strict_ticket_schema()` drops,
  still lets a good ticket through, and no longer lets a table outside 1 to 30 through
  (`cafe.endpoint.client.formats.admits` plays the strict server): every table from 1 to 30, no
  other table value, and nothing the strict schema refused for another reason; then on generated
  tickets, good and bad, it lets through exactly those `reference_s04.strict_admits`.
  The course's own `failures_from` and `closed_table_schema` are refused (called, not equalled).
- `your_figures(failures_fn, schema_fn, example)` is what the checkpoint banks as yours: the
  failures your function gives for the notebook's example, and how many tables from 0 to 31 your
  closed schema lets through. Pass only the functions whose exercise passed.

Notebook: notebooks/s04-schema.ipynb. The library code they exercise: `cafe.schema(.trials)`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from cafe.endpoint.client.formats import admits
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    shown,
    wrong_type,
)
from cafe.exercises.generated import Raises, built_once, first_broken
from cafe.exercises.library import is_library
from cafe.exercises.reference_s04 import (
    bad_drafts,
    failure_pairs,
    near_tickets,
    quotes,
    shows_as_text,
    strict_admits,
)
from cafe.schema import parsing
from cafe.schema.ticket import FIELD_HINTS, MAX_TABLE, TICKET_FIELDS, Failure, Ticket
from cafe.schema.trials import closed_table_schema, unenforced_keywords

__all__ = [
    "BAD_DRAFTS",
    "validation_error",
    "check_failures_from",
    "check_closed_table_schema",
    "your_figures",
]

GOOD = {"table": 4, "items": ["latte"], "allergies": [], "notes": ""}

# (a bad draft, the failures it must give as (check, field), what a wrong answer usually missed)
BAD_DRAFTS: tuple[tuple[dict[str, Any], frozenset[tuple[str, str]], str], ...] = (
    (
        {k: v for k, v in GOOD.items() if k != "table"},
        frozenset({("missing_field", "table")}),
        "pydantic's type 'missing' is the course's missing_field",
    ),
    (
        {**GOOD, "table": "4"},
        frozenset({("bad_value", "table")}),
        "a value of the wrong type is a bad_value; '4' is text, not a table number",
    ),
    (
        {**GOOD, "quantity": 2},
        frozenset({("unknown_field", "quantity")}),
        "pydantic's 'extra_forbidden' is the course's unknown_field",
    ),
    (
        {**GOOD, "items": []},
        frozenset({("bad_value", "items")}),
        "an empty list breaks the contract: a bad_value for items",
    ),
    (
        {**GOOD, "items": [1, 2, 3]},
        frozenset({("bad_value", "items")}),
        "three wrong elements are one failure for items, not three",
    ),
    (
        {"table": 0, "items": ["latte"], "notes": 5},
        frozenset({("bad_value", "table"), ("missing_field", "allergies"), ("bad_value", "notes")}),
        "every field gets its own failure",
    ),
)


def validation_error(draft: dict[str, Any]) -> ValidationError:
    """The `ValidationError` `Ticket` raises for `draft`, read as JSON the way `parse_draft` reads it."""
    try:
        Ticket.model_validate_json(json.dumps(draft), strict=True)
    except ValidationError as exc:
        return exc
    raise ValueError(f"{draft!r} is a valid ticket; a validation error needs a bad one.")


def _field_of(failure: Failure) -> str:
    return failure.span.split(" ", 1)[0]


# What a fix must say a field holds: one of these words (from `FIELD_HINTS`, with their plain
# synonyms) beside the field's name. A field outside the contract needs only its name: it must go.
_HOLDS: Mapping[str, tuple[str, ...]] = {
    "table": ("number", "whole", "integer", "30"),
    "items": ("list", "menu", "empty", "names"),
    "allergies": ("list", "declared", "empty", "none"),
    "notes": ("text", "string", "empty"),
}


def _fix_problem(case: str, failure: Failure) -> str | None:
    """What the fix of one failure leaves out: the field's name, or what the field must hold."""
    field = _field_of(failure)
    words = _HOLDS.get(field, ())
    says = any(re.search(rf"\b{re.escape(w)}\b", failure.fix, re.IGNORECASE) for w in words)
    if field in failure.fix and (says or not words):
        return None
    return mismatch(
        case,
        failure.fix,
        Described(f"a fix naming {field!r} and what it must hold ({FIELD_HINTS.get(field)})"),
        "the fix is what the re-ask tells the model: the field, and what to put there",
    )


def _judge_one(
    draft: dict[str, Any], expected: frozenset[tuple[str, str]], why: str, got: Any
) -> list[str]:
    case = f"draft {shown(draft, 70)}"
    if not isinstance(got, (list, tuple)) or not all(isinstance(f, Failure) for f in got):
        return [wrong_type(case, got, "a list of Failure(check, span, fix) values")]
    seen = [(f.check, _field_of(f)) for f in got]
    if set(seen) != expected or len(seen) != len(set(seen)):
        return [mismatch(case, sorted(seen), sorted(expected), why)]
    problems = []
    for failure in got:
        for problem in (_span_problem(case, failure, draft), _fix_problem(case, failure)):
            if problem:
                problems.append(problem)
    return problems


def _span_problem(case: str, failure: Failure, draft: dict[str, Any]) -> str | None:
    """What the span of one failure gets wrong. A bad value is quoted as the draft held it (the
    text '4' is not the table 4, so a number is not shown as text); a missing field held no
    value, so its span quotes none (a span is a pointer, not a copy of the draft)."""
    value = draft.get(_field_of(failure))
    if failure.check == "bad_value" and not quotes(failure.span, value):
        want = f"a span that quotes the bad value, {shown(value)}"
    elif failure.check == "bad_value" and shows_as_text(failure.span, value):
        want = f"a span that quotes the bad value as the draft held it, {shown(value)}, not as text"
    elif failure.check == "missing_field" and quotes(failure.span, draft):
        want = f"a span that names {_field_of(failure)!r}: a missing field held no value to quote"
    else:
        return None
    idea = "the span points at what is wrong, so quote the value the draft held"
    return mismatch(case, failure.span, Described(want), idea)


# The idea a generated draft bears on, and how many tickets the schema check generates (each is
# one call of the strict server, about a millisecond: 400 keep the check under a second).
DRAFT_IDEA = (
    "read every error: one failure per field and check, missing and unknown fields by name, a "
    "value that breaks its field's rule (text for a number, an empty list, a table outside 1 to "
    f"{MAX_TABLE}) a bad_value"
)
SCHEMA_EXAMPLES = 400


def _generated_draft_problems(fn: Callable[[ValidationError], Any]) -> list[str]:
    """The problems on the smallest generated bad draft the learner's function gets wrong."""

    def judged(draft: dict[str, Any], got: Any) -> list[str]:
        if isinstance(got, Raises):
            return [f"draft {shown(draft, 70)}: your function raised {got.kind.__name__}"]
        return _judge_one(draft, frozenset(failure_pairs(draft)), DRAFT_IDEA, got)[:2]

    found = first_broken(
        lambda draft: fn(validation_error(draft)),
        built_once(bad_drafts),
        lambda draft, got: bool(judged(draft, got)),
    )
    return judged(*found) if found else []


def check_failures_from(fn: Callable[[ValidationError], Any]) -> list[str]:
    """Problems with a learner's `failures_from`; empty when every bad draft is reported right."""
    if is_library(fn, parsing.failures_from, trial=(validation_error(BAD_DRAFTS[0][0]),)):
        return [library_answer("failures_from")]
    problems: list[str] = []
    for draft, expected, why in BAD_DRAFTS:
        got = call(fn, validation_error(draft))
        if isinstance(got, Raised):
            problems.append(got.problem(f"draft {shown(draft, 70)}"))
            continue
        problems.extend(_judge_one(draft, expected, why, got)[:2])  # the two that matter most
    return problems or _generated_draft_problems(fn)


def _keywords(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {key for key in node if key != "properties"}.union(
            *(_keywords(v) for v in node.values())
        )
    if isinstance(node, list):
        return set().union(*(_keywords(v) for v in node))
    return set()


def _admits(schema: dict[str, Any], ticket: dict[str, Any]) -> bool | str:
    """Would a strict server enforcing `schema` send `ticket`? Or why it could not read the schema."""
    try:  # a learner's schema the strict server cannot read is a problem to show
        return admits("json_schema", schema, json.dumps(ticket))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


# Tickets the strict schema refuses for other reasons than the table: closing the table must not
# open another field.
_STILL_REFUSED: tuple[dict[str, Any], ...] = (
    {**GOOD, "items": "latte"},
    {**GOOD, "notes": None},
    {**GOOD, "notes": 5},
    {**GOOD, "allergies": None},
    {**GOOD, "table": 4, "extra": 1},
)
_BAD_TABLES: tuple[object, ...] = (0, -3, MAX_TABLE + 1, 99, "7", 7.5, None, True, [4])


def _shape_problems(schema: dict[str, Any]) -> list[str]:
    """Keywords a strict server may drop, and the strict-mode shape (every field, nothing else)."""
    problems = []
    dropped = {rule.keyword for rule in unenforced_keywords()} & _keywords(schema)
    if dropped:
        problems.append(
            f"your schema uses {sorted(dropped)}, which strict_ticket_schema() drops: not every "
            "strict server enforces them. Use keywords they do (type, enum, const, anyOf, ...)"
        )
    if (
        sorted(schema.get("required", [])) != sorted(TICKET_FIELDS)
        or schema.get("additionalProperties") is not False
    ):
        problems.append(
            f"strict mode wants every field required ({', '.join(TICKET_FIELDS)}) and "
            "additionalProperties set to False"
        )
    return problems


def check_closed_table_schema(fn: Callable[[], Any]) -> list[str]:
    """Problems with a learner's `closed_schema()`; empty when a strict server could enforce it,
    every table from 1 to `MAX_TABLE` gets through and nothing else does. A function that calls
    the course's `closed_table_schema` is refused; one that writes the same schema is not."""
    if is_library(fn, closed_table_schema, trial=()):
        return [library_answer("closed_table_schema")]
    schema = call(fn)
    if isinstance(schema, Raised):
        return [schema.problem("closed_schema()")]
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return [wrong_type("closed_schema()", schema, "a JSON schema dict with type 'object'")]
    problems = _shape_problems(schema)
    verdicts = {t: _admits(schema, {**GOOD, "table": t}) for t in range(1, MAX_TABLE + 1)}
    unread = next((v for v in verdicts.values() if isinstance(v, str)), None)
    if unread:
        return [*problems, f"the strict server could not read your schema: {shown(unread, 80)}"]
    shut = [t for t, admitted in verdicts.items() if admitted is not True]
    if shut:
        problems.append(
            f"tables 1 to {MAX_TABLE}: your schema refuses table(s) {shut}; every table the café "
            "has must still get through"
        )
    for bad in _BAD_TABLES:
        if _admits(schema, {**GOOD, "table": bad}) is True:
            problems.append(
                f"table {json.dumps(bad)}: your schema lets it through; only whole numbers from 1 "
                f"to {MAX_TABLE} may be written"
            )
    for ticket in _STILL_REFUSED:
        if _admits(schema, ticket) is True:
            problems.append(
                f"{json.dumps(ticket)}: your schema lets it through, and the strict schema refused "
                "it; close the table without opening another field"
            )
    return problems or _generated_ticket_problems(schema)


def _generated_ticket_problems(schema: dict[str, Any]) -> list[str]:
    """The smallest generated ticket the schema lets through wrongly, or refuses wrongly."""
    found = first_broken(
        lambda ticket: _admits(schema, ticket) is True,
        built_once(near_tickets),
        lambda ticket, admitted: admitted is not strict_admits(ticket),
        examples=SCHEMA_EXAMPLES,
    )
    if found is None:
        return []
    ticket, admitted = found
    expected = "let through" if strict_admits(ticket) else "refused"
    idea = "only a ticket that keeps the whole contract gets through, and every such ticket does"
    return [counterexample(ticket, "let through" if admitted else "refused", expected, idea)]


# --- the learner's own figures, for the checkpoint ------------------------------------------


def your_figures(
    failures_fn: Callable[[ValidationError], Any] | None,
    schema_fn: Callable[[], Any] | None,
    example: ValidationError,
) -> dict[str, Any]:
    """The figures your own functions produce, for the checkpoint: only for the functions given
    (give one only once its exercise passed; `{}` when none is given). `example` is the
    notebook's validation error; the tables are tried from 0 to one past `MAX_TABLE`."""
    figures: dict[str, Any] = {}
    if failures_fn is not None:
        found = call(failures_fn, example)
        lines = (
            [f.line() for f in found if isinstance(f, Failure)]
            if isinstance(found, (list, tuple))
            else []
        )
        figures["failures_from"] = {"example": lines}
    if schema_fn is not None:
        schema = call(schema_fn)
        if isinstance(schema, dict):
            tables = range(0, MAX_TABLE + 2)
            admitted = [t for t in tables if _admits(schema, {**GOOD, "table": t}) is True]
            figures["closed_schema"] = {
                "tables_tried": len(tables),
                "tables_admitted": len(admitted),
            }
    return figures
