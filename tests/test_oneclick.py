"""The one-click environments install the course as the README does, on the Python the pins are for.

`.devcontainer/` (Codespaces, VS Code) and `.binder/` (mybinder.org) cannot be built here (no
Docker, no network), so these tests read their files: what they install, with which constraints,
on which Python, and that their scripts are executable as git stores them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PINNED_INSTALL = 'pip install -c constraints.txt -e ".[test]"'


def _constraints_python() -> str:
    header = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()[0]
    return re.match(r"# Python (\d+\.\d+)", header).group(1)


def _devcontainer() -> dict:
    """devcontainer.json is JSON with comments (JSONC); its comments are whole lines here."""
    text = (ROOT / ".devcontainer" / "devcontainer.json").read_text(encoding="utf-8")
    return json.loads(
        "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    )


def _quickstart_block() -> list[str]:
    section = README.split("## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()


def _executable_in_git(path: str) -> None:
    if (ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(
            ["git", "ls-files", "-s", path], cwd=ROOT, capture_output=True, text=True
        ).stdout
        if listed:  # committed: git's mode is what a clone gets
            assert listed.startswith("100755"), f"{path} is not executable in git: {listed}"
            return
    assert os.access(ROOT / path, os.X_OK), f"{path} is not executable"


def test_devcontainer_runs_the_quickstart_with_the_pins():
    script = (ROOT / ".devcontainer" / "post-create.sh").read_text(encoding="utf-8").splitlines()
    for line in _quickstart_block():
        expected = line.replace('pip install -e ".[test]"', PINNED_INSTALL)
        assert expected in script, (
            f".devcontainer/post-create.sh lacks the Quickstart line {expected!r}"
        )
    assert "set -euo pipefail" in script
    _executable_in_git(".devcontainer/post-create.sh")


def test_devcontainer_uses_the_python_the_pins_are_for_and_opens_jupyterlab():
    config = _devcontainer()
    assert config["image"].startswith("mcr.microsoft.com/devcontainers/python:1-")
    assert f":1-{_constraints_python()}-" in config["image"]
    assert config["postCreateCommand"] == "bash .devcontainer/post-create.sh"
    lab = config["postAttachCommand"]["jupyterlab"]
    assert lab.startswith(".venv/bin/python -m jupyter lab") and "--port=8888" in lab
    assert "--ip=127.0.0.1" in lab, "JupyterLab listens inside the container only"
    assert config["forwardPorts"] == [8888]
    assert config["remoteEnv"]["CAFE_HOME"].endswith("/work/.cafe")


def test_binder_installs_the_course_as_the_readme_does():
    binder = ROOT / ".binder"
    assert (binder / "runtime.txt").read_text(encoding="utf-8").strip() == (
        f"python-{_constraints_python()}"
    )
    assert "graphviz" in (binder / "apt.txt").read_text(encoding="utf-8").split()
    post_build = (binder / "postBuild").read_text(encoding="utf-8")
    assert post_build.startswith("#!/bin/bash\n") and "set -euo pipefail" in post_build
    assert 'pip install --no-cache-dir -c constraints.txt -e ".[test]"' in post_build
    _executable_in_git(".binder/postBuild")


def test_the_readme_points_at_both():
    section = README.split("## Get the course\n", 1)[1].split("\n## ", 1)[0]
    assert ".devcontainer/devcontainer.json" in section and ".binder/postBuild" in section
    assert "lab/tree/notebooks/s00-setup.ipynb" in section


@pytest.mark.parametrize("name", ["work/*", "!work/README.md", ".env", ".venv-pinned/"])
def test_gitignore_keeps_the_learners_work_and_settings_out_of_git(name):
    assert name in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
