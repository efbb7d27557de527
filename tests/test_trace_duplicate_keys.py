"""A trace line that holds a key twice, in any object at any depth, is a `TraceFileError` (A28).

`json.loads` keeps the last copy of a repeated key, and a line's digest is over what it kept, so
an edit to the first copy (a value changed by hand, a pasted key) used to read as clean: the
file verified while its bytes said something else. The writer never writes a key twice (it
dumps dicts), so the reader refuses any line that does, naming the file, the line and the key.

The properties, over a recorded run and over generated traces with arbitrary keys at any depth:
what the course writes reads clean; duplicating any key of any object of any line (its first
copy edited, or both copies the same) is named, on that line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.repair.reask import make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.attribute_shapes import ATTRIBUTE_SHAPES
from cafe.trace.file import read_trace, trace_lines, write_trace
from cafe.trace.lines import TraceFileError
from cafe.trace.parse import parse_traces
from cafe.trace.record import Recorder, record_repair
from cafe.trace.spans import Span, Trace

KEY = "sk-test-Dk4Rw7Yp2Lm9Qs5Tv8Nb3Hc6Jf1Gx0Za"
# What the first copy of a duplicated key holds: a value the reader would otherwise never see.
EDITED = "EDITED BY HAND"

Where = tuple[str | int, ...]  # where an object sits in a line: keys and list positions


def _recorded() -> Trace:
    """A run of the re-ask recorded through its client: three model calls, checks, a stop."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(ScriptedClient(Script(FeedbackModel()))))
    return record_repair(PRACTICE_ORDERS[1], generate, recorder=recorder)[1]


RECORDED_LINES = trace_lines(_recorded())


def _sites(value: Any, path: Where = ()) -> Iterator[tuple[Where, str]]:
    """Every (object, key) in a parsed line: the path of each JSON object and each of its keys."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield path, key
            yield from _sites(inner, (*path, key))
    elif isinstance(value, list):
        for position, inner in enumerate(value):
            yield from _sites(inner, (*path, position))


def _dumped(value: Any, site: tuple[Where, str] | None, first: Any, path: Where = ()) -> str:
    """`value` as JSON text, with the object at `site`'s path holding `site`'s key twice: first
    as `first`, then as written. With `site` None it is the line as it was (up to spacing)."""
    if isinstance(value, dict):
        pairs = [
            f"{json.dumps(key)}: {_dumped(inner, site, first, (*path, key))}"
            for key, inner in value.items()
        ]
        if site is not None and site[0] == path:
            pairs.insert(0, f"{json.dumps(site[1])}: {json.dumps(first)}")
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        items = (_dumped(inner, site, first, (*path, n)) for n, inner in enumerate(value))
        return "[" + ", ".join(items) + "]"
    return json.dumps(value)


def _with_duplicate(lines: list[str], index: int, site: tuple[Where, str], first: Any) -> list[str]:
    changed = list(lines)
    changed[index] = _dumped(json.loads(lines[index]), site, first)
    return changed


def _every_duplicate(lines: list[str]) -> Iterator[tuple[int, tuple[Where, str]]]:
    for index, line in enumerate(lines):
        for site in _sites(json.loads(line)):
            yield index, site


def _assert_named(lines: list[str], index: int, key: str) -> None:
    with pytest.raises(TraceFileError) as raised:
        parse_traces(lines, "shift.jsonl")
    assert raised.value.source == "shift.jsonl"
    assert raised.value.line == index + 1
    # a long key is quoted cut to 60 characters of its repr, the last one an ellipsis
    shown = repr(key) if len(repr(key)) <= 60 else repr(key)[:59] + "\u2026"
    assert f"holds the key {shown} twice" in str(raised.value)


def test_the_line_rewriter_changes_nothing_when_it_duplicates_nothing():
    """The rewriting below is honest: with no key added, the lines read back as the run."""
    rewritten = [_dumped(json.loads(line), None, None) for line in RECORDED_LINES]
    assert parse_traces(rewritten) == parse_traces(RECORDED_LINES)


def test_a_course_written_file_reads_clean(tmp_path):
    trace = _recorded()
    assert read_trace(write_trace(trace, tmp_path / "run.jsonl")).spans == trace.spans


def test_any_key_of_any_object_in_any_line_written_twice_is_named_with_its_line():
    """Exhaustive over a recorded run: every key of every object of every line (header, span,
    attributes, messages, parts, nested at any depth), its first copy edited."""
    sites = list(_every_duplicate(RECORDED_LINES))
    assert len(sites) > 200  # headers, spans, and the messages nested inside model calls
    assert any(len(path) >= 4 for _, (path, _) in sites)  # a part inside a message, at least
    for index, site in sites:
        _assert_named(_with_duplicate(RECORDED_LINES, index, site, EDITED), index, site[1])


def test_a_key_twice_with_the_same_value_is_named_too():
    """Not only an edit: a pasted copy of a key with the same value is still two copies."""
    index = 1
    _, site = next(s for s in _every_duplicate(RECORDED_LINES) if s[0] == index)
    value = json.loads(RECORDED_LINES[index])[site[1]]
    _assert_named(_with_duplicate(RECORDED_LINES, index, site, value), index, site[1])


def test_the_red_team_edit_a_pasted_key_before_the_span_name_is_named(tmp_path, monkeypatch):
    """A28 as the red team wrote it: a key pasted as a first "name" on a span line; the message
    names the line and the field, and does not print the key it found."""
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    lines = list(RECORDED_LINES)
    lines[1] = '{"name": "' + KEY + '", ' + lines[1][1:]
    path = tmp_path / "a28.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(TraceFileError, match="line 2: holds the key 'name' twice") as raised:
        read_trace(path)
    assert KEY not in str(raised.value)


def test_a_duplicated_key_that_is_a_secret_is_named_masked(monkeypatch):
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    lines = list(RECORDED_LINES)
    lines[1] = lines[1][:-1] + f', "{KEY}": 1, "{KEY}": 2}}'
    with pytest.raises(TraceFileError, match="line 2: holds the key") as raised:
        parse_traces(lines, "shift.jsonl")
    assert KEY not in str(raised.value)


# --- generated traces: arbitrary keys, nested at any depth -----------------------------------

key_text = st.text(st.characters(codec="utf-8"), max_size=12)
nested = st.recursive(
    st.none() | st.booleans() | st.integers() | key_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(key_text, inner, max_size=4),
    max_leaves=10,
)
free_attributes = st.dictionaries(
    key_text.filter(lambda name: name not in ATTRIBUTE_SHAPES), nested, max_size=4
)


@st.composite
def traces(draw) -> Trace:
    """A run span and up to three children, each with arbitrary free attributes."""
    count = draw(st.integers(0, 3))
    spans = [Span("r", None, "run", "run", 0.0, 1.0, draw(free_attributes))]
    spans += [
        Span(f"s{n}", "r", "tool_call", "tool", 0.0, 1.0, draw(free_attributes))
        for n in range(count)
    ]
    return Trace("generated", "2026-01-01T00:00:00+00:00", tuple(spans))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace=traces(), data=st.data())
def test_any_duplicated_key_in_a_generated_trace_is_named_and_the_written_file_reads_clean(
    trace, data
):
    lines = trace_lines(trace)
    assert len(parse_traces(lines)) == 1  # what the course writes reads clean
    index, site = data.draw(st.sampled_from(list(_every_duplicate(lines))))
    first = data.draw(st.sampled_from([EDITED, None, 0, [], {}]))
    _assert_named(_with_duplicate(lines, index, site, first), index, site[1])
