"""Reader U's hostile values through the trace: what the loop finishes is recorded, written and read
back, and no labelled or known secret reaches the file, whatever syntax or encoding carries it.

Reader U (red team, session 08) found four kinds of hole, each a promise the lesson makes:

- a run the loop finishes is recorded: tool arguments nested 329 deep made `record_loop` raise
  `RecursionError` in the redactor (H19), where `run_loop` ended `done`;
- whatever the loop accepts, the trace writes and reads back: `NaN` or `Infinity` in tool
  arguments, which Python's `json` and so the loop accept, gave a bare ValueError (H20, H21);
- a labelled secret is masked whatever syntax labels it: `{"api_key": "X"}`, `{'password': 'X'}`,
  `OPENAI_API_KEY=X` and `export CAFE_API_KEY=X` reached the file (S23-S27, S25, S32); and a
  known secret is masked in any encoding the trace stores: the course's key written with JSON
  `\\u` escapes in raw tool arguments did too (S11);
- an appended run starts on its own line: appending to a file whose last line break was removed
  made both runs unreadable (W01).

Each is checked on generated inputs against an oracle written here, then as the reader's case.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.secrets.redaction import REDACTED, Redactor
from cafe.loop import run_loop, tool
from cafe.trace import Recorder, content_hash, read_trace, read_traces, record_loop, write_trace
from cafe.trace.replay import ReplayDiverged, replay_client
from cafe.trace.spans import Trace

KEY = "sk-cafe-Q7wErTy9UiOp3AsDfGh2JkL"  # the course's key in reader U's runs
OTHER = "Zx9Yw8Vu7Ts6Rq5Po4"  # a secret of no known shape, found only by its label
MESSAGES = [{"role": "system", "content": "You echo."}, {"role": "user", "content": "echo please"}]
# The words that label a secret, as the lesson names them, and longer names ending in one.
LABELS = ("api_key", "api-key", "api key", "apikey", "secret", "token", "password", "passwd", "pwd")
PREFIXES = ("", "OPENAI_", "CAFE_", "client_", "x-", "db.", "my ")
# Ways a label is written before its value: (before the label, between label and value, after).
SYNTAXES = (
    ("", "=", ""),  # a .env line
    ("export ", "=", ""),
    ("", ": ", ""),  # YAML, a header
    ('{"', '": "', '"}'),  # JSON
    ('{\\"', '\\": \\"', '\\"}'),  # JSON inside a JSON string
    ("{'", "': '", "'}"),  # a Python dict quoted in an error
    ("", " = ", ""),  # TOML
    ("", ' = "', '"'),
    ("", " => ", ""),
)
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(autouse=True)
def _course_key(monkeypatch):
    monkeypatch.setenv("CAFE_API_KEY", KEY)


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def anyargs(payload: dict) -> str:
    """Take any JSON object."""
    return "ok"


def read_config(name: str) -> str:
    """Return the named configuration file."""
    return CONFIG[name]


CONFIG = {
    "settings.json": json.dumps({"endpoint": "https://llm.example.com", "api_key": OTHER}),
    ".env": f"CAFE_MODEL=gpt-4o-mini\nOPENAI_API_KEY={OTHER}\nexport CAFE_API_KEY=old{OTHER}\n",
}
TOOLS = [tool(echo), tool(anyargs), tool(read_config)]


def raw_call(name: str, arguments: str) -> dict[str, Any]:
    """A reply asking for one tool call whose arguments are exactly the text a model wrote."""
    return {"content": None, "tool_calls": [{"name": name, "arguments": arguments}]}


def recorded(replies: list[Any]) -> tuple[str, Trace]:
    recorder = Recorder()
    client = recorder.client(ScriptedClient(list(replies)))
    result, trace = record_loop(client, MESSAGES, TOOLS, recorder=recorder, max_turns=4)
    return result.stop_reason, trace


def replayed(trace: Trace, messages: list[dict[str, Any]] = MESSAGES) -> Trace:
    recorder = Recorder()
    client = recorder.client(replay_client(trace))
    return record_loop(client, messages, TOOLS, recorder=recorder, max_turns=4)[1]


def decoded_strings(value: Any) -> list[str]:
    """Every string in a JSON value, and in each string that is itself JSON (tool arguments), as
    any consumer of the file would decode them."""
    found, waiting = [], [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            found.append(item)
            try:
                waiting.append(json.loads(item))
            except ValueError:
                pass
        elif isinstance(item, dict):
            waiting += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            waiting += item
    return found


def file_holds(path: Path, secret: str) -> bool:
    text = path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.split("\n") if line]
    return secret in text or any(secret in s for s in decoded_strings(lines))


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON texts, so a NaN equals a NaN (Python's `==` says no NaN equals anything)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# --- a value nested as deep as a parser reads is masked, not a RecursionError (H19) ----------


@st.composite
def chains(draw) -> tuple[Any, int, list[str]]:
    """A leaf inside `depth` lists and objects, and the path of object keys and list marks."""
    depth = draw(st.integers(0, 3_000))
    leaf = draw(st.sampled_from(["oat latte", KEY, f"key {KEY} here"]))
    kinds = draw(st.lists(st.sampled_from(["k", "[]"]), min_size=depth, max_size=depth))
    value: Any = leaf
    for kind in kinds:
        value = [value] if kind == "[]" else {kind: value}
    return value, depth, leaf


@SETTINGS
@given(chains())
def test_redactor_masks_a_value_at_any_depth(chain):
    value, depth, leaf = chain
    masked = Redactor((KEY,))(value)
    for _ in range(depth):  # unwrap as deep as it was built, one level a step
        assert isinstance(masked, (list, dict)) and len(masked) == 1
        masked = masked[0] if isinstance(masked, list) else masked["k"]
    assert masked == leaf.replace(KEY, REDACTED)


def test_record_loop_records_a_run_nested_329_deep_and_the_writer_refuses_it_by_name(tmp_path):
    raw = '{"payload": ' + '{"k": ' * 329 + '"leaf"' + "}" * 329 + "}"
    replies = [raw_call("anyargs", raw), "done"]
    plain = run_loop(ScriptedClient(list(replies)), MESSAGES, TOOLS, max_turns=4).stop_reason
    stop, trace = recorded(replies)
    assert stop == plain == "done"
    with pytest.raises(ValueError, match=r"attributes\.gen_ai\.tool\.call\.arguments nests more"):
        write_trace(trace, tmp_path / "deep.jsonl")


# --- what the loop accepts, the trace writes and reads back: NaN and Infinity (H20, H21) --------

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
ARGUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | NON_FINITE | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@SETTINGS
@given(ARGUMENTS)
def test_any_arguments_the_loop_parses_round_trip_through_the_file(tmp_path, payload):
    raw = json.dumps({"payload": payload})  # Python writes NaN and Infinity as the loop reads them
    stop, trace = recorded([raw_call("anyargs", raw), "done"])
    path = write_trace(trace, tmp_path / "run.jsonl")
    back = read_trace(path)
    assert back.recorded_hash == content_hash(trace) == content_hash(back)
    for written, read in zip(trace.spans, back.spans, strict=True):
        assert same_json(dict(written.attributes), dict(read.attributes))
    assert content_hash(replayed(back)) == back.recorded_hash


@pytest.mark.parametrize("raw", ['{"payload": {"v": NaN}}', '{"payload": {"v": -Infinity}}'])
def test_reader_u_non_finite_tool_arguments_are_written_read_back_and_replayed(tmp_path, raw):
    stop, trace = recorded([raw_call("anyargs", raw), "done"])
    back = read_trace(write_trace(trace, tmp_path / "run.jsonl"))
    assert stop == "done" and back == trace  # json's own NaN object, so `==` holds
    assert content_hash(replayed(back)) == back.recorded_hash == content_hash(trace)


# --- a labelled secret is masked whatever syntax labels it (S23-S27, S25, S32) ----------------

spelled = st.tuples(st.sampled_from(LABELS), st.lists(st.booleans(), max_size=8)).map(
    lambda drawn: "".join(
        c.upper() if up else c for c, up in zip(drawn[0], [*drawn[1], *[False] * 8], strict=False)
    )
)
names = st.builds(lambda prefix, label: prefix + label, st.sampled_from(PREFIXES), spelled)
values = st.text(
    "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=1, max_size=30
)


@SETTINGS
@given(names, st.sampled_from(SYNTAXES), values, st.sampled_from(["", "config: ", "line 1\n"]))
def test_a_labelled_value_is_masked_in_every_syntax(name, syntax, value, before):
    opening, between, closing = syntax
    text = f"{before}{opening}{name}{between}{value}{closing} and more"
    masked = Redactor(()).text(text)
    if len(value) >= 8:  # the minimum length a labelled value needs (`token: 12` is not a secret)
        assert value not in masked and name in masked and REDACTED in masked
    else:
        assert masked == text


@SETTINGS
@given(names, values, st.sampled_from(["max_tokens", "keyboard", "monkey", "tokens", "note"]))
def test_a_json_object_labels_its_values_by_key(name, value, plain_name):
    masked = Redactor(())({"settings": {name: value, plain_name: value}})
    expected = REDACTED if len(value) >= 8 else value
    assert masked == {"settings": {name: expected, plain_name: value}}


@pytest.mark.parametrize(
    "replies",
    [
        [raw_call("read_config", '{"name": "settings.json"}'), "done"],  # S23
        [json.dumps({"user": "till", "password": OTHER})],  # S24
        [raw_call("read_config", '{"name": ".env"}'), "done"],  # S25
        [raw_call("anyargs", json.dumps({"payload": {"api_key": OTHER}})), "done"],  # S26
        [f"the till said: bad config {{'api_key': '{OTHER}'}}"],  # S27
    ],
    ids=["S23-json-config", "S24-json-password", "S25-dotenv", "S26-tool-args", "S27-python-dict"],
)
def test_reader_u_labelled_secrets_do_not_reach_the_file(tmp_path, replies):
    stop, trace = recorded(replies)
    path = write_trace(trace, tmp_path / "run.jsonl")
    assert not file_holds(path, OTHER)
    read_trace(path)


def test_reader_u_a_replay_that_diverges_masks_a_dotenv_line():  # S32
    trace = recorded(["hi"])[1]
    changed = [MESSAGES[0], {"role": "user", "content": f"my .env says OPENAI_API_KEY={OTHER}"}]
    with pytest.raises(ReplayDiverged) as diverged:
        replayed(trace, changed)
    assert OTHER not in str(diverged.value)


# --- a known secret is masked in the JSON-escaped form the trace stores (S11) ------------------

SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def json_escaped(char: str, how: int) -> str:
    """`char` inside a JSON string: as itself when JSON allows, else (or when `how` says) escaped."""
    must = char in '"\\' or ord(char) < 0x20
    if how == 0 and not must:
        return char
    if how == 1 and char in SHORT_ESCAPES:
        return SHORT_ESCAPES[char]
    units = char.encode("utf-16-be", "surrogatepass")
    escape = "".join(f"\\u{units[i] << 8 | units[i + 1]:04x}" for i in range(0, len(units), 2))
    return escape.upper().replace("\\U", "\\u") if how == 2 else escape


secrets = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=12, max_size=40
).filter(lambda s: s.strip() == s and len(set(s)) > 4)


@SETTINGS
@given(secrets, st.data())
def test_a_known_secret_is_masked_however_json_escapes_it(secret, data):
    hows = data.draw(st.lists(st.integers(0, 3), min_size=len(secret), max_size=len(secret)))
    escaped = "".join(json_escaped(c, how) for c, how in zip(secret, hows, strict=True))
    raw = '{"text": "note ' + escaped + ' end"}'
    assert json.loads(raw)["text"] == f"note {secret} end"  # the escaping above is valid JSON
    masked = Redactor((secret,)).text(raw)
    assert secret not in json.loads(masked)["text"] and secret not in masked


def test_reader_u_the_course_key_json_escaped_in_tool_arguments_does_not_reach_the_file(tmp_path):
    escaped = "".join(f"\\u{ord(c):04x}" if i % 5 == 0 else c for i, c in enumerate(KEY))
    stop, trace = recorded([raw_call("echo", '{"text": "' + escaped + '"}'), "done"])
    path = write_trace(trace, tmp_path / "run.jsonl")
    assert not file_holds(path, KEY) and not file_holds(path, KEY[8:16])


# --- an appended run starts on its own line (W01) ----------------------------------------------


def _drop_last_newline(path: Path) -> None:
    path.write_bytes(path.read_bytes().removesuffix(b"\n"))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=3))
def test_every_appended_run_reads_back_whatever_ends_the_file(tmp_path_factory, cut_before):
    path = tmp_path_factory.mktemp("append") / "shift.jsonl"
    runs = [recorded([f"run {i} ☕"])[1] for i in range(len(cut_before) + 1)]
    write_trace(runs[0], path)
    for run, cut in zip(runs[1:], cut_before, strict=True):
        if cut:
            _drop_last_newline(path)
        write_trace(run, path, append=True)
    assert [t.trace_id for t in read_traces(path)] == [t.trace_id for t in runs]


def test_reader_u_appending_after_a_removed_line_break_keeps_both_runs(tmp_path):
    path = tmp_path / "shift.jsonl"
    first, second = recorded(["flat white"])[1], recorded(["oat latte"])[1]
    write_trace(first, path)
    _drop_last_newline(path)
    assert len(read_traces(path)) == 1
    write_trace(second, path, append=True)
    assert read_traces(path) == (first, second)
