"""One door to a model: no module calls the SDK's `create` (or `models.list`) itself.

`cafe.endpoint.client.chat.chat` (with `complete`, `chat_in_format` and `list_models`) puts the reply
cap, the deadline for the whole call, the check of the answer and the named `EndpointError`s
around every model call, offline and live alike. Code that calls
`client.chat.completions.create(...)` itself gets none of that: a slow local model then ends a
notebook in a raw `openai.APITimeoutError`. The scan reads the source with `ast`, so a docstring or
a comment that names the call is not a finding; a wrapper that *forwards* `create` (the recording
client passes the bound method on) is not a call either.
"""

from __future__ import annotations

import ast
from pathlib import Path

from cafe.endpoint.client.chat import chat, make_client

ROOT = Path(__file__).resolve().parent.parent
# Where the code learners run lives: the package, and the toys and notebook sources.
SCANNED = ("cafe", "sessions")
# The one module allowed to call the SDK: the door itself.
DOOR = "cafe/endpoint/client/chat.py"
# Modules that only pass a learner's own call through to a client the course made: the capstone's
# grader hands a harness `env.client.chat.completions.create` and forwards each call, unchanged, to
# the scripted model or to `make_client()`'s client (`--live`), counting it on the way.
# Session 08's checker and its reference ask a learner's replay client, and a recorder round a
# scripted client they built, each recorded request exactly as it was recorded (015edd6): those
# clients never reach an endpoint, and `chat` would add a reply cap and a deadline the recording
# never held.
FORWARDERS = {
    "cafe/capstone/runner.py",
    "cafe/exercises/s08.py",
    "cafe/exercises/reference_s08.py",
}
# Attribute chains whose call is a call to the endpoint.
SDK_CALLS = {("completions", "create"), ("completions", "parse"), ("models", "list")}


def sdk_calls(source: str) -> list[int]:
    """The line of every call `x.completions.create(...)` (or another of `SDK_CALLS`) in `source`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Attribute) and (owner.attr, node.func.attr) in SDK_CALLS:
                lines.append(node.lineno)
    return lines


def _scanned_files() -> list[Path]:
    return sorted(p for top in SCANNED for p in (ROOT / top).rglob("*.py"))


def test_no_module_calls_the_sdk_itself():
    offenders = []
    for path in _scanned_files():
        name = path.relative_to(ROOT).as_posix()
        if name == DOOR or name in FORWARDERS:
            continue
        offenders += [f"{name}:{line}" for line in sdk_calls(path.read_text(encoding="utf-8"))]
    assert not offenders, (
        "These call the OpenAI SDK directly, so their calls carry no reply cap, no deadline and "
        "no named error. Call `cafe.endpoint.client.chat.chat` (or `chat_in_format`, `list_models`) "
        "instead:\n" + "\n".join(offenders)
    )


def test_the_scan_finds_a_direct_call_and_not_a_docstring_or_a_forward():
    source = (
        '"""client.chat.completions.create(...) in a docstring"""\n'
        "def judge(client):\n"
        "    return client.chat.completions.create(model='m', messages=[])\n"
        "def forward(client):\n"
        "    return Wrapper(client.chat.completions.create)\n"
        "def models(client):\n"
        "    return client.models.list()\n"
    )
    assert sdk_calls(source) == [3, 7]


def test_the_door_exists():
    assert (ROOT / DOOR).is_file(), f"{DOOR} moved: update this test"


def test_the_door_calls_the_sdk():
    """The door is where the calls are: if it stops calling `create`, the scan guards nothing."""
    assert sdk_calls((ROOT / DOOR).read_text(encoding="utf-8"))


def test_offline_calls_pass_the_same_reply_cap_and_check():
    """A scripted client is asked through the same door: the cap it was made with is sent, and
    a reply longer than the cap comes back cut, finish reason `length`, as from a real model."""
    client = make_client(["word " * 100], environ={"CAFE_MAX_TOKENS": "10"})
    reply = chat(client, model="m", messages=[{"role": "user", "content": "Talk."}])
    assert client.calls[0]["max_tokens"] == 10
    assert reply.choices[0].finish_reason == "length"
    assert len(reply.choices[0].message.content) == 40  # 10 tokens of 4 characters
    assert reply.usage.completion_tokens == 10
