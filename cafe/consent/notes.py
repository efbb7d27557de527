"""A ticket's notes, read as an allow-list: kitchen modifiers the menu defines, and nothing else.

Session 05 (`sessions/s05-consent-gate/lesson.md`, notebook `notebooks/s05-consent-gate.ipynb`).
The kitchen acts on notes, so a note that may say anything is a second order nobody checks:
"and a croissant", "paid", "ｆｒｅｅ", "fr\u200bee". Listing the bad notes never ends; listing the
good ones does, because the menu already knows them (`cafe.world.modifiers`). It adds:

- `read_notes(notes, items, menu)`: the notes split into clauses, each read as
  `[<item on the ticket>:] [<count> x] <modifier>` (or `<modifier> on the <item>`), every part
  from a closed set, compared in `spelling_key` form so width, case, hyphens and look-alike
  letters do not matter. What it cannot read that way is a `NoteProblem`; characters a reader
  cannot see are reported as they are (`hidden`), never deleted;
- `kitchen_notes(reading)`: the modifiers in the menu's own words, in a fixed order: the notes a
  correct ticket holds, and what every fix about the notes asks for.

A customer's words are a request, not a kitchen instruction, so the rule holds for the approved
notes too: front of house asks about anything the menu cannot say. The one other clause a note
may hold restates a declared allergy, and the rule for it has no escape hatch: the clause is
exactly one of the declared group's words in one of the frames of `RESTATEMENTS` (courtesy
aside), or it is read like any other clause; and the kitchen never reads it, because
`kitchen_notes` writes only modifiers and the allergy reaches the kitchen from the allergies field.

Which reading wins, when a clause has more than one: the menu's own spelling, whole, first. A
clause is read as it stands before a count is taken off either end, so an option whose name starts
with a number ("two sugars", "one shot", "1 sugar") is that option on every copy, never a count of
"sugars"; "two extra shot" is two copies of the extra shot, because "extra shot" is a spelling and
"two extra shot" is not. The same goes for courtesy: "warm please" (the menu's spelling of
"warmed") is read whole before "please" is taken off, and the first reading that names an option
for an item on the ticket wins ("warm please" on a latte is still "warm"). An allow-list accepts
every honest wording of an allowed option, so a clause is split at every colon and every "on",
"for" or "in", earliest first ("butter on the side on the avocado toast" at its second "on"), and
a split counts only when the item part is on the ticket and the rest is an option the menu spells:
however a clause splits, an unknown modifier or an item not on the ticket never gets through.

A word that cancels what it sits beside ("none", "n/a", "no": `cafe.consent.negation`) is never
dropped as courtesy ("extra shot: nil" is not the extra shot): a clause with one is read as the
option the menu spells for the negation ("sugar: none" is "no sugar"), or refused, so front of
house asks. Comparing a ticket's reading with the approved one is `cafe.consent.changes`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cafe.consent.negation import EMPTY_NOTES, LONE_WORDS, cancelled_clauses, negated_option
from cafe.schema.ticket import SPAN_CHARS, clip
from cafe.world.allergens import ALLERGEN_GROUPS, allergen_group
from cafe.world.menu import Menu, normalize_name
from cafe.world.modifiers import Modifier
from cafe.world.spelling import hidden_characters, spelling_key

__all__ = [
    "COURTESY",
    "RESTATEMENTS",
    "NoteModifier",
    "NoteProblem",
    "NoteReading",
    "read_notes",
    "kitchen_notes",
    "hidden_span",
]

# Words that say nothing to the kitchen: a clause of only these is skipped, and one at either end
# of a clause is dropped ("extra hot please"). An allow-list too: nothing else is ever skipped.
COURTESY: frozenset[str] = frozenset({"please", "pls", "thanks", "thank you", "cheers", "ta"})
# A clause of only these characters is an empty clause ("extra hot, ." or "-"); any other clause
# that reads as nothing ("```", "'}") is refused like any clause the menu does not define.
_FILLER = re.compile(r"[\s.,;:!?\-\u2010\u2011–—]*")
# Clauses are separated by commas, semicolons, line breaks, or "and", "&", "+" between words.
# A run of spaces is tried from its first space only, so a long run costs one attempt.
_CLAUSE = re.compile(r"[,;\n]+|(?<!\s)\s+(?:and|&|\+)\s+")
# How many copies a clause is for: "2 x decaf", "2x decaf", "two decaf", "decaf x2". Tried only
# after the clause as it stands, so "two sugars", the menu's own spelling, is never a count.
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT_FIRST = re.compile(r"(\d{1,2}|one|two|three|four|five|six)\s*(?:x\s+|x(?=\D)|\s)\s*(.+)")
_COUNT_LAST = re.compile(r"(.+?)\s*x\s*(\d{1,2})")
# Which item a clause is for: "latte: no foam", "no foam on the latte". Every colon, and every
# "on", "for" or "in" between words, is a place the clause may split (`_scopes`); the lookahead
# finds each once, however close together ("leave the bag in for the green tea").
_ITEM_FIRST = re.compile(r":")
_ITEM_LAST = re.compile(r"(?<=\S)(?=\s+(?:on|for|in)\s+(?:(?:the|my|each|both)\s+)?(\S.*))")
# The only ways a clause may restate a declared allergy: one of the group's own words
# (`cafe.world.allergens`) in one of these frames, and nothing else. A closed set, so a restated
# allergy carries no remark, bracket or severity the kitchen might act on ("milk allergy (whole
# milk is fine)", "mild egg allergy"); a bare "milk" could mean "add milk", so it is not one.
RESTATEMENTS: tuple[str, ...] = (
    "{} allergy",
    "{} allergies",
    "severe {} allergy",
    "allergy: {}",
    "allergic to {}",
    "{} free",
)


@dataclass(frozen=True)
class NoteModifier:
    """One modifier a note asks for: which, on which ticket items, for how many copies.

    `scoped` says the note named an item; `counted` that it named a number of copies.
    """

    modifier: Modifier
    items: frozenset[str]
    copies: int
    scoped: bool = False
    counted: bool = False

    @property
    def key(self) -> tuple[str, frozenset[str], int]:
        """What two notes must share to ask for the same thing, however each was written."""
        return (self.modifier.name, self.items, self.copies)

    def text(self) -> str:
        """This modifier in the menu's words: "extra hot", "latte: no foam", "2 x decaf"."""
        item = f"{' and '.join(sorted(self.items))}: " if self.scoped else ""
        count = f"{self.copies} x " if self.counted else ""
        return f"{item}{count}{self.modifier.name}"


@dataclass(frozen=True)
class NoteProblem:
    """A clause of a note that is not a modifier the menu defines for this ticket, and why."""

    clause: str
    reason: str


@dataclass(frozen=True)
class NoteReading:
    """What a note holds: the modifiers it asks for, the clauses it cannot, and hidden characters."""

    modifiers: tuple[NoteModifier, ...]
    problems: tuple[NoteProblem, ...]
    hidden: str = ""

    @property
    def clean(self) -> bool:
        """True when every clause is a modifier and nothing is hidden."""
        return not self.problems and not self.hidden


def _strip_courtesy(key: str) -> str:
    for word in COURTESY:
        if key.endswith(" " + word):
            key = key[: -len(word) - 1]
        if key.startswith(word + " "):
            key = key[len(word) + 1 :]
    return key


def _readings(rest: str) -> list[tuple[int | None, str]]:
    """The ways to read a clause as (copies, the modifier's words), in the order they are tried:
    the clause as it stands, then a count in front ("2 x decaf", "two decaf"), then one at the
    end ("decaf x2"). The first whose words the menu spells wins (see the module docstring)."""
    found: list[tuple[int | None, str]] = [(None, rest)]
    first = _COUNT_FIRST.fullmatch(rest)
    if first:
        word = first.group(1)
        found.append(((_NUMBERS[word] if word in _NUMBERS else int(word)), first.group(2)))
    last = _COUNT_LAST.fullmatch(rest)
    if last:
        found.append((int(last.group(2)), last.group(1)))
    return found


def _scopes(key: str, on_ticket: Counter[str]) -> list[tuple[str | None, str]]:
    """Every (ticket item, the rest) a clause may be read as, then (None, the clause whole).

    An allow-list accepts every honest wording of an allowed option, so every split point is
    tried ("butter on the side on the avocado toast" splits at its second "on"), and a split is
    kept only when its item part is an item on the ticket; the caller keeps one only when its
    rest is an option the menu spells. A named item not on the ticket leaves the clause whole.
    """
    splits = [(key[: m.start()], key[m.end() :]) for m in _ITEM_FIRST.finditer(key)]
    splits += [(m.group(1), key[: m.start()]) for m in _ITEM_LAST.finditer(key)]
    found: list[tuple[str | None, str]] = []
    for named, rest in splits:
        named, rest = normalize_name(named), rest.strip()
        item = next((c for c in (named, named.removesuffix("s")) if c in on_ticket), None)
        if item and rest:
            found.append((item, rest))
    return [*found, (None, key)]


def _options(
    key: str, whole: str, on_ticket: Counter[str], menu: Menu
) -> list[tuple[str | None, int | None, Modifier]]:
    """Every (item, count, modifier) reading of a clause that names a menu option, in the order
    they are tried: the clause `whole` (courtesy and all) before `key` (courtesy taken off), each
    read as it stands before a count is taken off it (`_readings`)."""
    found = []
    for text in dict.fromkeys((whole, key)):
        for item, rest in _scopes(text, on_ticket):
            for count, words in _readings(rest):
                modifier = menu.modifiers.get(spelling_key(words))
                if modifier is not None:
                    found.append((item, count, modifier))
    return found


def _fitted(
    item: str | None, count: int | None, modifier: Modifier, on_ticket: Counter[str]
) -> NoteModifier | str:
    """One reading fitted to the ticket: the items it applies to and its copies, or why not."""
    targets = frozenset(
        i for i in ([item] if item else on_ticket) if i is not None and modifier.applies(i)
    )
    if not targets:
        return f"{modifier.name!r} does not apply to anything on the ticket"
    available = sum(on_ticket[t] for t in targets)
    if count is not None and not 1 <= count <= available:
        return f"it asks for {count} copies, and the ticket has {available}"
    return NoteModifier(
        modifier, targets, count or available, scoped=item is not None, counted=count is not None
    )


def _clause(key: str, whole: str, on_ticket: Counter[str], menu: Menu) -> NoteModifier | str:
    """One clause as a modifier, or the reason it is not one: the first reading (`_options`)
    that fits the ticket, else why the first one does not. `key` is the clause in `spelling_key`
    form with courtesy taken off either end, `whole` the same with courtesy left on."""
    if not key:
        return "it says nothing a kitchen can act on"
    readings = _options(key, whole, on_ticket, menu)
    if not readings:
        # Only a clause that is no menu spelling as it stands is tried as a negation, so
        # "no foam x2" keeps its reading; a negated one is for every copy ("sugar: none").
        negations = [(item, negated_option(rest, menu)) for item, rest in _scopes(key, on_ticket)]
        readings = [(item, None, n) for item, n in negations if isinstance(n, Modifier)]
        if not readings:
            why = [n for _, n in negations if isinstance(n, str)]
            return why[0] if why else "it is not a kitchen modifier the menu defines"
    fitted = [_fitted(item, count, modifier, on_ticket) for item, count, modifier in readings]
    return next((read for read in fitted if not isinstance(read, str)), fitted[0])


def _restatements(allergies: Sequence[str]) -> frozenset[str]:
    """Every clause that only restates one of the declared `allergies`, in `spelling_key` form:
    each frame of `RESTATEMENTS` around each word of each declared group. A declared ingredient
    ("almonds") names no group, so it has none: the allergies field carries it."""
    groups = {g for a in allergies if (g := allergen_group(a)) is not None}
    words = {word for g in groups for word in ALLERGEN_GROUPS[g].names}
    return frozenset(frame.format(word) for frame in RESTATEMENTS for word in words)


def read_notes(
    notes: str, items: Sequence[str], menu: Menu, allergies: Sequence[str] = ()
) -> NoteReading:
    """Read `notes` for a ticket holding `items` against `menu`'s modifiers (see the docstring).

    A clause that is exactly a restatement of one of the declared `allergies` (`RESTATEMENTS`)
    is neither a modifier nor a problem, and `kitchen_notes` never writes it back: the kitchen
    reads the allergy from the approved allergies field. Anything more in the clause (a bracket,
    "mild", "comp") makes it a clause like any other, read as a modifier or refused.
    """
    if not isinstance(notes, str):
        raise TypeError(f"read_notes() takes the notes as text, not {type(notes).__name__}.")
    on_ticket = Counter(normalize_name(i) for i in items)
    hidden = hidden_characters(notes)
    gone = set(hidden)
    visible = "".join(char for char in notes if char not in gone) if hidden else notes
    restated = _restatements(allergies)
    clauses = [
        (raw, _strip_courtesy(spelling_key(raw)))
        for raw in _CLAUSE.split(unicodedata.normalize("NFKC", visible))
    ]
    said = [(raw, key) for raw, key in clauses if not (key in COURTESY or _FILLER.fullmatch(raw))]
    if all(key in EMPTY_NOTES for _, key in said):
        return NoteReading((), (), hidden)  # "none", "n/a, thanks": no notes
    lone = [next((r for _, r in _scopes(k, on_ticket) if r in LONE_WORDS), None) for _, k in said]
    cancelled = cancelled_clauses(lone)
    found: list[NoteModifier] = []
    problems: list[NoteProblem] = []
    for at, (raw, key) in enumerate(said):
        read = cancelled.get(at) or (
            None if key in restated else _clause(key, spelling_key(raw), on_ticket, menu)
        )
        if isinstance(read, str):
            problems.append(NoteProblem(clip(" ".join(raw.split())), read))
        elif read is not None:
            found.append(read)
    return NoteReading(tuple(found), tuple(problems), hidden)


def kitchen_notes(reading: NoteReading) -> str:
    """The notes a correct ticket holds: the modifiers in the menu's words, in a fixed order."""
    ordered = sorted(
        reading.modifiers,
        key=lambda m: (m.modifier.group, m.modifier.name, sorted(m.items), m.copies),
    )
    return ", ".join(m.text() for m in ordered)


def hidden_span(text: str, hidden: str, label: str = "") -> str:
    """`label`, then `text` as a reader sees it, then a count of the `hidden` characters they
    cannot see: how a failure quotes them (never the characters themselves, which a model could
    decode). The visible part is cut so that the whole fits a failure's span (`SPAN_CHARS`, which
    clips what is longer), so the count is always whole, however long the text."""
    gone = set(hidden)
    visible = "".join(char for char in text if char not in gone)
    counted = f"[+{len(hidden)} hidden characters]"
    room = SPAN_CHARS - len(counted) - 1 - (len(label) + 1 if label else 0)
    return " ".join(part for part in (label, clip(visible, room), counted) if part)
