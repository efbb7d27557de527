"""Failure evidence: when are two failing outputs "the same failure"?

Session 13. The stall detector (`cafe/stall/detector.py`) keys its streak on a failure's signature, so
the signature has to move when the failure moves and stay put when only noise moves. This module
normalises a tool's output, hashes it (`failure_signature`), picks the lines worth quoting back to
the model (`failure_snippet`) and keeps the head and tail a run's hand-back carries
(`handback_snippet`). Session 14's pace governor (`cafe/governor/pacing.py`) uses the
same signature to ask "is the verifier still saying the same thing?".

`normalize_evidence` applies the rules of `cafe/stall/noise.py` (noise by construction, masked
anywhere) and `cafe/stall/runner_noise.py` (noise where a runner writes it: never inside data),
then folds whitespace. Data is what the test itself printed as a value: a quoted literal (`'...'`
or `"..."` opened after a non-word character and closed before one, on one line) or the rest of a
`KeyError:` line, which Python prints the key itself on. Data spans are swapped for placeholders
before the runner rules run and put back after, so those rules cannot see into them. A rule masks
a token only where it is noise for certain: merging two different failures is worse than missing
one stall (a false `stuck_same_diagnostic` tells the agent its new error is its old one).

Why the tokens are noise: temporary folders are new on every run; clocks and timings never repeat;
an edit above a failing line moves its line number; the operating system hands out process ids,
thread ids and ephemeral ports; an object's address changes with every run; runners number their
workers and threads in the order they start; seeds are drawn anew unless fixed; and the order a
set prints in depends on the hash seed, which Python picks anew for every process.

Every pass is linear in its input: each rule is one regular-expression pass whose parts cannot
overlap, data spans are found with one scan over the quote characters, and a rule whose key words
are absent is skipped, so a megabyte of hostile text costs a fraction of a second
(`benchmarks/scan_speed.py` prints the figures).

Left out: deciding what to do about a repeated signature (`cafe/stall/detector.py`), and the verifier
readings a host supplies instead (session 14, `cafe/governor/facts.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import re

from cafe.loop.agent import ToolResult
from cafe.stall.noise import Rule, anywhere_rules, temp_rules
from cafe.stall.runner_noise import outside_data_rules

__all__ = [
    "SNIPPET_MAX_CHARS",
    "data_spans",
    "normalize_evidence",
    "failure_signature",
    "failure_snippet",
    "HANDBACK_MAX_CHARS",
    "handback_snippet",
]

# --- constants ------------------------------------------------------------------------------

# Course choice: enough for pytest's `E` lines, short enough to quote inside a nudge.
SNIPPET_MAX_CHARS = 240
# The reference's hand-back keeps this much of the failing output, its head and its tail, so the
# failing line at the end of a long traceback survives next to the command's first lines.
HANDBACK_MAX_CHARS = 4000
_CUT = "\n[… cut …]\n"  # what stands between the head and the tail of a clipped hand-back

_SPACE = re.compile(r"\s+")
_ERROR_LINE = re.compile(r"^E [^\r\n]*", re.MULTILINE)  # pytest's "E   assert ..." lines
_NONBLANK_LINE = re.compile(r"^[^\S\r\n]*\S[^\r\n]*", re.MULTILINE)
_KEY_ERROR = re.compile(r"KeyError: [^\n]*")
# A quote opens data after a non-word character and closes it before one (the look-backs sit
# after the quote, so the engine jumps from quote to quote instead of trying every position).
_OPENER = re.compile(r"['\"](?<![\w\\]['\"])")
_CLOSERS = {quote: re.compile(rf"{quote}(?<!\\{quote})(?!\w)") for quote in "'\""}


# --- small pure helpers ---------------------------------------------------------------------


def _apply(rules: tuple[Rule, ...], text: str) -> str:
    for rule in rules:
        text = rule.apply(text)
    return text


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def data_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each data span in `text`, sorted and merged (see the module docstring).
    One pass: openers and closers are both found in order, so each quote character is looked at
    once, and each line's end is found once."""
    spans = [m.span() for m in _KEY_ERROR.finditer(text)] if "KeyError: " in text else []
    if "'" not in text and '"' not in text:
        return _merged(spans)
    closers = {q: [m.start() for m in pattern.finditer(text)] for q, pattern in _CLOSERS.items()}
    next_closer = {quote: 0 for quote in closers}
    taken_to, line_end = 0, -1
    for opener in _OPENER.finditer(text):
        start, quote = opener.start(), opener.group()
        if start < taken_to:
            continue  # inside the span just taken
        if start > line_end:
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
        found, k = closers[quote], next_closer[quote]
        while k < len(found) and found[k] <= start:
            k += 1
        next_closer[quote] = k
        if k < len(found) and found[k] < line_end:
            spans.append((start, found[k] + 1))
            taken_to = found[k] + 1
    return _merged(spans)


def _outside_data(text: str) -> str:
    """The runner rules applied to everything but the data spans: each span is swapped for one
    NUL (no rule matches or removes one; the text's own NULs are gone), and the spans go back in
    order afterwards. Only rules whose key words occur run (and with none, no span is sought)."""
    rules = tuple(r for r in outside_data_rules() if any(k in text for k in r.keywords))
    spans = data_spans(text) if rules else []
    if not spans:
        return _apply(rules, text)
    kept = [text[start:end] for start, end in spans]
    ends = [0] + [end for _, end in spans]
    starts = [start for start, _ in spans] + [len(text)]
    outside = [text[a:b] for a, b in zip(ends, starts)]
    parts = _apply(rules, "\x00".join(outside)).split("\x00")
    woven: list[str] = [""] * (2 * len(kept) + 1)
    woven[0::2], woven[1::2] = parts, kept
    return "".join(woven)


# --- the three functions --------------------------------------------------------------------


def normalize_evidence(text: str) -> str:
    """Failure output with run-to-run noise removed (the rules are in the module docstring)."""
    text = text.replace("\x00", "\ufffd")  # the NUL marks a data span below
    return _SPACE.sub(" ", _outside_data(_apply(anywhere_rules(), text))).strip()


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
    text = _apply(temp_rules(), output)
    chosen = [
        _quoted(text, m.start() + 1, m.end())
        for m in itertools.islice(_ERROR_LINE.finditer(text), 3)
    ]
    if not chosen:
        last = collections.deque(_NONBLANK_LINE.finditer(text), maxlen=3)
        chosen = [_quoted(text, m.start(), m.end()) for m in last]
    snippet = "; ".join(chosen)
    return snippet if len(snippet) <= SNIPPET_MAX_CHARS else snippet[: SNIPPET_MAX_CHARS - 1] + "…"


def handback_snippet(output: str) -> str:
    """The failure as a run's hand-back carries it: the whole output (colour codes and temporary
    folders taken out) when it fits in `HANDBACK_MAX_CHARS`, else its head and its tail with a
    mark where the middle was cut, `HANDBACK_MAX_CHARS` in all."""
    text = _apply(temp_rules(), output).strip()
    if len(text) <= HANDBACK_MAX_CHARS:
        return text
    kept = HANDBACK_MAX_CHARS - len(_CUT)
    head = kept // 2
    return text[:head] + _CUT + text[len(text) - (kept - head) :]
