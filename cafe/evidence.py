"""Failure evidence: when are two failing outputs "the same failure"?

Session 13. The stall detector (`cafe/stall.py`) keys its streak on a failure's signature, so
the signature has to move when the failure moves and stay put when only noise moves. This module
normalises a tool's output, hashes it (`failure_signature`) and picks the lines worth quoting
back to the model (`failure_snippet`). Session 14's pace governor (`cafe/pacing.py`) uses the
same signature to ask "is the verifier still saying the same thing?".

The rules, one per kind of token, in the order `normalize_evidence` applies them. A rule masks a
token only where it is noise for certain; anything that could be the failure's own data is kept,
because merging two different failures is worse than missing one stall (a false
`stuck_same_diagnostic` tells the agent its new error is its old one).

    token                      masked as                 kept, because it can be the failure itself
    ANSI colour codes          (removed)                 -
    temporary folders          <tmp>/name                the file name, and folders below the run's own
                               pytest-<n>                folder: "/tmp/config.json" is not "/tmp/data.csv"
    timestamps (ISO, logs)     <time>                    bare dates ("2024-05-01" may be test data)
    runner durations           in <t>s, took <t>         "ready in 5s": a duration outside a test runner's
                                                         summary (pytest, unittest) or a "took" report
    file:line locations        file.py:<line>            -
    traceback line numbers     File "x.py", line <n>     "line 3" anywhere else (assertion data)
    process ids                pid <n>                   other numbers
    ephemeral ports            host:<port>               ports below 32768 (a port the test chose)
    memory addresses           at 0x<addr>               other hex: checksums like 0xdeadbeef
    set and dict displays      elements sorted           nested or non-literal displays
    whitespace runs            one space                 -

Why each is noise: temporary folders are new on every run (pytest numbers its base folder,
`pytest-12` then `pytest-13`); clocks and timings never repeat; an edit above a failing line
moves its line number; the operating system hands out process ids and ephemeral ports (Linux
from 32768 up); an object's address changes with every run; and the order a set prints in
depends on the hash seed, which Python picks anew for every process.

Every pattern is linear in its input: each one starts on a fixed word or character and its
repeated parts cannot overlap, so a megabyte of hostile text costs milliseconds, not minutes.

Left out: deciding what to do about a repeated signature (`cafe/stall.py`), and the verifier
readings a host supplies instead (session 14, `cafe/facts.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import functools
import hashlib
import re
import tempfile

from cafe.loop import ToolResult

__all__ = ["SNIPPET_MAX_CHARS", "EPHEMERAL_PORT_FLOOR", "normalize_evidence", "failure_signature",
           "failure_snippet"]

# --- constants ------------------------------------------------------------------------------

# Course choice: enough for pytest's `E` lines, short enough to quote inside a nudge.
SNIPPET_MAX_CHARS = 240
# Linux hands out ephemeral ports from 32768 up (its default ip_local_port_range); a port below
# that on a local address is one a test or a config file chose, and it is kept.
EPHEMERAL_PORT_FLOOR = 32768

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_PYTEST_SESSION = re.compile(r"\bpytest-\d+\b")
_TIMESTAMP = re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
                        r"|\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b")
# pytest's summary ("1 failed, 3 passed in 0.02s (0:01:05)", older "in 0.03 seconds"),
# unittest's ("Ran 4 tests in 0.003s"), and any "took 12ms".
_SUMMARY_DURATION = re.compile(
    r"\b((?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun|no tests ran"
    r"|Ran \d+ tests?) in )\d+(?:\.\d+)?(?:s| seconds)\b(?: \(\d+:\d\d:\d\d\))?")
_TOOK = re.compile(r"\btook \d+(?:\.\d+)? ?(?:ns|us|µs|ms|s|sec|secs|seconds|m|min|minutes)\b")
# A location ends in an extension and a line number: "check_bill.py:21" or "bill.py:12:5".
# Matched from the dot, not from the start of the path, so a long run of path characters is
# scanned once instead of once per starting position.
_LOCATION = re.compile(r"(\.[A-Za-z]\w*):\d+(?::\d+)?")
_TRACEBACK_LINE = re.compile(r'(File "[^"\n]*", line )\d+')
_PID = re.compile(r"\b(pid)[ =:#]*\d+", re.IGNORECASE)
_PORT = re.compile(r"(\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|\blocalhost|\])(:)(\d{5})\b")
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+\b")
_DISPLAY = re.compile(r"\{([^{}\n]*)\}")
_LITERAL = r"""(?:'[^'\\\n,]*'|"[^"\\\n,]*"|-?\d+(?:\.\d+)?|True|False|None)"""
_ELEMENTS = re.compile(rf"{_LITERAL}(?:: {_LITERAL})?(?:, {_LITERAL}(?:: {_LITERAL})?)*")
_SPACE = re.compile(r"\s+")


# --- small pure helpers ---------------------------------------------------------------------


@functools.cache
def _tmp_pattern() -> re.Pattern[str]:
    """A temporary root (the platform's, /tmp, /var/tmp, macOS's /var/folders/.../T) and, when a
    separator follows it, the run's own folder directly under it. Built on first use, not at
    import: the platform's root comes from the environment (TMPDIR), and nothing in `cafe` reads
    the environment on import."""
    roots = sorted({tempfile.gettempdir().rstrip("/"), "/tmp", "/var/tmp"}, key=len, reverse=True)
    return re.compile(r"(?<![\w./-])(?:/private)?(?:/var/folders/[^/\s]+/[^/\s]+/T|"
                      + "|".join(re.escape(root) for root in roots)
                      + r")(?![\w.-])(?:[/\\][^/\\\s:'\"]+(?=[/\\]))?")


def _mask_tmp(text: str) -> str:
    return _PYTEST_SESSION.sub("pytest-<n>", _tmp_pattern().sub("<tmp>", text))


def _mask_port(match: re.Match[str]) -> str:
    host, colon, port = match.groups()
    return host + colon + ("<port>" if int(port) >= EPHEMERAL_PORT_FLOOR else port)


def _sort_display(match: re.Match[str]) -> str:
    """A flat set or dict of plain literals, its elements in sorted order; anything else as it was."""
    inside = match.group(1)
    if not _ELEMENTS.fullmatch(inside):
        return match.group(0)
    return "{" + ", ".join(sorted(inside.split(", "))) + "}"


# --- the three functions --------------------------------------------------------------------


def normalize_evidence(text: str) -> str:
    """Failure output with run-to-run noise removed (the rules are in the module docstring)."""
    text = _ANSI.sub("", text)
    text = _mask_tmp(text)
    text = _SUMMARY_DURATION.sub(r"\1<t>s", text)
    text = _TOOK.sub("took <t>", text)
    text = _TIMESTAMP.sub("<time>", text)
    text = _LOCATION.sub(r"\1:<line>", text)
    text = _TRACEBACK_LINE.sub(r"\1<n>", text)
    text = _PID.sub(r"\1 <n>", text)
    text = _PORT.sub(_mask_port, text)
    text = _ADDRESS.sub("at 0x<addr>", text)
    text = _DISPLAY.sub(_sort_display, text)
    return _SPACE.sub(" ", text).strip()


def failure_signature(result: ToolResult) -> str:
    """SHA-256 (hex) of the tool's name and its normalised output: the failure's identity."""
    evidence = result.name + "\n" + normalize_evidence(result.output)
    return hashlib.sha256(evidence.encode("utf-8")).hexdigest()


def failure_snippet(output: str) -> str:
    """The few lines of a failure worth quoting: pytest's `E` lines if any, else the last lines.
    Colour codes and temporary folders are taken out; everything else is quoted as it was."""
    lines = [_mask_tmp(_ANSI.sub("", line)).rstrip() for line in output.splitlines()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    chosen = errors[:3] or [line.strip() for line in lines if line.strip()][-3:]
    snippet = "; ".join(chosen)
    return snippet if len(snippet) <= SNIPPET_MAX_CHARS else snippet[: SNIPPET_MAX_CHARS - 1] + "…"
