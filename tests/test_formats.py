"""cafe.endpoint.client.formats and the reply cap: structured output that steps down for servers that
spell it differently (detected by trying, never by name), and every live request bounded."""

from __future__ import annotations

import pytest
from dialects import MODEL, running_dialect_server
from endpoints import live_env

from cafe.endpoint.client.chat import chat, classify_error, make_client
from cafe.endpoint.client.formats import (
    OUTPUT_FORMATS,
    about_format,
    admits,
    requested_format,
    response_format,
)
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.doctor.probes import probe_formats
from cafe.endpoint.errors import ConfigError, EndpointError, RequestRejected
from cafe.endpoint.settings.config import DEFAULT_MAX_TOKENS, max_tokens

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
ASK = [{"role": "user", "content": "Reply with a JSON object."}]


def client_for(server, **env):
    return make_client(environ={**live_env(server.base_url, model=MODEL), **env}, timeout=10)


def test_formats_are_strictest_first_and_each_has_its_spelling():
    assert OUTPUT_FORMATS == ("json_schema", "json_object_schema", "json_object", "plain")
    assert response_format("json_schema", SCHEMA, "t")["json_schema"]["strict"] is True
    assert response_format("json_object_schema", SCHEMA, "t") == {
        "type": "json_object",
        "schema": SCHEMA,
    }
    assert response_format("json_object", SCHEMA, "t") == {"type": "json_object"}
    assert response_format("plain", SCHEMA, "t") is None
    with pytest.raises(ValueError, match="json_schema, json_object_schema"):
        response_format("yaml", SCHEMA, "t")


def test_a_500_naming_response_format_is_a_refusal_of_the_format():
    with running_dialect_server() as server:
        client = client_for(server)
        with pytest.raises(RequestRejected) as caught:
            chat(
                client,
                model=MODEL,
                messages=ASK,
                response_format=response_format("json_schema", SCHEMA, "t"),
            )
    assert caught.value.param == "response_format" and caught.value.status == 500
    assert about_format(caught.value)


def test_a_500_about_anything_else_stays_a_server_failure():
    import openai

    error = openai.InternalServerError(
        "boom", response=_response(500), body={"message": "CUDA out of memory"}
    )
    problem = classify_error(error)
    assert problem.kind == "http_error" and problem.param is None


def _response(status: int):
    import httpx

    return httpx.Response(
        status, request=httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    )


def test_probe_formats_steps_down_to_the_servers_own_spelling():
    with running_dialect_server() as server:
        kind, passed_over = probe_formats(client_for(server), MODEL, 10)
    assert kind == "json_object_schema"
    assert passed_over == ["json_schema refused (HTTP 500)"]


def test_doctor_names_the_format_the_lessons_will_get_in_one_line_each(capsys):
    with running_dialect_server() as server:
        report = doctor(environ=live_env(server.base_url, model=MODEL), timeout=10)
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "output format" in line)
    assert "json_object_schema (json_schema refused (HTTP 500))" in line
    assert {check.name: check.ok for check in report.checks}["output format"]
    assert all(
        line.startswith(("  [", "         ", "cafe doctor", "")) for line in out.splitlines()
    )


def test_every_live_request_carries_a_reply_cap():
    with running_dialect_server() as server:
        chat(client_for(server), model=MODEL, messages=ASK)
        chat(client_for(server), model=MODEL, messages=ASK, max_tokens=7)
    assert [request["max_tokens"] for request in server.requests] == [DEFAULT_MAX_TOKENS, 7]


def test_the_reply_cap_is_one_setting_read_from_the_environ_the_client_was_made_with(
    monkeypatch,
):
    monkeypatch.setenv("CAFE_MAX_TOKENS", "900")  # not what `complete` reads: the client has one
    with running_dialect_server() as server:
        chat(client_for(server, CAFE_MAX_TOKENS="300"), model=MODEL, messages=ASK)
    assert server.requests[0]["max_tokens"] == 300


@pytest.mark.parametrize("raw", ["0", "-5", "lots", "12.5"])
def test_a_bad_reply_cap_says_what_to_set(raw):
    with pytest.raises(ConfigError, match="CAFE_MAX_TOKENS is .* whole number"):
        max_tokens({"CAFE_MAX_TOKENS": raw})


def test_a_model_that_wants_max_completion_tokens_gets_the_same_cap_under_that_name():
    with running_dialect_server(refuse_max_tokens=True) as server:
        reply = chat(client_for(server), model=MODEL, messages=ASK)
    assert reply.choices[0].message.content
    first, second = server.requests
    assert first["max_tokens"] == DEFAULT_MAX_TOKENS
    assert "max_tokens" not in second and second["max_completion_tokens"] == DEFAULT_MAX_TOKENS


def test_a_refused_format_is_never_mistaken_for_a_dead_endpoint():
    with running_dialect_server() as server:
        with pytest.raises(EndpointError) as caught:
            chat(
                client_for(server),
                model=MODEL,
                messages=ASK,
                response_format={"type": "json_schema", "json_schema": {}},
            )
    assert caught.value.kind == "rejected"


def test_doctor_probes_ask_at_temperature_zero_so_a_verdict_is_not_a_sampling_draw():
    with running_dialect_server() as server:
        doctor(environ=live_env(server.base_url, model=MODEL), timeout=10)
    assert server.requests and all(request["temperature"] == 0 for request in server.requests)


def test_doctor_asks_again_without_temperature_when_a_model_refuses_it(capsys):
    with running_dialect_server(refuse_temperature=True) as server:
        report = doctor(environ=live_env(server.base_url, model=MODEL), timeout=10)
    assert {check.name: check.ok for check in report.checks}["JSON round trip"], (
        capsys.readouterr().out
    )
    assert any("temperature" not in request for request in server.requests)


# --- what each format promises (session 04) ----------------------------------------------------

TICKETISH = {
    "type": "object",
    "additionalProperties": False,
    "required": ["table", "items"],
    "properties": {
        "table": {"type": "integer", "minimum": 1},
        "items": {"type": "array", "items": {"type": "string"}},
    },
}


@pytest.mark.parametrize(
    ("kind", "text", "admitted"),
    [
        ("plain", "Sure! Table 4, one latte.", True),
        ("json_object", "Sure! Table 4, one latte.", False),
        (
            "json_object",
            '```json\n{"table": 4}\n```',
            False,
        ),  # JSON mode sends the object and nothing around it
        ("json_object", "[1, 2]", False),
        ("json_object", '{"table": "4"}', True),
        ("json_schema", '{"table": "4", "items": []}', False),
        ("json_schema", '{"table": 4}', False),  # a required field missing
        ("json_schema", '{"table": 4, "items": [], "size": 1}', False),
        ("json_schema", '{"table": true, "items": []}', False),  # a bool is not an integer
        ("json_schema", '{"table": 4, "items": [7]}', False),
        ("json_schema", '{"table": 0, "items": []}', True),  # minimum is not enforced
        ("json_object_schema", '{"table": 0, "items": ["latte"]}', True),
    ],
)
def test_admits_each_format_promises_what_it_says(kind, text, admitted):
    assert admits(kind, TICKETISH, text) is admitted


def test_admits_enforces_enum_and_const_and_follows_refs():
    schema = {
        "$defs": {"T": {"type": "integer", "enum": [1, 2]}},
        "type": "object",
        "properties": {"table": {"$ref": "#/$defs/T"}, "kind": {"const": "ticket"}},
        "required": ["table"],
    }
    assert admits("json_schema", schema, '{"table": 2, "kind": "ticket"}')
    assert not admits("json_schema", schema, '{"table": 3}')
    assert not admits("json_schema", schema, '{"table": 1, "kind": "bill"}')


def test_admits_unknown_format_or_missing_schema_is_a_value_error():
    with pytest.raises(ValueError, match="json_schema, json_object_schema, json_object, plain"):
        admits("yaml", None, "{}")
    with pytest.raises(ValueError, match="needs the schema"):
        admits("json_schema", None, "{}")


def test_requested_format_reads_back_what_response_format_writes():
    for kind in OUTPUT_FORMATS:
        assert requested_format(response_format(kind, SCHEMA, "t")) == (
            kind,
            SCHEMA if "schema" in kind else None,
        )
    assert requested_format({"type": "text"}) == ("plain", None)
    with pytest.raises(ValueError, match="json_object, json_schema"):
        requested_format({"type": "yaml"})
