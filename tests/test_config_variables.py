"""cafe.endpoint.settings.variables: every setting checked where it enters, each failure one line with the fix.

Each validator takes the raw text of one variable and returns what the course uses, or raises
one `ConfigError`: a single line that names the variable, shows its value (a key masked, a URL
without credentials), says what is wrong, and gives an example to copy. The doctor never raises,
whatever the variables hold.
"""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.config import call_timeout, live_settings, max_tokens
from cafe.endpoint.settings.environment import course_environ, env_file
from cafe.endpoint.settings.variables import (
    MAX_TOKENS_CEILING,
    VARIABLES,
    parse_api_key,
    parse_base_url,
    parse_headless,
    parse_home,
    parse_max_tokens,
    parse_mode,
    parse_model,
    parse_timeout,
)

KEY = "sk-test-SECRET-1234567890abcdef"
LIVE = {
    "COURSE_MODE": "live",
    "CAFE_BASE_URL": "http://127.0.0.1:9/v1",
    "CAFE_API_KEY": KEY,
    "CAFE_MODEL": "m",
}


def _one_line_naming(exc: ConfigError, name: str) -> str:
    message = str(exc)
    assert "\n" not in message
    assert message.startswith(name)
    assert f"export {name}=" in message or f"`export {name}=" in message
    return message


BAD = {
    "CAFE_BASE_URL": [
        ("http://127.0.0.1:80a/v1", "port"),
        ("http://127.0.0.1:99999/v1", "port"),
        ("http://127.0.0.1:0/v1", "port"),
        ("http://[::1/v1", "not a URL"),
        ("http://ｌｏｃａｌｈｏｓｔ:9/v1", "not plain text"),
        ("http://local host:9/v1", "space"),
        ("127.0.0.1:8000/v1", "http:// or https://"),
        ("localhost:8000", "http:// or https://"),
        ("ftp://127.0.0.1/v1", "http:// or https://"),
        ("http:///v1", "names no host"),
        ("http://exa_mple.com/v1", "characters a host name cannot"),
        ("http://127.0.0.1:8000/v1\x00", "invisible"),
    ],
    "CAFE_MAX_TOKENS": [
        ("²", "digits 0-9"),
        ("١٢٣", "digits 0-9"),
        ("0", "from 1"),
        ("-5", "digits"),
        ("12.5", "whole number"),
        ("lots", "whole number"),
        ("9" * 30, f"from 1 to {MAX_TOKENS_CEILING}"),
        (str(MAX_TOKENS_CEILING + 1), f"to {MAX_TOKENS_CEILING}"),
    ],
    "CAFE_TIMEOUT_S": [
        ("0", "above 0"),
        ("-1", "above 0"),
        ("soon", "seconds"),
        ("1e3", "digits"),
        ("99999", "at most 3600"),
        ("²", "digits"),
    ],
    "CAFE_API_KEY": [
        ("sk-abc def", "character 7"),
        ("sk-é123456789", "non-ASCII"),
        ("sk-abc\ndef", "character 7"),
        ("k" * 5000, "over 4096"),
    ],
    "CAFE_MODEL": [("gpt\x07-4", "control character"), ("m" * 300, "over 256")],
    "CAFE_HEADLESS": [("maybe", "one of 1, on, true, yes"), ("2", "one of")],
}
PARSERS = {
    "CAFE_BASE_URL": parse_base_url,
    "CAFE_MAX_TOKENS": parse_max_tokens,
    "CAFE_TIMEOUT_S": parse_timeout,
    "CAFE_API_KEY": parse_api_key,
    "CAFE_MODEL": parse_model,
    "CAFE_HEADLESS": parse_headless,
}


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [(name, raw, words) for name, rows in BAD.items() for raw, words in rows],
)
def test_each_malformed_value_gives_one_line_naming_the_variable_and_an_example(name, raw, words):
    with pytest.raises(ConfigError) as caught:
        PARSERS[name](raw)
    message = _one_line_naming(caught.value, name)
    assert words in message
    if name == "CAFE_API_KEY":
        assert raw.strip() not in message and raw[:8] not in message  # the key itself never shows


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_each_variables_own_example_is_valid(name):
    PARSERS[name](VARIABLES[name].example)


def test_valid_values_come_back_as_the_course_uses_them():
    assert parse_base_url(" http://[::1]:8000/v1/ ") == "http://[::1]:8000/v1"
    assert (
        parse_base_url("https://user:pw@api.example.com/v1") == "https://user:pw@api.example.com/v1"
    )
    assert parse_base_url("http://bücher.example/v1") == "http://bücher.example/v1"  # IDNA
    assert parse_max_tokens(" 300 ") == 300 and parse_timeout("90.5") == 90.5
    assert parse_headless("ON") is True and parse_headless("") is False
    assert parse_mode("") == "offline" and parse_mode(" LIVE ") == "live"
    assert parse_model(" gpt-4o-mini ") == "gpt-4o-mini"


def test_a_url_with_credentials_is_shown_without_them_in_its_error():
    with pytest.raises(ConfigError) as caught:
        parse_base_url("http://alice:hunter2pass@127.0.0.1:80a/v1?api-key=QUERYSECRET99")
    message = str(caught.value)
    assert (
        "hunter2pass" not in message and "QUERYSECRET99" not in message and "alice" not in message
    )


def test_cafe_home_a_file_relative_or_unwritable_is_refused(tmp_path):
    afile = tmp_path / "f"
    afile.write_text("x")
    for raw, words in ((str(afile), "is a file"), ("relative/home", "full path")):
        with pytest.raises(ConfigError) as caught:
            parse_home(raw)
        assert words in _one_line_naming(caught.value, "CAFE_HOME")
    assert parse_home(str(tmp_path / "new" / "home")) == tmp_path / "new" / "home"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write to any folder"
)
def test_cafe_home_in_a_folder_you_cannot_write_to_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(ConfigError, match="not a folder you can write to"):
            parse_home(str(locked / "home"))
    finally:
        locked.chmod(0o700)


def test_a_malformed_setting_is_refused_before_any_client_is_made():
    for env in ({**LIVE, "CAFE_MAX_TOKENS": "²"}, {"CAFE_TIMEOUT_S": "0"}):
        with pytest.raises(ConfigError):
            make_client(environ=env)
    with pytest.raises(ConfigError, match="CAFE_BASE_URL"):
        live_settings({**LIVE, "CAFE_BASE_URL": "http://[::1/v1"})
    assert max_tokens({}) == 1024 and call_timeout({}) == 60.0


def test_settings_come_from_the_environment_then_a_dot_env_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CAFE_ENV_FILE", raising=False)
    monkeypatch.delenv("CAFE_MAX_TOKENS", raising=False)
    (tmp_path / ".env").write_text("CAFE_MAX_TOKENS=512\nCAFE_MODEL=from-file\n", encoding="utf-8")
    monkeypatch.setenv("CAFE_MODEL", "from-env")
    assert env_file() == tmp_path / ".env"
    settings_now = course_environ()
    assert settings_now["CAFE_MAX_TOKENS"] == "512"  # only the file sets it
    assert settings_now["CAFE_MODEL"] == "from-env"  # the environment wins
    assert max_tokens() == 512
    monkeypatch.setenv("CAFE_ENV_FILE", "")  # set to nothing: no file is read
    assert max_tokens() == 1024
    monkeypatch.setenv("CAFE_ENV_FILE", str(tmp_path / "missing.env"))
    with pytest.raises(ConfigError, match="CAFE_ENV_FILE is .*no such file"):
        max_tokens()


TEXT = st.text(max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mode=st.sampled_from(["live", "offline", ""]) | TEXT,
    url=st.sampled_from(["http://127.0.0.1:9/v1", "http://[::1/v1"]) | TEXT,
    key=TEXT | st.text(alphabet="abcdefXYZ0123456789", min_size=12, max_size=40),
    model=TEXT,
    cap=TEXT,
    timeout=TEXT,
    headless=TEXT,
)
def test_doctor_never_raises_for_any_environment(mode, url, key, model, cap, timeout, headless):
    env = {
        "COURSE_MODE": mode,
        "CAFE_BASE_URL": url,
        "CAFE_API_KEY": key,
        "CAFE_MODEL": model,
        "CAFE_MAX_TOKENS": cap,
        "CAFE_TIMEOUT_S": timeout,
        "CAFE_HEADLESS": headless,
    }
    out = io.StringIO()
    report = doctor(environ=env, timeout=0.5, out=out)
    assert report.checks
    if len(key.strip()) >= 12 and key.strip().isalnum():  # a key, not words the report holds
        assert key.strip() not in out.getvalue()
