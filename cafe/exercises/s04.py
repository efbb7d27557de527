"""Session 04's your-turn checkers: pydantic's errors as the course's failures, and a schema that
closes the table range.

- `check_failures_from(fn)` judges your `failures_from(error)`: given the `ValidationError` that
  `Ticket` raised for a bad draft, return `Failure`s with the course's check names
  (`missing_field`, `unknown_field`, `bad_value`), a span that names the field (and, for a bad
  value, quotes it), a fix that names the field, and one failure per field and check however many
  list elements were wrong.
- `check_closed_table_schema(fn)` judges your `closed_schema()`: a strict ticket schema (every
  field required, no other fields) that uses none of the keywords `strict_ticket_schema()` drops,
  still lets a good ticket through, and no longer lets a table outside 1 to 30 through
  (`cafe.endpoint.formats.admits` plays the strict server).

Notebook: notebooks/s04-schema.ipynb. The library code they exercise: `cafe.schema` and
`cafe.schema.trials`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from cafe.endpoint.formats import admits
from cafe.schema.ticket import MAX_TABLE, TICKET_FIELDS, Failure, Ticket
from cafe.schema.trials import unenforced_keywords

__all__ = ["BAD_DRAFTS", "validation_error", "check_failures_from", "check_closed_table_schema"]

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


def _judge_one(
    draft: dict[str, Any], expected: frozenset[tuple[str, str]], why: str, got: Any
) -> list[str]:
    if not isinstance(got, (list, tuple)) or not all(isinstance(f, Failure) for f in got):
        return [f"{draft}: return a list of Failure(check, span, fix) values, not {got!r:.80}"]
    problems = []
    seen = [(f.check, _field_of(f)) for f in got]
    for check, field in sorted(expected - set(seen)):
        problems.append(
            f"{draft}: expected a {check} failure whose span starts with {field!r} ({why}); "
            f"got {[f.line() for f in got]}"
        )
    extra = [pair for pair in seen if pair not in expected]
    if extra:
        problems.append(f"{draft}: unexpected failures {extra} (expected only {sorted(expected)})")
    if len(seen) != len(set(seen)):
        problems.append(
            f"{draft}: one failure per field and check, not one per bad element ({why})"
        )
    for failure in got:
        field = _field_of(failure)
        if field not in failure.fix:
            problems.append(f"{draft}: the fix {failure.fix!r} should name the field {field!r}")
        value = draft.get(field)
        quotable = [
            value,
            *(value if isinstance(value, list) else []),
        ]  # the value, or the bad element
        if failure.check == "bad_value" and not any(repr(v)[:20] in failure.span for v in quotable):
            problems.append(
                f"{draft}: the span of a bad_value should quote the value ({value!r}); got {failure.span!r}"
            )
    return problems


def check_failures_from(fn: Callable[[ValidationError], Any]) -> list[str]:
    """Problems with a learner's `failures_from`; empty when every bad draft is reported right."""
    problems: list[str] = []
    for draft, expected, why in BAD_DRAFTS:
        problems.extend(
            _judge_one(draft, expected, why, fn(validation_error(draft)))[:2]
        )  # the two that matter most
    return problems


def _keywords(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {key for key in node if key != "properties"}.union(
            *(_keywords(v) for v in node.values())
        )
    if isinstance(node, list):
        return set().union(*(_keywords(v) for v in node))
    return set()


def check_closed_table_schema(fn: Callable[[], Any]) -> list[str]:
    """Problems with a learner's `closed_schema()`; empty when a strict server could enforce it and
    no table outside 1 to `MAX_TABLE` gets through."""
    schema = fn()
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return [
            f"return a JSON schema for the ticket (a dict with type 'object'), not {schema!r:.80}"
        ]
    problems = []
    dropped = {rule.keyword for rule in unenforced_keywords()} & _keywords(schema)
    if dropped:
        problems.append(
            f"the schema uses {sorted(dropped)}, which strict_ticket_schema() drops: not every strict "
            "server enforces them. Use keywords they do (type, enum, const, anyOf, ...)"
        )
    if (
        sorted(schema.get("required", [])) != sorted(TICKET_FIELDS)
        or schema.get("additionalProperties") is not False
    ):
        problems.append(
            f"strict mode wants every field required ({', '.join(TICKET_FIELDS)}) and "
            "additionalProperties set to False"
        )
    for table in (1, 17, MAX_TABLE):
        if not admits("json_schema", schema, json.dumps({**GOOD, "table": table})):
            problems.append(
                f"a good ticket at table {table} no longer gets through: {json.dumps({**GOOD, 'table': table})}"
            )
    bad_tables: tuple[object, ...] = (0, -3, MAX_TABLE + 1, 99, "7", 7.5)
    for bad in bad_tables:
        if admits("json_schema", schema, json.dumps({**GOOD, "table": bad})):
            problems.append(
                f"table {bad!r} still gets through; only whole numbers from 1 to {MAX_TABLE} should"
            )
    return problems
