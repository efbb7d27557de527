"""cafe.endpoint.scripts.rehearsals and `cafe serve`'s banner: what a learner is told about the rehearsal
server is right for every `--session`, built from the scripts that exist, and safe to copy."""

from __future__ import annotations

import json
import re

import openai
import pytest

from cafe.cli import build_parser
from cafe.endpoint.scripts.rehearsals import (
    SESSION_SCRIPTS,
    available_sessions,
    default_rehearsal_note,
    rehearsal_note,
    rehearsal_script,
    session_label,
    session_script,
)
from cafe.endpoint.server.command import banner
from cafe.endpoint.server.serve import make_server, running_server
from cafe.endpoint.settings.config import OFFLINE_MODEL

KEY = "sk-test-SECRET-1234567890abcdef"
ALL_SESSIONS = [f"{n:02d}" for n in range(16)]


def _help_text() -> str:
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    return " ".join(serve.format_help().split())


def test_available_sessions_are_the_responders_and_the_script_files(tmp_path):
    (tmp_path / "s03.json").write_text(json.dumps(["a reply"]), encoding="utf-8")
    (tmp_path / "notes.json").write_text("[]", encoding="utf-8")  # not a session's script
    assert available_sessions(tmp_path) == sorted({*SESSION_SCRIPTS, "03"})
    assert set(SESSION_SCRIPTS) < set(available_sessions())  # the shipped files add sessions


def test_serve_help_lists_every_session_with_a_script():
    listed = re.search(r"sessions with one: ([\d, ]+)\)", _help_text())
    assert listed is not None
    assert listed.group(1).split(", ") == available_sessions()


@pytest.mark.parametrize("session", available_sessions())
def test_every_listed_session_has_a_script_that_loads(session):
    assert session_script(session).models  # what --help offers, --session accepts


@pytest.mark.parametrize("session", ALL_SESSIONS)
def test_rehearsal_note_for_every_label(session):
    has_script = session in available_sessions()
    assert rehearsal_note(session, None) == ""  # a real endpoint: nothing to explain
    own = rehearsal_note(session, session_label(session))
    assert own == f"(cafe serve answered from session {session}'s script, not a real model.)"
    default = rehearsal_note(session, "default")
    assert default == default_rehearsal_note(session)
    assert (f"`cafe serve --session {session}`" in default) is has_script
    assert ("--script FILE" in default) is not has_script
    other = rehearsal_note(session, "session-99")
    assert "session 99's script" in other
    assert (f"--session {session}" in other) is has_script
    assert "your --script file" in rehearsal_note(session, "script")


@pytest.mark.parametrize("session", available_sessions())
def test_a_session_script_is_never_called_no_script(session):
    for label in (session_label(session), "default", "session-01", "script"):
        note = rehearsal_note(session, label).lower()
        assert "no script" not in note and "script file`" not in note
        assert "--script file" not in note or label == "script"


def test_rehearsal_note_rejects_a_session_that_is_not_a_number():
    with pytest.raises(ValueError, match="session number like 01"):
        rehearsal_note("latte", "default")


def test_rehearsal_note_read_off_a_running_session_server_names_its_own_script():
    with running_server(session_script("07"), label=session_label("07")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", timeout=5, max_retries=0)
        label = rehearsal_script(client, OFFLINE_MODEL)
    assert (
        rehearsal_note("07", label)
        == "(cafe serve answered from session 07's script, not a real model.)"
    )


def _copyable(text: str) -> dict[str, str]:
    """The banner's `export NAME=VALUE` lines as the environment they would set (comments cut)."""
    found = re.findall(r"^  export (\w+)=(\S+)", text, flags=re.MULTILINE)
    return dict(found)


def test_serve_banner_copy_block_never_sets_a_wrong_key():
    server = make_server(port=0, api_key=KEY)
    try:
        text = banner(server, KEY)
    finally:
        server.server_close()
    assert "YOUR-KEY" not in text and KEY not in text and "SECRET" not in text
    assert "CAFE_API_KEY" not in _copyable(text)  # nothing to copy that would get a 401
    assert "Also set CAFE_API_KEY to the key you gave --api-key (…cdef)" in text
    assert _copyable(text)["COURSE_MODE"] == "live"


def test_serve_banner_without_a_key_gives_lines_that_work_as_copied():
    with running_server() as server:
        env = _copyable(banner(server, None))
        client = openai.OpenAI(
            base_url=env["CAFE_BASE_URL"], api_key=env["CAFE_API_KEY"], timeout=5, max_retries=0
        )
        reply = client.chat.completions.create(
            model=env["CAFE_MODEL"], messages=[{"role": "user", "content": "hello"}]
        )
    assert reply.choices  # the copied key, address and model were all accepted
    assert "any key is accepted" in banner(server, None)
