"""A lone surrogate in an old progress entry (cafe/course/progress_reading.py) is set aside: later
saves go through, and the new entry is never blamed for the old one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cafe.course import progress
from cafe.course.progress_reading import read_progress

pytestmark = pytest.mark.usefixtures("home")

OLD = [
    '{"outcomes": {"s01.a": {"actual": "\\ud800"}}}',
    '{"outcomes": {"s01.\\udfff": {"actual": "x"}}}',
    '{"checkpoints": {"s0\\ud83d": {"k": {"v": 1}}}}',
    '{"note": "\\udc80", "outcomes": {}}',
]


@pytest.mark.parametrize("text", OLD)
def test_reading_sets_an_entry_with_a_lone_surrogate_aside(text):
    reading = read_progress(text)
    assert reading.problem is None and reading.set_aside
    json.dumps(reading.data, ensure_ascii=False).encode("utf-8")  # writable as the saver writes


@pytest.mark.parametrize("text", OLD)
def test_a_lone_surrogate_in_an_old_entry_does_not_block_a_later_save(home: Path, capsys, text):
    home.mkdir(exist_ok=True)
    (home / "progress.json").write_text(text, encoding="utf-8")
    assert progress.record("predictions", "s02.b", {"value": "fine"})
    assert "did not save predictions/s02.b" not in capsys.readouterr().err
    data = json.loads((home / "progress.json").read_text(encoding="utf-8"))
    assert data["predictions"]["s02.b"] == {"value": "fine"}
    assert progress.record("outcomes", "s02.c", {"actual": 1})  # and the save after it
