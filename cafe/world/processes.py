"""Starting a command and ending it with everything it started, on Linux, macOS and Windows.

Session 13 (machinery behind the workbench's fresh pytest runs, and session 15's `run_command`).
A command the agent runs may start others (a shell starts pytest, pytest starts workers), and a
timeout must end them all, not just the first. Operating systems differ in how:

- POSIX (Linux, macOS): the command starts in a new session, so it leads a process group of its
  own, and the whole group is sent SIGKILL (`os.killpg`). Grandchildren whose parent already
  exited are still in the group.
- Windows: no process groups of that kind and no SIGKILL. The command starts in a new process
  group (`CREATE_NEW_PROCESS_GROUP`), and `taskkill /T /F` ends it with the tree of processes it
  started. (A grandchild whose parent already exited has left that tree: Windows cannot find it
  again without a job object, which this course does without.)

A command the agent runs must not hand the key to the model: `without_secrets(env)` is the
environment every command here starts with (no course key, no variable named like a secret, none
whose value holds a secret the course knows of), and what a command prints passes the course's
redactor (`cafe.endpoint.secrets.redaction`, every encoding of a key included) before anyone reads
it. What this cannot close from inside one process: a command runs with the learner's rights, so
it can still read the learner's `.env` file, or this process's environment through
`/proc/<pid>/environ` on Linux; the redactor masks what it prints of a known key, and only another
user, a container or a sandbox keeps it from reading them.

`find_shell()` picks the shell a command line runs in: bash where there is one (on Windows, the
bash that Git for Windows ships next to git, never a WSL launcher, which would run the command
in a Linux machine that cannot see this folder), else `/bin/sh`, else `cmd.exe`. It lives in
`cafe.endpoint.settings.shell`, so `cafe doctor` asks the same lookup. Every function
takes the platform (and the lookups it needs) as a parameter, so a test can ask what Windows would
get on any machine.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cafe.endpoint.secrets.redaction import (
    COURSE_KEYS,
    SECRET_SUFFIXES,
    SHORT_SECRET_CHARS,
    known_secrets,
    redactor_for,
)
from cafe.endpoint.settings.shell import Family, Shell, family_of, find_shell

__all__ = [
    "Family",
    "family_of",
    "Shell",
    "find_shell",
    "popen_options",
    "kill_tree",
    "command_secrets",
    "without_secrets",
    "Finished",
    "run_captured",
]

# --- constants ------------------------------------------------------------------------------

# Windows' flag for a new process group (subprocess only defines the name on Windows).
_CREATE_NEW_PROCESS_GROUP = 0x00000200
# POSIX's call that signals a whole process group (absent on Windows).
_KILLPG: Callable[[int, int], None] | None = getattr(os, "killpg", None)
# Seconds to wait for a killed command's pipes to close before giving up on them.
_DRAIN_S = 5.0


# --- the shell ------------------------------------------------------------------------------
# `Family`, `family_of`, `Shell` and `find_shell` live in `cafe.endpoint.settings.shell`, so that
# `cafe doctor` asks the same lookup; they are imported above and re-exported here.


# --- starting and ending --------------------------------------------------------------------


def popen_options(platform: str = sys.platform) -> dict[str, Any]:
    """What `subprocess.Popen` needs so that the command leads a group `kill_tree` can end."""
    if family_of(platform) == "windows":
        return {"creationflags": _CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def kill_tree(
    process: subprocess.Popen[Any],
    platform: str = sys.platform,
    *,
    killpg: Callable[[int, int], None] | None = _KILLPG,
    run: Callable[..., Any] = subprocess.run,
) -> None:
    """End `process` and everything it started, whether or not it is still running itself."""
    if family_of(platform) == "posix" and killpg is not None:
        try:  # SIGKILL where the platform names it; SIGTERM is the one every platform has
            killpg(process.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        except (ProcessLookupError, PermissionError):
            pass  # the group is gone (or was never made): the process itself is killed below
    elif family_of(platform) == "windows" and process.poll() is None:
        run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False)
    if process.poll() is None:
        process.kill()
    process.wait()


# --- what a command may see, and what it may show -------------------------------------------


def command_secrets(env: Mapping[str, str]) -> tuple[str, ...]:
    """The secrets a command must neither be given nor shown: every secret the course knows of now
    (this process's environment and settings file) and those `env` itself holds."""
    return tuple(dict.fromkeys((*known_secrets(), *known_secrets(env))))


def without_secrets(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the course's key (`CAFE_API_KEY`, `OPENAI_API_KEY`), any variable named like a
    secret (`*_KEY`, `*_TOKEN`, `*_PASSWORD`, ...), and any variable whose value is a known secret
    or, for one of 8 characters or more, holds it (a URL with a password, a copied header)."""
    secrets = command_secrets(env)
    long = [secret for secret in secrets if len(secret) >= SHORT_SECRET_CHARS]

    def secret(name: str, value: str) -> bool:
        upper = name.upper()
        return (
            upper in COURSE_KEYS
            or upper.endswith(SECRET_SUFFIXES)
            or value.strip() in secrets
            or any(key in value for key in long)
        )

    return {name: value for name, value in env.items() if not secret(name, value)}


# --- running a command to the end, or to its timeout ----------------------------------------


@dataclass(frozen=True)
class Finished:
    """A command that ended: its exit status (None when it was killed at its timeout) and what
    it printed, decoded as UTF-8 (bytes that are not UTF-8 become U+FFFD)."""

    status: int | None
    stdout: str
    stderr: str


def _drain(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Whatever a killed command's pipes still hold; empty when something outside its group
    keeps them open."""
    try:
        out, err = process.communicate(timeout=_DRAIN_S)
    except subprocess.TimeoutExpired:
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        process.wait()
        return b"", b""
    return out or b"", err or b""


def run_captured(
    argv: Sequence[str],
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout_s: float,
    *,
    merge_stderr: bool = False,
    platform: str = sys.platform,
) -> Finished:
    """Run `argv` in `cwd` with `env` less its secrets (`without_secrets`); at `timeout_s` end it
    with its whole tree. With `merge_stderr`, stderr goes into stdout (in the order the command
    wrote them). What it printed comes back with every known secret masked, in any encoding."""
    clean = redactor_for(command_secrets(env))
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=without_secrets(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        **popen_options(platform),
    )
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_tree(process, platform)
        out, err = _drain(process)
        status = None
    else:
        status = process.returncode
    return Finished(
        status,
        clean.text((out or b"").decode("utf-8", "replace")),
        clean.text((err or b"").decode("utf-8", "replace")),
    )
