"""Tests for cafe/endpoint/client/chat.py: one factory for both modes, and endpoint trouble turned into clear errors.

The live cases drive the real `openai` SDK over HTTP against `cafe serve` (`running_server`).
"""

from __future__ import annotations

import openai
import pytest
from endpoints import KEY, MODEL, dead_url, live_env

from cafe.endpoint.client.chat import (
    DEFAULT_TIMEOUT_S,
    PROBLEM_KINDS,
    SAID_CHARS,
    EndpointProblem,
    LiveClient,
    chat,
    classify_error,
    clip,
    endpoint_of,
    endpoint_said,
    make_client,
    translate_error,
)
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.endpoint.errors import ConfigError, EndpointError, RequestRejected
from cafe.endpoint.server.serve import Faults, running_server

HELLO = [{"role": "user", "content": "Hello!"}]


def chat_error(base_url: str, *, timeout: float = 5.0, key: str = KEY, **kwargs) -> EndpointError:
    client = make_client(environ=live_env(base_url, key=key), timeout=timeout)
    with pytest.raises(EndpointError) as caught:
        chat(client, **{"model": MODEL, "messages": HELLO, **kwargs})
    return caught.value


# --- the factory ----------------------------------------------------------------------------


def test_make_client_offline_is_scripted_and_answers_a_queue():
    client = make_client(["ready"], environ={})
    assert isinstance(client, ScriptedClient)
    assert chat(client, model=MODEL, messages=HELLO).choices[0].message.content == "ready"


def test_make_client_offline_answers_from_a_function():
    client = make_client(
        lambda request: request["model"].upper(), environ={"COURSE_MODE": "offline"}
    )
    assert chat(client, model=MODEL, messages=HELLO).choices[0].message.content == "CAFE-SCRIPTED"


def test_make_client_offline_uses_a_script_as_given():
    script = Script(["x"], models=["m1"])
    assert make_client(script, environ={}).script is script


def test_make_client_live_points_the_sdk_at_the_configured_endpoint():
    client = make_client(environ=live_env("http://127.0.0.1:8123/v1"), timeout=7.5)
    assert isinstance(client, LiveClient) and isinstance(client.sdk, openai.OpenAI)
    assert endpoint_of(client) == "http://127.0.0.1:8123/v1"
    assert client.api_key == KEY
    assert client.sdk.max_retries == 0  # the course counts its own attempts
    assert client.timeout == 7.5 and client.sdk.timeout == 7.5


def test_make_client_live_default_timeout_is_bounded():
    client = make_client(environ=live_env("http://127.0.0.1:8123/v1"))
    assert client.timeout == DEFAULT_TIMEOUT_S


def test_make_client_live_ignores_the_script():
    client = make_client(["never used"], environ=live_env("http://127.0.0.1:8123/v1"))
    assert isinstance(client, LiveClient)


def test_make_client_live_missing_variable_raises_config_error():
    env = live_env("http://127.0.0.1:8123/v1")
    del env["CAFE_MODEL"]
    with pytest.raises(ConfigError, match="CAFE_MODEL"):
        make_client(environ=env)


def test_make_client_bad_mode_raises_config_error():
    with pytest.raises(ConfigError, match="offline, live"):
        make_client(environ={"COURSE_MODE": "cloud"})


def test_make_client_reads_os_environ_when_not_given(monkeypatch):
    monkeypatch.setenv("COURSE_MODE", "live")
    monkeypatch.setenv("CAFE_BASE_URL", "http://127.0.0.1:8124/v1")
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    monkeypatch.setenv("CAFE_MODEL", MODEL)
    assert endpoint_of(make_client()) == "http://127.0.0.1:8124/v1"


def test_endpoint_of_scripted_client_is_offline():
    assert endpoint_of(ScriptedClient()) == "scripted://offline"


# --- chat() against a real HTTP endpoint ----------------------------------------------------


def test_chat_live_returns_the_completion():
    with running_server(["Bonjour!"], api_key=KEY) as server:
        reply = chat(make_client(environ=live_env(server.base_url)), model=MODEL, messages=HELLO)
    assert reply.choices[0].message.content == "Bonjour!"
    assert server.requests[0]["messages"] == HELLO


def test_chat_connection_refused_names_the_url_and_cafe_doctor():
    url = dead_url()
    error = chat_error(url)
    assert f"Could not connect to the endpoint {url}: " in str(error)
    assert "Connection refused" in str(error)  # the cause, so a stopped server reads as one
    assert "CAFE_BASE_URL" in str(error) and "cafe doctor" in str(error)
    assert error.base_url == url


def test_chat_slow_endpoint_is_named_slow_not_dead():
    with running_server(faults=Faults(delay_s=2.0)) as server:
        error = chat_error(server.base_url, timeout=0.2)
    message = str(error)
    assert error.kind == "slow"
    assert f"The endpoint {server.base_url} is up, but the model did not finish" in message
    assert "within 0.2 s" in message and "slow, not dead" in message
    assert "CAFE_TIMEOUT_S" in message and "CAFE_MAX_TOKENS" in message
    assert "cafe doctor" in message


def test_a_missed_deadline_against_a_dead_address_is_a_timeout_not_slow():
    url = dead_url()  # refuses every connection: nobody is there writing a reply
    client = make_client(environ=live_env(url), timeout=0.2)
    error = translate_error(TimeoutError("no answer within 0.2 s"), client)
    assert error.kind == "timeout"
    assert f"The endpoint {url} did not answer within 0.2 s" in str(error)
    assert "cafe doctor" in str(error)


def test_chat_401_says_the_key_was_refused_without_showing_it():
    with running_server(api_key="sk-the-server-key-0987654321") as server:
        error = chat_error(server.base_url)
    message = str(error)
    assert error.status == 401
    assert "refused the API key" in message and "CAFE_API_KEY" in message
    assert server.base_url in message and "cafe doctor" in message
    assert KEY not in message and "sk-the-server-key-0987654321" not in message
    assert "…cdef" in message


def test_chat_404_unknown_model_points_at_cafe_model():
    with running_server() as server:
        error = chat_error(server.base_url, model="gpt-nope")
    message = str(error)
    assert error.status == 404
    assert "CAFE_MODEL" in message and "cafe doctor" in message and server.base_url in message
    assert "gpt-nope" in message
    assert "Error code" not in message  # the endpoint's words, not the SDK's wrapper around them
    assert "It offers: cafe-scripted" in message


def test_endpoint_said_prefers_the_body_message_and_strips_the_sdk_wrapper():
    with_body = openai.APIStatusError(
        "Error code: 404 - {'error': ...}",
        response=_response(404),
        body={"message": "No such model."},
    )
    assert endpoint_said(with_body) == "No such model."
    bare = openai.APIStatusError("Error code: 404", response=_response(404), body=None)
    assert endpoint_said(bare) == "no message"
    text = openai.APIStatusError(
        "Error code: 502 - upstream down", response=_response(502), body="x"
    )
    assert endpoint_said(text) == "upstream down"


@pytest.mark.parametrize("status", [429, 500, 503])
def test_chat_error_status_becomes_endpoint_error(status):
    with running_server(faults=Faults(status=status)) as server:
        error = chat_error(server.base_url)
    assert type(error) is EndpointError
    assert error.status == status
    assert f"HTTP {status}" in str(error)
    assert server.base_url in str(error) and "cafe doctor" in str(error)


def test_chat_malformed_body_becomes_endpoint_error():
    with running_server(faults=Faults(malformed=True)) as server:
        error = chat_error(server.base_url)
    assert "not a chat completion" in str(error)
    assert server.base_url in str(error) and "cafe doctor" in str(error)


def test_chat_400_becomes_request_rejected_with_the_reason():
    with running_server(supports_json_schema=False) as server:
        error = chat_error(
            server.base_url,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "t", "schema": {"type": "object"}},
            },
        )
    assert isinstance(error, RequestRejected)
    assert error.status == 400
    assert "response_format json_schema is not supported" in str(error)
    assert server.base_url in str(error)
    assert (
        error.param == "response_format"
    )  # the field the endpoint blamed, for callers to branch on


def test_chat_errors_never_contain_the_key():
    # The server echoes nothing of the key, but a careless error path could: check every one.
    messages = []
    with running_server(api_key="sk-other-key-000000000000") as server:
        messages.append(str(chat_error(server.base_url)))
    for faults in (Faults(status=429), Faults(status=500), Faults(malformed=True)):
        with running_server(faults=faults) as server:
            messages.append(str(chat_error(server.base_url)))
    messages.append(str(chat_error(dead_url())))
    for message in messages:
        assert KEY not in message
        assert "SECRET" not in message


def test_chat_redacts_a_key_that_the_endpoint_echoes_back():
    echoed = openai.APIStatusError(
        f"Error code: 418 - bad key {KEY}", response=_response(418), body=None
    )
    client = make_client(environ=live_env("http://127.0.0.1:8125/v1"))
    message = str(translate_error(echoed, client))
    assert KEY not in message and "…cdef" in message


def test_chat_offline_passes_scripted_errors_through():
    client = make_client(["only"], environ={})
    chat(client, model=MODEL, messages=HELLO)
    with pytest.raises(Exception, match="cycle=True"):
        chat(client, model=MODEL, messages=HELLO)


def test_translate_error_refuses_non_sdk_exceptions():
    with pytest.raises(TypeError, match="KeyError"):
        translate_error(KeyError("x"), make_client(environ={}))


def _response(status: int):
    import httpx

    return httpx.Response(
        status, request=httpx.Request("POST", "http://127.0.0.1:8125/v1/chat/completions")
    )


def test_chat_completion_without_choices_is_an_endpoint_error():
    class Completions:
        def create(self, **kwargs):
            return type("Completion", (), {"choices": []})()

    class EmptyClient:
        base_url = "http://127.0.0.1:9/v1"
        api_key = KEY
        chat = type("Chat", (), {"completions": Completions()})()

    with pytest.raises(EndpointError, match="answered with no choices") as caught:
        chat(EmptyClient(), model=MODEL, messages=HELLO)
    assert "http://127.0.0.1:9/v1" in str(caught.value) and "cafe doctor" in str(caught.value)


# --- classify_error: one sorting of SDK errors, shared with the doctor -----------------------


def _status_error(
    status: int, message: str = "said so", param: str | None = None
) -> openai.APIStatusError:
    body = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    return openai.APIStatusError(
        f"Error code: {status} - {body}", response=_response(status), body=body
    )


@pytest.mark.parametrize(
    "status, kind",
    [
        (401, "key_refused"),
        (403, "key_refused"),
        (404, "not_found"),
        (429, "rate_limited"),
        (400, "rejected"),
        (422, "rejected"),
        (500, "http_error"),
        (503, "http_error"),
    ],
)
def test_classify_error_sorts_http_statuses_into_kinds(status, kind):
    problem = classify_error(_status_error(status))
    assert problem == EndpointProblem(kind, status, "said so")
    assert problem.kind in PROBLEM_KINDS


def test_classify_error_sorts_transport_body_and_unknown_errors():
    import httpx

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    refused = openai.APIConnectionError(request=request)
    refused.__cause__ = ConnectionRefusedError("Connection refused")
    assert classify_error(openai.APITimeoutError(request=request)) == EndpointProblem("timeout")
    assert classify_error(refused) == EndpointProblem("connection", said="Connection refused")
    assert classify_error(ValueError("garbled")) == EndpointProblem("bad_body", said="garbled")
    assert classify_error(TimeoutError("late")) == EndpointProblem("timeout")
    assert classify_error(KeyError("choices")) == EndpointProblem(
        "other", said="KeyError: 'choices'"
    )


def test_classify_error_keeps_the_param_a_400_blames():
    problem = classify_error(
        _status_error(400, "json_schema is not supported", param="response_format")
    )
    assert problem.param == "response_format"
    assert classify_error(_status_error(400)).param is None


def test_chat_400_names_the_request_field_the_endpoint_blamed():
    with running_server(supports_json_schema=False) as server:
        error = chat_error(
            server.base_url,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "t", "schema": {"type": "object"}},
            },
        )
    assert "rejected the request (HTTP 400, about response_format): " in str(error)


def test_translate_error_cuts_a_long_endpoint_message_at_a_word_boundary():
    long = "This server could not find that route, and here is a long explanation " * 8
    client = make_client(environ=live_env("http://127.0.0.1:8125/v1"))
    message = str(translate_error(_status_error(500, long), client))
    said = message.split("HTTP 500: ", 1)[1].split("…", 1)[
        0
    ]  # "... failed with HTTP 500: <said>…. The ..."
    assert said.split()[-1] in long.split()  # ends on a whole word
    assert len(said) <= SAID_CHARS


@pytest.mark.parametrize(
    "text, limit, expected",
    [
        ("short enough", 20, "short enough"),
        ("does your base URL end in /v1?", 20, "does your base URL…"),
        ('{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": 1}', 10, '{"aaaaaaaa…'),  # no space to cut at
    ],
)
def test_clip_cuts_at_a_word_boundary_when_there_is_one(text, limit, expected):
    assert clip(text, limit) == expected


def test_chat_says_once_that_it_is_waiting_and_gives_the_seconds_when_it_gives_up(capsys):
    from cafe.endpoint.client.chat import WAIT_NOTICE_S

    limit = WAIT_NOTICE_S + 0.5
    with running_server(faults=Faults(delay_s=30)) as server:
        error = chat_error(server.base_url, timeout=limit)
    err = capsys.readouterr().err
    assert err.count("waiting for") == 1 and f"giving up after {limit:g} s" in err
    assert f"did not finish its reply within {limit:g} s" in str(error) and error.kind == "slow"


def test_chat_gives_up_on_a_trickling_reply_near_its_whole_timeout():
    import time

    with running_server(faults=Faults(trickle_s=0.2)) as server:
        started = time.monotonic()
        error = chat_error(server.base_url, timeout=1.0)
        took = time.monotonic() - started
    assert error.kind == "slow" and took < 2.0  # before: each trickled byte restarted the clock
