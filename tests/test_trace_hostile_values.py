"""Any value in a trace's fields ends in the writer's ValueError or the reader's TraceFileError.

A held-out red team (7 Dec 2026) hand-edited trace files and found three ways past the named
errors: a finish reason or a part type that is a list or an object (`TypeError: unhashable type`),
a time of 10**400 seconds (`OverflowError`, in the writer and the reader), and a token count of
10**309 that the course wrote, read back, and then could not add up in `summarize`. The principle:
what the writer refuses, the reader refuses, each with its own named error, whatever JSON value
stands in a field; and every count a trace holds can be added and priced.
"""

from __future__ import annotations

import dataclasses
import json
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.repair.reask import make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.file import TraceFileError, trace_lines
from cafe.trace.parse import parse_traces
from cafe.trace.record import Recorder, record_repair
from cafe.trace.spans import Trace

# Any JSON value, nested a little: what a hand edit can put in a field.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
HUGE = st.sampled_from([10**400, -(10**400), 2**53 + 1, 10**309])


def _recorded() -> Trace:
    ticks = iter(range(10_000))
    recorder = Recorder(
        clock=lambda: next(ticks) / 10, trace_id="run-1", started_at="2026-12-01T09:00:00+00:00"
    )
    client = recorder.client(ScriptedClient(Script(FeedbackModel())))
    return record_repair(PRACTICE_ORDERS[0], make_model_generator(client), recorder=recorder)[1]


TRACE = _recorded()
CALL = next(i for i, span in enumerate(TRACE.spans) if span.kind == "model_call")


def _with(field: str, value: Any) -> Trace:
    """TRACE with one model call's `field` (an attribute, or start_s/end_s) set to `value`."""
    span = TRACE.spans[CALL]
    if field in ("start_s", "end_s"):
        changed = dataclasses.replace(span, **{field: value})
    else:
        changed = dataclasses.replace(
            span, attributes=MappingProxyType({**span.attributes, field: value})
        )
    return dataclasses.replace(
        TRACE, spans=(*TRACE.spans[:CALL], changed, *TRACE.spans[CALL + 1 :])
    )


def _hand_edited(field: str, value: Any) -> list[str]:
    """TRACE's lines with the model call's `field` replaced by `value`, as an editor would."""
    lines = trace_lines(TRACE)
    index = next(i for i, line in enumerate(lines) if json.loads(line).get("kind") == "model_call")
    record = json.loads(lines[index])
    if field in ("start_s", "end_s"):
        record[field] = value
    else:
        record["attributes"][field] = value
    return [*lines[:index], json.dumps(record), *lines[index + 1 :]]


FIELDS = {
    "finish reasons": ("gen_ai.response.finish_reasons", lambda v: [v]),
    "an output part's type": (
        "gen_ai.output.messages",
        lambda v: [
            {"role": "assistant", "parts": [{"type": v, "content": "x"}], "finish_reason": "stop"}
        ],
    ),
    "an output's finish reason": (
        "gen_ai.output.messages",
        lambda v: [{"role": "assistant", "parts": [], "finish_reason": v}],
    ),
    "input tokens": ("gen_ai.usage.input_tokens", lambda v: v),
    "start time": ("start_s", lambda v: v),
}


@pytest.mark.parametrize("where", FIELDS)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=JSON | HUGE)
def test_any_value_ends_in_the_named_errors(where: str, value: Any) -> None:
    field, build = FIELDS[where]
    try:
        written = trace_lines(_with(field, build(value)))
    except ValueError:
        written = None  # the span or the writer refused it, by name
    try:  # an edit breaks the line's digest too: the reader must name it, and nothing else
        parse_traces(_hand_edited(field, build(value)), "t.jsonl")
    except TraceFileError:
        pass
    if written is not None:
        (back,) = parse_traces(written, "t.jsonl")  # what was written reads back
        assert back.model_calls


@pytest.mark.parametrize("count", [2**53 + 1, 10**309])
def test_a_count_no_report_can_add_is_refused_on_both_sides(count: int) -> None:
    with pytest.raises(ValueError, match="whole number from 0 to"):
        trace_lines(_with("gen_ai.usage.input_tokens", count))
    with pytest.raises(TraceFileError):
        parse_traces(_hand_edited("gen_ai.usage.input_tokens", count), "t.jsonl")


def test_a_time_a_float_cannot_hold_is_named_not_an_overflow() -> None:
    with pytest.raises(ValueError, match="before it starts"):  # 10**400 is after every end
        trace_lines(_with("start_s", 10**400))
    with pytest.raises(ValueError, match="finite numbers of seconds"):
        trace_lines(_with("end_s", 10**400))
    with pytest.raises(TraceFileError, match="finite number"):
        parse_traces(_hand_edited("start_s", 10**400), "t.jsonl")
