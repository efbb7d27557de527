"""cafe.endpoint.settings.banner: the one line a notebook's first cell prints, saying which model
at which endpoint it talks to and which settings file it read, or that it is offline and why.

The kernel is faked by putting a stand-in `IPython` module in `sys.modules` whose shell has a
kernel, which is all `in_kernel` looks at.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from cafe import course_mode
from cafe.endpoint.settings.banner import in_kernel, settings_line
from cafe.endpoint.settings.environment import ENV_FILE_VARIABLE, SettingsFile

KEY = "sk-banner-secret-0123456789"
LIVE = {
    "COURSE_MODE": "live",
    "CAFE_BASE_URL": "http://127.0.0.1:8080/v1",
    "CAFE_API_KEY": KEY,
    "CAFE_MODEL": "smollm2-135m",
}
ROOT_ENV = SettingsFile(Path("/course/.env"), "the nearest .env from /course/work up to /course")
NO_FILE = SettingsFile(None, "no .env file from /course/work up to the course root /course")


def _kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    shell = types.SimpleNamespace(kernel=object())
    fake = types.SimpleNamespace(get_ipython=lambda: shell)
    monkeypatch.setitem(sys.modules, "IPython", fake)


def test_settings_line_live_names_model_endpoint_and_file_never_the_key() -> None:
    line = settings_line(LIVE, {}, ROOT_ENV)
    assert line.startswith("live: model 'smollm2-135m' at http://127.0.0.1:8080/v1")
    assert "COURSE_MODE=live in /course/.env" in line and "settings file /course/.env" in line
    assert KEY not in line and "\n" not in line


def test_settings_line_live_from_the_environment_says_so() -> None:
    line = settings_line(LIVE, {"COURSE_MODE": "live"}, ROOT_ENV)
    assert "COURSE_MODE=live in the environment" in line


def test_settings_line_live_with_a_missing_model_says_which_setting() -> None:
    line = settings_line({**LIVE, "CAFE_MODEL": ""}, {}, ROOT_ENV)
    assert line.startswith("live: but CAFE_MODEL not set")


def test_settings_line_offline_unset_says_where_the_file_was_looked_for() -> None:
    line = settings_line({}, {}, NO_FILE)
    assert line.startswith("offline (scripted stand-ins): COURSE_MODE is not set")
    assert "no .env file from /course/work up to the course root /course" in line


def test_settings_line_offline_set_names_the_file() -> None:
    line = settings_line({"COURSE_MODE": "offline"}, {}, ROOT_ENV)
    assert line.startswith("offline (scripted stand-ins): COURSE_MODE=offline in /course/.env")


def test_in_kernel_false_outside_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not in_kernel()


def test_course_mode_in_a_kernel_prints_the_line_once_from_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "course"
    (root / "work").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "cafe"\n', encoding="utf-8")
    (root / ".env").write_text("".join(f"{k}={v}\n" for k, v in LIVE.items()), encoding="utf-8")
    for name in (ENV_FILE_VARIABLE, *LIVE):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(root / "work")
    _kernel(monkeypatch)
    assert course_mode() == "live" and course_mode() == "live"
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    assert "model 'smollm2-135m'" in out and str(root / ".env") in out and KEY not in out


def test_course_mode_outside_a_kernel_prints_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    course_mode()
    assert capsys.readouterr().out == ""
