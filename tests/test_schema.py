"""cafe.schema: the four-field ticket contract, its strict schema, and a parser that never raises."""

import json
import runpy
from pathlib import Path

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.endpoint.errors import RequestRejected
from cafe.endpoint.server.serve import Faults, running_server
from cafe.schema.drafts import StructuredDrafts
from cafe.schema.parsing import extract_json, failures_from, parse_draft
from cafe.schema.ticket import (
    CONTRACT_CHECKS,
    FIX_CHARS,
    FORMATS,
    MAX_TABLE,
    SPAN_CHARS,
    TICKET_FIELDS,
    Draft,
    Failure,
    Ticket,
    Usage,
    clip,
    contract_text,
    response_format,
    strict_ticket_schema,
)
from work import grows_linearly, on_text  # noqa: E402

SPEED = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "detect_speed.py"))
# The small size the growth is counted from (and 4x that); benchmarks/detect_speed.py times 1 MB.
SIZE = 1_000

GOOD = {"table": 4, "items": ["latte"], "allergies": [], "notes": ""}

tickets = st.fixed_dictionaries(
    {
        "table": st.integers(1, MAX_TABLE),
        "items": st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=4),
        "allergies": st.lists(st.text(max_size=10), max_size=3),
        "notes": st.text(max_size=40),
    }
)


def test_ticket_fields_are_the_four_of_the_contract():
    assert TICKET_FIELDS == ("table", "items", "allergies", "notes")
    assert tuple(Ticket.model_fields) == TICKET_FIELDS


def test_parse_draft_plain_json_is_a_ticket():
    parsed = parse_draft(json.dumps(GOOD))
    assert parsed.failures == ()
    assert parsed.ticket == Ticket(table=4, items=("latte",), allergies=(), notes="")


def test_parse_draft_json_in_a_code_fence_is_a_ticket():
    draft = f"Here is the ticket:\n```json\n{json.dumps(GOOD, indent=2)}\n```\nEnjoy!"
    assert parse_draft(draft).ticket is not None


def test_parse_draft_json_inside_prose_is_a_ticket():
    draft = f"Sure {{thing}}. The ticket is {json.dumps(GOOD)} as requested."
    assert parse_draft(draft).ticket is not None


def test_parse_draft_garbage_is_not_json():
    parsed = parse_draft("I'd love to help, what would you like?")
    assert parsed.ticket is None
    assert [f.check for f in parsed.failures] == ["not_json"]
    assert "love to help" in parsed.failures[0].span


def test_parse_draft_json_array_is_not_a_ticket():
    assert [f.check for f in parse_draft("[1, 2]").failures] == ["not_json"]


def test_parse_draft_missing_table_is_named():
    draft = json.dumps({k: v for k, v in GOOD.items() if k != "table"})
    failures = parse_draft(draft).failures
    assert failures == (Failure("missing_field", "table", failures[0].fix),)
    assert "table" in failures[0].fix and str(MAX_TABLE) in failures[0].fix


def test_parse_draft_string_table_is_a_bad_value_not_coerced():
    parsed = parse_draft(json.dumps({**GOOD, "table": "4"}))
    assert parsed.ticket is None
    assert [(f.check, f.span) for f in parsed.failures] == [("bad_value", "table = '4'")]


def test_parse_draft_extra_field_is_unknown_field():
    parsed = parse_draft(json.dumps({**GOOD, "price": 4.2}))
    assert [(f.check, f.span) for f in parsed.failures] == [("unknown_field", "price")]


def test_parse_draft_empty_items_and_bad_list_report_once_per_field():
    parsed = parse_draft(json.dumps({**GOOD, "items": [], "allergies": [1, 2, 3]}))
    assert sorted(f.span.split(" =")[0] for f in parsed.failures) == ["allergies", "items"]


def test_parse_draft_lone_surrogate_is_a_readable_failure_not_the_draft():
    draft = '{"table": 4, "items": ["\\ud800"], "allergies": [], "notes": "no onions, please, none at all"}'
    (failure,) = parse_draft(draft).failures
    assert (failure.check, failure.span) == ("bad_value", "<ticket>")
    assert "table, items, allergies, notes" in failure.fix and "no onions" not in failure.line()


def test_failures_from_is_what_parse_draft_reports_for_a_validation_error():
    from pydantic import ValidationError

    bad = {"table": 0, "items": [1, 2], "notes": ""}
    with pytest.raises(ValidationError) as caught:
        Ticket.model_validate_json(json.dumps(bad), strict=True)
    failures = failures_from(caught.value)
    assert failures == parse_draft(json.dumps(bad)).failures
    assert [(f.check, f.span) for f in failures] == [
        ("bad_value", "table = 0"),
        ("bad_value", "items = 1"),
        ("missing_field", "allergies"),
    ]


def test_parse_draft_non_string_is_a_type_error():
    with pytest.raises(TypeError, match="model's text"):
        parse_draft(None)  # type: ignore[arg-type]


def test_extract_json_deep_nesting_does_not_raise():
    assert extract_json("[" * 100_000) is None
    assert extract_json("{" * 5_000) is None


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_parse_draft_any_string_never_raises(draft):
    parsed = parse_draft(draft)
    assert (parsed.ticket is None) == bool(parsed.failures)
    assert all(f.check in CONTRACT_CHECKS for f in parsed.failures)
    assert all(isinstance(f.span, str) and f.fix for f in parsed.failures)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(exclude_categories=()), max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*TICKET_FIELDS, "price", ""]), json_values, max_size=5),
    st.sampled_from(["{}", "```json\n{}\n```", "Sure! {} Enjoy."]),
)
def test_parse_draft_any_json_object_never_raises(data, wrapper):
    # Any values in any of the fields (NaN, huge numbers, nested objects, stray surrogates), in any wrapper.
    parsed = parse_draft(wrapper.replace("{}", json.dumps(data)))
    assert (parsed.ticket is None) == bool(parsed.failures)
    assert all(f.check in CONTRACT_CHECKS and f.fix for f in parsed.failures)


@settings(max_examples=60, deadline=None)
@given(
    tickets, st.sampled_from(["{}", "```json\n{}\n```", "Here you go: {} -- thanks", "```\n{}```"])
)
def test_parse_draft_any_valid_ticket_round_trips_in_any_wrapper(data, wrapper):
    parsed = parse_draft(wrapper.replace("{}", json.dumps(data)))
    assert parsed.failures == ()
    assert parsed.ticket.model_dump() == {
        **data,
        "items": tuple(data["items"]),
        "allergies": tuple(data["allergies"]),
    }


@settings(max_examples=60, deadline=None)
@given(tickets, st.sampled_from(TICKET_FIELDS))
def test_parse_draft_any_missing_field_is_named(data, field):
    draft = json.dumps({k: v for k, v in data.items() if k != field})
    assert [(f.check, f.span) for f in parse_draft(draft).failures] == [("missing_field", field)]


def test_strict_ticket_schema_requires_every_field_and_forbids_others():
    schema = strict_ticket_schema()
    assert schema["required"] == list(TICKET_FIELDS)
    assert schema["additionalProperties"] is False
    assert schema["properties"]["table"]["type"] == "integer"
    assert "minimum" not in json.dumps(schema) and "minItems" not in json.dumps(schema)


def test_response_format_strictest_first():
    assert FORMATS == ("json_schema", "json_object_schema", "json_object", "plain")
    strict = response_format("json_schema")
    assert strict["type"] == "json_schema" and strict["json_schema"]["strict"] is True
    assert response_format("json_object_schema") == {
        "type": "json_object",
        "schema": strict_ticket_schema(),
    }
    assert response_format("json_object") == {"type": "json_object"}
    assert response_format("plain") is None


def test_response_format_unknown_is_a_value_error_naming_the_choices():
    with pytest.raises(ValueError, match="json_schema, json_object_schema, json_object, plain"):
        response_format("yaml")


def test_contract_text_names_every_field_and_json():
    text = contract_text()
    assert all(field in text for field in TICKET_FIELDS)
    assert "JSON" in text  # JSON mode endpoints insist the prompt says JSON


def test_usage_adds_up():
    total = Usage(10, 2) + Usage(5, 1)
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (15, 3, 18)
    assert Draft("x").usage is None


# --- StructuredDrafts: step down only when the format is what the endpoint refused ------------


def test_structured_drafts_steps_down_when_the_endpoint_refuses_json_schema():
    with running_server([json.dumps(GOOD)], supports_json_schema=False) as server:
        drafts = StructuredDrafts(
            openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0),
            "cafe-scripted",
            "Write the ticket.",
        )
        draft = drafts([{"role": "user", "content": "A latte, table 4."}])
    assert drafts.format == "json_object_schema"
    assert parse_draft(draft.text).ticket is not None
    assert "about response_format" in drafts.rejections[0]


def test_structured_drafts_rejection_for_another_reason_is_raised_not_stepped_down():
    # A 400 about something else (a prompt over the context length, say) must not quietly cost
    # the strict format: a weaker one would be refused the same way and the cause hidden.
    with running_server([json.dumps(GOOD)], faults=Faults(status=400)) as server:
        drafts = StructuredDrafts(
            openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0),
            "cafe-scripted",
            "Write the ticket.",
        )
        with pytest.raises(RequestRejected, match="HTTP 400 injected"):
            drafts([{"role": "user", "content": "A latte, table 4."}])
        sent = list(server.requests)
    assert drafts.format == "json_schema" and drafts.rejections == []
    assert [r["response_format"]["type"] for r in sent] == ["json_schema"]


# --- a span is a pointer, not a copy ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "clipped"),
    [
        ("latte", "latte"),
        ("  ignore \n\n\t previous  ", "ignore previous"),
        ("x" * 61, "x" * 59 + "…"),
        ("x" * 60, "x" * 60),
        ("a" + "\n" * 100_000 + "b", "a b"),
        ("", ""),
    ],
)
def test_clip_folds_whitespace_and_cuts_long_text(text, clipped):
    assert clip(text) == clipped


def test_failure_clips_span_and_fix_wherever_it_is_made():
    failure = Failure("off_menu", "x" * 100_000, "remove " + "x" * 100_000 + " please")
    assert len(failure.span) == SPAN_CHARS and failure.span.endswith("…")
    assert len(failure.fix) == FIX_CHARS and failure.fix.startswith("remove xxx")


def test_failure_non_text_field_is_a_type_error():
    with pytest.raises(TypeError, match="Failure.span must be text"):
        Failure("off_menu", None, "fix")  # type: ignore[arg-type]


@settings(max_examples=80, deadline=None)
@given(
    st.text(max_size=200)
    | st.sampled_from(["x" * 20_000, " " * 20_000, "```json\n" + "{" * 5_000]),
    st.sampled_from(["{}", "```json\n{}\n```", "Sure! {} Enjoy.", "{} trailing"]),
)
def test_parse_draft_any_failure_is_bounded(value, wrapper):
    for draft in (
        value,
        wrapper.replace("{}", json.dumps({"table": value, "items": [value], "notes": value})),
    ):
        for failure in parse_draft(draft).failures:
            assert len(failure.span) <= SPAN_CHARS and len(failure.fix) <= FIX_CHARS


# --- no slow inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["```json\n{}\n```", "```JSON {}```", "``` {}```", "```{}```", "prose ```json\n{}``` more"],
)
def test_extract_json_reads_fenced_blocks_with_or_without_a_tag(text):
    assert extract_json(text.replace("{}", json.dumps(GOOD))) == GOOD


def test_extract_json_unclosed_fence_is_read_as_prose():
    assert extract_json("```json\n" + json.dumps(GOOD)) == GOOD
    assert extract_json("```" + "a" * 100_000) is None


@pytest.mark.parametrize(
    "case", [c for c in SPEED["CASES"] if c.scanner.startswith("schema.")], ids=lambda c: c.scanner
)
def test_schema_scanners_grow_linearly_on_adversarial_text(case):
    # An unclosed fence followed by a long tag-like word was quadratic (every shorter tag retried).
    for adversary in SPEED["adversaries"]():
        assert grows_linearly(on_text(case.run, SPEED["_runs"], adversary), SIZE), adversary


def test_structured_drafts_steps_down_past_a_500_that_refuses_json_schema():
    # llama-cpp-python answers a json_schema response_format with HTTP 500 naming response_format;
    # its own spelling, json_object with a schema, then works.
    from dialects import running_dialect_server

    with running_dialect_server() as server:
        drafts = StructuredDrafts(
            openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0),
            "smollm2",
            "Write the ticket.",
        )
        drafts([{"role": "user", "content": "A latte, table 4."}])
    assert drafts.format == "json_object_schema"
    assert [r["response_format"]["type"] for r in server.requests] == ["json_schema", "json_object"]
    assert server.requests[-1]["response_format"]["schema"] == strict_ticket_schema()


def test_clip_masks_a_key_before_it_cuts(monkeypatch):
    # A key that straddles the cut must not leave its first characters behind.
    key = "sk-" + "q7" * 20
    monkeypatch.setenv("CAFE_API_KEY", key)
    for pad in range(0, 60, 7):
        quoted = clip("x" * pad + " " + key + " and more words after it", 40)
        assert key[:8] not in quoted and key[3:11] not in quoted, quoted
