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

import collections
import functools
import hashlib
import itertools
import re
import tempfile
from collections.abc import Callable

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
_PYTEST_SESSION = re.compile(r"pytest-\d+\b")
_SPACE = re.compile(r"\s+")
_ERROR_LINE = re.compile(r"^E [^\r\n]*", re.MULTILINE)             # pytest's "E   assert ..." lines
_NONBLANK_LINE = re.compile(r"^[^\S\r\n]*\S[^\r\n]*", re.MULTILINE)
# Set and dict displays whose elements are all plain literals (strings without commas, numbers).
_DISPLAY = re.compile(r"\{([^{}\n]*)\}")
_LITERAL = r"""(?:'[^'\\\n,]*'|"[^"\\\n,]*"|-?\d+(?:\.\d+)?|True|False|None)"""
_ELEMENTS = re.compile(rf"{_LITERAL}(?:: {_LITERAL})?(?:, {_LITERAL}(?:: {_LITERAL})?)*")
# What may end the host part before an ephemeral port: an IPv4 address or localhost (either
# possibly closing a quote, as in Python's ('127.0.0.1', 54321)), or IPv6's closing bracket.
_LOCAL_HOST_END = re.compile(r"(?:\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost)'?$|\]$")


# --- small pure helpers ---------------------------------------------------------------------


def _word_start(replacement: str, *, not_after: str = "_") -> Callable[[re.Match[str]], str]:
    """A replacement used only where the match starts a word (not inside "format 0x1f" or "rapid 5"):
    the character before must be neither a letter or digit nor one of `not_after`. Checking it
    here, instead of opening the pattern with `\\b`, lets the regex engine jump straight to the
    pattern's first letters."""
    def replace(match: re.Match[str]) -> str:
        start = match.start()
        if start and (match.string[start - 1].isalnum() or match.string[start - 1] in not_after):
            return match.group(0)
        return match.expand(replacement)
    return replace


def _mask_port(match: re.Match[str]) -> str:
    separator, port = match.groups()
    before = match.string[max(0, match.start() - 20):match.start()]
    if int(port) < EPHEMERAL_PORT_FLOOR or not _LOCAL_HOST_END.search(before):
        return match.group(0)
    return separator + "<port>"


def _sort_display(match: re.Match[str]) -> str:
    """A flat set or dict of plain literals, its elements in sorted order; anything else as it was."""
    inside = match.group(1)
    if not _ELEMENTS.fullmatch(inside):
        return match.group(0)
    return "{" + ", ".join(sorted(inside.split(", "))) + "}"


Rule = tuple[tuple[str, ...], "re.Pattern[str]", "str | Callable[[re.Match[str]], str]"]


@functools.cache
def _rules() -> tuple[Rule, ...]:
    """The rules of the module docstring, in order: (words that must occur for the rule to run,
    pattern, replacement). The words are a cheap `in` test that skips a rule on text it cannot
    touch. Built on first use, not at import: the platform's temporary root comes from the
    environment (TMPDIR, through `tempfile`), and nothing in `cafe` reads it on import."""
    roots = sorted({tempfile.gettempdir().rstrip("/\\"), "/tmp", "/var/tmp"}, key=len, reverse=True)
    tmp = re.compile(r"(?:/private)?(?:/var/folders/[^/\s]+/[^/\s]+/T|" + "|".join(re.escape(r) for r in roots)
                     + r")(?![\w.-])(?:[/\\][^/\\\s:'\"]+(?=[/\\]))?")
    return (
        (("\x1b",), _ANSI, ""),
        (tuple(roots) + ("/var/folders/",), tmp, _word_start("<tmp>", not_after="_./-")),
        (("pytest-",), _PYTEST_SESSION, _word_start("pytest-<n>")),
        # pytest's summary ("3 passed in 0.02s (0:01:05)", older "in 0.03 seconds"), unittest's
        # ("Ran 4 tests in 0.003s"): the only places an "in <time>" is the runner's own clock.
        ((" in ",), re.compile(r"((?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun"
                               r"|no tests ran|Ran \d+ tests?) in )\d+(?:\.\d+)?(?:s| seconds)\b"
                               r"(?: \(\d+:\d\d:\d\d\))?"), _word_start(r"\1<t>s")),
        (("took ",), re.compile(r"took \d+(?:\.\d+)? ?(?:ns|us|µs|ms|s|sec|secs|seconds|min|minutes)\b"),
         _word_start("took <t>")),
        ((":",), re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"),
         _word_start("<time>")),
        ((":",), re.compile(r"\d\d:\d\d:\d\d(?:[.,]\d+)?\b"), _word_start("<time>")),
        # A location ends in an extension and a line number ("check_bill.py:21", "bill.py:12:5"),
        # matched from the dot so a long run of path characters is scanned once, not per start.
        ((":",), re.compile(r"(\.[A-Za-z]\w*):\d+(?::\d+)?"), r"\1:<line>"),
        (('File "',), re.compile(r'(File "[^"\n]*", line )\d+'), r"\1<n>"),
        (("pid", "PID", "Pid"), re.compile(r"([Pp][Ii][Dd])[ =:#]*\d+"), _word_start(r"\1 <n>")),
        ((":", ", "), re.compile(r"([:,] ?)(\d{5})\b"), _mask_port),
        (("at 0x",), re.compile(r"at 0x[0-9a-fA-F]+\b"), _word_start("at 0x<addr>")),
        (("{",), _DISPLAY, _sort_display),
    )


def _apply(rules: tuple[Rule, ...], text: str) -> str:
    for words, pattern, replacement in rules:
        if any(word in text for word in words):
            text = pattern.sub(replacement, text)
    return text


# --- the three functions --------------------------------------------------------------------


def normalize_evidence(text: str) -> str:
    """Failure output with run-to-run noise removed (the rules are in the module docstring)."""
    return _SPACE.sub(" ", _apply(_rules(), text)).strip()


def failure_signature(result: ToolResult) -> str:
    """SHA-256 (hex) of the tool's name and its normalised output: the failure's identity."""
    evidence = result.name + "\n" + normalize_evidence(result.output)
    return hashlib.sha256(evidence.encode("utf-8")).hexdigest()


def _quoted(text: str, start: int, end: int) -> str:
    """One line of the snippet, copied no further than a snippet can use (a line may be huge)."""
    return text[start:min(end, start + SNIPPET_MAX_CHARS + 1)].strip()


def failure_snippet(output: str) -> str:
    """The few lines of a failure worth quoting: pytest's `E` lines if any, else the last lines.
    Colour codes and temporary folders are taken out; everything else is quoted as it was."""
    text = _apply(_rules()[:3], output)  # the first three rules: colour codes, temporary folders
    chosen = [_quoted(text, m.start() + 1, m.end()) for m in itertools.islice(_ERROR_LINE.finditer(text), 3)]
    if not chosen:
        last = collections.deque(_NONBLANK_LINE.finditer(text), maxlen=3)
        chosen = [_quoted(text, m.start(), m.end()) for m in last]
    snippet = "; ".join(chosen)
    return snippet if len(snippet) <= SNIPPET_MAX_CHARS else snippet[: SNIPPET_MAX_CHARS - 1] + "…"
