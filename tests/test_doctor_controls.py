"""What the doctor prints from an endpoint is shown, not obeyed, wherever the report goes.

The principle: every line `cafe doctor` writes goes through `terminal.visible` where it leaves
(`ReportWriter`), so a model id or a reply holding ESC, BEL or a C1 control reads as its escape
on a terminal, in a notebook and in a `StringIO` alike. Before, the model list's words (`It
offers: ...`, `export CAFE_MODEL=...`) were printed raw: only `cafe doctor` run as a command,
whose whole stream shows controls, escaped them, and `doctor(out=StringIO())` or a notebook did
not. Checked on model ids and replies Hypothesis generates, full of C0 and C1 controls, served
through the real `openai` SDK (an `httpx.MockTransport`), against the per-character reference of
`tests/test_terminal_controls.py`.
"""

from __future__ import annotations

import io
import json
from typing import Any

import httpx
import openai
from endpoints import KEY, live_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_terminal_controls import CONTROLS, harmless, shown

from cafe.endpoint.client.chat import LiveClient, endpoint_of
from cafe.endpoint.client.scripted import Script
from cafe.endpoint.doctor.checks import ReportWriter
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.doctor.network_checks import Probing, endpoint_checks
from cafe.endpoint.server.serve import running_server

URL = "http://127.0.0.1:9/v1"
# Model ids and replies with control characters (C0, DEL, C1) far more often than chance.
some_text = st.text(st.one_of(st.characters(), st.sampled_from(CONTROLS)), min_size=1, max_size=12)
model_ids = st.lists(some_text, min_size=1, max_size=3, unique=True)


class Serving:
    """A live client whose endpoint lists `ids` and answers every chat with `reply` (one SDK
    client for every example: each costs tens of milliseconds to make)."""

    def __init__(self) -> None:
        self.ids, self.reply = ["m"], ""
        sdk = openai.OpenAI(
            base_url=URL,
            api_key=KEY,
            max_retries=0,
            http_client=httpx.Client(transport=httpx.MockTransport(self.answer)),
        )
        self.client = LiveClient(sdk, reply_cap=64, timeout=5.0)

    def answer(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            body: Any = {"object": "list", "data": [{"id": i, "object": "model"} for i in self.ids]}
        else:
            body = {
                "id": "c", "object": "chat.completion", "created": 0, "model": self.ids[0],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": self.reply}}],
            }  # fmt: skip
        return httpx.Response(200, json=body)


SERVING = Serving()


def folded(text: str) -> str:
    """How a report line holds `text`: its runs of whitespace as one space (one line per check)."""
    return " ".join(text.split())


@settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(ids=model_ids, reply=some_text, listed=st.booleans())
def test_the_doctor_shows_an_endpoints_model_ids_and_replies_escaped(ids, reply, listed):
    SERVING.ids, SERVING.reply = ids, reply
    client = SERVING.client
    out = io.StringIO()
    report = ReportWriter(out, KEY)
    model = ids[0] if listed else "absent-model"
    endpoint_checks(report, Probing(client, endpoint_of(client), model, 5.0, 64, 60.0))
    printed = out.getvalue()
    assert harmless(printed), printed  # nothing a terminal obeys, in any check's line
    assert all(harmless(c.detail) and harmless(c.fix) for c in report.checks)
    if not listed:
        offers = next(c for c in report.checks if c.name == "model listed")
        assert all(shown(folded(i)) in offers.detail for i in ids)
        assert shown(folded(f"export CAFE_MODEL={ids[0]}`")) in offers.fix


def test_the_doctor_shows_a_model_list_escaped_against_cafe_serve():
    ids = ["m\x1b[31mred", "x\x9bq\x07"]  # ESC, CSI (C1) and BEL
    script = Script(["say \x1b]0;title\x07 hi"], cycle=True, models=ids)
    out = io.StringIO()
    with running_server(script, api_key=KEY) as server:
        result = doctor(environ=live_env(server.base_url, model="absent"), out=out)
    printed = out.getvalue()
    assert harmless(printed)
    assert "It offers: m\\x1b[31mred, x\\x9bq\\x07." in printed
    assert "`export CAFE_MODEL=m\\x1b[31mred`" in printed
    assert json.dumps([c.detail for c in result.checks]).count("\\u001b") == 0
