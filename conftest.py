"""Marks the suite's slow end-to-end tests `slow`, so an author can loop on `pytest -m "not slow"`.

The README's test command runs everything; the marker only lets an author leave the slow end out
while working (`pytest -n auto -m "not slow"`). Slow means the test starts something heavy: a
Jupyter kernel (every notebook under nbval), a headless browser, a real model, a toy or a notebook
run end to end as a learner runs it, or many real pytest runs in the workbench. Tests mark
themselves with `@pytest.mark.slow` where they are slow for their own reasons; this hook marks the
families that are slow by kind. `benchmarks/course_speed.py` measures what each costs.
"""

from __future__ import annotations

import pytest

# Test files whose every test runs a toy or a notebook end to end.
SLOW_FILES = frozenset({"test_toys.py", "test_spoilers.py", "test_lab_browser.py", "test_lab_browser_late.py",
                        "test_site_browser.py", "test_local_model.py"})
# Markers that mean a heavy outside process.
SLOW_MARKERS = ("browser", "local_model")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if (item.path.suffix == ".ipynb" or item.path.name in SLOW_FILES
                or any(item.get_closest_marker(name) for name in SLOW_MARKERS)):
            item.add_marker(pytest.mark.slow)
