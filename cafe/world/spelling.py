"""How the café compares what people write: one key for a word however it was typed.

The café's world (session 01's shelf), first needed in session 05
(`sessions/s05-consent-gate/lesson.md`): a ticket's notes may hold only the kitchen modifiers the
menu defines, so "ＥＸＴＲＡ ＨＯＴ", "Extra-Hot" and "ехtra hоt" (two Cyrillic letters) must all be
read as the menu's "extra hot", and a declared allergy must be read the same way whatever its
width or case. Session 06's normaliser folds look-alike letters with the same table. It adds:

- `hidden_characters(text)`: the characters in a text that a reader cannot see but a model
  reads: format characters (zero-width spaces and joiners, tag characters that spell hidden
  ASCII, direction overrides), variation selectors, private-use and unassigned code points, and
  control characters other than a line break or tab. A check refuses them; it never deletes them,
  because deleting is how hidden text gets past whoever reads the result.
- `odd_spacing(text)`: the spacing a field may not hold. Between words a text has one ordinary
  space; any other spacing character (a no-break, en or em space, a tab or line break, the
  separators U+001C to U+001F that Python's `\\s` counts as spaces) and a second space in a row
  are odd: two spaces that look alike but differ can carry a message as bits (session 06).
- `latin_lookalike(char)`: the ASCII letter a character passes for ("е" -> "e"), from Unicode's
  confusables data (the `confusable-homoglyphs` package) with the course's own `CONFUSABLES`
  rows first (letters that data leaves out, such as the small capitals ɪɢɴᴏʀᴇ);
- `spelling_key(text)`: the form two spellings are compared in: NFKC, case folded, invisible
  characters dropped, look-alike letters folded, hyphens (`HYPHENS`: "-", U+2010 and U+2011,
  never a dash or a minus), underscores and runs of spaces made one space, punctuation around the
  ends trimmed. One spelling key for every reader: a hyphen a reader sees as a hyphen is one.

Folding can only turn a spelling into one the menu knows; it never decides what a text means, so
a weak look-alike table costs a customer convenience, never safety. What it leaves out: deciding
whether a text is an attack (`cafe.detect`, session 06).
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = [
    "CONFUSABLES",
    "DEFAULT_IGNORABLE",
    "HYPHENS",
    "drop_ignorable",
    "hidden_characters",
    "latin_lookalike",
    "odd_spacing",
    "spelling_key",
]

# Letters that look like Latin ones in most fonts (lower case; the text is case folded first).
# Unicode's confusables data (UTS #39, read through `confusable-homoglyphs`) covers most of them;
# these rows are the ones it leaves out or maps elsewhere (Cyrillic к м т, Greek κ τ χ ε, the
# Latin small capitals, which NFKC leaves alone), and they are read first.
CONFUSABLES: dict[str, str] = {
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "х": "x",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "ԁ": "d",
    "һ": "h",
    "ӏ": "l",
    "к": "k",
    "м": "m",
    "т": "t",
    "ԛ": "q",
    "ԝ": "w",
    "ɡ": "g",
    "ɑ": "a",
    "α": "a",
    "ο": "o",
    "ρ": "p",
    "ν": "v",
    "ι": "i",
    "κ": "k",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "ε": "e",
    "ı": "i",
    "օ": "o",
    "ս": "u",
    "ո": "n",
    "հ": "h",
    "ϲ": "c",
    "ϳ": "j",
    "ȷ": "j",
    "ɩ": "i",
    "ᴀ": "a",
    "ʙ": "b",
    "ᴄ": "c",
    "ᴅ": "d",
    "ᴇ": "e",
    "ꜰ": "f",
    "ɢ": "g",
    "ʜ": "h",
    "ɪ": "i",
    "ᴊ": "j",
    "ᴋ": "k",
    "ʟ": "l",
    "ᴍ": "m",
    "ɴ": "n",
    "ᴏ": "o",
    "ᴘ": "p",
    "ʀ": "r",
    "ꜱ": "s",
    "ᴛ": "t",
    "ᴜ": "u",
    "ᴠ": "v",
    "ᴡ": "w",
    "ʏ": "y",
    "ᴢ": "z",
}

# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): code points a
# renderer shows as nothing. `unicodedata` has no such property, so the ranges are listed here.
# Most are format characters (category Cf) already; the rest are fillers and selectors.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space, joiners, direction marks
    (0x202A, 0x202E),  # direction embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, isolates
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # byte-order mark, zero-width no-break space
    (0xFFA0, 0xFFA0),  # half-width Hangul filler
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical format controls
    (0xE0000, 0xE0FFF),  # tag characters and variation selectors supplement
)
_IGNORABLE = re.compile(
    "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in DEFAULT_IGNORABLE) + "]"
)
# Categories a reader never sees as text: format, private use, unassigned, surrogates.
_UNSEEN = frozenset({"Cf", "Co", "Cn", "Cs"})
# Control characters a note or an allergy may hold: the ones that only break lines.
_LINE_BREAKS = frozenset("\n\r\t")
# The ASCII characters a reader cannot see: controls other than the line breaks, and DEL.
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# The characters every reader takes for a hyphen: ASCII's hyphen-minus, U+2010 HYPHEN and U+2011
# NON-BREAKING HYPHEN (NFKC already makes the small and full-width hyphen-minus ASCII; the soft
# hyphen is invisible and dropped). The dashes U+2012 to U+2015 and the minus sign U+2212 are not
# hyphens: a dash separates clauses or spans a range ("2–3 sugars"), and a minus subtracts
# ("−sugar" means no sugar), so folding either into a space could change what a note asks for.
HYPHENS = "-\u2010\u2011"
# Between words: runs of hyphens, underscores and spaces compare as one space.
_SEPARATORS = re.compile(f"[{HYPHENS}_\\s]+")
# Trimmed from both ends: punctuation a customer puts around a word.
_AROUND = " .,;:!?()[]{}'\"`*"


def _is_hidden(char: str) -> bool:
    if " " <= char <= "~" or char in _LINE_BREAKS:
        return False  # printable ASCII, the common case
    category = unicodedata.category(char)
    if category in _UNSEEN or (category == "Cc" and char not in _LINE_BREAKS):
        return True
    return _IGNORABLE.match(char) is not None


def drop_ignorable(text: str) -> str:
    """`text` without its default-ignorable code points (`DEFAULT_IGNORABLE`): what a reader sees."""
    return _IGNORABLE.sub("", text)


def hidden_characters(text: str) -> str:
    """The characters of `text` a reader cannot see (see the module docstring), in order."""
    if not isinstance(text, str):
        raise TypeError(f"hidden_characters() takes text, not {type(text).__name__}.")
    if text.isascii():  # the common case: only control characters can hide here
        return "".join(_ASCII_CONTROL.findall(text))
    hidden = {char for char in set(text) if _is_hidden(char)}  # each distinct character once
    return "".join(char for char in text if char in hidden) if hidden else ""


# Unicode's space and separator categories: what a reader sees as a gap, whatever its width.
_SPACING_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})


def _is_spacing(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in _SPACING_CATEGORIES


def odd_spacing(text: str) -> str:
    """The spacing characters of `text` other than single ordinary spaces, in order.

    "no foam" has none; "no  foam" has one (the second space), and "no\\u2002foam" (an en space)
    or "flat\\x1fwhite" (a unit separator) one each. A field that holds none can still begin or
    end with one space ("Latte "), which every reading trims; what it cannot do is choose between
    two spaces that look the same, which is how a run of spacing carries bits.
    """
    if not isinstance(text, str):
        raise TypeError(f"odd_spacing() takes text, not {type(text).__name__}.")
    if "  " not in text and (text.isprintable() or not any(map(_is_spacing, set(text)))):
        return ""  # the common case; printable text holds no spacing but the ordinary space
    odd = []
    for at, char in enumerate(text):
        if char != " " and _is_spacing(char):
            odd.append(char)
        elif char == " " and at > 0 and text[at - 1] == " ":
            odd.append(char)
    return "".join(odd)


@functools.lru_cache(maxsize=4096)
def latin_lookalike(char: str) -> str | None:
    """The lower-case ASCII letter `char` passes for, or None ("е" -> "e", "ᴍ" -> "m", "ж" -> None).

    The course's `CONFUSABLES` first, then Unicode's confusables data. ASCII characters are
    their own reading, and a digit never stands for a letter here (that is leetspeak, which
    `cafe.detect.normalize` reads on its own terms).
    """
    if len(char) != 1:
        raise ValueError(f"latin_lookalike() takes one character, not {char!r}.")
    if char.isascii():
        return char.lower() if char.isalpha() else None
    folded = char.casefold()
    if folded in CONFUSABLES:
        return CONFUSABLES[folded]
    from confusable_homoglyphs import confusables  # its table loads in about 0.1 s, on first use

    for candidate in dict.fromkeys((char, folded, char.upper())):
        found = confusables.is_confusable(candidate, greedy=True) or []
        for entry in found:
            for glyph in entry["homoglyphs"]:
                if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalpha():
                    return str(glyph["c"]).lower()
    return None


# A word: what look-alike folding treats as one unit.
_WORD = re.compile(r"\w+")


def _fold_lookalikes(text: str) -> str:
    """Look-alike letters folded to Latin, one word at a time, and only in a word whose every
    letter has a Latin reading: "ехtra" becomes "extra", and "молоко" stays Russian."""
    if text.isascii():
        return text
    table = {ord(char): latin_lookalike(char) for char in set(text) if not char.isascii()}

    def fold(match: re.Match[str]) -> str:
        word = match.group()
        if word.isascii() or any(table.get(ord(char), "") is None for char in word):
            return word
        return word.translate(table)

    return _WORD.sub(fold, text)


def spelling_key(text: str) -> str:
    """The form two spellings are compared in: "Ｅｘｔｒａ-Ｈｏｔ!" and "ехtra hоt" -> "extra hot"."""
    if not isinstance(text, str):
        raise TypeError(f"spelling_key() takes text, not {type(text).__name__}.")
    if text.isascii():  # NFKC, ignorables and look-alikes leave ASCII as it is
        folded = text.lower()
    else:
        folded = drop_ignorable(unicodedata.normalize("NFKC", text)).casefold()
        folded = _fold_lookalikes(folded)
    return _SEPARATORS.sub(" ", folded).strip(_AROUND)
