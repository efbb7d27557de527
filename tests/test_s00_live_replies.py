"""Session 00's live cells name whatever a model sends: an outcome and what it means, never a traceback.

The principle: whatever reply a live model sends to the first order, the notebook's live cell
prints one line naming what the model did (one of the notebook's `MEANS`) and what that means, the
stretch cell names each order's outcome, and the checkpoint's reader of your responder banks a
value instead of raising. The reference is independent of the notebook's reader: each generated
reply is built to have one outcome (its arguments are an object with or without an item, another
JSON value, text cut short or no JSON at all; its first call names add_item, another tool or no
tool; it carries words, blanks or nothing), and the test checks the cell printed that outcome.

The cells run as the notebook source writes them, in live mode, with `cafe.make_client` answering
from a script of odd replies (the scripted client, or the real `openai` SDK over a mock transport
for the shapes only a server sends: arguments as a JSON value, `tool_calls: []`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import run_notebook_source
from spoilers import notebook_cells

import cafe
from cafe import course
from cafe.endpoint.client.chat import LiveClient
from cafe.endpoint.client.scripted import ScriptedClient

SOURCE = Path(__file__).resolve().parents[1] / "sessions" / "s00-setup" / "notebook.py"
KEY = "sk-s00-live-0123456789abcdef"
MODEL = "my-model"
ABSENT = object()  # an item left out of the arguments

# --- generated replies, each with the outcome it was built to have ------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
# Words with no square brackets, so the stretch cell's "[outcome]" mark is the only one on a line.
WORDS = st.text(st.characters(blacklist_characters="[]", blacklist_categories=("Cs",)), max_size=30)


def item_outcome(item: Any) -> str:
    if item is ABSENT:
        return "no item"
    if not isinstance(item, str):
        return "item not text"
    return "item" if item else "empty item"


@st.composite
def arguments(draw: st.DrawFn) -> tuple[str, str | None]:
    """(the arguments text, the outcome they give add_item; None when no tool can run them)."""
    kind = draw(st.sampled_from(["object", "another value", "cut short", "not JSON", "empty"]))
    others = draw(
        st.dictionaries(st.text(max_size=6).filter(lambda k: k != "item"), JSON_VALUES, max_size=3)
    )
    if kind == "empty":
        return "", "no item"  # no arguments at all are the empty object
    if kind == "another value":
        value = draw(JSON_VALUES.filter(lambda v: not isinstance(v, dict)))
        return json.dumps(value), None
    if kind == "not JSON":
        return "~" + draw(WORDS), None  # no JSON text starts with a tilde
    item = draw(st.just(ABSENT) | st.just("") | st.text(min_size=1, max_size=12) | JSON_VALUES)
    fields = others if item is ABSENT else {**others, "item": item}
    if kind == "cut short":  # the closing brace lost, as a reply cut at its token cap loses it
        return json.dumps(fields)[:-1], None
    return json.dumps(fields), item_outcome(item)


@st.composite
def odd_replies(draw: st.DrawFn) -> tuple[dict, str]:
    """(a reply the scripted client can send, the outcome the live cell must name for it)."""
    content = draw(st.none() | WORDS)
    if draw(st.booleans()):
        said = content is not None and content.strip()
        return {"content": content}, "text" if said else "nothing"
    name = draw(st.sampled_from(["add_item", "remove_item", "latte", ""]))
    text, outcome = draw(arguments())
    if name == "" or outcome is None:
        outcome = "broken call"
    elif name != "add_item":
        outcome = "other tool"
    calls = [{"name": name, "arguments": text}]
    calls += draw(st.lists(st.builds(dict, name=st.just("add_item"), arguments=WORDS), max_size=1))
    return {"content": content, "tool_calls": calls}, outcome


# --- running the notebook's cells --------------------------------------------------------------


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict[str, str]]:
    """The notebook's namespace after an offline run, and its live cells' sources by name."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAFE_HOME", str(tmp_path_factory.mktemp("home")))
        patch.setenv("CAFE_HEADLESS", "1")
        patch.delenv("COURSE_MODE", raising=False)
        namespace = run_notebook_source("s00-setup")
    code = [
        c.source for c in notebook_cells(SOURCE.read_text(encoding="utf-8")) if c.kind == "code"
    ]
    cells = {
        "live": next(c for c in code if 'live_story("s00.live_reply"' in c),
        "stretch": next(c for c in code if 'each_live("s00.stretch"' in c),
        "checkpoint": next(c for c in code if '"your_responder"' in c),
    }
    return namespace, cells


@pytest.fixture
def live(home: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("COURSE_MODE", "live")
    monkeypatch.setenv("CAFE_MODEL", MODEL)
    monkeypatch.setenv("CAFE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    return monkeypatch


def run_cell(source: str, namespace: dict) -> str:
    """Run one cell in a copy of `namespace`; what it printed. An exception fails the test."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, "s00 notebook cell", "exec"), dict(namespace))
    return printed.getvalue()


def answered(live: pytest.MonkeyPatch, clients: Iterator[Any]) -> None:
    """`cafe.make_client` hands out the next of `clients` at each call, as the cells make one."""
    live.setattr(cafe, "make_client", lambda *args, **kwargs: next(clients))


def assert_named(printed: str, outcome: str, means: dict[str, str]) -> None:
    lines = printed.splitlines()
    named = [line for line in lines if line.startswith(f"{MODEL}: ")]
    assert len(named) == 1, printed
    assert named[0] == f"{MODEL}: {outcome}" or named[0].startswith(f"{MODEL}: {outcome} ("), (
        printed
    )
    assert means[outcome] in lines, printed
    assert "Traceback" not in printed and KEY not in printed


# --- the live cell, the stretch cell and the checkpoint's reader --------------------------------


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(odd_replies())
def test_live_cell_names_what_any_reply_did(notebook, live, reply_and_outcome):
    namespace, cells = notebook
    reply, outcome = reply_and_outcome
    answered(live, iter([ScriptedClient([reply])]))
    assert_named(run_cell(cells["live"], namespace), outcome, namespace["MEANS"])


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(odd_replies(), min_size=2, max_size=2))
def test_stretch_cell_names_each_orders_outcome(notebook, live, replies):
    namespace, cells = notebook
    answered(live, iter([ScriptedClient([reply]) for reply, _ in replies]))
    printed = run_cell(cells["stretch"], namespace)
    marks = [line.rsplit(" [", 1)[1] for line in printed.splitlines() if line.endswith("]")]
    assert marks == [f"{outcome}]" for _, outcome in replies], printed


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(odd_replies())
def test_checkpoint_banks_any_reply_your_responder_sends(notebook, home, reply_and_outcome):
    namespace, cells = notebook
    reply, outcome = reply_and_outcome
    passed = dataclasses.replace(namespace["responder_result"], status="passed")
    mine = dict(namespace, responder=lambda request: reply, responder_result=passed)
    run_cell(cells["checkpoint"], mine)
    sends = course.load_progress()["checkpoints"]["s00"]["your_responder"]["value"]["sends"]
    if outcome in ("text", "nothing"):
        wanted = f"words: {reply.get('content')}"
    elif outcome in ("item", "empty item"):
        wanted = json.loads(reply["tool_calls"][0]["arguments"])["item"]
    else:
        wanted = None
    for banked in sends.values():
        assert banked == wanted if wanted is not None else banked.startswith(f"{outcome}: ")


# --- shapes only a server sends, through the real SDK -------------------------------------------


def sdk_client(message: dict, finish_reason: str = "stop") -> LiveClient:
    """A live client whose endpoint answers every chat with `message` (and lists no models)."""
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(404, json={"error": {"message": "no list here"}})
        return httpx.Response(200, json=body)

    transport = httpx.MockTransport(answer)
    sdk = openai.OpenAI(
        base_url="http://127.0.0.1:9/v1",
        api_key=KEY,
        max_retries=0,
        http_client=httpx.Client(transport=transport),
    )
    return LiveClient(sdk, reply_cap=64, timeout=10.0)


def call(arguments: Any, name: str = "add_item") -> dict:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    ("message", "finish_reason", "outcome"),
    [
        ({"role": "assistant", "content": None}, "stop", "nothing"),
        ({"role": "assistant", "content": "", "tool_calls": []}, "stop", "nothing"),
        ({"role": "assistant", "content": "A latte? Sure."}, "stop", "text"),
        (
            {"role": "assistant", "content": None, "tool_calls": [call([1, 2])]},
            "stop",
            "broken call",
        ),
        (
            {"role": "assistant", "content": None, "tool_calls": [call('{"item": "lat')]},
            "length",
            "broken call",
        ),
        (
            {"role": "assistant", "content": None, "tool_calls": [call({"item": 3})]},
            "stop",
            "item not text",
        ),
        (
            {"role": "assistant", "content": None, "tool_calls": [call({"item": "latte"})]},
            "stop",
            "item",
        ),
        (
            {"role": "assistant", "content": None, "tool_calls": [call(None)]},
            "tool_calls",
            "no item",
        ),
    ],
)
def test_live_cell_names_what_a_server_sent(notebook, live, message, finish_reason, outcome):
    namespace, cells = notebook
    answered(live, iter([sdk_client(message, finish_reason)]))
    assert_named(run_cell(cells["live"], namespace), outcome, namespace["MEANS"])
