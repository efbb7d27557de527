"""Numbers read as numbers, however a sentence writes them (issue 37).

A spoiler that says "two orders in five end with a ticket" gives away an outcome of 40% as
surely as "40%" does, and "two hundred and forty-six tokens" is "246 tokens". So before a
giveaway is looked for, every number on both sides becomes one token that holds its value:

- digits, with or without a decimal point or thousands commas ("246", "0.40", "1,200");
- number words up to the millions ("forty-six", "two hundred and forty-six", "a thousand");
- percentages ("40%", "40 percent", "40 per cent", "forty per cent"), as the fraction they are;
- "once" and "twice";
- shares ("two in five", "2 of 5", "2 out of 5", "two orders in five", "two of the five", with
  at most two words between the first number and "in"/"of": "three broken tickets in ten"):
  the share's token goes in front of its two numbers, which stay, so "two orders" still reads
  as two orders.

A number token is `#` and its value (`#246`, `#0.4`, `#1/3`), with `~places` when it was written
rounded. A giveaway written to some places is given away by any number that pins its value to
those places (`same`): "40%" (two places of a fraction) by "0.401", "two in five" and "40 per
cent", but "0.7541" not by "0.8", which does not pin four places. A whole number or a share in a
giveaway is a count or an exact ratio and is given away only by that value: "0" not by "0.3".
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

UNITS = {
    word: n
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {
    word: 10 * n
    for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
ADVERBS = {"once": 1, "twice": 2}
PERCENT_WORDS = (("percent",), ("per", "cent"), ("%",))
# The words between the two numbers of a share ("two in five", "2 out of 5", "two of the five").
SHARE_WORDS = (("in",), ("of",), ("out", "of"), ("of", "the"), ("out", "of", "the"))
_DIGITS = re.compile(r"(\d+)(?:\.(\d+))?(%?)")


def token(value: Fraction, places: int | None = None) -> str:
    """The token of `value`, exact (`places` None) or written to `places` decimal places."""
    if value.denominator == 1:
        shown = str(value.numerator)
    elif all(p in (2, 5) for p in _prime_factors(value.denominator)):
        shown = f"{float(value):.12g}"
    else:
        shown = f"{value.numerator}/{value.denominator}"
    return f"#{shown}" if places is None else f"#{shown}~{places}"


def _prime_factors(n: int) -> set[int]:
    found, p = set(), 2
    while n > 1 and p * p <= n:
        while n % p == 0:
            found.add(p)
            n //= p
        p += 1
    return found | ({n} if n > 1 else set())


@functools.lru_cache(maxsize=4096)
def value_of(word: str) -> tuple[Fraction, Fraction] | None:
    """(value, tolerance) of a number token, or None for any other word."""
    if not word.startswith("#"):
        return None
    shown, _, places = word[1:].partition("~")
    tolerance = Fraction(1, 2 * 10 ** int(places)) if places else Fraction(0)
    return Fraction(shown), tolerance


def same(read: str, giveaway: str) -> bool:
    """Whether a word read in the text is a giveaway's word: the same word, or a number that
    rounds to the giveaway's number at the places the giveaway was written to."""
    if read == giveaway:
        return True
    if not (read.startswith("#") and giveaway.startswith("#")):
        return False
    (x, _), (y, tolerance) = value_of(read), value_of(giveaway)  # type: ignore[misc]
    return abs(x - y) <= tolerance


def _digits(word: str) -> str | None:
    """The token of a word written in digits ("246", "0.40", "40%"), or None."""
    match = _DIGITS.fullmatch(word)
    if not match:
        return None
    whole, decimals, percent = match.groups()
    value = Fraction(f"{whole}.{decimals or 0}")
    places = len(decimals) if decimals else None
    if percent:
        return token(value / 100, (places or 0) + 2)
    return token(value, places)


def _spelled(raw: list[str], i: int) -> tuple[int, int] | None:
    """A number spelled in words from raw[i] ("two hundred and forty six"): (value, words used)."""
    total, current, last, j = 0, 0, "", i
    while j < len(raw):
        word, nxt = raw[j], raw[j + 1] if j + 1 < len(raw) else ""
        if (
            word in UNITS
            and last in ("", "tens", "scale", "hundred")
            and not (last == "tens" and UNITS[word] > 9)
        ):
            current, last = current + UNITS[word], "unit" if UNITS[word] < 10 else "teen"
        elif word in TENS and last in ("", "scale", "hundred"):
            current, last = current + TENS[word], "tens"
        elif word == "a" and last == "" and nxt in SCALES:
            current, last = 1, "unit"
        elif word == "hundred" and last in ("unit", "teen", "tens"):
            current, last = current * 100, "hundred"
        elif word in SCALES and word != "hundred" and last in ("unit", "teen", "tens", "hundred"):
            total, current, last = total + current * SCALES[word], 0, "scale"
        elif word == "and" and last in ("scale", "hundred") and (nxt in UNITS or nxt in TENS):
            pass
        else:
            break
        j += 1
    if last == "" or (j - i == 1 and raw[i] == "a"):
        return None
    return total + current, j - i


def numbers(raw: list[str]) -> list[str]:
    """Raw words (folded, unstemmed) with every number read as one token, shares marked."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        word = raw[i]
        if (written := _digits(word)) is not None:
            out.append(written)
            i += 1
        elif word in ADVERBS:
            out.append(token(Fraction(ADVERBS[word])))
            i += 1
        elif spelled := _spelled(raw, i):
            out.append(token(Fraction(spelled[0])))
            i += spelled[1]
        else:
            out.append(word)
            i += 1
            continue
        for percent in PERCENT_WORDS:  # "forty per cent": the number becomes a share
            if tuple(raw[i : i + len(percent)]) == percent and "~" not in out[-1]:
                out[-1] = token(value_of(out[-1])[0] / 100, 2)  # type: ignore[index]
                i += len(percent)
    return _shares(out)


def _shares(found: list[str]) -> list[str]:
    """`found` with a share's token put before "N in M", "N of M", "N <noun> in M" and the like."""
    out: list[str] = []
    for i, word in enumerate(found):
        top = value_of(word)
        if top is not None and top[1] == 0 and top[0].denominator == 1:
            for skip in (
                0,
                1,
                2,
            ):  # "two in five", "two orders in five", "two broken orders in five"
                rest = found[i + 1 + skip :]
                if any(w.startswith("#") or w == "|" for w in found[i + 1 : i + 1 + skip]):
                    continue
                for between in SHARE_WORDS:
                    n = len(between)
                    if tuple(rest[:n]) == between and len(rest) > n:
                        bottom = value_of(rest[n])
                        if bottom and bottom[1] == 0 and 0 < bottom[0] and top[0] <= bottom[0]:
                            out.append(token(top[0] / bottom[0]))
                            break
                else:
                    continue
                break
        out.append(word)
    return out
