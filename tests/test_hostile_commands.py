"""Hostile inputs to the course's commands end in one line, and lose nothing the learner wrote.

The course's rule (README "Your work", docs/doctor.md, the s00 lesson): bad input ends in one line
that says what happened and how to fix it, never a traceback, and nothing a learner wrote is lost
or overwritten. Reader AA found where it did not hold; each rule below is tested on generated
inputs against an oracle written here, then on the reader's own cases:

- a hand-in zip never replaces the progress file, nor anything that is not an earlier hand-in;
- a progress file that is not a regular file, or is larger than `MAX_PROGRESS_BYTES`, is refused
  and left as it was, never read without end;
- a `.env` line that is not `NAME=value` (a lone value: the key, most likely) stops every
  command, named by its number and never by its content;
- a path the system refuses (too long, a file in the way) is one line from `run_command`, and a
  base URL or `CAFE_HOME` too long for the system is refused where the setting is read.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.cli import main, run_command
from cafe.course import progress
from cafe.course.grading.handin import FORMAT
from cafe.course.grading.handin import main as hand_in_main
from cafe.course.record import read_record
from cafe.endpoint.errors import ConfigError, os_error_line
from cafe.endpoint.settings.reading import read_settings
from cafe.endpoint.settings.variables import URL_CHARS, parse_base_url, parse_home

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="named pipes and /dev are POSIX")
# A key-shaped value, as a learner pastes it; no message may ever hold it.
KEY = "sk-hostileCanary-7Q2x9ZpL"
PROGRESS = {"version": 1, "predictions": {"s07.first": {"question": "q", "value": "2"}}}
# Seconds any one refusal may take: a stat and a small read, so anything near this hung.
LIMIT_S = 10.0


def _within(seconds: float, call):
    """`call()`'s result, failing the test if it takes longer than `seconds` (a hang)."""
    result: dict = {}
    worker = threading.Thread(target=lambda: result.update(value=call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds:g} s"
    return result["value"]


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


# --- a hand-in never writes over the learner's files ------------------------------------------

# What may already be at the zip's path, and whether the hand-in may replace it (the oracle).
OUT_KINDS = {
    "nothing": True,
    "an earlier hand-in": True,
    "another zip": False,
    "a file of bytes": False,
    "the progress file": False,
    "a link to the progress file": False,
    "a folder": False,
}


def _make_out(kind: str, out: Path, progress_file: Path, data: bytes) -> None:
    if kind == "an earlier hand-in":
        with zipfile.ZipFile(out, "w") as zipped:
            zipped.writestr("manifest.json", json.dumps({"format": FORMAT}))
    elif kind == "another zip":
        with zipfile.ZipFile(out, "w") as zipped:
            zipped.writestr("photo.jpg", data)
    elif kind == "a file of bytes":
        out.write_bytes(data)
    elif kind == "a link to the progress file":
        out.symlink_to(progress_file)
    elif kind == "a folder":
        out.mkdir()
        (out / "notes.txt").write_bytes(data)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(sorted(OUT_KINDS)), data=st.binary(max_size=300))
def test_hand_in_replaces_only_an_earlier_hand_in(capsys, kind, data):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "work").mkdir()
        (root / "work" / "s00.ipynb").write_text('{"cells": []}', encoding="utf-8")
        progress_file = root / "progress.json"
        progress_file.write_text(json.dumps(PROGRESS), encoding="utf-8")
        out = progress_file if kind == "the progress file" else root / "out.zip"
        _make_out(kind, out, progress_file, data)
        before = _tree(root)
        capsys.readouterr()
        argv = ["--work", str(root / "work"), "--progress", str(progress_file), "--out", str(out)]
        code = hand_in_main([*argv, "--learner", "al"])
        said = capsys.readouterr()
        if OUT_KINDS[kind]:
            assert code == 0, said
            with zipfile.ZipFile(out) as zipped:
                assert json.loads(zipped.read("manifest.json"))["format"] == FORMAT
        else:
            assert code == 2
            assert "nothing written" in _one_line(said.err) and str(out) in said.err
            assert _tree(root) == before  # every byte where it was


def test_export_over_the_progress_file_is_refused_and_keeps_it(home, capsys):
    """Reader AA, export-over-progress: `cafe progress --export <the progress file>`."""
    home.mkdir()
    path = home / "progress.json"
    path.write_text(json.dumps(PROGRESS), encoding="utf-8")
    before = path.read_bytes()
    assert main(["progress", "--export", str(path), "--learner", "al"]) == 2
    assert "is your progress file" in _one_line(capsys.readouterr().err)
    assert path.read_bytes() == before


# --- a progress file that is not a file, or far too big, is refused and left as it was ------


@settings(max_examples=40, deadline=None)
@given(size=st.integers(0, 4096), limit=st.integers(16, 4096))
def test_a_progress_file_over_the_limit_is_refused_and_untouched(size, limit):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "progress.json"
        text = json.dumps({"version": 1, "predictions": {"s00.x": {"value": "x" * size}}})
        path.write_text(text, encoding="utf-8")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(progress, "MAX_PROGRESS_BYTES", limit)
            record = read_record(path)
        too_big = len(text.encode()) > limit  # the oracle: the file's size against the bound
        assert (record.unreadable is not None) == too_big, record.unreadable
        if too_big:
            assert "far larger than any progress file" in record.unreadable
        assert path.read_text(encoding="utf-8") == text


@POSIX
@pytest.mark.parametrize("kind", ["a named pipe", "a link to /dev/zero", "a folder"])
def test_a_progress_file_that_is_not_a_regular_file_is_refused_without_reading(home, kind):
    home.mkdir()
    path = home / "progress.json"
    if kind == "a named pipe":
        os.mkfifo(path)
    elif kind == "a link to /dev/zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    record = _within(LIMIT_S, lambda: read_record(path))
    assert record.unreadable is not None and "not a regular file" in record.unreadable
    assert os.path.lexists(path)


@POSIX
@pytest.mark.parametrize("named", ["/dev/zero", "a named pipe"])
def test_progress_file_flag_naming_a_device_or_a_pipe_is_one_line(tmp_path, capsys, named):
    """Reader AA, prog-file-devzero and prog-file-fifo: these grew memory, or waited, forever."""
    if named == "a named pipe":
        named = str(tmp_path / "pipe")
        os.mkfifo(named)
    assert _within(LIMIT_S, lambda: main(["progress", "--file", named])) == 2
    assert "not a regular file" in _one_line(capsys.readouterr().err)


def test_a_progress_file_past_the_bound_is_refused_at_once_and_kept(home, capsys):
    """Reader AA, prog-huge: a valid file far larger than the course writes ran for minutes."""
    home.mkdir()
    path = home / "progress.json"
    entry = '"s00.p%d":{"value":"' + "x" * 500 + '"}'
    count = progress.MAX_PROGRESS_BYTES // 500 + 10
    body = ",".join(entry % i for i in range(count))
    path.write_text('{"version":1,"predictions":{' + body + "}}", encoding="utf-8")
    size = path.stat().st_size
    assert _within(LIMIT_S, lambda: main(["progress"])) == 1
    assert "far larger than any progress file" in capsys.readouterr().out
    assert path.stat().st_size == size


# --- a .env line that is not NAME=value stops every command, by number only ------------------

LINE_KINDS = st.sampled_from(["setting", "comment", "blank", "lone value"])
TOKENS = st.from_regex(r"sk-[A-Za-z0-9]{12,20}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(kinds=st.lists(LINE_KINDS, min_size=1, max_size=8), token=TOKENS)
def test_a_lone_value_line_is_refused_by_its_number_and_never_shown(kinds, token):
    lines = {
        "setting": "COURSE_MODE=offline",
        "comment": "# a comment",
        "blank": "",
        "lone value": token,
    }
    text = "".join(lines[kind] + "\n" for kind in kinds)
    first_lone = next((n for n, kind in enumerate(kinds, 1) if kind == "lone value"), None)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ".env"
        path.write_text(text, encoding="utf-8")
        try:
            found = read_settings(path)
        except ConfigError as exc:
            message = str(exc)
            assert first_lone is not None, message
            assert f"(line {first_lone})" in message and token not in message
            assert "\n" not in message
            return
    assert first_lone is None, "a lone value was skipped unseen"
    assert found == ({"COURSE_MODE": "offline"} if "setting" in kinds else {})


def test_doctor_stops_at_a_lone_key_in_env_without_showing_it(tmp_path, monkeypatch, capsys):
    """Reader AA, env-badline-key: the doctor called these settings valid."""
    env = tmp_path / "course.env"
    env.write_text(f"COURSE_MODE=offline\n{KEY}\n", encoding="utf-8")
    monkeypatch.setenv("CAFE_ENV_FILE", str(env))
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    code = main(["doctor"])
    said = capsys.readouterr()
    assert code == 1 and "(line 2)" in said.out + said.err
    assert KEY not in said.out + said.err and "AAleak" not in said.out + said.err


# --- a path the system refuses is one line; long settings are refused where they are read ----

ERRNOS = st.sampled_from(
    [errno.ENAMETOOLONG, errno.EEXIST, errno.ENOTDIR, errno.EACCES, errno.ENOSPC, errno.EIO, 0]
)
NAMES = st.one_of(st.none(), st.text(max_size=6000), st.binary(max_size=300))


@settings(max_examples=150, deadline=None)
@given(number=ERRNOS, name=NAMES)
def test_any_os_error_is_one_short_line_naming_the_path(number, name):
    exc = OSError(number, os.strerror(number), name) if number else OSError("it broke")
    line = os_error_line(exc)
    assert line.isprintable() and line.endswith(".")  # one line: no newline, no control
    assert len(line) < 400
    if number and isinstance(name, str) and len(name) <= 80 and name.isprintable():
        assert f": {name}; " in line


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(number=ERRNOS, name=st.text(max_size=200))
def test_run_command_ends_an_os_error_in_one_line_and_exit_1(capsys, number, name):
    def fails() -> int:
        raise OSError(number, os.strerror(number), name)

    capsys.readouterr()
    assert run_command(fails, name="cafe") == 1
    assert _one_line(capsys.readouterr().err).startswith("cafe: ")


def test_run_command_still_ends_quietly_on_a_closed_pipe():
    """A `BrokenPipeError` is an `OSError` too, but it keeps its quiet ending (141), not a line."""
    program = (
        "import errno, sys\n"
        "from cafe.cli import run_command\n"
        "def closed():\n"
        "    raise BrokenPipeError(errno.EPIPE, 'Broken pipe')\n"
        "sys.exit(run_command(closed, name='cafe'))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 141 and done.stderr == "", done.stderr


@settings(max_examples=60, deadline=None)
@given(length=st.integers(0, 3 * URL_CHARS))
def test_a_base_url_is_accepted_up_to_its_limit_and_refused_past_it(length):
    url = "http://127.0.0.1:8000/v1"
    url += "/" + "v" * max(0, length - len(url) - 1) if length > len(url) else ""
    if len(url) <= URL_CHARS:
        assert parse_base_url(url) == url
    else:
        with pytest.raises(ConfigError, match=f"over {URL_CHARS:,} characters") as caught:
            parse_base_url(url)
        assert len(str(caught.value)) < 400


@settings(max_examples=40, deadline=None)
@given(length=st.integers(1, 6000))
def test_cafe_home_of_any_length_is_a_folder_or_one_config_error(length):
    with tempfile.TemporaryDirectory() as folder:
        try:
            parse_home(os.path.join(folder, "a" * length))
        except ConfigError as exc:  # never an OSError: a name too long is named as CAFE_HOME's
            assert str(exc).startswith("CAFE_HOME is ") and "\n" not in str(exc)
            assert len(str(exc)) < 400


# The reader's four tracebacks, each run as a learner types it: one line, exit 1.
CRASHES = {
    "home-long": (["progress"], {"CAFE_HOME": "/tmp/" + "a" * 5000}, "CAFE_HOME is"),
    "url-long": (
        ["doctor"],
        {
            "COURSE_MODE": "live",
            "CAFE_MODEL": "m",
            "CAFE_BASE_URL": "http://127.0.0.1:9/" + "v" * 100_000,
        },
        "over 2,048 characters",
    ),
    "handin-learner-long": (["hand-in", "--learner", "n" * 5000], {}, "File name too long"),
    "grade-out-is-file": (["grade", "class", "--out", "work/notes.txt"], {}, "File exists"),
}


@pytest.mark.parametrize("case", sorted(CRASHES))
def test_the_readers_tracebacks_are_one_line_now(tmp_path, case):
    argv, extra, words = CRASHES[case]
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("my notes", encoding="utf-8")
    (tmp_path / "class").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAFE_", "COURSE_"))}
    env.update({"CAFE_HOME": str(tmp_path / "home"), "CAFE_ENV_FILE": "", "CAFE_API_KEY": KEY})
    env.update(extra)
    done = subprocess.run(
        [sys.executable, "-m", "cafe", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in said, said
    assert words in said and KEY not in said
    assert (tmp_path / "work" / "notes.txt").read_text(encoding="utf-8") == "my notes"
