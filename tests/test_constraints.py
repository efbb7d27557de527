"""constraints.txt pins what the test suite last passed with; tools/refresh_constraints.py keeps it.

The committed file is read as CI reads it: one `name==version` a line, a header naming the Python
it is for, a pin for every distribution the course asks for. The script's checks are tried on
small edited copies of the file, so each way an install can drift from the pins is seen failing.
Whether *this* environment matches the pins is CI's question (`--check` in `.ci/run`), not the
suite's: a learner who installed without `-c` has newer versions, and that is fine.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import refresh_constraints as rc  # noqa: E402


def _requirements() -> list[Requirement]:
    """The course's own requirements (core, test, otel), from its installed metadata."""
    found = []
    for text in metadata.requires(rc.PROJECT) or []:
        requirement = Requirement(text)
        marker = str(requirement.marker or "")
        extra = re.search(r'extra == "([^"]+)"', marker)
        if extra is None or extra.group(1) in rc.EXTRAS:
            found.append(requirement)
    return found


def test_the_committed_file_is_one_pin_a_line_for_python_3_11():
    pins = rc.read_pins()
    assert len(pins) > 50
    assert rc.written_for() == "3.11", "constraints.txt is for CI's Python, 3.11"
    assert not {"cafe", "pip", "setuptools"} & set(pins), "the course and pip are never pinned"


def test_every_requirement_of_the_course_is_pinned_and_allowed_by_its_bounds():
    pins = rc.read_pins()
    for requirement in _requirements():
        key = rc.normalize(requirement.name)
        assert key in pins, f"{requirement.name} is required by pyproject.toml but not pinned"
        assert requirement.specifier.contains(pins[key].version, prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pins[key].version}, outside {requirement}"
        )


def test_a_line_that_is_not_a_pin_is_refused_by_number(tmp_path):
    path = tmp_path / "constraints.txt"
    path.write_text("# header\nrequests==2.34.2\nnumpy>=2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 3: 'numpy>=2' is not `name==version`"):
        rc.read_pins(path)


def test_names_compare_as_pip_compares_them(tmp_path):
    path = tmp_path / "constraints.txt"
    path.write_text("Jinja2==3.1.6\nmarkdown_it.py==4.3.0\n", encoding="utf-8")
    assert set(rc.read_pins(path)) == {"jinja2", "markdown-it-py"}


def test_closure_is_the_course_and_what_it_pulls_in_nothing_else():
    names = {pin.key for pin in rc.closure()}
    assert {"openai", "pydantic", "pytest", "opentelemetry-sdk", "jinja2"} <= names
    assert "pydantic-core" in names, "a dependency of a dependency is pinned too"
    assert "cafe" not in names and "pip" not in names


def test_closure_names_a_requirement_that_is_not_installed():
    with pytest.raises(LookupError, match="no-such-course-dist is required but not installed"):
        rc.closure("no-such-course-dist")


def test_check_finds_a_changed_version_and_a_missing_pin(tmp_path):
    pins = rc.closure()
    changed, dropped = pins[0], pins[1]
    lines = [f"{changed.name}==0.0.0", *(pin.line() for pin in pins[2:])]
    path = tmp_path / "constraints.txt"
    path.write_text(rc.render([], "2026-12-01") + "\n".join(lines) + "\n", encoding="utf-8")
    found = rc.problems(path)
    assert f"{changed.name} {changed.version} is installed; constraints.txt pins 0.0.0" in found
    assert f"{dropped.name} {dropped.version} is installed for the course but not pinned" in found
    assert len(found) == 2


def test_check_passes_for_pins_written_from_this_environment(tmp_path, capsys):
    path = tmp_path / "constraints.txt"
    path.write_text(rc.render(rc.closure(), "2026-12-01"), encoding="utf-8")
    assert rc.problems(path) == []


def test_the_header_says_what_the_file_is_for_and_how_to_install_with_it():
    text = rc.render([rc.Pin("requests", "2.34.2")], "2026-12-01")
    python = ".".join(map(str, sys.version_info[:2]))
    assert text.startswith(f"# Python {python} on ")
    assert '#   pip install -c constraints.txt -e ".[test]"' in text
    assert text.endswith("\nrequests==2.34.2\n")
