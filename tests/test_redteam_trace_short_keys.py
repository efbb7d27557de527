"""A short CAFE_API_KEY that is one of the trace format's own words leaves every run readable.

Reader U (K01-K05): session 00 lets a local server's key be any text, and a key such as `cafe`,
`text`, `user`, `run` or `chat` was masked inside the trace's own structure (attribute names, part
types, roles, span names), so a run could not be written, read back different, or replayed to
another hash. The rule (`cafe.trace.vocabulary`): redaction never changes what the format is made
of, and still masks the key in every free-text value. The oracle below finds the structural
strings by their place in the written file, not by asking the code under test.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.loop import tool
from cafe.repair import make_model_generator
from cafe.report.traces import read_shift
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace import Recorder, content_hash, read_trace, record_loop, record_repair, write_trace
from cafe.trace.replay import replay_client

# Words the format is built from, as a learner might pick them for a placeholder key.
FORMAT_WORDS = (
    "cafe", "text", "user", "run", "chat", "tool", "system", "assistant", "type", "role", "parts",
    "content", "name", "id", "gen_ai", "request", "tools", "format", "input", "output", "messages",
    "turn", "attempt", "check", "invoke_agent", "execute_tool", "tool_call", "stop", "json",
    "json_schema", "pass", "fail", "loop", "repair", "scripted", "openai", "passed", "done",
    "stop_reason", "tool_calls", "span", "trace", "record", "kind", "attributes", "usage",
)  # fmt: skip


def tally(n: int) -> str:
    """Count up to n."""
    return "9" * n


LOOP_TOOLS = [tool(tally)]
LOOP_MESSAGES = [{"role": "system", "content": "Tally."}, {"role": "user", "content": "Go 3."}]
LOOP_REPLIES = [
    {"content": None, "tool_calls": [{"name": "tally", "arguments": {"n": 3}}]},
    "999.",
]


def _loop(client: Any) -> Any:
    recorder = Recorder()
    return record_loop(recorder.client(client), LOOP_MESSAGES, LOOP_TOOLS, recorder=recorder)[1]


def _repair(client: Any) -> Any:
    recorder = Recorder()
    generate = make_model_generator(recorder.client(client), "cafe-scripted")
    return record_repair(PRACTICE_ORDERS[1], generate, recorder=recorder)[1]


def _structural(record: dict[str, Any]) -> set[str]:
    """The strings a span line holds because the format puts them there: its field names, its
    record type ("span") and kind, attribute names, message and part field names, roles, part
    types, finish reasons, the closed-set values, and a span name's first word."""
    found = set(record) | {record.get("record", ""), record.get("kind", "")}
    found.add(str(record.get("name", "")).split(" ")[0])
    for name, value in record.get("attributes", {}).items():
        found.add(name)
        if name in ("gen_ai.input.messages", "gen_ai.output.messages"):
            for message in value:
                found |= set(message) | {message.get("role"), message.get("finish_reason")}
                for part in message.get("parts", []):
                    found |= set(part) | {part.get("type")}
        elif name == "gen_ai.response.finish_reasons":
            found |= set(value)
        elif name in (
            "gen_ai.operation.name", "gen_ai.output.type", "cafe.request.format",
            "gen_ai.evaluation.score.label", "gen_ai.provider.name", "gen_ai.agent.name",
            "cafe.run.stop_reason",
        ):  # fmt: skip
            found.add(value)
    return {s for s in found if isinstance(s, str)}


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, object keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _free_text_with(path: Path, key: str) -> list[str]:
    """Each free-text string of the file that holds `key` as a whole token."""
    token = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(key)}(?![A-Za-z0-9_-])")
    hits = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:  # the header holds digests
        record = json.loads(line)
        structural = _structural(record)
        name = str(record["name"])
        record["name"] = name.partition(" ")[2] if name.split(" ")[0] in structural else name
        hits += [s for s in _strings(record) if s not in structural and token.search(s)]
    return hits


def _round_trip(key: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("CAFE_API_KEY", key)
    out: dict[str, Any] = {}
    for label, record, script in (
        ("loop", _loop, lambda: ScriptedClient(list(LOOP_REPLIES))),
        ("repair", _repair, lambda: ScriptedClient(Script(FeedbackModel()))),
    ):
        trace = record(script())
        path = write_trace(trace, tmp / f"{label}.jsonl")
        back = read_trace(path)
        replayed = record(replay_client(back))
        out[label] = (
            back == trace,
            content_hash(replayed) == back.recorded_hash == content_hash(trace),
            _free_text_with(path, key) if len(key) >= 4 else [],
            path,
        )
    return out


def _holds(got: dict[str, Any], key: str) -> None:
    for label, (equal, same_hash, leaks, _) in got.items():
        assert equal, (label, key)
        assert same_hash, (label, key)
        assert not leaks, (label, key, leaks[:3])


@pytest.mark.parametrize("key", FORMAT_WORDS)
def test_a_key_that_is_any_word_of_the_format_leaves_the_run_readable(key, tmp_path, monkeypatch):
    """Every word of the list, each run: a word drawn by chance was found once in one CI run
    and not in the next (the record type "span", which this file's oracle had left out)."""
    _holds(_round_trip(key, tmp_path, monkeypatch), key)


@functools.cache
def _run_text(tmp: Path) -> str:
    """Both runs' files as written with no key set, lower-cased: every word the runs say."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CAFE_API_KEY", raising=False)
        got = _round_trip("", tmp, patch)
    return "".join(path.read_text(encoding="utf-8") for *_, path in got.values()).lower()


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.text("abcdefghijklmnopqrstuvwxyz_.", min_size=1, max_size=12))
def test_short_key_run_is_written_read_back_equal_and_replayed_for_any_key(
    key, tmp_path_factory, monkeypatch
):
    """Any other short key, so long as the runs never say it: a key that is a word of the run's
    own free text ("n", the tool's parameter; "latte") is masked there, and its replay then
    differs by design (lesson 08: the mask is kept over the replay; reader BF's T58)."""
    assume(key.lower() not in _run_text(tmp_path_factory.getbasetemp()))
    with monkeypatch.context() as patch:
        _holds(_round_trip(key, tmp_path_factory.mktemp("k"), patch), key)


@pytest.mark.parametrize("key", ["cafe", "text", "user", "run", "chat"])
def test_reader_u_k01_to_k05_key_that_is_a_format_word(key, tmp_path, monkeypatch):
    got = _round_trip(key, tmp_path, monkeypatch)
    for label, (equal, same_hash, leaks, _path) in got.items():
        assert equal and same_hash and not leaks, (label, key, leaks[:3])
    records, problems = read_shift([got["repair"][3]])
    assert len(records) == 1 and not problems


def test_a_key_in_free_text_is_still_masked_as_a_whole_word(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_API_KEY", "user")
    client = ScriptedClient(["the user said user"])
    recorder = Recorder()
    trace = record_loop(recorder.client(client), LOOP_MESSAGES, [], recorder=recorder)[1]
    path = write_trace(trace, tmp_path / "t.jsonl")
    assert not _free_text_with(path, "user")
    assert "the [redacted] said [redacted]" in path.read_text(encoding="utf-8")
    assert '"role": "user"' in path.read_text(encoding="utf-8")
