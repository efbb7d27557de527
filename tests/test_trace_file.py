"""cafe.trace.file: the JSONL trace file, written in one fixed order and read back with named errors."""

from __future__ import annotations

import json

import pytest

from cafe.repair.reask import ALTERNATING_CANDIDATES, OMELETTE_SPEC, make_scripted_generator
from cafe.trace.file import (
    SCHEMA_VERSION,
    TraceFileError,
    read_trace,
    read_traces,
    trace_lines,
    write_trace,
    write_traces,
)
from cafe.trace.record import Recorder, content_hash, record_repair


def _trace(trace_id: str = "run-1"):
    ticks = iter(range(1000))
    recorder = Recorder(
        clock=lambda: next(ticks) / 10, trace_id=trace_id, started_at="2026-11-30T12:00:00+00:00"
    )
    return record_repair(
        OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES), recorder=recorder
    )[1]


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_write_trace_then_read_trace_gives_the_same_trace(tmp_path):
    trace = _trace()
    back = read_trace(write_trace(trace, tmp_path / "t.jsonl"))
    assert back == trace and content_hash(back) == content_hash(trace)


def test_write_trace_header_then_one_span_per_line_in_fixed_key_order(tmp_path):
    trace = _trace()
    rows = _lines(write_trace(trace, tmp_path / "t.jsonl"))
    assert list(rows[0]) == [
        "record",
        "schema_version",
        "trace_id",
        "started_at",
        "spans",
        "content_hash",
        "line_sha256",
        "header_sha256",
    ]
    assert rows[0]["content_hash"] == content_hash(trace)
    assert (
        rows[0]["schema_version"] == SCHEMA_VERSION
        and rows[0]["spans"] == len(trace.spans) == len(rows) - 1
    )
    for row in rows[1:]:
        assert list(row) == [
            "record",
            "trace_id",
            "span_id",
            "parent_id",
            "kind",
            "name",
            "start_s",
            "end_s",
            "attributes",
        ]
        assert list(row["attributes"]) == sorted(row["attributes"])


def test_trace_lines_same_trace_is_the_same_text():
    assert trace_lines(_trace()) == trace_lines(_trace())


def test_read_traces_file_of_many_runs_returns_each_and_read_trace_refuses_it(tmp_path):
    path = write_traces([_trace("a"), _trace("b")], tmp_path / "shift.jsonl")
    write_trace(_trace("c"), path, append=True)
    assert [t.trace_id for t in read_traces(path)] == ["a", "b", "c"]
    with pytest.raises(TraceFileError, match="holds 3 runs"):
        read_trace(path)


def test_read_trace_cut_off_mid_line_names_the_line(tmp_path):
    path = write_trace(_trace(), tmp_path / "t.jsonl")
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) - 40], encoding="utf-8")
    last = len(text.splitlines())
    with pytest.raises(
        TraceFileError, match=rf"t.jsonl line {last}: is not a complete JSON object.*cut off"
    ):
        read_trace(path)


def test_read_trace_cut_off_at_a_line_end_says_how_many_spans_are_missing(tmp_path):
    path = write_trace(_trace(), tmp_path / "t.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")
    with pytest.raises(
        TraceFileError,
        match=rf"line 1: field 'spans' says .* has {len(lines) - 1} spans, but {len(lines) - 3}",
    ):
        read_trace(path)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("end_s", "soon", "field 'end_s' must be a number of seconds, not 'soon'"),
        ("kind", "lunch", "field 'kind' is 'lunch'; a span kind is one of run, turn"),
        ("attributes", [1], "field 'attributes' must be a JSON object"),
        ("parent_id", "nobody", "field 'parent_id' names span 'nobody', which no line before it"),
        ("trace_id", "other", "field 'trace_id' is 'other'"),
        ("start_s", True, "field 'start_s' must be a number of seconds, not True"),
    ],
)
def test_read_trace_hand_edited_span_names_line_and_field(tmp_path, field, value, message):
    path = write_trace(_trace(), tmp_path / "t.jsonl")
    rows = _lines(path)
    rows[3][field] = value
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(TraceFileError, match="line 4") as caught:
        read_trace(path)
    assert message in str(caught.value)


def test_read_trace_missing_field_names_it(tmp_path):
    path = write_trace(_trace(), tmp_path / "t.jsonl")
    rows = _lines(path)
    del rows[2]["name"]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(TraceFileError, match="line 3: field 'name' is missing"):
        read_trace(path)


def test_read_trace_newer_schema_version_says_so(tmp_path):
    path = write_trace(_trace(), tmp_path / "t.jsonl")
    rows = _lines(path)
    rows[0]["schema_version"] = SCHEMA_VERSION + 1
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(
        TraceFileError,
        match=rf"line 1: schema_version {SCHEMA_VERSION + 1} is newer .* update cafe",
    ):
        read_trace(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "holds no trace"),
        ('{"record": "span"}\n', "line 1: a span comes before any trace header"),
        ("[1, 2]\n", "line 1: is not a JSON object"),
        ('{"record": "note"}\n', "line 1: field 'record' is 'note'"),
    ],
)
def test_read_trace_not_a_trace_is_a_trace_file_error(tmp_path, text, message):
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TraceFileError, match=message):
        read_trace(path)


def test_read_trace_missing_file_and_binary_file_are_trace_file_errors(tmp_path):
    with pytest.raises(TraceFileError, match="does not exist"):
        read_trace(tmp_path / "nope.jsonl")
    (tmp_path / "b.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TraceFileError, match="UTF-8"):
        read_trace(tmp_path / "b.jsonl")


def test_write_traces_refuses_what_is_not_a_trace(tmp_path):
    with pytest.raises(TypeError, match="Trace records"):
        write_traces([{"spans": []}], tmp_path / "t.jsonl")
