"""Phrase rules: the famous injection phrases as written, and asks that are not an order at all.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). The first
layer of detection, and the cheapest: a short list of phrases that try to replace the agent's
instructions ("ignore previous instructions", "system prompt", a role header at the start of a
line), read on the text as the customer wrote it. `cafe.detect.checks` runs them again on the
folded text, where the disguises are off. It adds:

- `INJECTION_PATTERNS`: each needs more than a single word: "ignore the crumbs", "the till system
  is slow" and "no milk please" are orders, not attacks. Drawn from the common shapes of public
  injection write-ups (override, role swap, prompt leak, fake role headers);
- `SCOPE_PATTERNS`: asks that are not an order: things the kitchen cannot make, however the ticket
  is written (a refund, a taxi, a poem). Each needs a verb and its object together, so "I came by
  taxi" and "no refund needed" stay orders.

Both are records (`cafe.detect.rules.Rule`) read on raw text, case ignored. What it leaves out:
paraphrases, other languages, disguises and structure, which the later layers read.
"""

from __future__ import annotations

import re

from cafe.detect.rules import Rule, rule

__all__ = ["INJECTION_PATTERNS", "SCOPE_PATTERNS"]

# Every phrase rule reads the text as written, case ignored.
_ANY_CASE = re.IGNORECASE

INJECTION_PATTERNS: tuple[Rule, ...] = (
    rule(
        "override",
        r"""
        \b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?
        (?:previous|prior|above|earlier|preceding|original)
        \s+(?:instructions?|rules|prompts?|directions)
        """,
        ("ignore", "disregard", "forget", "override"),
        raw=True,
        flags=_ANY_CASE,
    ),
    rule(
        "override",
        r"""
        \b(?:ignore|disregard|forget|override)\s+(?:all\s+)?(?:your|the)
        \s+(?:instructions|rules|guidelines|system\s+prompt)
        """,
        ("ignore", "disregard", "forget", "override"),
        raw=True,
        flags=_ANY_CASE,
    ),
    rule("prompt_leak", r"\bsystem\s+prompt\b", ("prompt",), raw=True, flags=_ANY_CASE),
    # Not "you are now my/the ...", nor "a favourite": praise (`cafe.detect.intent` has the roles).
    rule(
        "role_swap",
        r"""
        \byou\s+are\s+now\s+(?:a|an|in)\b
        (?!\s+(?:favou?rite|fave|regular|institution|staple|gem)\b)
        """,
        ("now",),
        raw=True,
        flags=_ANY_CASE,
    ),
    # Only the modes no phone or card reader has: "developer mode on my phone" is an order's
    # small talk, and `cafe.detect.intent` reads a mode being switched on.
    rule("mode_switch", r"\b(?:jailbreak|dan)\s+mode\b", ("mode",), raw=True, flags=_ANY_CASE),
    # At the start of a line, spaces and tabs only ([^\S\n]): a `\s*` here would let every newline
    # of a long blank run start a match that reads the rest of the run (quadratic). Not on a line
    # that reads as a row of pasted data (a price, a | or · between fields): "Developer: Bean Lab
    # | 4.50" is a menu card. The lookahead reads its line once.
    rule(
        "fake_header",
        r"""
        ^[^\S\n]*(?:system|assistant|developer)[^\S\n]*:
        (?![^\n]*(?:[|·•€£$]|\b\d+[.,]\d\d\b))
        """,
        ("system", "assistant", "developer"),
        raw=True,
        flags=_ANY_CASE | re.MULTILINE,
    ),
    # One optional slash between two runs of spaces, not `\s*/?\s*`, which can split one long run
    # between its two halves in every possible way.
    rule(
        "fake_header",
        r"<\|?\s*(?:/\s*)?(?:system|im_start|im_end)\b",
        ("system", "im_start", "im_end"),
        raw=True,
        flags=_ANY_CASE,
    ),
    rule("new_rules", r"\bnew\s+instructions\s*:", ("instructions",), raw=True, flags=_ANY_CASE),
)

# A negated ask ("I don't want a refund") is not an ask. Invented for the café; extend it from
# your own traffic.
SCOPE_PATTERNS: tuple[Rule, ...] = (
    rule(
        "refund",
        r"""
        (?<!n't\ )(?<!n’t\ )(?<!not\ )
        \b(?:give|issue|process|want|get|need|like)\s+(?:me\s+|us\s+)?(?:a\s+|my\s+|our\s+)?refund\b
        """,
        ("refund",),
        raw=True,
        flags=_ANY_CASE,
    ),
    rule("refund", r"\brefund\s+(?:me|us|my|our)\b", ("refund",), raw=True, flags=_ANY_CASE),
    rule(
        "errand",
        r"""
        \b(?:call|book|order|get)\s+(?:me\s+|us\s+)?(?:a\s+|an\s+)?
        (?:taxi|cab|uber|flight|hotel)\b
        """,
        ("taxi", "cab", "uber", "flight", "hotel"),
        raw=True,
        flags=_ANY_CASE,
    ),
    rule(
        "writing",
        r"""
        \b(?:write|compose)\s+(?:me\s+|us\s+)?(?:a\s+|an\s+|some\s+)?
        (?:poem|song|story|essay|limerick|email|letter|code)\b
        """,
        ("poem", "song", "story", "essay", "limerick", "email", "letter", "code"),
        raw=True,
        flags=_ANY_CASE,
    ),
)
