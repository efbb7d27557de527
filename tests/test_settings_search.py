"""The search for the settings file finds the file the rule names, over generated folder trees.

The rule (README, `docs/doctor.md`): the nearest `.env` file from the current folder up to the
course root (the nearest folder holding `pyproject.toml`); outside a checkout, only the current
folder's; a folder named `.env` is passed over. The expected file is read off the tree as it was
built (`expected`), not found by a second search, and both the doctor's search (`_nearest`) and the
redactor's quick one (`_nearest_path`, which `_nearest` now calls) must name it.
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
    wanted = expected(base, kinds, start)
    assert _nearest_path(str(start)) == (None if wanted is None else str(wanted))
    assert _nearest(start).path == wanted


def expected(base: Path, kinds: list[str], start: Path) -> Path | None:
    """The rule, read off the levels as `build` made them: the search climbs from `start` while it
    stays below or at the nearest root, and the first level holding a `.env` entry that is not a
    folder wins (a dangling link still counts as a file here, as `os.path.lexists` sees it)."""
    levels = [base.joinpath(*(f"level{i}" for i in range(n + 1))) for n in range(len(kinds))]
    below = [
        (folder, kind) for folder, kind in zip(levels, kinds) if folder in (start, *start.parents)
    ]
    below.reverse()  # from `start` upwards
    roots = [i for i, (_, kind) in enumerate(below) if kind in ("root", "root_and_env")]
    searched = below[: roots[0] + 1] if roots else below[:1]
    for folder, kind in searched:
        if kind in ("env", "env_link", "root_and_env"):
            return folder / ".env"
    return None


def test_a_env_above_the_course_root_is_not_read(tmp_path):
    (tmp_path / ".env").write_text("CAFE_MODEL=x\n", encoding="utf-8")
    root = tmp_path / "course"
    (root / "sessions").mkdir(parents=True)
    (root / ROOT_MARKER).write_text("", encoding="utf-8")
    assert _nearest_path(str(root / "sessions")) is None
    (root / ".env").write_text("CAFE_MODEL=y\n", encoding="utf-8")
    assert _nearest_path(str(root / "sessions")) == str(root / ".env")
