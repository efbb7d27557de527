"""cafe.endpoint.settings.shell: one shell lookup for `cafe doctor` and session 15's commands.

Windows is played on any machine: the platform, `which`, `is_file` and the environment are
parameters, and the paths are the ones a real install leaves.
"""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.doctor.setup_checks import Lookups
from cafe.endpoint.settings.shell import Shell, find_shell, is_wsl_launcher
from cafe.world import processes

GIT = r"C:\Program Files\Git"
GIT_BASH = GIT + r"\bin\bash.exe"
SYSTEM32_BASH = r"C:\Windows\System32\bash.exe"
STORE_BASH = r"C:\Users\ada\AppData\Local\Microsoft\WindowsApps\bash.exe"
WINDOWS_ENV = {"ProgramFiles": r"C:\Program Files", "COMSPEC": r"C:\Windows\system32\cmd.exe"}


def _which(found: dict[str, str]):
    return lambda name: found.get(name)


def _git_runs(args, **kwargs):
    return SimpleNamespace(returncode=0, stdout="git version 2.47.1.windows.1\n")


def _windows(found: dict[str, str], files: set[str]) -> dict:
    return {
        "platform": "win32",
        "which": _which(found),
        "is_file": lambda path: path in files,
        "environ": WINDOWS_ENV,
    }


# (what is on PATH, which files exist, the shell expected)
MACHINES = {
    "git on PATH": ({"git": GIT + r"\cmd\git.exe"}, {GIT_BASH}, GIT_BASH),
    "git from mingw64": ({"git": GIT + r"\mingw64\bin\git.exe"}, {GIT_BASH}, GIT_BASH),
    "default install, git not on PATH": ({}, {GIT_BASH}, GIT_BASH),
    "default install, WSL first on PATH": ({"bash": SYSTEM32_BASH}, {GIT_BASH}, GIT_BASH),
    "only WSL's launcher": ({"bash": SYSTEM32_BASH}, set(), None),
    "only the Store's WSL launcher": ({"bash": STORE_BASH}, set(), None),
    "MSYS2 bash": ({"bash": r"C:\msys64\usr\bin\bash.exe"}, set(), r"C:\msys64\usr\bin\bash.exe"),
}


@pytest.mark.parametrize("machine", MACHINES)
def test_find_shell_and_the_doctor_agree_on_windows(machine: str) -> None:
    found, files, expected = MACHINES[machine]
    fake = _windows(found, files)
    shell = find_shell(
        fake["platform"], which=fake["which"], is_file=fake["is_file"], environ=fake["environ"]
    )
    report = doctor(environ={}, out=io.StringIO(), lookups=Lookups(run=_git_runs, **fake))
    check = next(c for c in report.checks if c.name == "shell")
    if expected is None:
        assert shell == Shell("cmd", (WINDOWS_ENV["COMSPEC"], "/d", "/s", "/c"))
        assert not check.ok and "Git for Windows" in check.fix
    else:
        assert shell == Shell("bash", (expected, "-c"))
        assert check.ok and check.detail == f"bash at {expected}"


@pytest.mark.parametrize(
    ("path", "launcher"),
    [
        (SYSTEM32_BASH, True),
        (r"c:\windows\sysnative\BASH.EXE", True),
        (STORE_BASH, True),
        (GIT_BASH, False),
        (r"C:\msys64\usr\bin\bash.exe", False),
    ],
)
def test_is_wsl_launcher_by_folder(path: str, launcher: bool) -> None:
    assert is_wsl_launcher(path) is launcher


def test_find_shell_on_posix_without_bash_fails_the_doctor_too() -> None:
    lookups = Lookups(
        which=lambda name: None if name == "bash" else f"/usr/bin/{name}", run=_git_runs
    )
    report = doctor(environ={}, out=io.StringIO(), lookups=lookups)
    check = next(c for c in report.checks if c.name == "shell")
    assert not check.ok and check.detail == "no bash (commands would run in sh)"


def test_the_old_import_path_still_finds_the_same_lookup() -> None:
    assert processes.find_shell is find_shell and processes.Shell is Shell
