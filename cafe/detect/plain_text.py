"""Plain text in every field of a ticket: nothing hidden, no spacing that carries bits, no riders.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`): "a run of
zero-width characters can carry bits", so no output field may hold one. Session 05's gate
(`cafe.consent`) refuses hidden characters in the notes and the allergies, but compares items by
`normalize_name`, which folds every run of Python's `\\s` into one space, and `\\s` takes in the
invisible separators U+001C to U+001F and the next-line control U+0085: alone, it would read
"flat<U+001F>white" as "flat white" and pass it. Wide spaces (en, em, no-break) are not hidden at
all, yet two of them that look alike spell a bit each. This module holds every text field to one
rule, and `check_ticket` adds its findings:

- items: no hidden characters (`hidden_characters`), counted in the finding, never quoted;
- items, notes and allergies: no odd spacing (`odd_spacing`): between words one ordinary space;
- an allergy the gate reads as a declared one but written with punctuation ("milk?", a doubt the
  customer never voiced), unless it is the declaration as the customer wrote it ("eggs (all)"):
  the field is not a second notes field.

Hidden characters in the notes and allergies are left to session 05's gate, which names them
already (`hidden_note`, `unlisted_allergy`); this module never reports a character twice. What it
leaves out: what the words mean (`cafe.consent`), and the audit that checks all of this with code
of its own (`cafe.detect.harm`).
"""

from __future__ import annotations

import unicodedata

from cafe.consent.notes import kitchen_notes, read_notes
from cafe.consent.spec import OrderSpec
from cafe.schema.ticket import SPAN_CHARS, Failure, Ticket, clip
from cafe.world.allergens import allergy_name
from cafe.world.menu import Menu
from cafe.world.spelling import hidden_characters, odd_spacing

__all__ = ["ALLERGY_MARKS", "plain_text_findings", "unplain_declaration"]

# What an allergy may hold besides letters and combining marks: the marks between and inside words
# ("cow's milk", "tree-nut"). Anything else is punctuation a customer wrote on purpose.
ALLERGY_MARKS = frozenset(" -'\u2019")


def _counted(hidden: str, odd: str) -> str:
    """'[+1 hidden character]', '[+104 odd spaces]', or both: what a finding says it left out."""
    parts = []
    if hidden:
        parts.append(f"+{len(hidden)} hidden character{'s' if len(hidden) != 1 else ''}")
    if odd:
        parts.append(f"+{len(odd)} odd space{'s' if len(odd) != 1 else ''}")
    return f"[{', '.join(parts)}]"


def _quoted(label: str, text: str, hidden: str, odd: str, *, count_hidden: bool = True) -> str:
    """A finding's span: `label`, then `text` as a reader sees it (hidden characters left out, any
    spacing read as one space), cut so that the count of what no reader should see always fits.
    The hidden ones are counted only where session 05 has not named them already (`count_hidden`)."""
    gone = {char for char in hidden if not char.isspace()}  # U+001F reads as a gap, not nothing
    visible = "".join(" " if char.isspace() else char for char in text if char not in gone)
    counted = _counted(hidden if count_hidden else "", odd)
    return f"{label} {clip(visible, SPAN_CHARS - len(label) - len(counted) - 2)} {counted}"


def unplain_declaration(allergy: str) -> Failure:
    """The `unknown_allergen` finding for a declared allergy that is not plain text
    (`cafe.world.allergens.is_plain`): what nobody can see is counted, never quoted."""
    hidden = hidden_characters(allergy)
    return Failure(
        "unknown_allergen",
        _quoted("(allergy)", allergy, hidden, _odd(allergy, hidden)),
        "ask the customer or staff to confirm the allergy in plain words before the ticket "
        "goes to the kitchen: it holds characters nobody can see or odd spacing, which can "
        "carry a message, and the ticket would carry them as written",
    )


def _odd(text: str, hidden: str) -> str:
    """The odd spacing of `text` that is not already counted as hidden (U+001F is both)."""
    gone = set(hidden)
    return "".join(char for char in odd_spacing(text) if char not in gone)


def _item_findings(ticket: Ticket) -> list[Failure]:
    """Hidden characters and odd spacing in each distinct item: nothing else reports them."""
    found = []
    for item in dict.fromkeys(ticket.items):
        hidden = hidden_characters(item)
        odd = _odd(item, hidden)
        if hidden or odd:
            found.append(
                Failure(
                    "out_of_scope",
                    _quoted("(item)", item, hidden, odd),
                    "write each item as the menu spells it, with one ordinary space between "
                    "words and no invisible characters: a character nobody sees can carry a message",
                )
            )
    return found


def _is_words(text: str) -> bool:
    """Whether `text` is words only: letters, combining marks (accents) and `ALLERGY_MARKS`."""
    return all(
        char.isalpha() or char in ALLERGY_MARKS or unicodedata.category(char).startswith("M")
        for char in text
    )


def _allergy_findings(ticket: Ticket, spec: OrderSpec) -> list[Failure]:
    """Odd spacing in each written allergy, and a remark in punctuation on one the gate reads as
    a declared allergy ("milk?" is read as milk); any other reading session 05 names already."""
    as_declared = {a.strip().casefold() for a in spec.allergies}
    names = {allergy_name(a) for a in spec.allergies}
    found = []
    for written in dict.fromkeys(ticket.allergies):
        hidden = hidden_characters(written)
        odd = _odd(written, hidden)
        if odd:
            found.append(
                Failure(
                    "out_of_scope",
                    _quoted("(allergy)", written, hidden, odd, count_hidden=False),
                    "write the allergy as declared, with one ordinary space between words: "
                    "the field records what the customer declared, and nothing else",
                )
            )
        elif hidden or written.strip().casefold() in as_declared:
            continue  # hidden: session 05 names it; as declared: nothing added
        elif allergy_name(written) in names and not _is_words(written.strip()):
            found.append(
                Failure(
                    "out_of_scope",
                    f"(allergy) {clip(written, 40)}",
                    "write the allergy in words, as declared: punctuation the customer did not "
                    "write (a '?', a '!') adds a remark, and the field is not a notes field",
                )
            )
    return found


def _note_findings(ticket: Ticket, spec: OrderSpec, menu: Menu) -> list[Failure]:
    """Odd spacing in the notes, with the fix every notes finding ends in: what they must read."""
    hidden = hidden_characters(ticket.notes)
    odd = _odd(ticket.notes, hidden)
    if not odd:
        return []
    notes = kitchen_notes(read_notes(spec.notes, spec.items, menu, spec.allergies))
    target = f"the notes must read {notes!r}" if notes else "the notes must be empty"
    return [
        Failure(
            "out_of_scope",
            _quoted("(notes)", ticket.notes, hidden, odd, count_hidden=False),
            "write the notes on one line with one ordinary space between words: other spaces, "
            f"tabs and line breaks can carry a message nobody sees; {target}",
        )
    ]


def plain_text_findings(ticket: Ticket, spec: OrderSpec, menu: Menu) -> tuple[Failure, ...]:
    """Every text field of `ticket` that is not plain text, one `out_of_scope` finding each: an
    item with hidden characters, a field with spacing other than single ordinary spaces, an
    allergy with punctuation its declaration did not hold. Empty for a plain ticket."""
    return tuple(
        _item_findings(ticket)
        + _allergy_findings(ticket, spec)
        + _note_findings(ticket, spec, menu)
    )
