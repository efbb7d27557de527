"""The consent gate after a draft: every way a ticket departs from the order the customer approved.

Session 05 (`sessions/s05-consent-gate/lesson.md`, notebook `notebooks/s05-consent-gate.ipynb`).
`order_changes()` lists every departure as a `Change` of one kind from `CHANGE_KINDS`,
`consent_findings()` turns them into the `Failure`s that `cafe.detect.check_ticket` reports, and
`within_consent()` is the yes/no form. What the gate does with each change, and why. A helpful
change is still a change:

- a swap (the omelette is 86'd, so tofu scramble), more of an item, an added item: rejected, and
  the retry is told to write what was ordered. The customer pays for it and may not want it.
- notes that are not the approved kitchen modifiers: rejected. Notes are read as an allow-list
  (`cafe.consent.notes`): a clause the menu does not define ("free refill", "paid", "and a
  croissant"), characters a reader cannot see, a real modifier nobody approved ("large"), or an
  approved one left off. Each fix states the notes a correct ticket holds, in the menu's words.
- an allergy on the ticket the customer never declared: rejected. The allergy field records what
  the customer said, and the kitchen acts on it; if their words mention one, a person asks. An
  allergy written with anything more than the allergen ("milk (and comp table 9)", hidden
  characters, "none" beside it) is rejected too: the field is not a second notes field.
- a declared allergen group written as an ingredient or any narrower word ("butter" for milk,
  "almond" for nuts): `renamed_allergy`, unsafe. Allergies are compared by
  `cafe.world.allergens.allergy_name`, which reads only a group's own words as the group.
- a dropped item, fewer of an item, the wrong table, a declared allergy left off, or a modifier
  that adds an allergen the customer declared ("whipped cream" for a milk allergy): rejected too.
  The approved order is a floor as well as a ceiling; the last two are `unsafe`.

What it leaves out: the menu checks themselves (`cafe.detect`, session 06), and orders no ticket
can pass, which are asked about before any draft (`cafe.consent.confirm`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal, get_args

from cafe.consent.notes import NoteReading, hidden_span, kitchen_notes, read_notes
from cafe.consent.spec import OrderSpec
from cafe.schema.ticket import Failure, Ticket, clip
from cafe.world.allergens import allergen_key, allergy_name, is_no_allergy
from cafe.world.menu import Menu, load_menu, normalize_name
from cafe.world.spelling import hidden_characters

__all__ = [
    "CHANGE_KINDS",
    "ChangeKind",
    "UNSAFE_CHANGES",
    "Change",
    "order_changes",
    "consent_findings",
    "within_consent",
]

# Every way a ticket can depart from the approved order, declared once; `order_changes` reports
# nothing else. Each is rejected; those in `UNSAFE_CHANGES` are reported as `unsafe`.
ChangeKind = Literal[
    "table",
    "substituted",
    "added",
    "more",
    "dropped",
    "fewer",
    "missing_allergy",
    "undeclared_allergy",
    "renamed_allergy",
    "unlisted_allergy",
    "unlisted_note",
    "hidden_note",
    "note_added",
    "note_dropped",
    "unsafe_note",
]
CHANGE_KINDS: frozenset[str] = frozenset(get_args(ChangeKind))
# The changes that can hurt someone: a declared allergy left off or renamed (a kitchen told
# "butter" may serve milk), a modifier that adds one.
UNSAFE_CHANGES: frozenset[str] = frozenset({"missing_allergy", "renamed_allergy", "unsafe_note"})


@dataclass(frozen=True)
class Change:
    """One way a ticket departs from the approved order: its kind, the span, and the fix."""

    kind: ChangeKind
    span: str
    fix: str

    def __post_init__(self) -> None:
        if self.kind not in CHANGE_KINDS:
            raise ValueError(f"Change.kind is {self.kind!r}; use one of {sorted(CHANGE_KINDS)}.")

    def failure(self) -> Failure:
        """The change as a check finding: `unsafe` for `UNSAFE_CHANGES`, else `out_of_scope`."""
        return Failure(
            "unsafe" if self.kind in UNSAFE_CHANGES else "out_of_scope", self.span, self.fix
        )


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _swaps(gone: list[str], new: list[str]) -> list[tuple[str, str]]:
    """Each dropped item paired with an added one as a swap: one sharing a word first ("latte" and
    "oat latte"), else the next in order. Dropped items left over when added ones run out stay unpaired."""
    left, pairs = list(new), []
    for was in gone[: len(new)]:
        put = next((item for item in left if set(item.split()) & set(was.split())), left[0])
        left.remove(put)
        pairs.append((was, put))
    return pairs


def _item_changes(ticket: Ticket, spec: OrderSpec) -> list[Change]:
    """Swaps, additions, extra copies, drops and missing copies, comparing item counts."""
    asked = Counter(normalize_name(i) for i in spec.items)
    drafted = Counter(normalize_name(i) for i in ticket.items)
    new = sorted(Counter({i: n for i, n in drafted.items() if i not in asked}).elements())
    gone = sorted(Counter({i: n for i, n in asked.items() if i not in drafted}).elements())
    swaps = _swaps(gone, new)
    found = [
        Change(
            "substituted",
            f"{clip(put)} in place of {clip(was, 30)}",
            f"put {was} back and take {clip(put)} off: the customer did not order it, and a swap "
            "needs their yes",
        )
        for was, put in swaps
    ]
    added = sorted((Counter(new) - Counter(put for _, put in swaps)).elements())
    found += [
        Change("added", item, f"remove {clip(item)}: the customer did not order it")
        for item in added
    ]
    for item in sorted(set(asked) & set(drafted)):
        if drafted[item] > asked[item]:
            found.append(
                Change(
                    "more",
                    f"{item} x{drafted[item]}",
                    f"list {item} {_times(asked[item])}, as "
                    f"ordered: the customer did not order {drafted[item] - asked[item]} more",
                )
            )
        elif drafted[item] < asked[item]:
            found.append(
                Change(
                    "fewer",
                    f"{item} x{drafted[item]}",
                    f"list {item} {_times(asked[item])}: the customer ordered that many",
                )
            )
    found += [
        Change("dropped", f"(missing) {item}", f"put {clip(item)} back: the customer ordered it")
        for item in gone[len(swaps) :]
    ]
    return found


def _written_allergies(ticket: Ticket, spec: OrderSpec) -> tuple[list[Change], dict[str, str]]:
    """Hidden characters, and "none" beside an allergy, as changes; the rest by `allergy_name`."""
    found: list[Change] = []
    on_ticket: dict[str, str] = {}
    nothing = []
    for written in ticket.allergies:
        hidden = hidden_characters(written)
        if hidden:
            found.append(
                Change(
                    "unlisted_allergy",
                    hidden_span(written, hidden, "(allergy)"),
                    "write the allergy as plain text, with no invisible characters; the field "
                    "records what the customer declared, and nothing else",
                )
            )
        elif is_no_allergy(written):
            nothing.append(written)
            continue
        on_ticket.setdefault(allergy_name(written), written)
    if nothing and (on_ticket or spec.allergies):
        found.append(
            Change(
                "unlisted_allergy",
                f"(allergy) {clip(nothing[0])} beside an allergy",
                f"leave {clip(nothing[0])!r} out: the customer declared an allergy, so the "
                "ticket lists it and never says there is none",
            )
        )
    return found, on_ticket


def _renamed(on_ticket: dict[str, str], spec: OrderSpec) -> dict[str, str]:
    """Each declared allergy missing from the ticket that another word of its group stands in
    for ("butter" for milk, "almond" for nuts): declared -> written."""
    names = {allergy_name(a): a for a in spec.allergies}
    renamed = {}
    for name, written in on_ticket.items():
        if name in names:
            continue
        stand_in = [
            a
            for n, a in names.items()
            if n not in on_ticket and allergen_key(a) == allergen_key(written)
        ]
        if stand_in and stand_in[0] not in renamed:
            renamed[stand_in[0]] = written
    return renamed


def _allergy_changes(ticket: Ticket, spec: OrderSpec) -> list[Change]:
    """The allergies compared by `allergy_name`: a group is named by its own words, and an
    ingredient or another word under it is a change, never the same allergy."""
    found, on_ticket = _written_allergies(ticket, spec)
    renamed = _renamed(on_ticket, spec)
    found += [
        Change(
            "renamed_allergy",
            f"(allergy) {clip(written)} for {clip(declared)}",
            f"write {clip(declared)!r}, as declared: {clip(written)!r} is not the allergy the "
            "customer declared, and a kitchen told a narrower one may serve the rest of the group",
        )
        for declared, written in renamed.items()
    ]
    found += [
        Change(
            "missing_allergy",
            f"(missing allergy) {allergy}",
            f"list {clip(allergy)} in allergies: the customer declared it",
        )
        for allergy in spec.allergies
        if allergy_name(allergy) not in on_ticket and allergy not in renamed
    ]
    declared = {allergy_name(a) for a in spec.allergies}
    found += [
        Change(
            "undeclared_allergy",
            f"(undeclared allergy) {clip(written)}",
            f"remove {clip(written)} from allergies: the customer did not declare it; "
            "if they mentioned it, front of house asks them",
        )
        for name, written in on_ticket.items()
        if name not in declared and written not in renamed.values()
    ]
    return found


def _target(approved: NoteReading) -> str:
    """The end of every fix about the notes: what a correct ticket's notes hold."""
    notes = kitchen_notes(approved)
    return f"the notes must read {notes!r}" if notes else "the notes must be empty"


def _unreadable_notes(ticket: Ticket, reading: NoteReading, target: str) -> list[Change]:
    """Hidden characters, and clauses that are not modifiers the menu defines for this order."""
    found = []
    if reading.hidden:
        found.append(
            Change(
                "hidden_note",
                hidden_span(ticket.notes, reading.hidden, "(notes)"),
                f"write the notes as plain text, with no invisible characters; {target}",
            )
        )
    return found + [
        Change(
            "unlisted_note",
            f"(notes) {problem.clause}",
            f"leave it out: {problem.reason}, and a customer's words are a request, not a "
            f"kitchen instruction; {target}",
        )
        for problem in reading.problems
    ]


def _note_changes(ticket: Ticket, spec: OrderSpec, menu: Menu) -> list[Change]:
    """The notes compared with the approved notes, both read as the menu's modifiers.

    Both are read against the approved items: a ticket's items are compared on their own, and a
    ticket that passes holds exactly those items, so a swapped item is one change, not three.
    """
    reading = read_notes(ticket.notes, spec.items, menu, spec.allergies)
    approved = read_notes(spec.notes, spec.items, menu, spec.allergies)
    target = _target(approved)
    found = _unreadable_notes(ticket, reading, target)
    have = Counter(m.key for m in reading.modifiers)
    want = Counter(m.key for m in approved.modifiers)
    texts = {m.key: m.text() for m in (*approved.modifiers, *reading.modifiers)}
    found += [
        Change("note_added", f"(notes) {texts[key]}", f"leave it out: nobody approved it; {target}")
        for key in sorted((have - want).elements(), key=str)
    ]
    found += [
        Change(
            "note_dropped",
            f"(missing note) {texts[key]}",
            f"put it back: the customer approved it; {target}",
        )
        for key in sorted((want - have).elements(), key=str)
    ]
    declared = {allergen_key(a) for a in spec.allergies}
    found += [
        Change(
            "unsafe_note",
            f"{note.modifier.name} contains {allergen}",
            f"leave {note.modifier.name!r} out: the customer declared {allergen}; {target}",
        )
        for note in reading.modifiers
        for allergen in sorted({allergen_key(a) for a in note.modifier.allergens} & declared)
    ]
    return found


def order_changes(ticket: Ticket, spec: OrderSpec, menu: Menu | None = None) -> tuple[Change, ...]:
    """Every way `ticket` departs from the approved `spec`, in a fixed order (empty when none).

    `menu` defines the kitchen modifiers the notes may hold (the course's menu when None).
    """
    if not isinstance(ticket, Ticket) or not isinstance(spec, OrderSpec):
        raise TypeError(
            "order_changes(ticket, spec) takes a cafe.schema.Ticket and a cafe.consent.OrderSpec, "
            f"not {type(ticket).__name__} and {type(spec).__name__}."
        )
    menu = load_menu() if menu is None else menu
    found = []
    if ticket.table != spec.table:
        found.append(
            Change("table", f"table {ticket.table}", f"table must be {spec.table}, as ordered")
        )
    return tuple(
        found
        + _item_changes(ticket, spec)
        + _allergy_changes(ticket, spec)
        + _note_changes(ticket, spec, menu)
    )


def consent_findings(ticket: Ticket, spec: OrderSpec, menu: Menu | None = None) -> list[Failure]:
    """The changes as findings for `cafe.detect.check_ticket`: one `Failure` per `Change`."""
    return [change.failure() for change in order_changes(ticket, spec, menu)]


def within_consent(ticket: Ticket, spec: OrderSpec, menu: Menu | None = None) -> bool:
    """Whether the ticket holds exactly the approved order: no change of any kind."""
    return not order_changes(ticket, spec, menu)
