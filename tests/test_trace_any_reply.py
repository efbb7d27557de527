"""Whatever a live run's recorder records, the writer writes, the reader reads back equal, and a
replay plays back, absences included (reader BF, F1 and F2).

An endpoint's completion may carry a finish reason the OpenAI SDK does not list ("eos_token",
"STOP", null) and usage counts the course cannot use (-5, 10**30, one count of two, none at all).
The run survives them (the course's reply check reads bad counts as "not reported"); its trace
must too. The oracle below is written here: a finish reason that is text is kept as it came, any
other is null; a usage is kept only when both counts are whole numbers from 0 to 2**53 whose sum
is too, else the trace holds no count at all, and neither does its replay (never an estimate).
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai._models import construct_type
from openai.types.chat import ChatCompletion

from cafe.endpoint.client.completions import normalize_reply
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.endpoint.server.serve import running_server
from cafe.repair import make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace import Recorder, content_hash, read_trace, record_repair, write_trace
from cafe.trace.replay import replay_client

ROOT = Path(__file__).resolve().parents[1]
ORDER = PRACTICE_ORDERS[1]  # table 5: three attempts, so three model calls
LIMIT = 2**53
KEY = "Zq9vRtY7uIoP3aS5dF8x-any-reply"
MISSING = object()  # the completion has no `usage` field at all


def expected_reason(sent: Any) -> str | None:
    return sent if isinstance(sent, str) else None


def expected_counts(sent: Any) -> tuple[int, int] | None:
    if not isinstance(sent, dict):
        return None
    prompt, reply = sent.get("prompt_tokens"), sent.get("completion_tokens")
    whole = [type(n) is int and 0 <= n <= LIMIT for n in (prompt, reply)]
    return (prompt, reply) if all(whole) and prompt + reply <= LIMIT else None


class Quirky:
    """Answers as FeedbackModel does, each completion with `finish` and `usage` put in, built the
    way the openai SDK builds a live reply from its JSON (`construct_type`: nothing validated)."""

    def __init__(self, finish: Any, usage: Any):
        self.inner = ScriptedClient(Script(FeedbackModel()))
        self.finish, self.usage = finish, usage
        self.chat = type("Chat", (), {"completions": self})()

    def create(self, **kwargs: Any) -> Any:
        body = self.inner.chat.completions.create(**kwargs).model_dump()
        body["choices"][0]["finish_reason"] = self.finish
        if self.usage is MISSING:
            del body["usage"]
        else:
            body["usage"] = self.usage
        return construct_type(type_=ChatCompletion, value=body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class Seen:
    """A client that hands on `inner`'s completions and keeps them (what a replay answered)."""

    def __init__(self, inner: Any):
        self.inner, self.answers = inner, []
        self.chat = type("Chat", (), {"completions": self})()

    def create(self, **kwargs: Any) -> Any:
        self.answers.append(self.inner.chat.completions.create(**kwargs))
        return self.answers[-1]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _record(client: Any, model: str | None = None) -> Any:
    recorder = Recorder()
    return record_repair(
        ORDER, make_model_generator(recorder.client(client), model), recorder=recorder
    )[1]


def _round_trip(finish: Any, usage: Any, tmp: Path) -> None:
    trace = _record(Quirky(finish, usage))
    path = write_trace(trace, tmp / "run.jsonl")  # F1: never a ValueError
    back = read_trace(path)
    assert back == trace
    reason, counts = expected_reason(finish), expected_counts(usage)
    for call in back.model_calls:
        assert call.get("gen_ai.response.finish_reasons") == [reason]
        assert call.get("gen_ai.output.messages")[0]["finish_reason"] == reason
        got = (call.get("gen_ai.usage.input_tokens"), call.get("gen_ai.usage.output_tokens"))
        assert got == (counts or (None, None))
    seen = Seen(replay_client(back))
    again = _record(seen, back.model)
    assert content_hash(again) == back.recorded_hash == content_hash(trace)  # F2: the same run
    for answer in seen.answers:  # what the replay handed back: the recording, nothing invented
        assert answer.choices[0].finish_reason == reason
        if counts is None:
            assert answer.usage is None
        else:
            assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == counts


COUNTS = st.one_of(
    st.integers(-(10**31), 10**31), st.integers(0, 5000), st.just(LIMIT), st.just(LIMIT + 1)
)
USAGES = st.one_of(
    st.just(MISSING),
    st.none(),
    st.fixed_dictionaries({"prompt_tokens": COUNTS, "completion_tokens": COUNTS}),
    st.fixed_dictionaries(  # half a usage, a total that does not add up, nulls
        {},
        optional={
            "prompt_tokens": st.one_of(COUNTS, st.none()),
            "completion_tokens": st.one_of(COUNTS, st.none()),
            "total_tokens": st.one_of(COUNTS, st.none()),
        },
    ),
)
REASONS = st.one_of(
    st.none(),
    st.sampled_from(("stop", "length", "tool_calls", "eos_token", "STOP", "end_turn", "")),
    st.text(st.characters(blacklist_categories=("Cs", "P", "S")), max_size=12),
    st.text("ab \x1b\n\t\u00e9\U0001f642", max_size=6),
    st.integers(-5, 5),
    st.lists(st.integers(0, 3), max_size=2),
)


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAFE_API_KEY", KEY)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(finish=REASONS, usage=USAGES)
def test_any_finish_reason_and_usage_is_written_read_back_equal_and_replayed(
    finish, usage, tmp_path_factory, keyed
):
    _round_trip(finish, usage, tmp_path_factory.mktemp("r"))


# The reader's cases (L02-L06, L11; 10**30 was L07) and one more of each kind.
@pytest.mark.parametrize(
    ("finish", "usage"),
    [
        ("eos_token", {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),  # L04
        (None, {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),  # L05
        ("stop", {"prompt_tokens": -5, "completion_tokens": 3, "total_tokens": -2}),  # L06
        ("STOP", {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),  # L11
        ("stop", {"prompt_tokens": 10**30, "completion_tokens": 3, "total_tokens": 10**30 + 3}),
        ("stop", MISSING),  # L02
        ("stop", None),  # L03
        ("end_turn", {"prompt_tokens": 12}),  # one more: another provider's word, half a usage
    ],
)
def test_reader_bf_live_completions_are_written_and_replay_as_the_same_run(
    finish, usage, tmp_path, keyed
):
    _round_trip(finish, usage, tmp_path)


def _run_toy_live(base_url: str, tmp: Path, monkeypatch, capfd) -> tuple[int, str, str]:
    for name in [n for n in os.environ if n.startswith("CAFE_") and n != "CAFE_HEADLESS"]:
        monkeypatch.delenv(name)
    for name, value in {
        "COURSE_MODE": "live",
        "CAFE_HOME": str(tmp / "home"),
        "CAFE_BASE_URL": base_url,
        "CAFE_API_KEY": KEY,
        "CAFE_MODEL": "cafe-scripted",
    }.items():
        monkeypatch.setenv(name, value)
    toy = ROOT / "sessions" / "s08-tracing" / "toy.py"
    monkeypatch.setattr(sys, "argv", [str(toy)])
    capfd.readouterr()
    try:
        runpy.run_path(str(toy), run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    out, err = capfd.readouterr()
    return code, out, err


@pytest.mark.parametrize("finish", ["eos_token", "STOP"])  # L12, and one more
def test_reader_bf_l12_toy_08_live_records_and_replays_a_provider_finish_reason(
    finish, tmp_path, monkeypatch, capfd
):
    model = FeedbackModel()

    def answer(request: dict) -> dict:
        return {**normalize_reply(model(request)), "finish_reason": finish}

    with running_server(answer, api_key=KEY) as server:
        code, out, err = _run_toy_live(server.base_url, tmp_path, monkeypatch, capfd)
    assert code == 0 and "Traceback" not in err, err
    assert "the same run, exactly" in out, out
