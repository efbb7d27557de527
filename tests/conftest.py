"""Fixtures shared by the notebook-toolkit tests (course, reveal, progress)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import ANSWER


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh CAFE_HOME for one test, run headless. Modules use it with `usefixtures("home")`."""
    folder = tmp_path / "home"
    monkeypatch.setenv("CAFE_HOME", str(folder))
    monkeypatch.setenv("CAFE_HEADLESS", "1")
    return folder


@pytest.fixture
def answers(tmp_path) -> Path:
    """An answers folder holding s07.json with one text answer and one list-of-lines answer."""
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "s07.json").write_text(json.dumps({"why_cap": ANSWER, "lines": ["one", "two"]}))
    return folder
