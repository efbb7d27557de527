"""Failure evidence: when are two failing outputs "the same failure"?

Session 13. The stall detector (`cafe/stall/detector.py`) keys its streak on a failure's signature, so
the signature has to move when the failure moves and stay put when only noise moves. This module
normalises a tool's output, hashes it (`failure_signature`) and picks the lines worth quoting
back to the model (`failure_snippet`). Session 14's pace governor (`cafe/governor/pacing.py`) uses the
same signature to ask "is the verifier still saying the same thing?".

The rules, one per kind of token, in the order `normalize_evidence` applies them. A rule masks a
token only where it is noise for certain; anything that could be the failure's own data is kept,
because merging two different failures is worse than missing one stall (a false
`stuck_same_diagnostic` tells the agent its new error is its old one).

    token                      masked as                 kept, because it can be the failure itself
    ANSI colour codes          (removed)                 -
    temporary folders          <tmp>/name                the file name, and folders below the run's own
                               pytest-<n>                folder: "/tmp/config.json" is not "/tmp/data.csv"
    runner durations           in <t>s, took <t>         "ready in 5s": a duration outside a test runner's
                                                         summary (pytest, unittest) or a "took" report
    timestamps (ISO, logs)     <time>                    bare dates ("2024-05-01" may be test data)
    file:line locations        file.py:<line>            -
    traceback line numbers     File "x.py", line <n>     "line 3" anywhere else (assertion data)
    process ids                pid <n>                   other numbers
    ephemeral ports            127.0.0.1:<port>          ports below 32768 (a port the test chose)
    memory addresses           at 0x<addr>               other hex: checksums like 0xdeadbeef
    set and dict displays      elements sorted           nested or non-literal displays, and lists
    whitespace runs            one space                 -

Why each is noise: temporary folders are new on every run (pytest numbers its base folder,
`pytest-12` then `pytest-13`); clocks and timings never repeat; an edit above a failing line
moves its line number; the operating system hands out process ids and ephemeral ports (Linux
from 32768 up); an object's address changes with every run; and the order a set prints in
depends on the hash seed, which Python picks anew for every process.

Every pattern is linear in its input: each starts on fixed characters, its repeated parts cannot
overlap, and a rule whose key word is absent is skipped, so a megabyte of hostile text costs a
fraction of a second (`benchmarks/scan_speed.py` prints the figures).

Left out: deciding what to do about a repeated signature (`cafe/stall/detector.py`), and the verifier
readings a host supplies instead (session 14, `cafe/governor/facts.py`).

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

from cafe.loop.agent import ToolResult

__all__ = [
    "SNIPPET_MAX_CHARS",
    "EPHEMERAL_PORT_FLOOR",
    "normalize_evidence",
    "failure_signature",
    "failure_snippet",
]

# --- constants ------------------------------------------------------------------------------

# Course choice: enough for pytest's `E` lines, short enough to quote inside a nudge.
SNIPPET_MAX_CHARS = 240
# Linux hands out ephemeral ports from 32768 up (its default ip_local_port_range); a port below
# that on a local address is one a test or a config file chose, and it is kept. (The port rule
# spells the range 32768-65535 out as a pattern; a test checks it against this number.)
EPHEMERAL_PORT_FLOOR = 32768

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_SPACE = re.compile(r"\s+")
_ERROR_LINE = re.compile(r"^E [^\r\n]*", re.MULTILINE)  # pytest's "E   assert ..." lines
_NONBLANK_LINE = re.compile(r"^[^\S\r\n]*\S[^\r\n]*", re.MULTILINE)
# Set and dict displays whose elements are all plain literals (strings without commas, numbers).
_DISPLAY = re.compile(r"\{([^{}\n]*)\}")
_LITERAL = r"""(?:'[^'\\\n,]*'|"[^"\\\n,]*"|-?\d+(?:\.\d+)?|True|False|None)"""
_ELEMENTS = re.compile(rf"{_LITERAL}(?:: {_LITERAL})?(?:, {_LITERAL}(?:: {_LITERAL})?)*")


# --- small pure helpers ---------------------------------------------------------------------


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
    tmp = re.compile(
        r"(?<![\w./-])(?:/private)?(?:/var/folders/[^/\s]+/[^/\s]+/T|"
        + "|".join(re.escape(r) for r in roots)
        + r")(?![\w.-])(?:[/\\][^/\\\s:'\"]+(?=[/\\]))?"
    )
    return (
        (("\x1b",), _ANSI, ""),
        (tuple(roots) + ("/var/folders/",), tmp, "<tmp>"),
        (("pytest-",), re.compile(r"pytest-(?<![\w-]pytest-)\d+\b"), "pytest-<n>"),
        # pytest's summary ("3 passed in 0.02s (0:01:05)", older "in 0.03 seconds"), unittest's
        # ("Ran 4 tests in 0.003s"): the only places an "in <time>" is the runner's own clock.
        (
            (" in ",),
            re.compile(
                r"\b((?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun"
                r"|no tests ran|Ran \d+ tests?) in )\d+(?:\.\d+)?(?:s| seconds)\b"
                r"(?: \(\d+:\d\d:\d\d\))?"
            ),
            r"\1<t>s",
        ),
        (
            ("took ",),
            re.compile(
                r"took(?<!\wtook) \d+(?:\.\d+)? ?(?:ns|us|µs|ms|s|sec|secs|seconds|min|minutes)\b"
            ),
            "took <t>",
        ),
        (
            (":",),
            re.compile(
                r"\d{4}(?<!\d{5})-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
            ),
            "<time>",
        ),
        ((":",), re.compile(r"\d\d(?<!\d{3}):\d\d:\d\d(?:[.,]\d+)?\b"), "<time>"),
        # A location: a line number right after a file extension of up to five characters
        # ("check_bill.py:21", "bill.py:12:5"). The extension is checked looking back from the
        # colon, so a long run of path characters is never rescanned from each start. (Here and
        # below a look-back sits after the first characters, never before them: the regex engine
        # then jumps from one candidate to the next instead of trying every position.)
        (
            (":",),
            re.compile(
                ":(?:"
                + "|".join(rf"(?<=\.[A-Za-z]\w{{{n}}}:)" for n in range(5))
                + r")\d+(?::\d+)?"
            ),
            ":<line>",
        ),
        (('File "',), re.compile(r'(File "[^"\n]*", line )\d+'), r"\1<n>"),
        (
            ("pid", "PID", "Pid"),
            re.compile(r"[Pp][Ii][Dd](?<!\w[Pp][Ii][Dd])[ =:#]*\d+"),
            "pid <n>",
        ),
        # A port from the floor up (32768-65535) right after a local address: the end of an IPv4
        # address (".1:", ".1', ") or localhost, or IPv6's closing bracket.
        (
            (":", ", "),
            re.compile(
                r"(?:3276[89]|327[7-9]\d|32[89]\d\d|3[3-9]\d{3}|[45]\d{4}|6[0-4]\d{3}"
                r"|65[0-4]\d\d|655[0-2]\d|6553[0-5])\b(?:"
                + "|".join(
                    rf"(?<={host}{sep}\d{{5}})"
                    for host in (r"\.\d", r"\.\d\d", r"\.\d\d\d", "localhost", r"\]")
                    for sep in (":", "', ")
                    if not (host == r"\]" and sep != ":")
                )
                + ")"
            ),
            "<port>",
        ),
        (("at 0x",), re.compile(r"at 0x(?<!\wat 0x)[0-9a-fA-F]+\b"), "at 0x<addr>"),
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
    return text[start : min(end, start + SNIPPET_MAX_CHARS + 1)].strip()


def failure_snippet(output: str) -> str:
    """The few lines of a failure worth quoting: pytest's `E` lines if any, else the last lines.
    Colour codes and temporary folders are taken out; everything else is quoted as it was."""
    text = _apply(_rules()[:3], output)  # the first three rules: colour codes, temporary folders
    chosen = [
        _quoted(text, m.start() + 1, m.end())
        for m in itertools.islice(_ERROR_LINE.finditer(text), 3)
    ]
    if not chosen:
        last = collections.deque(_NONBLANK_LINE.finditer(text), maxlen=3)
        chosen = [_quoted(text, m.start(), m.end()) for m in last]
    snippet = "; ".join(chosen)
    return snippet if len(snippet) <= SNIPPET_MAX_CHARS else snippet[: SNIPPET_MAX_CHARS - 1] + "…"
