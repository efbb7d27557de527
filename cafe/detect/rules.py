"""Detection rules as data: the record a rule is, the word lists rules share, and how one is built.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). The rule
modules (`intent.py`, `shapes.py`, `grants.py`, `structure.py`) hold records, not code: each `Rule`
is a name, a pattern written in `re.VERBOSE` form with one alternative a line, and the words one of
which every match contains. Word lists that several rules use ("ignore", "set aside", "vergiss",
...; who is in charge; what a concession grants) are declared once, one alternative a line, in
`cafe/data/detect_words.json`, and a pattern names a list in braces: `{dismiss}`. It adds:

- `Rule`, and `rule(name, source, keywords)`, which fills in the lists (a rule compiles its
  pattern the first time a scan reads it);
- `near(first, second, gap)`, `then(...)` and `within(...)`: two ideas in one sentence, at most
  `gap` words apart, every gap bounded, so each rule stays linear in its text;
- `words(name)`, a list as loaded, and `literal_words(...)`, the words a keyword guard looks for;
- `SEP` and the shared fragments (`FRAGMENTS`): between two words of a clause; "free" that is not
  a diet label ("gluten free"); a concession that is not a question ("... free, can I have one?").

Lists are read as people spell them and folded the way `normalize_text` folds a customer's text,
because the rules read folded text. What it leaves out: running the rules (`cafe.detect.checks`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from cafe.detect.normalize import normalize_text

__all__ = [
    "WORDS_PATH",
    "SEP",
    "FRAGMENTS",
    "Rule",
    "words",
    "literal_words",
    "near",
    "then",
    "within",
    "rule",
]

WORDS_PATH = Path(__file__).resolve().parents[1] / "data" / "detect_words.json"

# Between two words of one clause: anything but a word character or the end of a sentence.
SEP = r"[^\w.!?;\n]+"
# Words before "free" that make it a label ("gluten free"), not a giveaway; declared once.
_LABELS = ("gluten", "dairy", "nut", "sugar", "lactose", "egg", "caffeine", "fat", "meat")
NOT_A_LABEL = "".join(rf"(?<!{word}\ free)" for word in _LABELS)
# A list or fragment a pattern names: `{dismiss}`. Counted repeats (`{0,6}`) are never names.
_NAME = re.compile(r"(?<!\\)\{([a-z_]+)\}")
# A character a VERBOSE pattern would ignore or read as a comment, outside a character class.
_VERBOSE_SPECIAL = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]|[ #]")


def _fold(alternative: str) -> str:
    """An alternative's non-ASCII words folded as `normalize_text` folds a customer's text."""
    return re.sub(r"[^\x00-\x7f]+", lambda m: normalize_text(m.group()).text, alternative)


def _load(path: Path) -> Mapping[str, tuple[str, ...]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    lists = {
        name: tuple(dict.fromkeys(_fold(word) for word in entry["words"]))
        for name, entry in data["lists"].items()
    }
    return MappingProxyType(lists)


_LISTS = _load(WORDS_PATH)

# Pieces several rules share that are patterns rather than lists of words.
FRAGMENTS: Mapping[str, str] = MappingProxyType(
    {
        "sep": SEP,
        "not_a_label": NOT_A_LABEL,
        # "free", but not "gluten free", "dairy-free" or "free-range"
        "free": rf"free\b{NOT_A_LABEL}(?!-)",
        # after a concession: not a question, and not the news that it ended
        "granted": r"(?![^.!?\n]{0,80}\?)(?![^.!?\n]{0,40}\b(?:ended|stopped|finished|is\ over"
        r"|was\ over|discontinued|expired|no\ longer)\b)",
    }
)


@dataclass(frozen=True)
class Rule:
    """One detection rule: its name, its pattern, and words one of which every match contains.

    `raw` rules read the text as the customer wrote it (invisible characters and all), not the
    folded text the others read.
    """

    name: str
    source: str  # the VERBOSE pattern, every `{list}` filled in
    keywords: tuple[str, ...]
    raw: bool = False
    flags: int = 0

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """The source compiled, the first time a scan asks: the four rule modules hold some two
        hundred patterns, and a process that imports them without scanning (a grader, a kernel
        that only builds tickets) would spend a tenth of a second or more compiling them."""
        return re.compile(self.source, re.VERBOSE | self.flags)


def words(name: str) -> tuple[str, ...]:
    """The alternatives of the word list `name`, as loaded (and folded)."""
    if name not in _LISTS:
        raise KeyError(f"no word list {name!r} in {WORDS_PATH.name}; known: {', '.join(_LISTS)}")
    return _LISTS[name]


def _verbose_safe(alternative: str) -> str:
    """A plain-regex alternative made safe inside a VERBOSE pattern: spaces and # escaped."""
    return _VERBOSE_SPECIAL.sub(
        lambda m: "\\" + m.group() if m.group() in (" ", "#") else m.group(), alternative
    )


def _expand(source: str, depth: int = 0) -> str:
    """`source` with each `{name}` replaced by its list (as a group) or fragment."""
    if depth > 4:
        raise ValueError(f"word lists nest too deeply in {source[:60]!r}")

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in FRAGMENTS:
            return _expand(FRAGMENTS[name], depth + 1)
        alternatives = "|".join(_verbose_safe(word) for word in words(name))
        return "(?:" + _expand(alternatives, depth + 1) + ")"

    return _NAME.sub(fill, source)


def literal_words(*alternatives: str) -> tuple[str, ...]:
    """The words a keyword guard looks for: each entry as written, or for "@name" the literal word
    that starts each alternative of that list. A list alternative that starts with a group adds
    nothing, so the rule must name a word for it; the tests check every rule with and without its
    guard on every corpus."""
    found = []
    for entry in alternatives:
        if not entry.startswith("@"):
            found.append(entry)  # a keyword written out
            continue
        for word in words(entry[1:]):
            special = re.search(r"[\\(?\[{]", word)
            cut = len(word) if special is None else special.start() - (special.group() == "?")
            literal = word[:cut].strip()  # "instructions?" -> "instruction"
            if literal:
                found.append(literal)
    return tuple(dict.fromkeys(found))


def near(first: str, second: str, gap: int) -> str:
    """`first`, then at most `gap` words of the same sentence, then `second` (VERBOSE source)."""
    return rf"\b(?:{first})\b(?:{{sep}}\w+){{0,{gap}}}?{{sep}}(?:{second})\b"


def then(first: str, second: str, gap: int) -> str:
    """`near`, with a second idea that may start with a digit or a sign (no `\\b` before it)."""
    return rf"\b(?:{first})\b(?:{{sep}}\w+){{0,{gap}}}?{{sep}}(?:{second})"


def within(marker: str, target: str, gap: int) -> str:
    """A structure `marker` (which may end in a sign, such as "assistant:"), then at most `gap`
    words of the same line, then a `target` word. A pasted turn or a claim runs on past a full
    stop, so the window is the line, not the sentence. Each word is read whole: linear."""
    return rf"(?:{marker})[^\w\n]*(?:\w+[^\w\n]+){{0,{gap}}}?(?:{target})\b"


def rule(
    name: str, source: str, keywords: tuple[str, ...], *, raw: bool = False, flags: int = 0
) -> Rule:
    """A `Rule` from a VERBOSE `source` naming lists in braces; "@list" keywords are its words.

    The source's own non-ASCII words are folded like the lists', unless the rule reads `raw`
    text (as written: case, invisible characters and all; `flags` may add `re.IGNORECASE`).
    """
    expanded = _expand(source if raw else _fold(source))
    keys = literal_words(*keywords)
    return Rule(
        name, expanded, keys if raw else tuple(_fold(k) for k in keys), raw=raw, flags=flags
    )
