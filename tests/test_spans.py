"""cafe.trace.spans: the span and trace records, credential masking, and the content hash."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from cafe.repair.reask import ALTERNATING_CANDIDATES, OMELETTE_SPEC, make_scripted_generator
from cafe.trace.record import record_repair
from cafe.trace.spans import (
    NOT_HASHED,
    REDACTED,
    DeferredAttributes,
    Scrubber,
    Span,
    Trace,
    canonical_spans,
    content_hash,
    scrub,
)


def _trace() -> Trace:
    return record_repair(OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))[1]


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-AbCdEf0123456789xyz",
        "Bearer eyJhbGciOiJIUzI1NiJ9.abc",
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_0123456789abcdefghijABCDEFGHIJ",
        "api_key=hunter2hunter2",
        "password: 'correct-horse'",
        "TOKEN = abcd1234",
    ],
)
def test_scrub_credential_looking_text_is_masked_wherever_it_stands(secret):
    value = {"a": [f"before {secret} after", {"b": secret}], "n": 3, "none": None}
    cleaned = scrub(value)
    assert "before" in cleaned["a"][0] and "after" in cleaned["a"][0]
    for text in (cleaned["a"][0], cleaned["a"][1]["b"]):
        assert REDACTED in text and secret.split()[-1].strip("'") not in text
    assert cleaned["n"] == 3 and cleaned["none"] is None


def test_scrub_given_secret_is_masked_even_when_it_looks_like_nothing():
    assert scrub("the key is plainword1234 ok", ("plainword1234",)) == f"the key is {REDACTED} ok"
    # a short secret is masked as a whole word only: inside other words it is left alone
    assert scrub("a b", ("a",)) == f"{REDACTED} b"
    assert scrub("cafe latte, a-ha", ("a",)) == "cafe latte, a-ha"


def test_scrub_ordinary_cafe_text_is_left_alone():
    text = "Order for table 4. Items: oat latte, banana bread. Notes: extra hot, the usual skim-free milk."
    assert scrub(text) == text


def test_scrubber_remembers_each_string_once():
    scrubber = Scrubber(("sk-test-0123456789",))
    first = scrubber("sk-test-0123456789 here")
    assert scrubber("sk-test-0123456789 here") is first


def test_span_unknown_kind_or_backwards_times_is_a_value_error():
    with pytest.raises(ValueError, match="not one of run, turn"):
        Span("1", None, "meal", "x", 0.0, 1.0, {})
    with pytest.raises(ValueError, match="ends"):
        Span("1", None, "run", "x", 2.0, 1.0, {})


def test_span_attributes_are_read_only():
    span = Span("1", None, "run", "x", 0.0, 1.0, {"a": 1})
    with pytest.raises(TypeError):
        span.attributes["a"] = 2  # type: ignore[index]


def test_deferred_attributes_build_once_on_the_first_read_and_stay_read_only():
    built = []
    attributes = DeferredAttributes(lambda: built.append(1) or {"a": 1, "b": [2]})
    span = Span("1", None, "run", "x", 0.0, 1.0, attributes)
    assert span.attributes is attributes and built == []
    assert (
        span.get("a") == 1
        and dict(span.attributes) == {"a": 1, "b": [2]}
        and len(span.attributes) == 2
    )
    assert built == [1]
    assert span.attributes == {"a": 1, "b": [2]} and "mappingproxy" in repr(span)
    with pytest.raises(TypeError):
        span.attributes["a"] = 2  # type: ignore[index]


def test_deferred_attributes_printed_or_hashed_are_masked():
    """Printing a span reads what `build` made (masked), never what it was made from."""
    secret = "sk-live-abcdefghijklmnop"
    clean = Scrubber()
    span = Span(
        "1",
        None,
        "run",
        "x",
        0.0,
        1.0,
        DeferredAttributes(lambda: {"note": clean(f"key {secret}")}),
    )
    trace = Trace("t", "2026-11-30T00:00:00+00:00", (span,))
    assert (
        secret not in repr(trace)
        and REDACTED in repr(trace)
        and secret not in str(canonical_spans(trace))
    )


def test_deferred_attributes_copied_or_pickled_hold_the_masked_text_only():
    secret = "sk-live-abcdefghijklmnop"
    attributes = DeferredAttributes(lambda message: {"note": Scrubber()(message)}, f"key {secret}")
    pickled = pickle.dumps(attributes)
    assert secret.encode() not in pickled and pickle.loads(pickled) == {"note": f"key {REDACTED}"}
    assert copy.deepcopy(DeferredAttributes(lambda: {"a": [1]})) == {"a": [1]}


def test_trace_must_start_with_its_run_and_name_known_parents():
    run = Span("1", None, "run", "r", 0.0, 1.0, {})
    orphan = Span("2", "9", "attempt", "a", 0.0, 1.0, {})
    with pytest.raises(ValueError, match="starts with its run"):
        Trace("t", "now", (orphan,))
    with pytest.raises(ValueError, match="names parent '9'"):
        Trace("t", "now", (run, orphan))
    with pytest.raises(ValueError, match="appears twice"):
        Trace("t", "now", (run, dataclasses.replace(run, parent_id="1")))


def test_trace_reading_helpers_answer_from_the_spans():
    trace = _trace()
    assert trace.stop_reason == "retries_exhausted" and trace.root.kind == "run"
    assert len(trace.of_kind("attempt")) == 3 and trace.model == "scripted" and trace.usage is None
    assert [s.kind for s in trace.children(trace.of_kind("attempt")[0])] == ["model_call", "check"]
    assert [depth for depth, _ in trace.walk()] == [0] + [1, 2, 2] * 3
    with pytest.raises(ValueError, match="Unknown span kind"):
        trace.of_kind("attempts")


def test_content_hash_ignores_ids_times_and_served_from():
    trace = _trace()
    moved = Trace(
        "other-id",
        "2030-01-01T00:00:00+00:00",
        tuple(
            dataclasses.replace(
                s,
                span_id=f"x{s.span_id}",
                parent_id=s.parent_id and f"x{s.parent_id}",
                start_s=s.start_s + 5,
                end_s=s.end_s + 9,
                attributes={
                    **s.attributes,
                    **{k: "elsewhere" for k in NOT_HASHED if k in s.attributes},
                },
            )
            for s in trace.spans
        ),
    )
    assert content_hash(moved) == content_hash(trace)


def test_content_hash_changes_with_any_attribute_name_or_tree_shape():
    trace = _trace()
    spans = list(trace.spans)
    edited = dataclasses.replace(
        spans[3], attributes={**spans[3].attributes, "cafe.check.failures": []}
    )
    renamed = dataclasses.replace(spans[1], name="attempt one")
    regrafted = dataclasses.replace(spans[5], parent_id=spans[1].span_id)
    for i, changed in ((3, edited), (1, renamed), (5, regrafted)):
        other = Trace(
            trace.trace_id, trace.started_at, tuple(spans[:i] + [changed] + spans[i + 1 :])
        )
        assert content_hash(other) != content_hash(trace)
    assert canonical_spans(trace)[2]["parent"] == 1
