"""The consent gate: the order the customer approved is the ceiling on what a ticket may hold.

Session 05 owns this module; its lesson (`sessions/s05-consent-gate`) is being written. It adds:

- `OrderSpec`: the order as front of house approved it (table, items, declared allergies, notes),
  plus the customer's own words, which stay untrusted;
- `consent_findings()`: how a drafted ticket differs from that order (the wrong table, an item
  added or dropped, a declared allergy left off).

What it leaves out: scanning the customer's words for injections and checking items against the
menu (`cafe.detect`, session 06), and what to do about a finding (`cafe.repair`, session 07).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cafe.menu import allergen_key, is_no_allergy, normalize_name
from cafe.schema import MAX_TABLE, Failure, Ticket, clip

__all__ = ["OrderSpec", "consent_findings"]


@dataclass(frozen=True)
class OrderSpec:
    """An order as front of house approved it. `request` is the customer's words: untrusted text.

    Lists are accepted and stored as tuples, so a spec can never be changed after it is made.
    An allergy that means "none" ("none", "n/a", "") is dropped: it declares no allergy.
    """

    table: int
    items: tuple[str, ...]
    allergies: tuple[str, ...] = ()
    notes: str = ""
    request: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.table, bool) or not isinstance(self.table, int) or not 1 <= self.table <= MAX_TABLE:
            raise ValueError(f"OrderSpec.table is {self.table!r}; give a table number from 1 to {MAX_TABLE}.")
        for name in ("items", "allergies"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise TypeError(f"OrderSpec.{name} must be a list of strings, e.g. ['latte'], not {value!r}.")
            object.__setattr__(self, name, tuple(value))
        object.__setattr__(self, "allergies", tuple(a for a in self.allergies if not is_no_allergy(a)))
        if not self.items:
            raise ValueError("OrderSpec.items is empty; an order needs at least one item, e.g. items=['latte'].")
        for name in ("notes", "request"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"OrderSpec.{name} must be text, not {type(getattr(self, name)).__name__}.")


def consent_findings(ticket: Ticket, spec: OrderSpec) -> list[Failure]:
    """How a ticket differs from the order the customer approved: table, items, declared allergies."""
    found = []
    if ticket.table != spec.table:
        found.append(Failure("out_of_scope", f"table {ticket.table}", f"table must be {spec.table}, as ordered"))
    asked = Counter(normalize_name(i) for i in spec.items)
    drafted = Counter(normalize_name(i) for i in ticket.items)
    for item in sorted((drafted - asked).elements()):
        found.append(Failure("out_of_scope", item, f"remove {clip(item)}: the customer did not order it"))
    for item in sorted((asked - drafted).elements()):
        found.append(Failure("out_of_scope", f"(missing) {item}", f"put {clip(item)} back: the customer ordered it"))
    on_ticket = {allergen_key(a) for a in ticket.allergies if not is_no_allergy(a)}
    for allergy in spec.allergies:
        if allergen_key(allergy) not in on_ticket:
            found.append(Failure("unsafe", f"(missing allergy) {allergy}",
                                 f"list {allergy} in allergies: the customer declared it"))
    return found
