"""The linters are part of green: configured once in pyproject.toml, run the same way by CI and by
pre-commit, and catching the class of bug that once shipped (a name used but never imported)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
LINTERS = ("ruff check .", "ruff format --check .", "mypy")


def test_ci_runs_the_three_linters_before_the_tests():
    lines = [
        line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    ]
    tests = next(i for i, line in enumerate(lines) if line.startswith("pytest "))
    for command in LINTERS:
        assert command in lines[:tests], f".ci/run must run {command!r} before the test command"


def test_pre_commit_runs_the_same_linters_from_the_venv():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    entries = {hook["entry"].split(" --")[0] for hook in hooks}
    assert entries == {"ruff check", "ruff format", "mypy"}
    assert all(hook["language"] == "system" for hook in hooks), "hooks use the pinned venv tools"


def test_ruff_selects_pyflakes_bugbear_pyupgrade_and_import_sorting():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    selected = set(config["tool"]["ruff"]["lint"]["select"])
    assert {"F", "B", "UP", "I"} <= selected
    assert config["tool"]["mypy"]["files"] == ["cafe"]


def test_ruff_finds_an_undefined_name_like_the_one_that_shipped(tmp_path: Path):
    # cafe/endpoint/scripts/drafters.py once called default_responder without importing it; `cafe doctor`
    # reached it against `cafe serve --session 01`. F821 names it before any test runs the path.
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    sample = tmp_path / "drafter.py"
    sample.write_text(
        "def answer(request):\n    return default_responder(request)\n", encoding="utf-8"
    )
    found = subprocess.run(
        [ruff, "check", "--select", "F821", "--no-cache", str(sample)],
        capture_output=True,
        text=True,
    )
    assert found.returncode == 1 and "default_responder" in found.stdout
    clean = subprocess.run(
        [ruff, "check", "--select", "F821", "--no-cache", str(ROOT / "cafe")],
        capture_output=True,
        text=True,
    )
    assert clean.returncode == 0, clean.stdout
