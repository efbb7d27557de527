"""Tests for cafe/endpoint/doctor/health.py: `cafe doctor` offline, against `cafe serve`, and against broken set-ups.

Every scenario also checks the one promise that matters most: the API key never shows up.
"""

from __future__ import annotations

import dataclasses
import io
import os
import socket
import subprocess
import sys
import time

import pytest
from endpoints import KEY, dead_url, live_env

import cafe
from cafe.cli import main
from cafe.endpoint.client.scripted import Script
from cafe.endpoint.doctor.health import (
    DEFAULT_TIMEOUT_S,
    REACH_TIMEOUT_S,
    Check,
    DoctorReport,
    doctor,
)
from cafe.endpoint.server.serve import Faults, running_server

ENDPOINT_CHECKS = (
    "endpoint reachable",
    "model listed",
    "JSON round trip",
    "output format",
    "tool calls",
    "speed",
)
SETUP_CHECKS = ("mode", "Python", "packages", "settings", "pytest", "git", "shell")


def run(environ: dict[str, str], **kwargs) -> tuple[DoctorReport, str]:
    out = io.StringIO()
    report = doctor(environ=environ, out=out, **kwargs)
    text = out.getvalue()
    assert_key_hidden(report, text)
    return report, text


def assert_key_hidden(report: DoctorReport, text: str) -> None:
    everything = text + repr(report) + "".join(c.detail + c.fix for c in report.checks)
    assert KEY not in everything
    assert KEY[:-4] not in everything  # nothing but the last 4 characters, ever
    assert "SECRET" not in everything


def check(report: DoctorReport, name: str) -> Check:
    (found,) = [c for c in report.checks if c.name == name]
    return found


# --- offline --------------------------------------------------------------------------------


def test_doctor_offline_passes_every_check():
    report, text = run({})
    assert report.ok, text
    assert report.mode == "offline"
    names = [c.name for c in report.checks]
    assert names == [*SETUP_CHECKS, "base URL", "API key", "model", *ENDPOINT_CHECKS]
    assert "all 16 checks passed" in text


def test_doctor_offline_says_scripted_mode_and_how_to_go_live():
    _, text = run({"COURSE_MODE": "offline"})
    assert "Scripted mode is active" in text
    for line in (
        "export COURSE_MODE=live",
        "export CAFE_BASE_URL=",
        "export CAFE_API_KEY=",
        "export CAFE_MODEL=",
    ):
        assert line in text
    assert "cafe serve" in text
    comments = [line.index("# ") for line in text.splitlines() if line.startswith("  export CAFE_")]
    assert len(comments) == 3 and len(set(comments)) == 1  # the three comments line up


def test_doctor_offline_reports_versions_from_package_metadata():
    report, _ = run({})
    detail = check(report, "packages").detail
    for name in ("cafe", "openai", "pydantic", "ipywidgets"):
        assert f"{name} " in detail
    assert "not installed" not in detail


def test_doctor_is_reachable_as_cafe_doctor():
    out = io.StringIO()
    assert cafe.doctor(environ={}, out=out).ok
    assert "cafe doctor" in out.getvalue()


def test_doctor_cli_offline_exits_0(monkeypatch, capsys):
    monkeypatch.delenv("COURSE_MODE", raising=False)
    assert main(["doctor"]) == 0
    assert "all 16 checks passed" in capsys.readouterr().out


# --- live, against cafe serve ---------------------------------------------------------------


def test_doctor_cli_against_cafe_serve_passes_and_exits_0(monkeypatch, capsys):
    with running_server(api_key=KEY) as server:
        for name, value in live_env(server.base_url).items():
            monkeypatch.setenv(name, value)
        code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "all 16 checks passed" in out
    assert server.base_url in out and "…cdef" in out
    assert KEY not in out


def test_doctor_live_runs_the_json_and_tool_probes_over_http():
    with running_server(api_key=KEY) as server:
        report, text = run(live_env(server.base_url))
    assert report.ok, text
    assert report.mode == "live"
    json_probe, format_probe, tool_probe, *speed_probes = server.requests
    # the speed: one token (the time before the first), then 64 twice on one prompt (the writing)
    assert [r["max_tokens"] for r in speed_probes] == [1, 64, 64]
    assert speed_probes[1]["messages"] == speed_probes[2]["messages"]
    assert json_probe["response_format"] == {"type": "json_object"}
    assert (
        format_probe["response_format"]["type"] == "json_schema"
    )  # the strictest, accepted at once
    assert all(
        request["max_tokens"] == 256 for request in (json_probe, format_probe, tool_probe)
    )  # the probes ask for little
    assert check(report, "output format").detail == "ticket drafts will ask for json_schema"
    assert tool_probe["tool_choice"] == {"type": "function", "function": {"name": "add_item"}}
    assert "ms for the JSON round trip" in check(report, "speed").detail
    assert "reply tokens/s" in check(report, "speed").detail


def test_doctor_dead_port_fails_fast_naming_the_url():
    url = dead_url()
    started = time.monotonic()
    report, text = run(live_env(url), timeout=60.0)
    elapsed = time.monotonic() - started
    assert elapsed < 30.0  # a refused connection is reported at once, never after the 60 s limit
    assert not report.ok
    reachable = check(report, "endpoint reachable")
    assert not reachable.ok and url in reachable.detail
    assert "CAFE_BASE_URL" in reachable.fix and "cafe serve" in reachable.fix
    assert "if it was `cafe local`, start it again" in reachable.fix  # not only "cafe serve"
    for name in ENDPOINT_CHECKS[1:]:
        assert check(report, name).skipped
        assert check(report, name).detail == "skipped: endpoint unreachable"
    assert url in text


def test_doctor_command_against_a_dead_port_exits_1_naming_the_url():
    # As a learner runs it: a fresh `python -m cafe doctor` process, default timeout.
    url = dead_url()
    env = {**os.environ, **live_env(url)}
    done = subprocess.run(
        [sys.executable, "-m", "cafe", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert done.returncode == 1
    assert f"Could not connect to the endpoint {url}: " in done.stdout
    assert "Connection refused" in done.stdout  # the cause: a stopped server, not a bad host name
    assert KEY not in done.stdout + done.stderr and "SECRET" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_doctor_endpoint_that_accepts_but_never_answers_is_reported_within_10_s():
    # A server that is up at the TCP level but stuck: the connection opens, no reply ever comes.
    # The model list gets REACH_TIMEOUT_S, not the full per-check timeout, and the rest is skipped.
    with socket.socket() as stuck:
        stuck.bind(("127.0.0.1", 0))
        stuck.listen(8)  # never accept()ed: the kernel completes the handshake, nothing answers
        url = f"http://127.0.0.1:{stuck.getsockname()[1]}/v1"
        started = time.monotonic()
        report, text = run(live_env(url))  # the default timeout, as `cafe doctor` uses it
        elapsed = time.monotonic() - started
    assert (
        REACH_TIMEOUT_S <= elapsed < REACH_TIMEOUT_S + DEFAULT_TIMEOUT_S
    )  # not the chat checks' wait too
    assert (
        REACH_TIMEOUT_S + 2 <= 10
    )  # the README's promise: a stuck endpoint is reported within 10 s
    reachable = check(report, "endpoint reachable")
    assert not reachable.ok
    assert (
        reachable.detail
        == f"The endpoint {url} did not answer the model list within {REACH_TIMEOUT_S:g} s."
    )
    assert all(check(report, name).skipped for name in ENDPOINT_CHECKS[1:])


def test_doctor_base_url_without_v1_is_reported_as_the_path_not_the_model():
    with running_server(api_key=KEY) as server:
        report, _ = run(live_env(server.base_url.removesuffix("/v1")))
    reachable = check(report, "endpoint reachable")
    assert not reachable.ok and "HTTP 404" in reachable.detail
    assert "/v1" in reachable.fix and "CAFE_BASE_URL" in reachable.fix
    assert "CAFE_MODEL" not in reachable.fix
    assert "Error code" not in reachable.detail


def test_doctor_base_url_without_v1_skips_the_chat_checks_instead_of_blaming_the_model():
    # The model list's 404 already says the path is wrong; the chat checks would only 404 again
    # and lead with "Check CAFE_MODEL", which sends the learner after the wrong variable.
    with running_server(api_key=KEY) as server:
        report, text = run(live_env(server.base_url.removesuffix("/v1")))
    for name in ENDPOINT_CHECKS[1:]:
        assert check(report, name).skipped
        assert check(report, name).detail == "skipped: no API at this base URL (is /v1 missing?)"
    assert "CAFE_MODEL" not in text
    assert server.requests == []  # no chat request was sent to a path that cannot answer it


def test_doctor_cuts_a_long_reply_at_a_word_boundary():
    reply = "I would be delighted to help with that request, although " * 5
    with running_server(Script([reply], cycle=True)) as server:
        report, _ = run(live_env(server.base_url))
    detail = check(report, "JSON round trip").detail
    shown = detail.split("'", 1)[1].rsplit("'", 1)[0]  # The reply is not JSON: '<shown>'
    assert shown.endswith("…")
    assert shown.removesuffix("…").split()[-1] in reply.split()  # ends on a whole word


def test_doctor_summary_counts_passed_failed_and_skipped():
    env = live_env("http://127.0.0.1:8000/v1")
    del env["CAFE_MODEL"]
    _, text = run(env)
    assert (
        "cafe doctor: 7 passed, 1 failed (live settings), 6 skipped because an earlier check "
        "failed."
    ) in text


def test_doctor_summary_adds_up_to_every_line_when_the_key_is_refused():
    with running_server(api_key="sk-the-real-server-key-42") as server:
        report, text = run(live_env(server.base_url))
    assert len(report.checks) == 17  # "API key accepted" joins the report
    assert "11 passed, 1 failed (API key accepted), 5 skipped" in text


def test_doctor_cli_dead_port_exits_1(monkeypatch, capsys):
    for name, value in live_env(dead_url()).items():
        monkeypatch.setenv(name, value)
    assert main(["doctor", "--timeout", "2"]) == 1
    assert KEY not in capsys.readouterr().out


def test_doctor_slow_endpoint_is_reported_within_the_timeout():
    with running_server(faults=Faults(delay_s=30.0)) as server:
        started = time.monotonic()
        report, text = run(live_env(server.base_url), timeout=2.0)
        elapsed = time.monotonic() - started
    assert elapsed < 15.0  # one 2 s wait, then the rest skipped; never the server's 30 s
    failed = check(report, "JSON round trip")
    assert not failed.ok and "did not finish its reply within 2 s" in failed.detail
    assert "--timeout" in failed.fix
    assert check(report, "tool calls").skipped  # no second wait for the same silence


def test_doctor_wrong_key_says_refused_and_names_cafe_api_key():
    with running_server(api_key="sk-the-real-server-key-42") as server:
        report, text = run(live_env(server.base_url))
    assert not report.ok
    assert check(report, "endpoint reachable").ok  # it answered, with a refusal
    refused = check(report, "API key accepted")
    assert not refused.ok
    assert "refused the API key" in refused.detail and "…cdef" in refused.detail
    assert "CAFE_API_KEY" in refused.fix
    assert "sk-the-real-server-key-42" not in text
    assert check(report, "JSON round trip").skipped


def test_doctor_unknown_model_says_so_and_lists_the_offered_models():
    with running_server(Script(["{}"], cycle=True, models=["cafe-small", "cafe-large"])) as server:
        report, text = run(live_env(server.base_url, model="gpt-4o"))
    listed = check(report, "model listed")
    assert not listed.ok
    assert "'gpt-4o' is not among the endpoint's models" in listed.detail
    assert "cafe-small, cafe-large" in listed.detail
    assert "export CAFE_MODEL=cafe-small" in listed.fix
    assert "cafe-small, cafe-large" in text


def test_doctor_reply_that_is_not_json_fails_the_round_trip():
    with running_server(Script(["Sure! Here is your JSON: {"], cycle=True)) as server:
        report, _ = run(live_env(server.base_url))
    failed = check(report, "JSON round trip")
    assert not failed.ok and "not JSON" in failed.detail
    assert "JSON mode" in failed.fix


def test_doctor_model_that_ignores_tools_fails_the_tool_check():
    with running_server(Script(['{"ok": true}'], cycle=True)) as server:  # never calls a tool
        report, _ = run(live_env(server.base_url))
    assert check(report, "JSON round trip").ok
    failed = check(report, "tool calls")
    assert not failed.ok and "No tool call came back" in failed.detail
    assert "tool" in failed.fix


def test_doctor_tool_call_with_bad_arguments_fails_the_tool_check():
    def responder(request):
        if request.get("tools"):
            return {"tool_calls": [{"name": "add_item", "arguments": "{item: latte"}]}
        return '{"ok": true}'

    with running_server(responder) as server:
        report, _ = run(live_env(server.base_url))
    assert "arguments are not JSON" in check(report, "tool calls").detail


def test_doctor_endpoint_errors_on_chat_are_reported_with_the_status():
    with running_server(faults=Faults(status=500)) as server:
        report, _ = run(live_env(server.base_url))
    assert check(report, "model listed").ok  # the model list still answers
    failed = check(report, "JSON round trip")
    assert not failed.ok and "HTTP 500" in failed.detail and "Error code" not in failed.detail


# --- configuration problems are failed checks, not tracebacks ------------------------------


def test_doctor_bad_course_mode_is_reported_not_raised():
    report, text = run({"COURSE_MODE": "cloud", "CAFE_API_KEY": KEY})
    assert not report.ok
    assert report.mode is None
    mode = check(report, "mode")
    assert not mode.ok and "'cloud'" in mode.detail and "offline, live" in mode.detail
    assert check(report, "speed").skipped
    assert "Traceback" not in text


def test_doctor_cli_bad_course_mode_exits_1(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_MODE", "cloud")
    assert main(["doctor"]) == 1
    assert "COURSE_MODE is 'cloud'" in capsys.readouterr().out


@pytest.mark.parametrize("missing", ["CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL"])
def test_doctor_missing_live_variable_is_a_failed_check_naming_it(missing):
    env = live_env("http://127.0.0.1:8000/v1")
    del env[missing]
    report, text = run(env)
    settings = check(report, "live settings")
    assert not settings.ok
    assert f"{missing} is not set" in settings.detail and f"export {missing}=" in settings.detail
    assert all(check(report, name).skipped for name in ENDPOINT_CHECKS)


def test_doctor_bad_url_is_a_failed_check():
    report, _ = run(live_env("localhost:8000"))
    assert "must start with http:// or https://" in check(report, "live settings").detail


# --- the records ----------------------------------------------------------------------------


def test_doctor_report_ok_only_when_every_check_passed():
    passing = Check("a", True, "fine")
    failing = Check("b", False, "broken", "fix it")
    assert DoctorReport("offline", (passing,)).ok
    assert not DoctorReport("offline", (passing, failing)).ok
    assert DoctorReport("offline", (passing, failing)).failed == (failing,)


def test_doctor_records_are_frozen():
    report, _ = run({})
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.checks[0].ok = False  # type: ignore[misc]


def test_doctor_passing_checks_carry_no_fix():
    report, _ = run({})
    assert all(c.fix == "" for c in report.checks)


def test_doctor_redacts_a_key_that_the_endpoint_echoes_back():
    # A reply quoting the key ends up in a failure detail: it must be masked there too.
    with running_server(Script([f"your key is {KEY}"], cycle=True)) as server:
        report, text = run(live_env(server.base_url))
    assert "your key is [redacted]" in check(report, "JSON round trip").detail


def test_doctor_with_a_one_letter_key_does_not_garble_its_report():
    with running_server() as server:
        out = io.StringIO()
        report = doctor(environ=live_env(server.base_url, key="a"), timeout=5, out=out)
    text = out.getvalue()
    assert report.ok
    assert (
        "cafe doctor" in text and "c****fe" not in text and "****" in text
    )  # the key line is masked


def test_doctor_reports_an_empty_key_as_empty_not_unset():
    out = io.StringIO()
    report = doctor(environ={**live_env("http://127.0.0.1:9/v1"), "CAFE_API_KEY": ""}, out=out)
    assert not report.ok
    assert "CAFE_API_KEY is set but empty" in out.getvalue()


def test_doctor_names_a_web_page_at_the_base_url_and_skips_the_rest():
    with running_server(faults=Faults(reply="html")) as server:
        report = doctor(environ=live_env(server.base_url), timeout=5, out=io.StringIO())
    reachable = check(report, "endpoint reachable")
    assert not reachable.ok and "answered with a web page, not the API" in reachable.detail
    assert "/v1" in reachable.fix
    assert all(check(report, name).skipped for name in ENDPOINT_CHECKS[1:])


@pytest.mark.parametrize("session", ["00", "01"])
def test_doctor_tool_probe_passes_against_cafe_serve_session_scripts(session):
    """Regression: `cafe/endpoint/scripts/drafters.py` once called `default_responder` without importing
    it, so the doctor's tool probe against `cafe serve --session 00` or `01` hit a NameError."""
    from cafe.endpoint.scripts.rehearsals import session_label, session_script

    with running_server(session_script(session), label=session_label(session)) as server:
        report, text = run(live_env(server.base_url))
    assert check(report, "tool calls").ok, text
    assert "NameError" not in text and "script could not answer" not in text


def test_the_chat_checks_wait_as_long_as_your_calls_do_when_you_set_the_deadline():
    from cafe.endpoint.doctor.health import _check_timeout

    assert _check_timeout({}, None, 60.0) == DEFAULT_TIMEOUT_S  # nothing set: the short probe
    assert _check_timeout({"CAFE_TIMEOUT_S": "130"}, None, 130.0) == 130.0  # cafe local's line
    assert _check_timeout({"CAFE_TIMEOUT_S": "130"}, 5.0, 130.0) == 5.0  # --timeout wins
