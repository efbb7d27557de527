"""cafe.trace.origin and the attributes of a live call: one provider name per endpoint, the server's
address and port, and the reply cap the call was sent with."""

from __future__ import annotations

import pytest

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import session_script
from cafe.endpoint.server.serve import running_server
from cafe.endpoint.settings.config import OFFLINE_MODEL
from cafe.repair.reask import make_model_generator
from cafe.report.shift import SHIFT_ORDERS, run_shift, scripted_drafter
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.attributes import NOT_HASHED, REQUEST_MAX_TOKENS, SERVER_ADDRESS, SERVER_PORT
from cafe.trace.file import read_trace
from cafe.trace.origin import Origin, generator_origin, origin_of
from cafe.trace.record import Recorder, record_repair
from cafe.trace.replay import ReplayClient

PROVIDER = "gen_ai.provider.name"


class _Endpoint:
    def __init__(self, base_url: str):
        self.base_url = base_url


@pytest.mark.parametrize(
    "base_url, expected",
    [
        ("http://127.0.0.1:8000/v1", Origin("openai", "127.0.0.1", 8000)),
        ("https://api.example.com/v1", Origin("openai", "api.example.com", 443)),
        ("http://localhost/v1", Origin("openai", "localhost", 80)),
        ("https://user:sk-SECRET@proxy.example:8443/v1", Origin("openai", "proxy.example", 8443)),
        ("scripted://offline", Origin("cafe.scripted")),
        ("not a url", Origin("openai")),  # still live: the address is simply unknown
    ],
)
def test_origin_of_reads_the_provider_address_and_port_off_the_base_url(base_url, expected):
    assert origin_of(_Endpoint(base_url)) == expected


def test_origin_of_the_scripted_client_and_a_replay():
    assert origin_of(ScriptedClient()) == Origin("cafe.scripted")
    trace = record_repair(PRACTICE_ORDERS[1], scripted_drafter())[1]
    assert origin_of(ReplayClient(trace.model_calls)).provider == "cafe.trace.replay"


def test_generator_origin_is_its_clients_else_the_scripted_stand_in():
    live = make_model_generator(_Endpoint("http://127.0.0.1:9/v1"), "m")  # type: ignore[arg-type]
    assert generator_origin(live) == Origin("openai", "127.0.0.1", 9)
    assert generator_origin(lambda messages: "{}") == Origin("cafe.scripted")


def test_server_and_reply_cap_are_left_out_of_the_content_hash():
    assert {SERVER_ADDRESS, SERVER_PORT, REQUEST_MAX_TOKENS, PROVIDER} <= NOT_HASHED


def _live_env(server, cap: str | None = None) -> dict[str, str]:
    env = {
        "COURSE_MODE": "live",
        "CAFE_BASE_URL": server.base_url,
        "CAFE_API_KEY": "sk-local",
        "CAFE_MODEL": OFFLINE_MODEL,
    }
    return env if cap is None else {**env, "CAFE_MAX_TOKENS": cap}


@pytest.mark.parametrize("cap, expected", [(None, 1024), ("77", 77)])
def test_live_model_call_records_server_and_max_tokens(cap, expected):
    with running_server(session_script("07")) as server:
        client = make_client(environ=_live_env(server, cap))
        recorder = Recorder()
        generate = make_model_generator(recorder.client(client), OFFLINE_MODEL)
        trace = record_repair(PRACTICE_ORDERS[1], generate, recorder=recorder)[1]
        port = server.server_address[1]
    call = trace.model_calls[0]
    assert call.get(PROVIDER) == "openai"
    assert (call.get(SERVER_ADDRESS), call.get(SERVER_PORT)) == ("127.0.0.1", port)
    assert call.get(REQUEST_MAX_TOKENS) == expected


def _shift_providers(generate, tmp_path) -> set[str]:
    run_shift(SHIFT_ORDERS[:3], generate, model=OFFLINE_MODEL, trace_dir=tmp_path)
    calls = [c for path in tmp_path.glob("*.jsonl") for c in read_trace(path).model_calls]
    assert calls
    return {f"{c.get(PROVIDER)} {c.get(SERVER_ADDRESS)}" for c in calls}


def test_provider_name_is_one_per_endpoint_offline(tmp_path):
    recorder = Recorder()  # as toy 08 records: through the client
    toy_08 = make_model_generator(recorder.client(make_client(FeedbackModel())))
    trace = record_repair(PRACTICE_ORDERS[1], toy_08, recorder=recorder)[1]
    assert {f"{c.get(PROVIDER)} {c.get(SERVER_ADDRESS)}" for c in trace.model_calls} == {
        "cafe.scripted None"
    }
    assert _shift_providers(scripted_drafter(), tmp_path) == {"cafe.scripted None"}


def test_provider_name_is_one_per_endpoint_live(tmp_path):
    with running_server(session_script("09")) as server:
        client = make_client(environ=_live_env(server))
        recorder = Recorder()
        trace = record_repair(
            PRACTICE_ORDERS[1],
            make_model_generator(recorder.client(client), OFFLINE_MODEL),
            recorder=recorder,
        )[1]
        shift = _shift_providers(make_model_generator(client, OFFLINE_MODEL), tmp_path)
    repair = {f"{c.get(PROVIDER)} {c.get(SERVER_ADDRESS)}" for c in trace.model_calls}
    assert repair == shift == {"openai 127.0.0.1"}
