"""cafe.exercises.s04: each checker passes the reference, says "not attempted" for the notebook's
stub, and fails plausible wrong answers with a specific complaint."""

import copy
import json

import pytest
from banks.bank_s04 import right_dict, right_grouped

from cafe import course
from cafe.exercises.s04 import (
    BAD_DRAFTS,
    check_closed_table_schema,
    check_failures_from,
    validation_error,
    your_figures,
)
from cafe.schema.parsing import failures_from
from cafe.schema.ticket import Failure, strict_ticket_schema
from cafe.schema.trials import closed_table_schema


def _stub(*args):
    raise NotImplementedError("your turn")


# --- pydantic's errors as Failure values ----------------------------------------------------------


def test_check_failures_from_reference_passes_compare():
    assert check_failures_from(right_grouped) == []
    assert course.compare(right_grouped, check=check_failures_from).status == "passed"


def test_check_failures_from_refuses_the_course_function():
    (problem,) = check_failures_from(failures_from)
    assert "course's `failures_from`" in problem and "write your own" in problem


def test_check_failures_from_generated_drafts_find_a_table_past_the_last():
    def skips_le(error):  # the 'less_than_equal' of table 31 is never reported
        kept = [d for d in error.errors() if d["type"] != "less_than_equal"]
        return [
            f
            for f in right_grouped(error)
            if f.span.split(" ")[0] in {str(d["loc"][0]) for d in kept}
        ]

    (problem,) = check_failures_from(skips_le)
    assert problem.startswith("draft {'table': 31,") and "('bad_value', 'table')" in problem


def test_check_failures_from_stub_is_not_attempted():
    assert course.compare(_stub, check=check_failures_from).status == "not_attempted"


def _pydantic_words(error):
    """Copies pydantic's message into the fix and calls everything a bad value."""
    return [Failure("bad_value", str(detail["loc"][0]), detail["msg"]) for detail in error.errors()]


def _one_per_element(error):
    """Right names, but one failure per pydantic error: three bad items make three failures."""
    names = {"missing": "missing_field", "extra_forbidden": "unknown_field"}
    return [
        Failure(
            names.get(d["type"], "bad_value"),
            f"{d['loc'][0]} = {d.get('input')!r}",
            f"fix {d['loc'][0]}",
        )
        for d in error.errors()
    ]


def test_check_failures_from_names_the_course_checks_not_pydantics_types():
    problems = check_failures_from(_pydantic_words)
    assert any("('missing_field', 'table')" in p for p in problems)
    assert any("('unknown_field', 'quantity')" in p for p in problems)


def test_check_failures_from_wants_one_failure_per_field_and_check():
    problems = check_failures_from(_one_per_element)
    assert any("one failure for items, not three" in p for p in problems)


def test_check_failures_from_a_wrong_return_type_says_what_to_return():
    problems = check_failures_from(lambda error: str(error))
    assert "return a list of Failure(check, span, fix) values" in problems[0]


def test_validation_error_refuses_a_good_ticket():
    with pytest.raises(ValueError, match="valid ticket"):
        validation_error({"table": 4, "items": ["latte"], "allergies": [], "notes": ""})


def test_bad_drafts_each_expect_what_the_reference_reports():
    for draft, expected, _ in BAD_DRAFTS:
        got = {(f.check, f.span.split(" ", 1)[0]) for f in failures_from(validation_error(draft))}
        assert got == expected, draft


# --- a schema that closes the table range ------------------------------------------------------


def test_check_closed_table_schema_passes_the_schema_written_by_hand_and_refuses_the_course_s():
    """A value equal to the course's schema passes when the learner wrote it; a function that
    calls `closed_table_schema` (handed in or wrapped) is the course's answer, and is refused."""

    def by_hand() -> dict:
        schema = copy.deepcopy(strict_ticket_schema())
        schema["properties"]["table"]["enum"] = list(range(1, 31))
        return schema

    assert by_hand() == closed_table_schema()
    assert course.compare(by_hand, check=check_closed_table_schema).status == "passed"
    for course_s in (closed_table_schema, lambda: dict(closed_table_schema())):
        (refused,) = check_closed_table_schema(course_s)
        assert "course's `closed_table_schema`" in refused


def test_check_closed_table_schema_stub_is_not_attempted():
    assert course.compare(_stub, check=check_closed_table_schema).status == "not_attempted"


def test_check_closed_table_schema_the_plain_strict_schema_lets_table_31_through():
    problems = check_closed_table_schema(strict_ticket_schema)
    assert (
        "table 31: your schema lets it through; only whole numbers from 1 to 30 may be written"
        in problems
    )


def test_check_closed_table_schema_minimum_and_maximum_are_named_as_dropped():
    def bounded():
        schema = copy.deepcopy(strict_ticket_schema())
        schema["properties"]["table"].update(minimum=1, maximum=30)
        return schema

    problems = check_closed_table_schema(bounded)
    assert "uses ['maximum', 'minimum'], which strict_ticket_schema() drops" in problems[0]


def test_check_closed_table_schema_an_enum_that_lost_a_table_is_named():
    def short():
        schema = copy.deepcopy(strict_ticket_schema())
        schema["properties"]["table"]["enum"] = list(range(1, 30))
        return schema

    assert check_closed_table_schema(short) == [
        "tables 1 to 30: your schema refuses table(s) [30]; every table the café has must still "
        "get through"
    ]


def test_check_failures_from_accepts_a_value_quoted_as_json():
    def json_quoted(error):
        first = {}
        for d in error.errors():
            first.setdefault(str(d["loc"][0]), d)
        return tuple(
            Failure(
                f.check,
                f"{f.span.split(' ')[0]} = {json.dumps(first[f.span.split(' ')[0]]['input'])}",
                f.fix,
            )
            if f.check == "bad_value"
            else f
            for f in right_dict(error)
        )

    assert check_failures_from(json_quoted) == []
    draft = {"table": "4", "items": ["latte"], "allergies": [], "notes": ""}
    assert json_quoted(validation_error(draft))[0].span == 'table = "4"'


def test_check_closed_table_schema_a_raising_or_odd_schema_is_a_problem_not_a_crash():
    def raises():
        raise KeyError("properties")

    assert "raised KeyError" in check_closed_table_schema(raises)[0]
    assert check_closed_table_schema(lambda: {"type": "object", "properties": 5})


def test_your_figures_bank_only_the_functions_given_and_what_they_did():
    example = validation_error({"table": "4", "items": [1, 2], "notes": ""})
    assert your_figures(None, None, example) == {}
    figures = your_figures(failures_from, closed_table_schema, example)
    assert figures["failures_from"]["example"] == [f.line() for f in failures_from(example)]
    assert figures["closed_schema"] == {"tables_tried": 32, "tables_admitted": 30}
    loose = your_figures(None, strict_ticket_schema, example)
    assert loose["closed_schema"]["tables_admitted"] == 32


# --- held-out reader D (7 Dec 2026): a span quotes the value as the draft held it --------------


def _with_span(error, span_of):
    """right_dict's failures with each span rewritten by `span_of(check, field, value)`."""
    values = {str(d["loc"][0]): d.get("input") for d in error.errors()}
    return [
        Failure(
            f.check, span_of(f.check, f.span.split(" ")[0], values.get(f.span.split(" ")[0])), f.fix
        )
        for f in right_dict(error)
    ]


def test_check_failures_from_refuses_a_number_quoted_as_text():
    """`table = '31'` tells the model it wrote text where it wrote a number: the text '4' is not
    the table 4, which is the contract's whole point."""

    def always_quoted(error):
        return _with_span(
            error,
            lambda check, field, value: f"{field} = '{value}'" if check == "bad_value" else field,
        )

    problems = check_failures_from(always_quoted)
    assert any(
        "as the draft held it" in problem and "not as text" in problem for problem in problems
    )


def test_check_failures_from_finds_none_quoted_as_text_on_generated_drafts():
    """No hand-picked draft holds None; the generated ones do (a table, items, notes of null)."""

    def none_as_text(error):
        return _with_span(
            error,
            lambda check, field, value: (
                (f"{field} = 'None'" if value is None else f"{field} = {value!r}")
                if check == "bad_value"
                else field
            ),
        )

    (problem,) = check_failures_from(none_as_text)
    assert "None" in problem and "not as text" in problem, problem


def test_check_failures_from_refuses_a_missing_field_span_that_quotes_the_draft():
    """A missing field held no value: a span is a pointer, not a copy of the draft."""

    def quotes_input(error):
        return _with_span(error, lambda check, field, value: f"{field} = {value!r}")

    problems = check_failures_from(quotes_input)
    assert any("a missing field held no value to quote" in problem for problem in problems), (
        problems
    )


@pytest.mark.parametrize(
    "span_of",
    [
        lambda check, field, value: (
            f"{field} = {json.dumps(value)}" if check == "bad_value" else field
        ),
        lambda check, field, value: (
            f"{field} = {value!r}" if check == "bad_value" else f"{field} (missing)"
        ),
    ],
)
def test_check_failures_from_a_span_quoted_as_python_or_json_passes(span_of):
    assert check_failures_from(lambda error: _with_span(error, span_of)) == []


def test_check_failures_from_any_order_passes():
    """The lesson states no order for the failures, so none is judged."""
    assert check_failures_from(lambda error: sorted(right_dict(error), key=lambda f: f.span)) == []
