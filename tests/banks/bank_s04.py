"""Session 04's banks: `check_failures_from` and `check_closed_table_schema` (cafe/exercises/s04.py).

The exercise ideas: pydantic's errors become the course's failures (its three check names, one
failure per field and check however many list elements were wrong, a span that names the field
and quotes a bad value, a fix that names the field and what it must hold); and a strict server
can close the table range itself with keywords it enforces (an `enum`, `const`s), letting every
real table through and nothing else, without loosening another field.
"""

from __future__ import annotations

import copy
import itertools
import json

from banks.harness import Bank, Entry
from cafe.exercises.s04 import check_closed_table_schema, check_failures_from
from cafe.schema import FIELD_HINTS, MAX_TABLE, Failure, failures_from, strict_ticket_schema
from cafe.schema.trials import closed_table_schema

# --- failures_from: wrong ---------------------------------------------------------------------

_NAMES = {"missing": "missing_field", "extra_forbidden": "unknown_field"}


def _course_failure(detail):
    field = str(detail["loc"][0])
    check = _NAMES.get(detail["type"], "bad_value")
    span = field if check != "bad_value" else f"{field} = {detail.get('input')!r}"
    return Failure(check, span, f"{field} must be {FIELD_HINTS.get(field, 'left out')}")


def _once_each(failures):
    found = {}
    for failure in failures:
        found.setdefault((failure.span.split(" ")[0], failure.check), failure)
    return list(found.values())


def pydantic_words(error):
    """pydantic's own words: every error a bad_value, its message as the fix."""
    return [Failure("bad_value", str(d["loc"][0]), d["msg"]) for d in error.errors()]


def one_per_element(error):
    """One failure per pydantic error, so three bad list elements are three failures."""
    return [_course_failure(d) for d in error.errors()]


def first_error_only(error):
    """Reports the first error and stops."""
    return [_course_failure(error.errors()[0])]


def empty_list_is_missing(error):
    """Reads "items: []" as a missing field."""
    failures = []
    for detail in error.errors():
        failure = _course_failure(detail)
        if detail["type"] == "too_short":
            failure = Failure("missing_field", failure.span.split(" ")[0], failure.fix)
        failures.append(failure)
    return _once_each(failures)


def dotted_location(error):
    """Keeps the list index in the span's field: 'items.0 = 1'."""
    found = {}
    for d in error.errors():
        where = ".".join(str(p) for p in d["loc"])
        check = _NAMES.get(d["type"], "bad_value")
        span = where if check != "bad_value" else f"{where} = {d.get('input')!r}"
        found.setdefault(
            (d["loc"][0], check),
            Failure(check, span, f"{where}: {FIELD_HINTS.get(str(d['loc'][0]), '')}"),
        )
    return list(found.values())


def unquoted_value(error):
    """The bad value unquoted, so '4' (text) and 4 (a number) read the same."""
    failures = []
    for d in error.errors():
        failure = _course_failure(d)
        if failure.check == "bad_value":
            failure = Failure("bad_value", f"{d['loc'][0]} = {d.get('input')}", failure.fix)
        failures.append(failure)
    return _once_each(failures)


def fix_names_only_the_field(error):
    """A fix that says which field, not what it must hold."""
    return _once_each(
        Failure(f.check, f.span, f"fix {f.span.split(' ')[0]}")
        for f in map(_course_failure, error.errors())
    )


def every_error_is_bad_value(error):
    """The course's span and fix, but every error filed as a bad_value."""
    return _once_each(
        Failure("bad_value", f.span if " = " in f.span else f"{f.span} = None", f.fix)
        for f in map(_course_failure, error.errors())
    )


# --- failures_from: right ---------------------------------------------------------------------


def right_grouped(error):
    """A seen-set, values quoted as JSON, a fix worded per check."""
    seen, found = set(), []
    for detail in error.errors(include_url=False):
        field = str(detail["loc"][0])
        kind = _NAMES.get(detail["type"], "bad_value")
        if (field, kind) in seen:
            continue
        seen.add((field, kind))
        if kind == "unknown_field":
            found.append(Failure(kind, field, f"drop {field}: a ticket holds only its four fields"))
        elif kind == "missing_field":
            found.append(Failure(kind, field, f"add {field}: {FIELD_HINTS[field]}"))
        else:
            value = json.dumps(detail.get("input"))
            found.append(Failure(kind, f"{field} = {value}", f"{field}: {FIELD_HINTS[field]}"))
    return found


# held-out reader D, 7 Dec 2026: written from the lesson alone


def always_quoted(error):
    """Every bad value wrapped in quotes, so the number 31 reads as the text '31'."""
    failures = []
    for d in error.errors():
        failure = _course_failure(d)
        if failure.check == "bad_value":
            failure = Failure("bad_value", f"{d['loc'][0]} = '{d.get('input')}'", failure.fix)
        failures.append(failure)
    return _once_each(failures)


def missing_span_quotes_input(error):
    """Every span is `field = input`: a missing field's span quotes the whole draft."""
    failures = []
    for d in error.errors():
        failure = _course_failure(d)
        failures.append(Failure(failure.check, f"{d['loc'][0]} = {d.get('input')!r}", failure.fix))
    return _once_each(failures)


def right_sorted_by_span(error):
    """The course's failures, sorted by span: the lesson states no order, and none is judged."""
    return sorted(_once_each(_course_failure(d) for d in error.errors()), key=lambda f: f.span)


def right_json_span(error):
    """A bad value quoted as JSON writes it: `table = "4"`, `notes = null`."""
    failures = []
    for d in error.errors():
        failure = _course_failure(d)
        if failure.check == "bad_value":
            failure = Failure(
                "bad_value", f"{d['loc'][0]} = {json.dumps(d.get('input'))}", failure.fix
            )
        failures.append(failure)
    return _once_each(failures)


def right_dict(error):
    """A dict keyed on (field, check), as a tuple."""
    by_key = {}
    for detail in error.errors():
        name = detail["loc"][0]
        check = _NAMES.get(detail["type"], "bad_value")
        span = name if check != "bad_value" else f"{name} = {detail['input']!r}"
        hint = FIELD_HINTS.get(name, "left out: a ticket has table, items, allergies and notes")
        by_key.setdefault((name, check), Failure(check, span, f"{name} should be {hint}"))
    return tuple(by_key.values())


def right_groupby(error):
    """pydantic's errors sorted and grouped by (field, check); the first of each group kept."""

    def key(detail):
        return str(detail["loc"][0]), _NAMES.get(detail["type"], "bad_value")

    found = []
    for (field, kind), group in itertools.groupby(sorted(error.errors(), key=key), key=key):
        detail = next(group)
        span = field if kind != "bad_value" else f"{field} = {json.dumps(detail['input'])}"
        hint = FIELD_HINTS.get(field, "not part of a ticket: remove it")
        found.append(Failure(kind, span, f"{field}: {hint}"))
    return found


# --- failures_from: wrong, found on generated drafts --------------------------------------------

_KNOWN = {"missing", "extra_forbidden", "int_type", "string_type", "list_type", "too_short"}


def known_types_only(error):
    """Maps the error types it has seen and skips the rest: a table of 31 ('less_than_equal')
    or 7.5 is not reported."""
    return _once_each(
        _course_failure(d) for d in error.errors() if d["type"] in _KNOWN | {"greater_than_equal"}
    )


def case_folded_field(error):
    """Lower-cases the field's name, so an unknown 'Table' reads as the table."""
    folded = []
    for detail in error.errors():
        failure = _course_failure(detail)
        field = failure.span.split(" ")[0]
        folded.append(
            Failure(failure.check, failure.span.replace(field, field.lower(), 1), failure.fix)
        )
    return _once_each(folded)


# --- closed schema ------------------------------------------------------------------------------


def _with_table(node):
    schema = copy.deepcopy(strict_ticket_schema())
    schema["properties"]["table"] = node
    return schema


def min_max():
    """minimum and maximum, which strict mode drops."""
    return _with_table({"type": "integer", "minimum": 1, "maximum": MAX_TABLE})


def enum_from_zero():
    """Off by one: table 0 allowed."""
    return _with_table({"type": "integer", "enum": list(range(0, MAX_TABLE + 1))})


def enum_without_30():
    """Off by one: table 30 left out."""
    return _with_table({"type": "integer", "enum": list(range(1, MAX_TABLE))})


def enum_of_strings():
    """The tables as text."""
    return _with_table({"type": "string", "enum": [str(n) for n in range(1, MAX_TABLE + 1)]})


def enum_skips_13():
    """A table the café has is left out (right type, wrong content)."""
    return _with_table({"type": "integer", "enum": [n for n in range(1, MAX_TABLE + 1) if n != 13]})


def enum_with_text_four():
    """The range, and the table a customer once wrote as text ("4")."""
    return _with_table({"enum": [*range(1, MAX_TABLE + 1), "4"]})


def loose_allergy_items():
    """Closes the table, and rewrites allergies as any list (its items' type dropped)."""
    schema = _with_table({"enum": list(range(1, MAX_TABLE + 1))})
    schema["properties"]["allergies"] = {"type": "array"}
    return schema


def nullable_table():
    """'No such table' written as null, beside the range."""
    tables = {"type": "integer", "enum": list(range(1, MAX_TABLE + 1))}
    return _with_table({"anyOf": [tables, {"type": "null"}]})


def loosens_notes():
    """The table closed, another field opened."""
    schema = right_typed_enum()
    schema["properties"]["notes"] = {"type": ["string", "null", "integer"]}
    return schema


def not_strict():
    """additionalProperties forgotten."""
    schema = right_typed_enum()
    del schema["additionalProperties"]
    return schema


def calls_the_course():
    """Returns the course's own schema, which the notebook names as the reference (reader J)."""
    return closed_table_schema()


def float_enum():
    """The tables as 1.0 to 30.0: JSON Schema counts 1 == 1.0, but a strict server writes an enum's
    own literal, 1.0, a number the integer table refuses (reader J; decided wrong)."""
    return _with_table({"type": "integer", "enum": [float(n) for n in range(1, MAX_TABLE + 1)]})


def right_typed_enum():
    """The strict schema's integer table given an enum of every table: the same value as the
    course's schema, written by hand (a value cannot be refused for being equal to the course's;
    a function that calls it can)."""
    schema = copy.deepcopy(strict_ticket_schema())
    schema["properties"]["table"]["enum"] = list(range(1, MAX_TABLE + 1))
    return schema


def right_any_of_const():
    """An anyOf of one const per table."""
    return _with_table(
        {"anyOf": [{"type": "integer", "const": n} for n in range(1, MAX_TABLE + 1)]}
    )


def right_enum_only():
    """An enum without a type."""
    return _with_table({"enum": list(range(1, MAX_TABLE + 1))})


BANKS = (
    Bank(
        "s04",
        check_failures_from,
        right_grouped,
        reference_module="banks.bank_s04",
        wrong=(
            Entry("course_failures_from", failures_from, "write your own: the course's failures_from is refused",
                  "itself"),
            Entry("known_types_only", known_types_only, "every error type is a failure; unknown types are bad values",
                  "table 31 -> no failure"),
            Entry("case_folded_field", case_folded_field, "a field is named as the draft spells it",
                  "an unknown 'Table' -> unknown_field 'table'"),
            Entry("pydantic_words", pydantic_words, "the course's check names, not pydantic's",
                  "missing table -> bad_value"),
            Entry("one_per_element", one_per_element, "one failure per field and check",
                  "items [1, 2, 3] -> three failures"),
            Entry("first_error_only", first_error_only, "every field gets its own failure",
                  "table 0, no allergies, notes 5 -> one failure"),
            Entry("empty_list_is_missing", empty_list_is_missing, "an empty list is a bad value",
                  "items [] -> missing_field"),
            Entry("dotted_location", dotted_location, "the span starts with the field's name",
                  "items [1, 2, 3] -> 'items.0 = 1'"),
            Entry("unquoted_value", unquoted_value, "the span quotes the value",
                  "table '4' -> 'table = 4'"),
            Entry("fix_names_only_the_field", fix_names_only_the_field, "a fix says what the field must hold",
                  "table '4' -> 'fix table'"),
            Entry("every_error_is_bad_value", every_error_is_bad_value, "missing and unknown are checks of their own",
                  "quantity 2 -> bad_value"),
            # held-out reader D, 7 Dec 2026
            Entry("always_quoted", always_quoted, "a bad value is quoted as the draft held it: a number is not text",
                  "table 31 -> \"table = '31'\""),
            Entry("missing_span_quotes_input", missing_span_quotes_input,
                  "a missing field held no value: its span quotes none", "no table -> 'table = {...the draft}'"),
        ),
        right=(
            Entry("right_dict", right_dict, "a dict keyed on (field, check)"),
            Entry("right_groupby", right_groupby, "sorted and grouped by (field, check)"),
            # held-out reader D, 7 Dec 2026
            Entry("right_sorted_by_span", right_sorted_by_span, "sorted by span: the lesson states no order"),
            Entry("right_json_span", right_json_span, "a bad value quoted as JSON writes it"),
        ),
    ),
    Bank(
        "s04",
        check_closed_table_schema,
        right_typed_enum,
        wrong=(
            Entry("closed_table_schema", closed_table_schema, "write your own: the course's schema is refused", "itself"),
            Entry("calls_the_course", calls_the_course, "write your own: calling the course's schema is refused",
                  "return closed_table_schema()"),
            Entry("float_enum", float_enum, "a table is a whole number, written as one", "table 1 refused"),
            Entry("min_max", min_max, "strict servers drop minimum and maximum", "uses dropped keywords"),
            Entry("enum_from_zero", enum_from_zero, "only tables 1 to 30", "table 0 admitted"),
            Entry("enum_without_30", enum_without_30, "every table the café has", "table 30 refused"),
            Entry("enum_of_strings", enum_of_strings, "a table is a whole number", "table 1 refused"),
            Entry("enum_skips_13", enum_skips_13, "every table the café has", "table 13 refused"),
            Entry("nullable_table", nullable_table, "only whole numbers from 1 to 30", "table null admitted"),
            Entry("loosens_notes", loosens_notes, "close the table without opening another field",
                  "notes 5 admitted"),
            Entry("enum_with_text_four", enum_with_text_four, "only whole numbers from 1 to 30",
                  'table "4" admitted'),
            Entry("loose_allergy_items", loose_allergy_items, "close the table without opening another field",
                  "allergies [1] admitted"),
            Entry("not_strict", not_strict, "strict mode: additionalProperties false", "extra field admitted"),
        ),
        right=(
            Entry("right_any_of_const", right_any_of_const, "an anyOf of consts"),
            Entry("right_enum_only", right_enum_only, "an enum without a type"),
        ),
    ),
)  # fmt: skip

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason} (see
# docs/AUTHORING.md, "Its exercises").
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_failures_from": {
        "right_grouped:4: constant: `False` -> `True`": (
            "equivalent: include_url only adds a 'url' key, which nothing reads"
        ),
    },
    "check_closed_table_schema": {},
}
