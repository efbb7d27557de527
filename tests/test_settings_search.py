"""The redactor's quick search for the settings file finds the file the doctor's search names.

`cafe.endpoint.settings.environment` searches for the nearest `.env` twice over: `_nearest`, with
paths and the doctor's wording of where it looked, and `_nearest_path`, with strings alone, which
the redactor runs before every quote it scrubs. Over generated folder trees (a course root or
none, `.env` files, folders named `.env`, links) the two must name the same file.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.settings.environment import ROOT_MARKER, _nearest, _nearest_path

DEPTH = 4
# What each level of the tree holds: nothing, a `.env` file, a folder named `.env`, a link named
# `.env` to a missing file, the course's root marker, or the marker and a `.env`.
KINDS = ("empty", "env", "env_folder", "env_link", "root", "root_and_env")


def build(base: Path, kinds: list[str]) -> Path:
    folder = base
    for level, kind in enumerate(kinds):
        folder = folder / f"level{level}"
        folder.mkdir()
        if kind in ("env", "root_and_env"):
            (folder / ".env").write_text("CAFE_MODEL=x\n", encoding="utf-8")
        if kind == "env_folder":
            (folder / ".env").mkdir()
        if kind == "env_link":
            os.symlink(folder / "missing", folder / ".env")
        if kind in ("root", "root_and_env"):
            (folder / ROOT_MARKER).write_text("", encoding="utf-8")
    return folder


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=DEPTH), up=st.integers(0, 3))
def test_the_quick_search_names_the_file_the_doctors_search_names(tmp_path_factory, kinds, up):
    base = tmp_path_factory.mktemp("tree")
    deepest = build(base, kinds)
    start = deepest.parents[min(up, len(kinds) - 1)] if up else deepest
    found = _nearest(start).path
    assert _nearest_path(str(start)) == (None if found is None else str(found))


def test_a_env_above_the_course_root_is_not_read(tmp_path):
    (tmp_path / ".env").write_text("CAFE_MODEL=x\n", encoding="utf-8")
    root = tmp_path / "course"
    (root / "sessions").mkdir(parents=True)
    (root / ROOT_MARKER).write_text("", encoding="utf-8")
    assert _nearest_path(str(root / "sessions")) is None
    (root / ".env").write_text("CAFE_MODEL=y\n", encoding="utf-8")
    assert _nearest_path(str(root / "sessions")) == str(root / ".env")
