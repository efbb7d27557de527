"""cafe.endpoint.settings.environment: the course's `.env` is the nearest one from the current
folder up to the course root, so a notebook's kernel in `work/` or `notebooks/` reads the root's.

Each test builds a small course tree in a temporary folder (a `pyproject.toml` at its top, as the
checkout has) and moves into one of its folders, as a learner's shell or a kernel would.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cafe import course_mode
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.config import max_tokens
from cafe.endpoint.settings.environment import (
    ENV_FILE_VARIABLE,
    course_root,
    env_file,
    find_env_file,
    folders_searched,
)


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A course checkout with `work/` and `notebooks/` and a `.env` at its root that says live;
    the suite's own `CAFE_ENV_FILE=` (no file) and any mode of the shell's are taken away."""
    root = tmp_path / "course"
    for folder in ("work", "notebooks", "notebooks/deeper"):
        (root / folder).mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "cafe"\n', encoding="utf-8")
    (root / ".env").write_text("COURSE_MODE=live\nCAFE_MAX_TOKENS=512\n", encoding="utf-8")
    monkeypatch.delenv(ENV_FILE_VARIABLE, raising=False)
    monkeypatch.delenv("COURSE_MODE", raising=False)
    monkeypatch.delenv("CAFE_MAX_TOKENS", raising=False)
    return root


@pytest.mark.parametrize("folder", ["work", "notebooks", "notebooks/deeper", "."])
def test_a_root_dot_env_makes_the_course_live_from_any_folder_inside_it(
    course, monkeypatch, folder
):
    monkeypatch.chdir(course / folder)
    assert env_file() == course / ".env"
    assert course_mode() == "live" and max_tokens() == 512


def test_the_nearest_dot_env_wins_over_the_root_one(course, monkeypatch):
    (course / "work" / ".env").write_text("CAFE_MAX_TOKENS=256\n", encoding="utf-8")
    monkeypatch.chdir(course / "work")
    assert env_file() == course / "work" / ".env"
    assert max_tokens() == 256 and course_mode() == "offline"  # one file is read, not merged
    monkeypatch.chdir(course / "notebooks")
    assert max_tokens() == 512


def test_the_walk_stops_at_the_course_root(course, monkeypatch):
    (course.parent / ".env").write_text("CAFE_MAX_TOKENS=128\n", encoding="utf-8")
    (course / ".env").unlink()
    monkeypatch.chdir(course / "work")
    assert course_root(course / "work") == course
    assert folders_searched(course / "work") == (course / "work", course)
    assert env_file() is None and max_tokens() == 1024
    assert "no .env file from " in find_env_file().origin


def test_outside_a_course_checkout_only_the_current_folder_counts(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_FILE_VARIABLE, raising=False)
    (tmp_path / ".env").write_text("CAFE_MAX_TOKENS=128\n", encoding="utf-8")
    (tmp_path / "below").mkdir()
    monkeypatch.chdir(tmp_path / "below")
    assert course_root(tmp_path / "below") is None
    assert env_file() is None
    assert "outside any course checkout" in find_env_file().origin


def test_a_folder_named_dot_env_is_passed_over(course, monkeypatch):
    (course / "work" / ".env").mkdir()  # a virtual environment some people name so
    monkeypatch.chdir(course / "work")
    assert env_file() == course / ".env" and course_mode() == "live"


def test_cafe_env_file_still_names_the_file_or_none(course, monkeypatch, tmp_path):
    other = tmp_path / "other.env"
    other.write_text("CAFE_MAX_TOKENS=64\n", encoding="utf-8")
    monkeypatch.chdir(course / "work")
    monkeypatch.setenv(ENV_FILE_VARIABLE, str(other))
    assert env_file() == other and max_tokens() == 64 and course_mode() == "offline"
    monkeypatch.setenv(ENV_FILE_VARIABLE, "")  # set to nothing: no file, wherever we are
    assert env_file() is None and max_tokens() == 1024
    assert "set to nothing" in find_env_file().origin


def test_cafe_env_file_with_an_unknown_user_is_one_line(monkeypatch):
    monkeypatch.setenv(ENV_FILE_VARIABLE, "~nosuchuserhere/course.env")
    with pytest.raises(ConfigError) as raised:
        env_file()
    message = str(raised.value)
    assert "\n" not in message and "'~nosuchuserhere/course.env'" in message
    assert "set it to nothing" in message


@pytest.mark.parametrize("folder", ["work", "notebooks"])
def test_the_doctor_says_which_file_it_read_and_why(course, monkeypatch, folder):
    monkeypatch.setenv("COURSE_MODE", "offline")  # no endpoint needed; the file still counts
    monkeypatch.chdir(course / folder)
    report = doctor(out=io.StringIO())
    (settings,) = [c for c in report.checks if c.name == "settings"]
    assert settings.ok, settings.detail
    assert f"then {course / '.env'} (the nearest .env from {course / folder} up to " in (
        settings.detail
    )
    assert f"the course root {course}; the environment wins)" in settings.detail


def test_a_key_changed_in_the_root_dot_env_is_masked_from_a_subfolder(course, monkeypatch):
    from cafe.endpoint.secrets.redaction import redact

    monkeypatch.chdir(course / "work")
    monkeypatch.delenv("CAFE_API_KEY", raising=False)
    (course / ".env").write_text("CAFE_API_KEY=firstkey-0123456789\n", encoding="utf-8")
    assert "firstkey-0123456789" not in redact("a firstkey-0123456789 b")
    (course / ".env").write_text("CAFE_API_KEY=secondkey-9876543210\n", encoding="utf-8")
    assert "secondkey-9876543210" not in redact("a secondkey-9876543210 b")
