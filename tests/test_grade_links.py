"""The grader never follows a link it was handed, at any level, and never writes through one: a
link is a named row ("a link, not read"), and the grader's copies hold no links (reader CC's
findings 3 and 4: `class/eve.json` or `class/mallory` linked to an instructor's files were read
as theirs; `alice/h` linked to bob's folder beside `alice/h.zip` overwrote bob's progress.json)."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.course.grading import submissions

SECRET = "INSTRUCTOR-SECRET-31337"
GOOD = json.dumps({"version": 1, "exercises": {}})


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def _outside(root: Path) -> Path:
    """The instructor's files the links point at: a folder with a notebook and a progress file."""
    secret = root / "instructor"
    secret.mkdir()
    (secret / "progress.json").write_text(json.dumps({"exercises": {SECRET: {}}}))
    (secret / "answers.ipynb").write_text(json.dumps({"cells": [{"source": SECRET}]}))
    return secret


def _hand_in(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("progress.json", json.dumps({"exercises": {"planted": {}}}))


# Where a link goes: (its path in the class, points at a file or the folder, a zip beside it)
PLACES = [
    ("eve.json", "file", False),
    ("mallory", "dir", False),
    ("eve_1_2_progress.json", "file", False),
    ("alice/h", "dir", True),
    ("alice/work/x.ipynb", "file", False),
    ("alice/deep/d", "dir", True),
    ("bob/progress.json", "file", False),
]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chosen=st.sets(st.sampled_from(range(len(PLACES))), min_size=1), at_bob=st.booleans())
def test_no_link_is_followed_or_written_through(tmp_path_factory, chosen, at_bob):
    root = tmp_path_factory.mktemp("l")
    secret, source = _outside(root), root / "class"
    for learner in ("alice", "bob", "carol"):
        (source / learner).mkdir(parents=True)
        (source / learner / "notes.json").write_text("{}")
    (source / "carol" / "progress.json").write_text(GOOD)
    for index in sorted(chosen):
        place, kind, zip_beside = PLACES[index]
        link = source / place
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists() or link.is_symlink():
            continue
        target = (source / "carol") if at_bob and kind == "dir" else secret
        link.symlink_to(target if kind == "dir" else target / "progress.json")
        if zip_beside:
            _hand_in(link.with_name(link.name + ".zip"))
    before_class, before_secret = _digest(source), _digest(secret)
    work = root / "work"
    found = submissions.collect(source, work)
    # the oracle: nothing handed in or outside changed; no copy is a link; no copy holds the
    # secret; every link placed is named by its own name in some problem
    assert _digest(source) == before_class and _digest(secret) == before_secret
    assert not [p for p in work.rglob("*") if p.is_symlink()]
    for path in work.rglob("*"):
        assert not path.is_file() or SECRET not in path.read_text(errors="replace"), path
    problems = " | ".join(p for s in found for p in s.problems)
    for index in chosen:
        place = PLACES[index][0]
        if (source / place).is_symlink():
            assert f"{Path(place).name} is a link, not read" in problems, (place, problems)


def test_the_readers_cases(tmp_path):
    secret, source = _outside(tmp_path), tmp_path / "class"
    (source / "bob").mkdir(parents=True)
    (source / "bob" / "progress.json").write_text(GOOD)
    (source / "alice").mkdir()
    (source / "alice" / "h").symlink_to(source / "bob", target_is_directory=True)
    _hand_in(source / "alice" / "h.zip")
    (source / "eve.json").symlink_to(secret / "progress.json")
    (source / "mallory").symlink_to(secret, target_is_directory=True)
    found = {s.origin: s for s in submissions.collect(source, tmp_path / "work")}
    assert (source / "bob" / "progress.json").read_text() == GOOD
    assert found["eve.json"].problems == ("eve.json is a link, not read",)
    assert found["mallory"].problems == ("mallory is a link, not read",)
    assert found["mallory"].notebooks == () and found["mallory"].progress is None
    assert "h is a link, not read" in found["alice"].problems
    assert not os.path.islink(tmp_path / "work" / "learners" / "alice" / "h")


def test_an_lms_export_with_a_linked_file_names_it(tmp_path):
    secret, source = _outside(tmp_path), tmp_path / "class"
    source.mkdir()
    (source / "ann_1_2_progress.json").write_text(GOOD)
    (source / "eve_3_4_progress.json").symlink_to(secret / "progress.json")
    found = {s.learner: s for s in submissions.collect(source, tmp_path / "work")}
    assert found["eve"].problems == ("eve_3_4_progress.json is a link, not read",)
    assert found["ann"].progress is not None


def test_unpack_never_writes_through_a_link(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    into = tmp_path / "into"
    into.mkdir()
    (into / "sub").symlink_to(elsewhere, target_is_directory=True)
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("sub/progress.json", "{}")
        zipped.writestr("ok.json", "{}")
    problems = submissions.unpack(archive, into)
    assert list(elsewhere.iterdir()) == [] and (into / "ok.json").is_file()
    assert problems == ["a.zip: sub/progress.json would be written through a link; skipped"]
