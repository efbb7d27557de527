"""A trace file says when it was changed, and every malformed one ends in one TraceFileError.

The header of each run records a digest of each span line, the run's content hash and a digest
of itself (`cafe.trace.lines`); reading checks each line's shape, then its digest, then the run's
hash (`cafe.trace.parse`); replay starts only from a trace that still hashes to what its file
recorded (`cafe.trace.replay.replay_client`).
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.repair.reask import make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.file import TraceFileError, read_trace, trace_lines, write_trace
from cafe.trace.parse import parse_traces
from cafe.trace.record import Recorder, record_repair
from cafe.trace.replay import ReplayDiverged, replay_client
from cafe.trace.spans import Trace, content_hash

ORDER = PRACTICE_ORDERS[0]


def _recorded() -> Trace:
    ticks = iter(range(10_000))
    recorder = Recorder(
        clock=lambda: next(ticks) / 10, trace_id="run-1", started_at="2026-12-01T09:00:00+00:00"
    )
    client = recorder.client(ScriptedClient(Script(FeedbackModel())))
    return record_repair(ORDER, make_model_generator(client), recorder=recorder)[1]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return trace_lines(_recorded())


def _replayed(trace: Trace) -> Trace:
    recorder = Recorder()
    client = recorder.client(replay_client(trace))
    return record_repair(ORDER, make_model_generator(client, trace.model), recorder=recorder)[1]


def _line_with(lines: list[str], text: str) -> int:
    return next(i for i, line in enumerate(lines) if text in line)


def _edit(lines: list[str], index: int, old: str, new: str) -> list[str]:
    assert old in lines[index]
    return [*lines[:index], lines[index].replace(old, new, 1), *lines[index + 1 :]]


# --- one-byte edits -----------------------------------------------------------------------------


def _at(line: str, position: int, new: str, *, replace: bool) -> str:
    return line[:position] + new + line[position + (1 if replace else 0) :]


def _edits(lines: list[str]) -> dict[str, tuple[int, list[str]]]:
    reply = _line_with(lines, '"gen_ai.output.messages"')
    line = lines[reply]
    start = line.index('"content": "', line.index('"gen_ai.output.messages"')) + 12
    letter = next(i for i in range(start, len(line)) if line[i].isalpha())
    response_id = json.loads(line)["attributes"]["gen_ai.response.id"]
    timed = _line_with(lines, '"kind": "check"')
    begins = json.loads(lines[timed])["start_s"]

    def swapped(index: int, text: str) -> list[str]:
        return [*lines[:index], text, *lines[index + 1 :]]

    return {
        "a letter's case in a reply": (
            reply,
            swapped(reply, _at(line, letter, line[letter].swapcase(), replace=True)),
        ),
        "a space added to a reply": (reply, swapped(reply, _at(line, letter, " ", replace=False))),
        "a response id": (reply, _edit(lines, reply, response_id, response_id + "x")),
        "a span's time": (
            timed,
            _edit(lines, timed, f'"start_s": {begins}', f'"start_s": {begins + 0.1:.1f}'),
        ),
        "the run's start time": (0, _edit(lines, 0, "09:00:00", "09:00:01")),
        "the number of spans": (0, _edit(lines, 0, '"spans": ', '"spans": 1')),
    }


@pytest.mark.parametrize(
    "edit",
    [
        "a letter's case in a reply",
        "a space added to a reply",
        "a response id",
        "a span's time",
        "the run's start time",
        "the number of spans",
    ],
)
def test_one_byte_edit_is_a_trace_file_error_naming_the_line(lines, edit):
    index, edited = _edits(lines)[edit]
    with pytest.raises(TraceFileError) as caught:
        parse_traces(edited, "t.jsonl")
    assert caught.value.line == index + 1
    assert "changed after it was written" in str(caught.value) or "field" in str(caught.value)


def test_a_reformatted_file_still_reads_the_same(lines):
    """The digests are of each record's content, so `jq`-style reformatting is not an edit."""
    spaced = [json.dumps(json.loads(line), indent=None, separators=(",", ":")) for line in lines]
    (trace,) = parse_traces(spaced)
    assert trace.recorded_hash == content_hash(trace) == json.loads(lines[0])["content_hash"]


# --- shapes -------------------------------------------------------------------------------------


def _reshaped(lines: list[str], change) -> list[str]:
    index = _line_with(lines, '"gen_ai.output.messages"')
    record = json.loads(lines[index])
    change(record["attributes"])
    return [*lines[:index], json.dumps(record), *lines[index + 1 :]]


SHAPES = {
    "output parts removed": (
        lambda a: a["gen_ai.output.messages"][0].pop("parts"),
        "gen_ai.output.messages[0].parts must be a list, not None",
    ),
    "output parts a string": (
        lambda a: a["gen_ai.output.messages"][0].update(parts="hello"),
        "parts must be a list, not 'hello'",
    ),
    "output messages an object": (
        lambda a: a.update({"gen_ai.output.messages": {"0": {}}}),
        "gen_ai.output.messages must be a list",
    ),
    "a part with no content": (
        lambda a: a["gen_ai.output.messages"][0]["parts"][0].pop("content"),
        "parts[0].content is missing",
    ),
    "a token count as text": (
        lambda a: a.update({"gen_ai.usage.output_tokens": "7"}),
        "gen_ai.usage.output_tokens must be a whole number",
    ),
    "finish reasons a number": (
        lambda a: a.update({"gen_ai.response.finish_reasons": 3}),
        "finish_reasons must be a list, not 3",
    ),
    # any text is a finish reason (a provider's own word, such as "eos_token"), or null; a
    # number is not (tests/test_trace_any_reply.py)
    "a finish reason that is not text": (
        lambda a: a.update({"gen_ai.response.finish_reasons": [7]}),
        "finish_reasons[0] must be text or null, not 7",
    ),
    "input messages a string": (
        lambda a: a.update({"gen_ai.input.messages": "hello"}),
        "gen_ai.input.messages must be a list, not 'hello'",
    ),
    "a value nested 100 deep": (
        lambda a: a.update({"x": json.loads("[" * 100 + "]" * 100)}),
        "nests more than 64 deep",
    ),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_malformed_shape_is_one_trace_file_error(lines, name):
    change, message = SHAPES[name]
    edited = _reshaped(lines, change)
    with pytest.raises(TraceFileError) as caught:
        parse_traces(edited, "t.jsonl")
    assert message in str(caught.value)
    assert caught.value.line == _line_with(lines, '"gen_ai.output.messages"') + 1


def test_deep_nesting_is_a_trace_file_error_not_a_recursion_error(lines):
    deep = "[" * 200_000 + "]" * 200_000
    with pytest.raises(TraceFileError, match="line 2: is nested more deeply than any trace line"):
        parse_traces([lines[0], deep], "t.jsonl")


def test_a_line_over_the_cap_is_refused_before_it_is_parsed(lines):
    from cafe.trace.lines import MAX_LINE_CHARS

    with pytest.raises(TraceFileError, match="line 2: is over"):
        parse_traces([lines[0], "x" * (MAX_LINE_CHARS + 1)], "t.jsonl")


# --- replay checks the recorded hash first --------------------------------------------------------


def test_replay_compares_with_the_recorded_hash(tmp_path):
    trace = _recorded()
    loaded = read_trace(write_trace(trace, tmp_path / "t.jsonl"))
    assert loaded.recorded_hash == content_hash(trace)
    assert content_hash(_replayed(loaded)) == loaded.recorded_hash
    first = loaded.model_calls[0]
    edited_span = dataclasses.replace(first, name=first.name + " (edited)")
    edited = dataclasses.replace(
        loaded,
        spans=tuple(edited_span if s is first else s for s in loaded.spans),
    )
    with pytest.raises(TraceFileError, match="changed after it was read"):
        replay_client(edited)


def test_a_malformed_trace_in_memory_is_refused_before_the_replay(lines):
    trace = _recorded()
    call = trace.model_calls[0]
    broken = dataclasses.replace(call, attributes={**call.attributes, "gen_ai.output.messages": 7})
    bad = dataclasses.replace(trace, spans=tuple(broken if s is call else s for s in trace.spans))
    with pytest.raises(TraceFileError, match=r"gen_ai.output.messages must be a list, not 7"):
        replay_client(bad)


def _version_1(lines: list[str]) -> list[str]:
    header = json.loads(lines[0])
    for key in ("content_hash", "line_sha256", "header_sha256"):
        del header[key]
    header["schema_version"] = 1
    return [json.dumps(header), *lines[1:]]


def test_a_version_1_file_reads_unverified_only_when_asked(lines):
    with pytest.raises(TraceFileError, match="line 1: schema_version 1 was written before"):
        parse_traces(_version_1(lines), "t.jsonl")
    (trace,) = parse_traces(_version_1(lines), allow_unverified=True)
    assert trace.recorded_hash is None
    assert content_hash(_replayed(trace)) == content_hash(trace)


def test_an_edited_version_2_file_relabelled_as_1_is_refused_even_when_unverified_is_allowed(lines):
    reply = _line_with(lines, '"gen_ai.output.messages"')
    edited = _edit(lines, reply, '"content": "', '"content": "X')
    relabelled = [edited[0].replace('"schema_version": 2', '"schema_version": 1'), *edited[1:]]
    with pytest.raises(TraceFileError) as caught:
        parse_traces(relabelled, "t.jsonl", allow_unverified=True)
    assert caught.value.line == 1
    assert "a version-2 run relabelled as 1" in str(caught.value)
    assert "content_hash, line_sha256, header_sha256" in str(caught.value)


def test_an_edited_file_relabelled_as_1_with_its_digests_stripped_is_refused_by_default(lines):
    reply = _line_with(lines, '"gen_ai.output.messages"')
    stripped = _version_1(_edit(lines, reply, '"content": "', '"content": "X'))
    with pytest.raises(TraceFileError, match="line 1: schema_version 1 .* cannot be found"):
        parse_traces(stripped, "t.jsonl")


def test_a_run_appended_twice_is_an_error_naming_both_headers(lines):
    with pytest.raises(TraceFileError) as caught:
        parse_traces([*lines, *lines], "t.jsonl")
    assert caught.value.line == len(lines) + 1
    assert "run 'run-1' is here a second time (its first header is on line 1)" in str(caught.value)


# --- nothing but TraceFileError escapes ---------------------------------------------------------


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_single_byte_edit_reads_and_replays_the_same_or_is_a_trace_file_error(lines, data):
    text = "\n".join(lines) + "\n"
    at = data.draw(st.integers(0, len(text) - 1))
    byte = data.draw(st.characters(codec="utf-8", exclude_categories=("Cs",)))
    edited = text[:at] + byte + text[at + 1 :]
    try:
        (trace,) = parse_traces(edited.splitlines(), "t.jsonl")
    except TraceFileError:
        return
    except ValueError as exc:  # two runs, say: parse_traces returned more than one
        pytest.fail(f"{type(exc).__name__} escaped: {exc}")
    try:
        replayed = _replayed(trace)
    except (TraceFileError, ReplayDiverged):
        return
    assert content_hash(replayed) == trace.recorded_hash == json.loads(lines[0])["content_hash"]
