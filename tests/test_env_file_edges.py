"""cafe.endpoint.settings.reading: every settings file at the edge ends in one line or is read right.

A `.env` (or the file `CAFE_ENV_FILE` names) is the learner's input. Whatever it is (missing, a
folder, a named pipe, a device, huge, binary, Latin-1, UTF-16 with or without its mark, UTF-8
with a mark, a `~user` nobody is), reading the settings either returns exactly what the file
says, or raises one `ConfigError` line that names the file (or the value of `CAFE_ENV_FILE`) and
says what to do. It never waits, never reads without limit, never raises anything else, and
never takes a file it could not read for an empty one while the doctor calls the settings valid.
Each read runs under a time limit, so a hang fails the test instead of stopping the suite.
"""

from __future__ import annotations

import codecs
import io
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.environment import (
    ENV_FILE_VARIABLE,
    course_environ,
    env_file,
    file_settings,
    settings_snapshot,
)
from cafe.endpoint.settings.reading import MAX_SETTINGS_BYTES, shown_path

# Seconds one read may take: it is a stat and a read of at most 64 KiB, so anything near this hung.
READ_LIMIT_S = 10.0
# What the file says, and what reading it must give back when it is accepted.
SETTINGS = {"COURSE_MODE": "offline", "CAFE_MAX_TOKENS": "512", "CAFE_MODEL": "café-model"}
TEXT = "".join(f"{name}={value}\n" for name, value in SETTINGS.items())
# Words every refusal's fix contains one of.
FIXES = ("CAFE_ENV_FILE", "save it as UTF-8", "write it as e.g.")


def _within(seconds: float, call: Callable[[], Any]) -> dict[str, Any]:
    """{"value": ...} or {"error": ...} from `call()`, failing the test if it takes longer."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # reported below, whatever it is
            result["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"reading the settings hung for over {seconds:g} s"
    return result


def _one_line_naming(error: BaseException, *names: str) -> str:
    assert isinstance(error, ConfigError), f"{type(error).__name__}: {error}"
    message = str(error)
    assert "\n" not in message and any(name in message for name in names), message
    assert any(fix in message for fix in FIXES), message
    return message


# --- the kinds of file ------------------------------------------------------------------------


def _write(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere.env")


POSIX = pytest.mark.skipif(sys.platform == "win32", reason="named pipes and links are POSIX here")
# (name, how to make the file, what reading it gives: "accepted" or words of the refusal)
KINDS = [
    ("utf-8", _write(TEXT.encode()), "accepted"),
    ("utf-8 with a mark", _write(codecs.BOM_UTF8 + TEXT.encode()), "accepted"),
    ("utf-8 with CRLF", _write(TEXT.replace("\n", "\r\n").encode()), "accepted"),
    ("utf-16 with a mark", _write(TEXT.encode("utf-16")), "accepted"),
    ("utf-16-be with a mark", _write(codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be")), "accepted"),
    ("utf-16 without a mark", _write(TEXT.encode("utf-16-le")), "NUL"),
    ("latin-1", _write(TEXT.encode("latin-1")), "byte 0xE9"),
    ("binary", _write(bytes(range(256)) * 4), "NUL"),
    ("binary without a NUL", _write(bytes(range(1, 256)) * 4), "not UTF-8"),
    ("a stray UTF-16 mark", _write(codecs.BOM_UTF16_LE + b"A=1\n"), "line 1"),
    ("a line that is not a setting", _write(b"COURSE_MODE live\n"), "line 1"),
    ("huge", _write(b"# padding\n" * (MAX_SETTINGS_BYTES // 5)), "over 64 KiB"),
    pytest.param("a dangling link", _dangling, "cannot be read", marks=POSIX),
]
# A named pipe: read by the settings, but not by the doctor in this process (see the last test).
PIPE = pytest.param("a named pipe", _fifo, "is a named pipe", marks=POSIX)
# A folder: refused when CAFE_ENV_FILE names it, passed over on the way up (a venv named .env).
FOLDER = ("a folder", lambda path: path.mkdir(), "is a folder")


def _outcome() -> dict[str, Any]:
    return _within(READ_LIMIT_S, lambda: dict(course_environ()))


def _check(result: dict[str, Any], expected: str, *names: str) -> None:
    if expected == "accepted":
        assert "error" not in result, result.get("error")
        assert {k: result["value"].get(k) for k in SETTINGS} == SETTINGS  # read right, not empty
    else:
        assert "value" not in result, "an unreadable file was taken as settings"
        assert expected in _one_line_naming(result["error"], *names)


@pytest.mark.parametrize(("kind", "make", "expected"), [*KINDS, PIPE, FOLDER])
def test_a_file_named_by_cafe_env_file_is_read_right_or_refused_in_one_line(
    tmp_path, monkeypatch, kind, make, expected
):
    path = tmp_path / "course.env"
    make(path)
    monkeypatch.setenv(ENV_FILE_VARIABLE, str(path))
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    _check(_outcome(), expected, str(path))


@pytest.mark.parametrize(("kind", "make", "expected"), [*KINDS, PIPE])
def test_a_dot_env_found_on_the_way_up_is_read_right_or_refused_in_one_line(
    tmp_path, monkeypatch, kind, make, expected
):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    make(tmp_path / ".env")
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.delenv(ENV_FILE_VARIABLE, raising=False)
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    _check(_outcome(), expected, str(tmp_path / ".env"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/dev/zero", "is a device"),
        ("/dev/urandom", "is a device"),
        ("/", "is a folder"),
        ("~nosuchuserhere/x.env", "no user"),
        ("/no/such/folder/x.env", "no such file"),
    ],
)
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX device and folder names")
def test_cafe_env_file_naming_a_device_a_folder_or_nobody_is_one_line(monkeypatch, value, expected):
    monkeypatch.setenv(ENV_FILE_VARIABLE, value)
    result = _within(READ_LIMIT_S, lambda: dict(course_environ()))
    assert "value" not in result
    assert expected in _one_line_naming(result["error"], repr(value), value)
    snapshot = _within(READ_LIMIT_S, settings_snapshot)["value"]  # a cache key never blocks
    assert snapshot is not None and expected in snapshot[1]


# --- generated files and names ----------------------------------------------------------------

PREFIXES = st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=600), prefix=PREFIXES)
def test_any_bytes_are_read_as_their_text_says_or_refused_in_one_line(data, prefix):
    from dotenv import dotenv_values

    whole = prefix + data
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ".env"
        path.write_bytes(whole)
        result = _within(READ_LIMIT_S, lambda: file_settings(path))
    if "error" in result:
        _one_line_naming(result["error"], str(path))  # good files: the round trip below
        return
    marked = whole.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    expected = dotenv_values(stream=io.StringIO(whole.decode("utf-16" if marked else "utf-8-sig")))
    assert result["value"] == {k: v for k, v in expected.items() if v is not None}


VALUES = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="'\\\u2028\u2029\x85"),
    max_size=30,
)
KEYS = st.from_regex(r"[A-Z_][A-Z0-9_]{0,12}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(
    written=st.dictionaries(KEYS, VALUES, max_size=6),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]),
)
def test_settings_written_in_any_accepted_encoding_read_back_the_same(written, encoding):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ".env"
        lines = "".join(f"{key}='{value}'\n" for key, value in written.items())
        path.write_bytes(lines.encode(encoding))
        assert file_settings(path) == written


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.text(max_size=40)
    | st.sampled_from(["~", "~/", "~nobody-here", ".", "..", "/dev/null", "/proc/self/environ"])
)
def test_any_value_of_cafe_env_file_is_a_file_none_or_one_line(value):
    environ = {ENV_FILE_VARIABLE: value}

    def read() -> object:
        path = env_file(environ)
        return None if path is None else file_settings(path)

    result = _within(READ_LIMIT_S, read)
    if "error" in result:
        text = value.strip()
        try:
            expanded = str(Path(text).expanduser())
        except RuntimeError:
            expanded = text
        _one_line_naming(result["error"], repr(text), shown_path(Path(expanded)))


# --- the doctor never calls an unreadable file valid --------------------------------------------


@pytest.mark.parametrize(("kind", "make", "expected"), KINDS)
def test_the_doctor_fails_the_settings_line_for_a_file_it_could_not_read(
    tmp_path, monkeypatch, kind, make, expected
):
    path = tmp_path / "course.env"
    make(path)
    monkeypatch.setenv(ENV_FILE_VARIABLE, str(path))
    monkeypatch.setenv("COURSE_MODE", "offline")
    out = io.StringIO()
    result = _within(60, lambda: doctor(out=out))
    assert "error" not in result, result.get("error")
    report = result["value"]
    (line,) = [c for c in report.checks if c.name == "settings"]
    if expected == "accepted":
        assert line.ok and str(path) in line.detail, line.detail
    else:
        assert not line.ok and expected in line.detail and str(path) in line.detail
        assert "every one set is valid" not in out.getvalue()


# Bytes of address space the command below may use: far more than it needs, far less than a read
# of /dev/zero with no limit would take before the machine ran out.
COMMAND_MEMORY = 1 << 30


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (COMMAND_MEMORY, COMMAND_MEMORY))


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes, devices and rlimits are POSIX")
@pytest.mark.parametrize(
    ("found", "named", "expected"),
    [
        (True, None, "is a named pipe"),
        (False, "/dev/zero", "is a device"),
    ],
)
def test_a_pipe_or_a_device_as_settings_file_does_not_stop_a_command(
    tmp_path, found, named, expected
):
    if found:
        os.mkfifo(tmp_path / ".env")
    environ = {k: v for k, v in os.environ.items() if k != ENV_FILE_VARIABLE}
    if named is not None:
        environ[ENV_FILE_VARIABLE] = named
    done = subprocess.run(
        [sys.executable, "-m", "cafe", "progress"],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=READ_LIMIT_S,
        preexec_fn=_limited,
    )
    assert done.returncode == 1 and expected in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
