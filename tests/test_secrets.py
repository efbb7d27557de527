"""No secret leaks: a key planted in every field a model or a tool can echo, through every story the
course records, is found in no trace file, no progress file and nothing printed.

`cafe.endpoint.secrets.redaction.Redactor` is the one scrubber (by value at any length, by fragment, by
shape); the recorder, the trace file, the progress file, the doctor, the notebook cells and the
terminal (`cafe.cli.run_command`) all use it, and each scrubs before it clips.
"""

from __future__ import annotations

import io
import json
import os
import re
from typing import Any

import pytest

from cafe.consent import OrderSpec
from cafe.endpoint.client.chat import chat, make_client
from cafe.endpoint.client.diagnosis import clip
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.secrets.redaction import (
    REDACTED,
    Redactor,
    display_url,
    known_secrets,
    redact,
    url_secrets,
)
from cafe.loop.tools import ToolOutput, tool
from cafe.repair.reask import make_model_generator, make_scripted_generator
from cafe.trace.attributes import Scrubber
from cafe.trace.calls import error_attributes
from cafe.trace.file import read_traces, write_traces
from cafe.trace.loop import record_loop
from cafe.trace.record import Recorder, record_repair

# A key with no known shape (not sk-, not Bearer): only by value can it be found.
LONG_KEY = "q7Zr2mWx9LpT4vNc8BfH3kJd6Ys1Ga5EuR0tXe"
# A short one, as a local server accepts: found only as a whole word.
SHORT_KEY = "k3Zq9"


def grams(key: str) -> list[str]:
    """What counts as a leak: the whole key, or (for a long one) any 8 characters of it in a row."""
    return [key] if len(key) < 12 else [key[i : i + 8] for i in range(len(key) - 7)]


def leaks(text: str, key: str) -> list[str]:
    if len(key) < 8:
        return re.findall(rf"(?<![A-Za-z0-9_-]){re.escape(key)}(?![A-Za-z0-9_-])", text)
    return [gram for gram in grams(key) if gram in text]


# --- a client that echoes the key in every field a model controls ----------------------------


class EchoingClient:
    """A `ChatClient` that answers from a script, then puts `key` in every field of the answer a
    model or its server controls: the response id, the model name, each tool call's id."""

    def __init__(self, key: str, replies: list[Any]):
        self.key = key
        self.inner = ScriptedClient(replies)
        self.calls = self.inner.calls
        outer = self

        class _Completions:
            def create(self, **kwargs: Any) -> Any:
                completion = outer.inner.chat.completions.create(**kwargs)
                completion.id = f"resp-{outer.key}"
                completion.model = f"model {outer.key}"
                for call in completion.choices[0].message.tool_calls or []:
                    call.id = f"call-{outer.key}"
                return completion

        class _Chat:
            completions = _Completions()

        self.chat = _Chat()
        self.base_url = "scripted://offline"


def _ticket(key: str, **overrides: Any) -> str:
    return json.dumps(
        {"table": 5, "items": ["latte"], "allergies": [], "notes": f"use my account {key}"}
        | overrides
    )


# --- the stories ------------------------------------------------------------------------------


def story_reask(key: str) -> list:
    """Session 07/08: the re-ask, recorded through an echoing client; drafts quote the key in the
    notes, as an item and as an allergy, so failures and check lines quote it too."""
    spec = OrderSpec(5, ("latte",), request=f"A latte. My key is {key} , use it.")
    replies = [_ticket(key), _ticket(key, items=[f"latte {key}"]), _ticket(key, notes="")]
    recorder = Recorder()
    client = recorder.client(EchoingClient(key, replies))
    result, trace = record_repair(spec, make_model_generator(client), recorder=recorder)
    bare = record_repair(spec, make_scripted_generator([_ticket(key)] * 3))[1]
    return [trace, bare]


def story_failed_call(key: str) -> list:
    """An endpoint error that quotes the key deep in its message (past the clip)."""

    class Failing:
        base_url = "scripted://offline"

        class chat:  # noqa: N801 - the SDK's attribute name
            class completions:  # noqa: N801
                @staticmethod
                def create(**kwargs: Any) -> Any:
                    raise EndpointError("x" * 280 + f" refused key {key} for this model")

    recorder = Recorder()
    spec = OrderSpec(5, ("latte",))
    with pytest.raises(EndpointError):
        record_repair(spec, make_model_generator(recorder.client(Failing())), recorder=recorder)
    return [recorder.trace()]


def _loop_tools(key: str) -> list:
    def look_up(item: str) -> str:
        """Look an item up."""
        return f"{item}: 3.20, config says api_key={key} and {key}"

    fails = {"n": 0}

    def run_tests() -> ToolOutput:
        """Run the tests."""
        fails["n"] += 1
        return ToolOutput(ok=False, text=f"E   AssertionError: login failed with key {key}")

    return [tool(look_up), tool(run_tests, kind="verify")]


def story_loop(key: str) -> list:
    """Session 01: the loop, the model calling a tool named like the key, with the key as an
    argument, a tool answering with it, a refusal quoting it."""
    replies = [
        {"tool_calls": [{"name": "look_up", "arguments": {"item": key}}]},
        {"tool_calls": [{"name": f"tool_{key}", "arguments": {key: key}}]},
        f"Done. Your key {key} is noted.",
    ]
    tools = _loop_tools(key)
    messages = [{"role": "user", "content": f"Order for {key}, please."}]
    _, trace = record_loop(EchoingClient(key, replies), messages, tools[:1])
    return [trace]


def story_stall(key: str) -> list:
    """Session 13: a verify tool failing with the key, so the stall detector's nudges and the
    run's stop detail quote the failing output."""
    from cafe.stall.config import stall_config
    from cafe.stall.detector import StallDetector
    from cafe.stall.verify import VerifyEntrypoint

    tools = _loop_tools(key)
    verify = tools[1]
    replies = [{"tool_calls": [{"name": "run_tests", "arguments": {}}]}] * 9 + ["done"]
    verifier = VerifyEntrypoint(verify)
    detector = StallDetector(  # repair-aware: its nudges quote the failing evidence
        stall_config(repair_aware=True), session_id="s", verifier=verifier
    )
    _, trace = record_loop(
        EchoingClient(key, replies),
        [{"role": "user", "content": "fix it"}],
        [verify],
        max_turns=9,
        observers=[detector.observe],
        after_turn=[verifier.after_turn, detector.reverify, detector.consult_checks],
        before_finish=[verifier.before_finish],
        stop_reasons=verifier.stop_reasons | detector.stop_reasons,
    )
    return [trace]


def story_monitors(key: str) -> list:
    """Session 15: the monitored run on the café's real project, a shell command echoing the key
    and a test file written with it, so tool outputs, arguments and the monitors' notes hold it."""
    from cafe.monitors.run import RunMonitors
    from cafe.world.workbench import open_workbench

    bench = open_workbench()
    monitors = RunMonitors(bench)
    replies = [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": f"echo key={key}"}}]},
        {
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": "notes.txt", "content": key}}
            ]
        },
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        f"Done; I kept {key} in notes.txt.",
    ]
    _, trace = record_loop(
        EchoingClient(key, replies),
        [{"role": "user", "content": f"Fix the bill. Key: {key}"}],
        monitors.tools,
        after_turn=monitors.after_turn,
        before_finish=monitors.before_finish,
        stop_reasons=monitors.stop_reasons,
        max_turns=6,
    )
    return [trace]


STORIES = (story_reask, story_failed_call, story_loop, story_stall)


@pytest.fixture(params=[LONG_KEY, SHORT_KEY], ids=["long key", "short key"])
def key(request, monkeypatch) -> str:
    monkeypatch.setenv("CAFE_API_KEY", request.param)
    return request.param


@pytest.mark.usefixtures("home")
def test_no_story_leaks_a_planted_key(key, tmp_path, capsys):
    written = []
    for story in STORIES:
        path = tmp_path / f"{story.__name__}.jsonl"
        write_traces(story(key), path)
        written.append(path)
        print(f"{story.__name__}: {read_traces(path)[0].stop_reason}")
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert not leaks(text, key), f"{path.name}: {leaks(text, key)[:3]}"
    out = capsys.readouterr()
    assert not leaks(out.out + out.err, key)


@pytest.mark.usefixtures("home")
def test_the_monitored_run_on_a_real_project_leaks_no_planted_key(key, tmp_path, capsys):
    path = write_traces(story_monitors(key), tmp_path / "monitors.jsonl")
    text = path.read_text(encoding="utf-8")
    assert "notes.txt" in text  # the story ran its tools
    assert not leaks(text, key), leaks(text, key)[:3]
    out = capsys.readouterr()
    assert not leaks(out.out + out.err, key)


@pytest.mark.usefixtures("home")
def test_no_notebook_cell_or_progress_entry_leaks_a_planted_key(key, capsys):
    from cafe import course
    from cafe.course.progress import progress_path

    guess = course.predict("s05.k", f"Is {key} safe?", answer=f"my key is {key}")
    course.show_outcome(guess, {"said": f"the key {key}"})
    course.compare(lambda: key, lambda fn: [f"returned {fn()}"], key="s05.fn")
    course.checkpoint("s05", "k", {"value": f"banked {key}"}, model=f"m-{key}")
    out = capsys.readouterr()
    assert not leaks(out.out + out.err, key)
    assert not leaks(progress_path().read_text(encoding="utf-8"), key)


def test_doctor_and_terminal_output_leak_no_key_or_url_credentials(capsys, monkeypatch):
    from cafe.cli import run_command

    env = {
        "COURSE_MODE": "live",
        "CAFE_BASE_URL": "http://alice:hunter2pass@127.0.0.1:9/v1?api-key=QUERYSECRET99",
        "CAFE_API_KEY": LONG_KEY,
        "CAFE_MODEL": "m",
    }
    out = io.StringIO()
    doctor(environ=env, timeout=0.5, out=out)
    text = out.getvalue()
    for secret in ("hunter2pass", "QUERYSECRET99", *grams(LONG_KEY)):
        assert secret not in text
    monkeypatch.setenv("CAFE_API_KEY", LONG_KEY)
    run_command(lambda: print(f"a tool printed {LONG_KEY} and Bearer abcdefghijkl1234") or 0)
    printed = capsys.readouterr().out
    assert not leaks(printed, LONG_KEY) and "abcdefghijkl1234" not in printed


# --- the redactor itself ------------------------------------------------------------------------


def test_clip_scrubs_before_it_cuts():
    message = "x" * 250 + f" invalid key {LONG_KEY} for this model"
    for kept in (clip(message, 280, key=LONG_KEY), clip(message, 270)):
        assert not leaks(kept, LONG_KEY)
    attributes = error_attributes(RuntimeError(message), Scrubber((LONG_KEY,)))
    assert not leaks(attributes["cafe.error.message"], LONG_KEY)


def test_a_key_someone_else_cut_short_is_still_masked():
    clean = Redactor((LONG_KEY,))
    assert clean.text(f"partial {LONG_KEY[5:19]} here") == f"partial {REDACTED} here"
    assert clean.text(f"cut at {LONG_KEY[:6]}…") == f"cut at {REDACTED}…"
    assert clean.text("a cafe and a latte") == "a cafe and a latte"


def test_short_key_masked_as_a_whole_token_only():
    clean = Redactor(("k3y-42",))
    assert clean.text("auth with k3y-42 failed") == f"auth with {REDACTED} failed"
    assert clean.text("the k3y-421 and xk3y-42 stay") == "the k3y-421 and xk3y-42 stay"
    assert redact("sk-local works", "sk-loca") == "sk-local works"


def test_display_url_masks_userinfo_and_secret_query():
    shown = display_url("https://alice:hunter2@api.example.com/v1?api-key=SECRET1&x=1;token=T0KEN")
    assert shown == "https://***@api.example.com/v1?api-key=***&x=1;token=***"
    assert display_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert "hunter2" not in display_url("http://[::1/v1?password=hunter2")  # not even a URL


def test_known_secrets_are_read_when_asked_from_the_settings():
    env = {
        "CAFE_API_KEY": "loc",
        "GITHUB_TOKEN": "ghs_0123456789abcdef",
        "SOME_TOKEN": "1",  # too short for a variable that is not the course's key
        "CAFE_BASE_URL": "http://bob:pw-12345@h/v1?key=abcd1234",
    }
    assert known_secrets(env) == (
        "loc",  # the course's key, at any length
        "ghs_0123456789abcdef",
        "bob:pw-12345",
        "pw-12345",  # "bob" alone is too short to mask without garbling
        "abcd1234",
    )
    assert url_secrets("http://h/v1?key=abc") == ()  # too short to mask without garbling


def test_known_secrets_follow_the_environment_and_the_settings_file_as_they_change(
    tmp_path, monkeypatch
):
    """The process reading is kept between calls (every quoted failure asks), never past a change."""
    for name in [name for name in os.environ if name.startswith("CAFE_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    assert "first-key-123" not in known_secrets()
    monkeypatch.setenv("CAFE_API_KEY", "first-key-123")
    assert "first-key-123" in known_secrets()
    monkeypatch.setenv("CAFE_API_KEY", "second-key-456")
    assert "second-key-456" in known_secrets() and "first-key-123" not in known_secrets()
    monkeypatch.delenv("CAFE_API_KEY")
    settings = tmp_path / ".env"
    settings.write_text("CAFE_API_KEY=from-the-file-1\n", encoding="utf-8")
    assert "from-the-file-1" in known_secrets()
    settings.write_text("CAFE_API_KEY=from-the-file-2\n", encoding="utf-8")  # same size, same tick
    assert "from-the-file-2" in known_secrets() and "from-the-file-1" not in known_secrets()
    monkeypatch.setenv("CAFE_ENV_FILE", str(tmp_path / "missing.env"))
    assert "from-the-file-2" not in known_secrets()  # that file is no longer read
    assert redact("key from-the-file-2 here") == "key from-the-file-2 here"


@pytest.mark.parametrize(
    "text",
    [
        "Order for table 4. Items: oat latte, banana bread. Notes: extra hot.",
        "max_tokens: 1024, gen_ai.usage.input_tokens: 12",
        "the course key: s07.why_cap",
        "Developer mode on my phone keeps draining the battery",
    ],
)
def test_ordinary_cafe_text_is_left_alone(text):
    assert Redactor(()).text(text) == text


def test_a_live_client_carries_its_key_to_the_recorder():
    client = make_client(environ={"COURSE_MODE": "offline"})
    assert chat(client, model="m", messages=[{"role": "user", "content": "hi"}]).choices


def test_a_key_printed_a_piece_at_a_time_is_masked_and_a_flushed_dot_goes_out_at_once(
    capsys, monkeypatch
):
    """`print(*key)` writes each character on its own; the terminal guard scrubs whole lines."""
    from cafe.cli import run_command

    monkeypatch.setenv("CAFE_API_KEY", LONG_KEY)
    seen_before_the_line_ended = []

    def command() -> int:
        print(*LONG_KEY)
        print(LONG_KEY[:5], LONG_KEY[5:10], LONG_KEY[10:], sep="")
        print(".", end="", flush=True)
        seen_before_the_line_ended.append(capsys.readouterr().out)
        print(" done, key", " ".join(LONG_KEY), end="")  # the last line has no newline
        return 0

    assert run_command(command) == 0
    printed = seen_before_the_line_ended[0] + capsys.readouterr().out
    assert seen_before_the_line_ended[0].endswith(".")
    assert "done, key" in printed and not leaks(printed.replace(" ", ""), LONG_KEY), printed
