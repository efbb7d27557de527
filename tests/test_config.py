"""Tests for cafe/endpoint/settings/config.py: the two modes, the three live variables, and keeping the key hidden."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cafe.endpoint.errors import CafeError, ConfigError
from cafe.endpoint.settings.config import (
    LIVE_VARIABLES,
    MODES,
    OFFLINE_MODEL,
    LiveSettings,
    course_mode,
    live_settings,
    mask_key,
    model_name,
    redact,
)

KEY = "sk-test-SECRET-1234567890abcdef"
LIVE = {
    "COURSE_MODE": "live",
    "CAFE_BASE_URL": "http://127.0.0.1:8000/v1",
    "CAFE_API_KEY": KEY,
    "CAFE_MODEL": "cafe-scripted",
}


def without(name: str) -> dict[str, str]:
    return {k: v for k, v in LIVE.items() if k != name}


# --- COURSE_MODE ----------------------------------------------------------------------------


def test_course_mode_unset_is_offline():
    assert course_mode({}) == "offline"


def test_course_mode_empty_is_offline():
    assert course_mode({"COURSE_MODE": "  "}) == "offline"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("offline", "offline"), ("live", "live"), (" LIVE ", "live"), ("Offline", "offline")],
)
def test_course_mode_accepts_both_values_in_any_case(raw, expected):
    assert course_mode({"COURSE_MODE": raw}) == expected


def test_course_mode_bad_value_names_both_values_and_the_bad_one():
    with pytest.raises(ConfigError) as caught:
        course_mode({"COURSE_MODE": "online"})
    message = str(caught.value)
    assert "'online'" in message
    assert "offline" in message and "live" in message
    assert "export COURSE_MODE=" in message


def test_config_error_is_a_value_error_and_a_cafe_error():
    assert issubclass(ConfigError, ValueError) and issubclass(ConfigError, CafeError)


def test_modes_are_exactly_offline_and_live():
    assert MODES == ("offline", "live")


# --- the live variables ---------------------------------------------------------------------


def test_live_settings_reads_the_three_variables():
    settings = live_settings(LIVE)
    assert settings == LiveSettings(
        base_url="http://127.0.0.1:8000/v1", api_key=KEY, model="cafe-scripted"
    )


def test_live_settings_strips_a_trailing_slash_from_the_url():
    assert (
        live_settings({**LIVE, "CAFE_BASE_URL": "http://127.0.0.1:8000/v1/"}).base_url
        == "http://127.0.0.1:8000/v1"
    )


@pytest.mark.parametrize("name", sorted(LIVE_VARIABLES))
def test_live_settings_missing_variable_names_it_and_shows_export(name):
    with pytest.raises(ConfigError) as caught:
        live_settings(without(name))
    message = str(caught.value)
    assert message.startswith(f"{name} is not set")
    assert f"export {name}=" in message


@pytest.mark.parametrize("name", sorted(LIVE_VARIABLES))
def test_live_settings_blank_variable_is_reported_as_empty(name):
    with pytest.raises(ConfigError, match=f"{name} is set but empty"):
        live_settings({**LIVE, name: "   "})


@pytest.mark.parametrize("name", sorted(LIVE_VARIABLES))
def test_live_settings_unset_variable_is_reported_as_not_set(name):
    env = {k: v for k, v in LIVE.items() if k != name}
    with pytest.raises(ConfigError, match=f"{name} is not set"):
        live_settings(env)


@pytest.mark.parametrize("url", ["127.0.0.1:8000/v1", "ftp://example.com/v1", "localhost"])
def test_live_settings_bad_url_names_the_value_and_the_expected_form(url):
    with pytest.raises(ConfigError) as caught:
        live_settings({**LIVE, "CAFE_BASE_URL": url})
    message = str(caught.value)
    assert repr(url) in message
    assert "http://127.0.0.1:8000/v1" in message


def test_live_settings_errors_never_contain_the_key():
    for name in ("CAFE_BASE_URL", "CAFE_MODEL"):
        with pytest.raises(ConfigError) as caught:
            live_settings(without(name))
        assert KEY not in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        live_settings({**LIVE, "CAFE_BASE_URL": "nope"})
    assert KEY not in str(caught.value)


def test_model_name_is_the_scripted_model_offline():
    assert model_name({}) == OFFLINE_MODEL == "cafe-scripted"


def test_model_name_is_cafe_model_live():
    assert model_name({**LIVE, "CAFE_MODEL": "gpt-4o-mini"}) == "gpt-4o-mini"


# --- keeping the key hidden -----------------------------------------------------------------


def test_mask_key_shows_only_the_last_four_characters():
    assert mask_key(KEY) == "…cdef"


@pytest.mark.parametrize("key", ["a", "12345678", "sk-short"])
def test_mask_key_hides_short_keys_completely(key):
    assert mask_key(key) == "****"


def test_mask_key_says_when_no_key_is_set_and_when_it_is_empty():
    assert mask_key(None) == "(not set)"
    assert mask_key("") == "(empty)"


@given(st.text(min_size=1, max_size=80))
def test_mask_key_never_reveals_more_than_four_characters(key):
    masked = mask_key(key)
    revealed = masked.removeprefix("…")
    assert masked in ("****", "…" + key[-4:])
    assert len(revealed) <= 4


def test_redact_replaces_every_occurrence_of_the_key():
    text = f"key={KEY}; again {KEY}"
    assert redact(text, KEY) == "key=…cdef; again …cdef"


def test_redact_without_a_key_leaves_the_text_alone():
    assert redact("nothing secret", None) == "nothing secret"
    assert redact("nothing secret", "") == "nothing secret"


def test_live_settings_repr_never_shows_the_key():
    settings = live_settings(LIVE)
    for text in (repr(settings), str(settings), f"{settings}", repr([settings])):
        assert KEY not in text
        assert "…cdef" in text
    assert "http://127.0.0.1:8000/v1" in repr(settings)


def test_config_reads_nothing_at_import():
    # A broken environment must not stop `import cafe`: it is read only when a function asks.
    code = (
        "import sys, cafe, cafe.endpoint.settings.config, cafe.endpoint.client.chat, cafe.endpoint.client.scripted, cafe.endpoint.server.serve, cafe.endpoint.doctor.health\n"
        "assert 'openai' not in sys.modules, 'importing cafe pulled in openai'\n"
        "print('imported')\n"
    )
    env = {"COURSE_MODE": "bogus", "CAFE_BASE_URL": "not a url", "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported"


def test_redact_leaves_text_alone_for_a_key_shorter_than_8_characters():
    assert redact("cafe doctor, openai", "a") == "cafe doctor, openai"
    assert redact("sk-local works", "sk-loca") == "sk-local works"


def test_redact_masks_a_long_key_wherever_it_stands():
    key = "sk-test-SECRET-1234567890abcdef"
    assert redact(f"key {key}.", key) == "key …cdef."


def test_redact_masks_the_start_of_the_key_that_ends_a_cut_message():
    key = "sk-test-SECRET-1234567890abcdef"
    assert redact("you sent " + key[:25] + "…", key) == "you sent …cdef…"
    assert redact("you sent " + key[:25], key) == "you sent …cdef"
