"""Every session's toy runs offline with no arguments, succeeds, and prints the same thing twice."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOYS = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/toy.py"))


def _run_toy(path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_MODE", "CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL")}
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def test_there_are_toys():
    assert TOYS, "no sessions/sNN-*/toy.py found"


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_runs_offline_and_is_deterministic(toy):
    first = _run_toy(toy)
    assert first.returncode == 0, f"{toy.parent.name}/toy.py failed:\n{first.stdout}\n{first.stderr}"
    assert first.stdout.strip(), f"{toy.parent.name}/toy.py printed nothing"
    second = _run_toy(toy)
    assert second.stdout == first.stdout, f"{toy.parent.name}/toy.py printed something different on a second run"


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_in_live_mode_without_settings_says_which_variable_is_missing(toy):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_") or k in ("CAFE_HOME", "CAFE_HEADLESS")}
    env["COURSE_MODE"] = "live"
    result = subprocess.run([sys.executable, str(toy)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert result.returncode != 0
    assert "CAFE_BASE_URL" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr, f"{toy.parent.name}/toy.py crashed instead of explaining:\n{result.stderr}"
