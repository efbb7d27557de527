"""Whatever the trace writer writes, the reader reads back as it was written.

The property, over generated traces with arbitrary Unicode in every field (trace and span ids,
the start time, span names, attribute names and values, at any depth): `read_traces` of what
`write_traces` wrote is the traces as written (scrubbed of secrets, times to the microsecond), and
writing what was read gives the same file again. The text includes what broke it before: the
line and paragraph separators and next line (U+2028, U+2029, U+0085), which `str.splitlines`
splits on, lone surrogates, which UTF-8 cannot hold, NUL, and long strings.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.repair.reask import ALTERNATING_CANDIDATES, OMELETTE_SPEC, make_scripted_generator
from cafe.report.traces import read_shift
from cafe.trace.attribute_shapes import ATTRIBUTE_SHAPES
from cafe.trace.attributes import OUTPUT_MESSAGES, STOP_REASON
from cafe.trace.file import read_trace, read_traces, trace_lines, write_trace, write_traces
from cafe.trace.lines import MAX_LINE_CHARS, TraceFileError
from cafe.trace.record import Recorder, record_repair
from cafe.trace.spans import SPAN_KINDS, Span, Trace, scrubbed

# The characters that broke the round trip, or might: line breaks JSON leaves raw, the ones it
# escapes, lone surrogates at both ends of their range, NUL, a byte-order mark, a replacement
# character, an emoji (a surrogate pair in UTF-16), and the quote and backslash JSON escapes.
AWKWARD = '\u2028\u2029\x85\ud800\udfff\udc00\x00\r\n\x0b\x0c\x1c\x1d\x1e\ufeff\ufffd\U0001f600"\\'

chars = st.one_of(st.characters(codec=None, categories=None), st.sampled_from(AWKWARD))
text = st.text(chars, max_size=40)
long_text = st.builds(lambda piece, times: piece * times, text, st.integers(0, 1_000))
json_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
    | long_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
# Any attribute name but those whose shape readers rely on (the writer refuses a wrong shape, as
# `test_a_value_the_reader_would_refuse_is_refused_by_the_writer` shows): those get their shape.
free_name = text.filter(lambda name: name not in ATTRIBUTE_SHAPES)
times = st.integers(0, 10**12).map(lambda micro: micro / 10**6)


def _message(content: str) -> dict:
    return {
        "role": "assistant",
        "parts": [{"type": "text", "content": content}],
        "finish_reason": "stop",
    }


@st.composite
def spans(draw) -> tuple[Span, ...]:
    """A run span, then up to five more, each under one drawn before it, with drawn content."""
    ids = draw(st.lists(text, min_size=1, max_size=6, unique=True))
    made: list[Span] = []
    for number, span_id in enumerate(ids):
        start = draw(times)
        attributes = draw(st.dictionaries(free_name, json_value, max_size=4))
        if draw(st.booleans()):  # attributes readers rely on, with arbitrary text in them
            attributes[OUTPUT_MESSAGES] = [_message(draw(long_text))]
            attributes[STOP_REASON] = draw(text)
        made.append(
            Span(
                span_id,
                None if number == 0 else draw(st.sampled_from(made)).span_id,
                "run" if number == 0 else draw(st.sampled_from(SPAN_KINDS[1:])),
                draw(text),
                start,
                start + draw(times),
                attributes,
            )
        )
    return tuple(made)


traces = st.lists(
    st.builds(Trace, text, text, spans()), min_size=1, max_size=3, unique_by=lambda t: t.trace_id
)


def _as_written(trace: Trace) -> Trace:
    """What the writer promises to write: every string scrubbed of secrets (`scrubbed`), times to
    the microsecond, tuples as lists (as JSON has them)."""
    clean = scrubbed(trace)
    rounded = tuple(
        dataclasses.replace(s, start_s=round(s.start_s, 6), end_s=round(s.end_s, 6))
        for s in clean.spans
    )
    return dataclasses.replace(clean, spans=rounded)


@pytest.fixture(scope="module")
def shared_path(tmp_path_factory):
    return tmp_path_factory.mktemp("roundtrip") / "t.jsonl"


@settings(max_examples=30, deadline=None, derandomize=True)
@given(written=traces)
def test_write_then_read_gives_back_every_run_as_written_for_any_unicode(shared_path, written):
    path = write_traces(written, shared_path)  # written over each time
    back = read_traces(path)
    assert back == tuple(_as_written(t) for t in written)
    # the same file again from what was read: the writer's output is a fixed point
    assert [line for t in back for line in trace_lines(t)] == [
        line for t in written for line in trace_lines(t)
    ]
    # one record a line to any line reader, and the file is plain UTF-8
    data = path.read_bytes()
    assert len(data.decode("utf-8").splitlines()) == sum(1 + len(t.spans) for t in written)


def _run(name: str = "invoke_agent cafe.repair", trace_id: str = "run-1") -> Trace:
    ticks = iter(range(1000))
    recorder = Recorder(
        clock=lambda: next(ticks) / 10, trace_id=trace_id, started_at="2026-12-06T08:00:00+00:00"
    )
    trace = record_repair(
        OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES), recorder=recorder
    )[1]
    root = dataclasses.replace(trace.root, name=name)
    return dataclasses.replace(trace, spans=(root, *trace.spans[1:]))


def test_separators_are_escaped_so_no_line_reader_splits_a_record(tmp_path):
    path = write_trace(_run("one\u2028two\u2029three\x85four"), tmp_path / "t.jsonl")
    text = path.read_text(encoding="utf-8")
    assert not set("\u2028\u2029\x85") & set(text)
    assert "\\u2028" in text and "\\u2029" in text and "\\u0085" in text
    assert read_trace(path).root.name == "one\u2028two\u2029three\x85four"


def test_a_file_the_earlier_writer_wrote_with_raw_separators_still_reads(tmp_path):
    """Before the escape, the writer left U+2028 raw; the digests are of the record, not its
    spelling, so such a file reads once the reader splits at newlines only."""
    lines = trace_lines(_run("a\u2028b"))
    raw = [json.dumps(json.loads(line), ensure_ascii=False) for line in lines]
    assert "\u2028" in raw[1]
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(raw) + "\n", encoding="utf-8")
    assert read_trace(path).root.name == "a\u2028b"


def test_session_09_counts_a_run_whose_text_holds_separators(tmp_path):
    path = write_trace(_run("lunch\u2028run\x85"), tmp_path / "t.jsonl")
    runs, problems = read_shift([path])
    assert len(runs) == 1 and problems == ()


def test_a_long_string_round_trips_and_a_line_over_the_cap_is_refused_before_writing(tmp_path):
    long = "\u2028x\ud800" * 100_000
    assert read_trace(write_trace(_run(long), tmp_path / "long.jsonl")).root.name == long
    path = tmp_path / "over.jsonl"
    escaped = "\ud800" * (MAX_LINE_CHARS // 6 + 1)  # written as \ud800, six characters each
    with pytest.raises(ValueError, match=f"over the {MAX_LINE_CHARS} a reader reads"):
        write_trace(_run(escaped), path)
    assert not path.exists()


def test_a_value_the_reader_would_refuse_is_refused_by_the_writer(tmp_path):
    trace = _run()
    call = trace.model_calls[0]
    bad = dataclasses.replace(call, attributes={**call.attributes, OUTPUT_MESSAGES: "hello"})
    broken = dataclasses.replace(trace, spans=tuple(bad if s is call else s for s in trace.spans))
    with pytest.raises(ValueError, match="gen_ai.output.messages must be a list, not 'hello'"):
        write_trace(broken, tmp_path / "t.jsonl")
    endless = dataclasses.replace(trace.root, end_s=float("inf"))
    with pytest.raises(ValueError, match="finite numbers of seconds"):
        write_trace(dataclasses.replace(trace, spans=(endless, *trace.spans[1:])), tmp_path / "u")


def test_a_run_written_twice_is_refused_by_the_writer_and_named_by_the_reader(tmp_path):
    path = write_trace(_run(), tmp_path / "t.jsonl")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="run 'run-1' is already in"):
        write_trace(_run(), path, append=True)
    with pytest.raises(ValueError, match="run 'run-1' is already in"):
        write_traces([_run(), _run()], tmp_path / "two.jsonl")
    assert path.read_text(encoding="utf-8") == before
    # appended by other means (`cat t.jsonl >> t.jsonl`): the reader names the second copy
    path.write_text(before + before, encoding="utf-8")
    with pytest.raises(TraceFileError, match="run 'run-1' is here a second time"):
        read_traces(path)


def test_session_09_counts_a_run_copied_into_a_second_file_once(tmp_path):
    first = write_trace(_run(), tmp_path / "a.jsonl")
    copy = tmp_path / "b.jsonl"
    copy.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    other = write_trace(_run(trace_id="run-2"), tmp_path / "c.jsonl")
    runs, (problem,) = read_shift([first, copy, other])
    assert [run.run_id for run in runs] == ["run-1", "run-2"]
    assert problem.startswith(f"Not counted twice, from {copy}: run run-1 is the same run")
