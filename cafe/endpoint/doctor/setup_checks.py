"""The doctor's checks of this machine: the mode, Python, the packages, the settings, and the tools
the sessions run.

Before it talks to any model, `cafe doctor` checks what the course needs here:

- `mode`: `COURSE_MODE` is offline or live;
- `Python` and `packages`: the versions, read from package metadata only;
- `settings`: where the settings come from (the environment, a `.env` file) and that every one
  of them is valid (`cafe.endpoint.settings.variables`), each problem in its own one-line words;
- `pytest`, `git` and `shell`: what sessions 13 to 15 run for real (the tests of the café's small
  project, its git work tree, and session 15's `bash -c`), each named with how to install it
  when it is missing.

Lookups are parameters (`which`, `find_spec`, `run`), so a test can play a machine without git.
Session 00 (`sessions/s00-setup/lesson.md`) and `docs/doctor.md` walk through the report.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from types import MappingProxyType
from typing import Any

from cafe.endpoint.doctor.checks import ReportWriter
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.environment import ENV_FILE_VARIABLE, SettingsFile
from cafe.endpoint.settings.shell import find_shell
from cafe.endpoint.settings.variables import (
    Mode,
    parse_headless,
    parse_home,
    parse_max_tokens,
    parse_mode,
    parse_timeout,
)

__all__ = [
    "PACKAGES",
    "MIN_PYTHON",
    "EXTRA_OF",
    "Lookups",
    "install_command",
    "package_versions",
    "setup_checks",
]

# The distributions whose versions the report shows: the course itself and what its sessions use.
PACKAGES = ("cafe", "openai", "pydantic", "ipywidgets", "jupyterlab", "jupytext", "pytest")
# The oldest Python the course supports (pyproject.toml's requires-python).
MIN_PYTHON = (3, 10)
# Seconds `git --version` may take: it answers at once where git works.
GIT_VERSION_S = 5.0
# The settings the `settings` check validates here (the live three are checked with the endpoint).
CHECKED_HERE: Mapping[str, Callable[[str], Any]] = {
    "CAFE_MAX_TOKENS": parse_max_tokens,
    "CAFE_TIMEOUT_S": parse_timeout,
    "CAFE_HOME": parse_home,
    "CAFE_HEADLESS": parse_headless,
}
# How to install each tool, by platform family.
GIT_FIX = (
    "Install git (Debian/Ubuntu: `sudo apt-get install git`; macOS: `xcode-select --install`; "
    "Windows: Git for Windows, which brings bash too). Sessions 13-15 keep the agent's project "
    "in a git work tree."
)
BASH_FIX = (
    "Install bash (Windows: Git for Windows, https://git-scm.com; WSL's bash.exe does not count, "
    "it runs commands in another machine; Debian/Ubuntu: `sudo apt-get install bash`). Session "
    "15's run_command tool runs `bash -c`, found the way this check finds it."
)
# The way out when the settings file cannot be read, after the message's own fix: a command to
# copy, like every other hint (benchmarks/doctor_hints.py applies it as printed).
UNSET_FIX = f"`export {ENV_FILE_VARIABLE}=` (set it to nothing) to read no file"
# The extra of pyproject.toml that brings each package the report shows, where a plain
# `pip install -e .` does not (tests/test_health_setup.py reads pyproject.toml to keep this true).
EXTRA_OF: Mapping[str, str] = MappingProxyType({"pytest": "test"})


def install_command(names: Iterable[str]) -> str:
    """The one command, run from the course checkout, that installs every package in `names`."""
    extras = sorted({EXTRA_OF[name] for name in names if name in EXTRA_OF})
    return f'pip install -e ".[{",".join(extras)}]"' if extras else "pip install -e ."


PYTEST_FIX = (
    f"From the course checkout, run `{install_command(['pytest'])}` (pytest comes with the "
    "course's test extra). Sessions 13-15 run the café project's tests with it."
)


@dataclass(frozen=True)
class Lookups:
    """How the tool checks look things up, as parameters so a test can fake a machine."""

    which: Callable[[str], str | None] = shutil.which
    find_spec: Callable[[str], Any] = importlib.util.find_spec
    run: Callable[..., Any] = subprocess.run
    is_file: Callable[[str], bool] = os.path.isfile
    platform: str = sys.platform
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)


def package_versions() -> tuple[str, list[str]]:
    """("cafe 0.1.0, openai 1.2.3, ...", [names not installed]), read from package metadata only."""
    shown, missing = [], []
    for name in PACKAGES:
        try:
            shown.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            shown.append(f"{name} (not installed)")
            missing.append(name)
    return ", ".join(shown), missing


def _mode_check(report: ReportWriter, env: Mapping[str, str]) -> Mode | None:
    try:
        mode: Mode = parse_mode(env.get("COURSE_MODE", ""))
    except ConfigError as exc:
        report.add(
            "mode", False, str(exc), "Fix COURSE_MODE as the message says; run `cafe doctor` again."
        )
        return None
    words = {
        "offline": "answers come from the scripted model",
        "live": "answers come from the endpoint below",
    }
    report.add("mode", True, f"{mode}: {words[mode]}")
    return mode


def _install_checks(report: ReportWriter) -> None:
    python = sys.version_info
    report.add(
        "Python",
        python >= MIN_PYTHON,
        f"Python {python.major}.{python.minor}.{python.micro}",
        f"The course needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; install one and "
        "recreate the virtual environment.",
    )
    shown, missing = package_versions()
    report.add(
        "packages",
        not missing,
        shown,
        f"Install what is missing ({', '.join(missing)}): "
        f"from the course checkout, run `{install_command(missing)}`",
    )


def _settings_source(source: SettingsFile | None) -> str:
    """Where the settings were read from, as the `settings` line says it."""
    if source is None:  # the caller passed the settings themselves
        return "the settings given"
    if source.path is None:
        return f"the environment ({source.origin})"
    return f"the environment, then {source.path} ({source.origin}; the environment wins)"


def _settings_check(
    report: ReportWriter, env: Mapping[str, str], source: SettingsFile | None, problem: str | None
) -> None:
    """ "settings": where they come from (`source`: the settings file read, if any, and why that
    one; `problem`: why the file could not be read), and that each one set is valid."""
    if problem is not None:
        report.add("settings", False, problem, f"Fix the file as the message says, or {UNSET_FIX}.")
        return
    problems = []
    for name, parse in CHECKED_HERE.items():
        raw = env.get(name, "")
        if raw.strip():
            try:
                parse(raw)
            except ConfigError as exc:
                problems.append(str(exc))
    if problems:
        report.add("settings", False, " ".join(problems), "Fix each variable as its message says.")
    else:
        report.add(
            "settings", True, f"read from {_settings_source(source)}; every one set is valid"
        )


def _tool_checks(report: ReportWriter, lookups: Lookups) -> None:
    """ "pytest", "git" and "shell": what sessions 13-15 run for real."""
    spec = lookups.find_spec("pytest")
    report.add(
        "pytest",
        spec is not None,
        "importable (sessions 13-15 run real tests)" if spec else "pytest cannot be imported",
        PYTEST_FIX,
    )
    git = lookups.which("git")
    version = ""
    if git:
        try:
            done = lookups.run(
                [git, "--version"], capture_output=True, text=True, timeout=GIT_VERSION_S
            )
            version = (done.stdout or "").strip() if done.returncode == 0 else ""
        except (OSError, subprocess.SubprocessError):
            version = ""
    report.add(
        "git",
        bool(version),
        f"{version} at {git}" if version else "git is not on PATH (or does not run)",
        GIT_FIX,
    )
    shell = find_shell(
        lookups.platform, which=lookups.which, is_file=lookups.is_file, environ=lookups.environ
    )
    found = shell.name == "bash"
    said = (
        f"bash at {shell.prefix[0]}" if found else f"no bash (commands would run in {shell.name})"
    )
    report.add("shell", found, said, BASH_FIX)


def setup_checks(
    report: ReportWriter,
    env: Mapping[str, str],
    *,
    env_source: SettingsFile | None = None,
    env_problem: str | None = None,
    lookups: Lookups | None = None,
) -> Mode | None:
    """Every check of this machine, in the report's order; returns the mode, or None when
    `COURSE_MODE` is invalid. `env_source` is the settings file looked for and why that one
    (None when the caller passed the settings); `env_problem` why it could not be read."""
    mode = _mode_check(report, env)
    _install_checks(report)
    _settings_check(report, env, env_source, env_problem)
    _tool_checks(report, lookups or Lookups())
    return mode
