"""`cafe serve --session NN` passes `cafe doctor` for every session it serves (issue 38, item 5).

A session's script is written for its toy's requests; the doctor's format and tool probes open
with `HEALTH_CHECK_OPENING`, and a session server answers those with the default rule, so the
doctor checks the server, not the script. Its banner says so.
"""

from __future__ import annotations

import io
import os

import pytest

from cafe.endpoint.client.script import HEALTH_CHECK_OPENING, Script, is_health_check
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.scripts.rehearsals import available_sessions, session_label, session_script
from cafe.endpoint.server.command import banner
from cafe.endpoint.server.serve import running_server


@pytest.mark.parametrize("number", available_sessions())
def test_serve_session_passes_the_doctor(number: str) -> None:
    script = session_script(number)
    with running_server(script, label=session_label(number)) as server:
        env = {
            "COURSE_MODE": "live",
            "CAFE_BASE_URL": server.base_url,
            "CAFE_API_KEY": "sk-local",
            "CAFE_MODEL": script.models[0],
            "PATH": os.environ.get("PATH", ""),
        }
        out = io.StringIO()
        report = doctor(environ=env, out=out)
        text = banner(server, None)
    failed = [check.name for check in report.checks if not check.ok]
    assert report.ok, f"session {number}: {failed}\n{out.getvalue()}"
    assert "cafe doctor's probes get the default rule" in text


def test_serve_script_file_answers_the_doctor_from_the_script() -> None:
    """Only a session script steps aside: a learner's own script answers the probes itself."""
    with running_server(Script(["not json"], cycle=True), label="script") as server:
        env = {
            "COURSE_MODE": "live",
            "CAFE_BASE_URL": server.base_url,
            "CAFE_API_KEY": "sk-local",
            "CAFE_MODEL": "cafe-scripted",
            "PATH": os.environ.get("PATH", ""),
        }
        report = doctor(environ=env, out=io.StringIO())
    assert "JSON round trip" in [check.name for check in report.checks if not check.ok]


def test_is_health_check_only_on_the_opening_system_line() -> None:
    probe = {"messages": [{"role": "system", "content": f"{HEALTH_CHECK_OPENING} Reply."}]}
    assert is_health_check(probe)
    assert not is_health_check({"messages": [{"role": "user", "content": HEALTH_CHECK_OPENING}]})
    assert not is_health_check({"messages": []}) and not is_health_check({})
