"""Tests that a doctor hint printed as a command fixes its check when applied as printed.

Issue 38 asks for "a test per hint: apply the hint ... and the check passes".
`benchmarks/doctor_hints.py` does that with real shells, venvs and servers (too slow for the
suite: it installs packages). These tests apply the `export` hints in-process: each one makes the
failing condition, takes the command between backticks on the failed line, sets what it exports,
and runs the doctor (or the speed advice) again. tests/test_health_setup.py checks the install
hints against pyproject.toml.
"""

from __future__ import annotations

import io
import re

import pytest
from endpoints import live_env

from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.doctor.network_checks import _with_v1
from cafe.endpoint.doctor.setup_checks import Lookups
from cafe.endpoint.doctor.speed import CAP_STEPS, Speed, advice
from cafe.endpoint.server.serve import running_server
from cafe.endpoint.settings.variables import parse_max_tokens, parse_timeout

# A command a hint prints between backticks.
QUOTED = re.compile(r"`([^`]+)`")
# One `export NAME=value` of a command (several are joined by "; ").
EXPORT = re.compile(r"export (\w+)=(\S*?)(?:;|$)")


def exported(text: str) -> dict[str, str]:
    """What the one command in `text` that exports something sets, as bash would set it."""
    commands = [c for c in QUOTED.findall(text) if c.startswith("export ")]
    assert len(commands) == 1, (commands, text)
    return dict(EXPORT.findall(commands[0]))


def failed_check(report, name: str):
    (found,) = [c for c in report.checks if c.name == name]
    return found


def test_an_unreadable_settings_file_hint_reads_none_when_applied(tmp_path, monkeypatch):
    latin1 = tmp_path / "latin1.env"
    latin1.write_bytes("CAFE_MODEL=caf\xe9\n".encode("latin-1"))
    monkeypatch.setenv("CAFE_ENV_FILE", str(latin1))
    monkeypatch.setenv("COURSE_MODE", "offline")
    settings = failed_check(doctor(out=io.StringIO()), "settings")
    assert not settings.ok and "not UTF-8" in settings.detail
    assert "`export CAFE_ENV_FILE=`" in settings.fix
    for name, value in exported(settings.fix).items():
        monkeypatch.setenv(name, value)
    assert failed_check(doctor(out=io.StringIO()), "settings").ok


def test_a_base_url_without_v1_hint_adds_it_and_the_doctor_reaches_the_endpoint():
    with running_server() as server:
        env = live_env(server.base_url.removesuffix("/v1"))
        reachable = failed_check(doctor(environ=env, out=io.StringIO()), "endpoint reachable")
        assert not reachable.ok and "HTTP 404" in reachable.detail
        env.update(exported(reachable.fix))
        assert env["CAFE_BASE_URL"] == server.base_url
        report = doctor(environ=env, timeout=10, out=io.StringIO())
    assert failed_check(report, "endpoint reachable").ok
    assert failed_check(report, "model listed").ok


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/", "https://***@example.test/api"],
)
def test_no_v1_command_where_the_url_has_it_or_its_credentials_were_masked(url):
    assert _with_v1(url) == ""


@pytest.mark.parametrize(
    ("tokens_per_s", "cap", "timeout"),
    [(27, 1024, 60), (9, 1024, 60), (3, 1024, 60), (1, 512, 120), (0.22, 1024, 60)],
)
def test_the_speed_hint_is_one_command_that_makes_the_speed_check_pass(tokens_per_s, cap, timeout):
    speed = Speed(tokens_per_s=tokens_per_s, first_token_s=2.0)
    fits, _, fix = advice(speed, cap, timeout)
    assert not fits
    settings = exported(fix)
    new_cap = parse_max_tokens(settings.get("CAFE_MAX_TOKENS", str(cap)))
    new_timeout = parse_timeout(settings["CAFE_TIMEOUT_S"])
    assert new_cap == cap or new_cap in CAP_STEPS
    fits_now, said, fix_now = advice(speed, new_cap, new_timeout)
    assert fits_now and fix_now == "", (settings, said)
    assert "too slow for the course" not in fix


def test_a_model_too_slow_for_any_setting_is_told_so_beside_the_best_command():
    """At 0.2 tokens/s no cap and deadline the course allows fit: the hint still gives the best
    settings, and says that applying them will not make the check pass."""
    speed = Speed(tokens_per_s=0.2, first_token_s=2.0)
    fits, _, fix = advice(speed, 1024, 60)
    settings = exported(fix)
    assert settings == {"CAFE_TIMEOUT_S": "3600", "CAFE_MAX_TOKENS": str(CAP_STEPS[-1])}
    assert not advice(speed, CAP_STEPS[-1], 3600)[0]
    assert not fits and "too slow for the course here" in fix


def test_the_git_and_shell_hints_print_each_install_command_to_copy():
    """Installing git or bash changes the machine, so no test applies these (the benchmark reports
    them not applied); each is at least a whole command between backticks, ready to copy."""
    nothing_on_path = Lookups(which=lambda name: None, is_file=lambda path: False)
    report = doctor(environ={}, out=io.StringIO(), lookups=nothing_on_path)
    git, shell = failed_check(report, "git"), failed_check(report, "shell")
    assert not git.ok and not shell.ok
    assert "sudo apt-get install git" in QUOTED.findall(git.fix)
    assert "xcode-select --install" in QUOTED.findall(git.fix)
    assert "sudo apt-get install bash" in QUOTED.findall(shell.fix)
