"""The shell a command line runs in, found one way for `cafe doctor` and for session 15's commands.

`find_shell()` picks: bash where there is one, else `/bin/sh` (POSIX) or `cmd.exe` (Windows). On
Windows the bash is Git for Windows' (found beside `git.exe`, or in the folders its installer
uses by default when git is not on PATH), or another bash on PATH such as MSYS2's, but never a
WSL launcher (`System32\\bash.exe`, or the Microsoft Store's `WindowsApps\\bash.exe`): that would
run the command inside a Linux machine that cannot see this folder. The doctor's shell check asks
this same function, so the doctor passes exactly when session 15 gets bash.

Every lookup (the platform, `which`, `is_file`, the environment) is a parameter, so a test can ask
what Windows would get on any machine. `cafe.world.processes` (session 13's machinery) re-exports
these names, which is where session 15's `run_command` imports them from.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PureWindowsPath
from typing import Literal

__all__ = ["Family", "family_of", "Shell", "is_wsl_launcher", "find_shell"]

# How a platform groups and ends processes: POSIX process groups, or Windows process trees.
Family = Literal["posix", "windows"]
# The folders (under a Windows path) holding a bash.exe that only starts WSL.
_WSL_FOLDERS = ("system32", "sysnative", "windowsapps")
# Where Git for Windows' installer puts Git by default: for all users, 32-bit, for one user.
_GIT_HOMES = (
    ("ProgramFiles", "Git"),
    ("ProgramFiles(x86)", "Git"),
    ("LOCALAPPDATA", "Programs\\Git"),
)


def family_of(platform: str) -> Family:
    """`windows` for `win32` (and `cygwin`'s native Python does not exist here), else `posix`."""
    return "windows" if platform.startswith("win") else "posix"


@dataclass(frozen=True)
class Shell:
    """A shell a command line can run in: its name (`bash`, `sh`, `cmd`) and the words before
    the command line."""

    name: str
    prefix: tuple[str, ...]

    def argv(self, command: str) -> list[str]:
        """The full command line as a list, ready for `subprocess`."""
        return [*self.prefix, command]


def is_wsl_launcher(path: str) -> bool:
    """True for a Windows `bash.exe` that only starts WSL (in System32 or WindowsApps)."""
    folders = [part.lower() for part in PureWindowsPath(path).parts[:-1]]
    return any(folder in _WSL_FOLDERS for folder in folders)


def _git_homes(which: Callable[[str], str | None], environ: Mapping[str, str]) -> Iterator[str]:
    """Folders Git for Windows may live in: above `git.exe` on PATH (`<Git>\\cmd\\git.exe`,
    `<Git>\\mingw64\\bin\\git.exe`), then its installer's default folders."""
    git = which("git")
    if git is not None:
        yield from (str(folder) for folder in PureWindowsPath(git).parents[:3])
    for variable, below in _GIT_HOMES:
        base = environ.get(variable)
        if base:
            yield str(PureWindowsPath(base) / below)


def _git_bash(
    which: Callable[[str], str | None], is_file: Callable[[str], bool], environ: Mapping[str, str]
) -> str | None:
    """The bash of Git for Windows, or None when no Git for Windows is found."""
    for home in _git_homes(which, environ):
        for below in ("bin", "usr\\bin"):
            candidate = str(PureWindowsPath(home) / below / "bash.exe")
            if is_file(candidate):
                return candidate
    return None


def find_shell(
    platform: str = sys.platform,
    *,
    which: Callable[[str], str | None] = shutil.which,
    is_file: Callable[[str], bool] = os.path.isfile,
    environ: Mapping[str, str] = os.environ,
) -> Shell:
    """The shell a command line runs in on `platform` (see the module docstring for the order)."""
    if family_of(platform) == "posix":
        bash = which("bash")
        return Shell("bash", (bash, "-c")) if bash else Shell("sh", ("/bin/sh", "-c"))
    bash = _git_bash(which, is_file, environ)
    if bash is None:
        found = which("bash")
        bash = found if found and not is_wsl_launcher(found) else None
    if bash is not None:
        return Shell("bash", (bash, "-c"))
    return Shell("cmd", (environ.get("COMSPEC", "cmd.exe"), "/d", "/s", "/c"))
