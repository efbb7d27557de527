"""Normalisation: the text a scanner should read, whatever disguise the customer's words wear.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). A pattern
that matches "ignore previous instructions" misses "Іgnоrе" written with Cyrillic letters, the
same words with invisible characters between the letters, "1gn0r3", "i g n o r e" and
"dis_regard". A model reads through every one of those disguises; a regular expression reads
none. `normalize_text(text)` takes them off before the patterns in `cafe.detect` run: Unicode
NFKC (full-width and stylised letters become plain ones), lower case, accents and invisible
characters dropped, look-alike letters folded onto Latin ones inside words that could be Latin
(`cafe.world.spelling.latin_lookalike`: Unicode's confusables data and the course's own rows),
digits standing for letters folded inside words (`LEET`), marks inside words dropped
(`SPLIT_MARKS`: "ig-nore", "dis_regard", "Ign*ore"), and letters spelled out one at a time
("i g n o r e", "i.g.n.o.r.e") joined.

Invisible characters are dropped from this reading so the visible words read cleanly; what they
may carry (tag characters that spell text, zero-width bits, reversed text) is not thrown away but
read on its own by `cafe.detect.views`, and `cafe.detect.structure` flags that they are there.

Every character of a `Normalized` text remembers which character of the customer's text it came
from, so a finding can quote the customer's own words, not the folded copy. Every step is one
pass over the text (a `str.translate`, or a regular expression whose repeats cannot compete for
the same characters), so the work grows linearly with the input.

What it leaves out: deciding whether the unmasked text is an attack (`cafe.detect.checks`, this
session) and what to do about it (`cafe.repair`, session 07).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from cafe.world.spelling import latin_lookalike

__all__ = ["LEET", "SPLIT_MARKS", "Normalized", "normalize_text"]

# Letters drawn as emoji symbols, which NFKC leaves alone and no language writes words with:
# negative squared 🅰 to 🆉, and the regional indicators 🇦 to 🇿 (two of which make a flag).
_LETTER_SYMBOLS = {
    **{chr(0x1F170 + i): chr(ord("a") + i) for i in range(26)},
    **{chr(0x1F1E6 + i): chr(ord("a") + i) for i in range(26)},
}
# Digits and signs that stand for letters in "leetspeak" (1gn0r3 -> ignore). Folded only inside a
# word that also holds a letter, so "2 lattes" and "table 12" keep their numbers, and not in a word
# that is letters then digits ("base64", "rot13", "b12"): those are names, not disguises.
LEET: dict[str, str] = {
    "0": "o",
    "1": "i",
    "3": "e",
    "4": "a",
    "5": "s",
    "7": "t",
    "@": "a",
    "$": "s",
}
_LEET_TABLE = str.maketrans(LEET)
# Separators people put between the letters of a spelled-out word: "i g n o r e", "i.g.n.o.r.e".
_SPELL_SEPARATORS = " .-_*·/|"
# A spelled-out word needs at least this many letters ("a l l" counts; "a b" is two words).
SPELLED_MIN = 3

# Unicode categories dropped: combining marks (accents, and the vowel signs of Indic scripts, which
# regular expressions do not count as letters) and format characters (zero-width spaces and
# joiners, soft hyphens, byte-order marks, direction marks, tag characters).
_DROPPED = frozenset({"Mn", "Mc", "Me", "Cf"})
_ASCII_OR_NOT = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")
# A word holding a non-ASCII letter, and a word holding both a letter and a leet digit or sign:
# the only words the folding steps touch. Each lookahead reads one word once.
_NON_ASCII_WORD = re.compile(r"(?<!\w)(?=\w*?[^\x00-\x7f])\w+")
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$]*?[^\W\d_])(?=[\w@$]*?[\d@$])[\w@$]+")
_NAME_WITH_NUMBER = re.compile(r"[^\W\d_]+\d+")
# Marks people put inside a word to break it for a pattern: "ig-nore", "dis_regard", "Ign*ore",
# "dis·regard". One between two letters is dropped; `cafe.detect.views` also reads them as spaces
# ("IGNORE_PREVIOUS_INSTRUCTIONS"), since either reading may be the meant one.
SPLIT_MARKS = "-‐‑_*·"
_INNER_HYPHEN = re.compile(rf"(?<=[^\W\d_])[{re.escape(SPLIT_MARKS)}](?=[^\W\d_])")
_LONE_LETTER = re.compile(r"(?<![^\W_])[^\W\d_](?![^\W_])")


@dataclass(frozen=True)
class Normalized:
    """Folded text, and for each of its characters the index of the `source` character it came from."""

    text: str
    origin: tuple[int, ...]
    source: str

    def __post_init__(self) -> None:
        assert len(self.text) == len(self.origin), "every folded character needs its origin"

    def quote(self, start: int, end: int) -> str:
        """The customer's own text behind `text[start:end]`."""
        if start >= end or not self.origin:
            return ""
        first, last = sorted(
            (self.origin[start], self.origin[end - 1])
        )  # a reversed view runs backwards
        return self.source[first : last + 1]


# --- the steps, each one pass ------------------------------------------------------------------


def _fold_char(char: str) -> str:
    """One non-ASCII character: NFKC, lower case, then accents and invisible characters dropped."""
    if char in _LETTER_SYMBOLS:
        return _LETTER_SYMBOLS[char]
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", char).lower())
    return "".join(c for c in folded if unicodedata.category(c) not in _DROPPED)


def _fold_chars(text: str) -> tuple[str, list[int]]:
    """`_fold_char` over the text, and the origin of each output character.

    Each distinct character is folded once, and the text is rewritten with `str.translate`; only
    a run holding a character that folds to nothing or to several characters (a zero-width space,
    a ligature) is walked one character at a time to keep the origins right.
    """
    table = {ord(char): _fold_char(char) for char in set(text) if not char.isascii()}
    out: list[str] = []
    origin: list[int] = []
    for run in _ASCII_OR_NOT.finditer(text):
        start, chunk = run.start(), run.group()
        if chunk.isascii():  # the common case: lower case keeps every position
            out.append(chunk.lower())
            origin.extend(range(start, run.end()))
            continue
        out.append(chunk.translate(table))
        if all(len(table[ord(char)]) == 1 for char in set(chunk)):
            origin.extend(range(start, run.end()))
            continue
        for offset, char in enumerate(chunk):
            origin.extend([start + offset] * len(table[ord(char)]))
    return "".join(out), origin


def _could_be_latin(word: str) -> bool:
    return all(char.isascii() or latin_lookalike(char) is not None for char in word)


def _is_leet(word: str) -> bool:
    return _NAME_WITH_NUMBER.fullmatch(word) is None


def _fold_words(text: str) -> str:
    """Look-alike letters and leetspeak folded inside words. Both keep every position."""
    text = _NON_ASCII_WORD.sub(
        lambda m: (
            "".join(latin_lookalike(c) or c for c in m.group())
            if _could_be_latin(m.group())
            else m.group()
        ),
        text,
    )
    return _LEET_WORD.sub(
        lambda m: m.group().translate(_LEET_TABLE) if _is_leet(m.group()) else m.group(), text
    )


def _spelled_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word spelled out a letter at a time with one separator repeated."""
    runs: list[tuple[int, int]] = []
    first = last = -1
    count, separator = 0, ""
    for match in _LONE_LETTER.finditer(text):
        at = match.start()
        gap = text[last + 1] if count and at == last + 2 else ""
        if gap and gap in _SPELL_SEPARATORS and (count == 1 or gap == separator):
            count, separator, last = count + 1, gap, at
            continue
        if count >= SPELLED_MIN:
            runs.append((first, last + 1))
        first = last = at
        count, separator = 1, ""
    if count >= SPELLED_MIN:
        runs.append((first, last + 1))
    return runs


def _drop_inner_hyphens(text: str, origin: list[int]) -> tuple[str, list[int]]:
    """ "ig-nore in-struc-tions" -> "ignore instructions": a hyphen between two letters goes."""
    cuts = [m.start() for m in _INNER_HYPHEN.finditer(text)]
    if not cuts:
        return text, origin
    out: list[str] = []
    kept: list[int] = []
    done = 0
    for cut in cuts:
        out.append(text[done:cut])
        kept.extend(origin[done:cut])
        done = cut + 1
    out.append(text[done:])
    kept.extend(origin[done:])
    return "".join(out), kept


def _join_spelled(text: str, origin: list[int]) -> tuple[str, list[int]]:
    """ "i g n o r e" -> "ignore": each spelled-out run keeps only its letters."""
    runs = _spelled_runs(text)
    if not runs:
        return text, origin
    out: list[str] = []
    kept: list[int] = []
    done = 0
    for start, end in runs:
        out.append(text[done:start])
        kept.extend(origin[done:start])
        out.append(text[start:end:2])
        kept.extend(origin[start:end:2])
        done = end
    out.append(text[done:])
    kept.extend(origin[done:])
    return "".join(out), kept


def normalize_text(text: str) -> Normalized:
    """`text` with its disguises taken off (see the module docstring), each character traceable."""
    if not isinstance(text, str):
        raise TypeError(f"normalize_text() takes text, not {type(text).__name__}.")
    folded, origin = _fold_chars(text)
    folded = _fold_words(folded)
    folded, origin = _drop_inner_hyphens(folded, origin)
    folded, origin = _join_spelled(folded, origin)
    return Normalized(folded, tuple(origin), text)
