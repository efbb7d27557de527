"""The labelled tickets a judge is measured on: right and broken tickets, each labelled by the checks.

Session 12 (`sessions/s12-model-judge/lesson.md`, notebook `notebooks/s12-model-judge.ipynb`).
A judge that says `pass` or `fail` is a classifier, and the course already has the ground truth to
measure it by: `cafe.detect.check_ticket`. This module makes the tickets to measure on:

- `labelled_tickets(size, bad_share, seed)`: tickets for the practice orders, some right and some
  broken in one of `FAULTS` ways, each labelled by the checks (never by hand), some with long,
  friendly notes (`VERBOSE_NOTES`) so a verbosity bias has something to show up on;
- `LabelledTicket`: one of them, with its truth and the checks that failed.

What it leaves out: grading them and counting the confusion table (`cafe.judge.calibration`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal, get_args

from cafe.consent import OrderSpec
from cafe.detect.checks import check_ticket
from cafe.schema.ticket import MAX_TABLE, Ticket
from cafe.stories.feedback_model import PRACTICE_ORDERS
from cafe.world.menu import Menu, load_menu

__all__ = ["FAULTS", "Fault", "VERBOSE_NOTES", "LabelledTicket", "labelled_tickets"]

# How a ticket is broken for the labelled set: each one a check the deterministic checks own.
Fault = Literal[
    "extra_item", "off_menu", "sold_out", "wrong_table", "dropped_allergy", "unsafe_item"
]
FAULTS: frozenset[Fault] = frozenset(get_args(Fault))
# Long notes the customer asked for and front of house approved: service modifiers from the menu
# (any item takes them), so a ticket carrying them is exactly as right as one without. They change
# a ticket's length, not whether it is right, which is what a verbosity bias should not notice.
VERBOSE_NOTES = "to stay, window seat, bring together, no rush, cutlery, napkins"
# An item no menu in this course sells, for `off_menu`.
_NOT_SOLD = "pumpkin muffin"


@dataclass(frozen=True)
class LabelledTicket:
    """A ticket with its ground truth: what the deterministic checks say of it."""

    spec: OrderSpec
    ticket: Ticket
    truth: Literal["pass", "fail"]  # from cafe.detect.check_ticket
    checks: tuple[str, ...]  # the checks that failed, empty when truth is "pass"
    fault: Fault | None = None  # how it was broken, None for a right ticket
    verbose: bool = False  # whether its notes are VERBOSE_NOTES


def _allergen_item(spec: OrderSpec, menu: Menu) -> str | None:
    for allergy in spec.allergies:
        for item in menu.items.values():
            if (
                menu.contains(item.name, allergy)
                and not menu.is_sold_out(item.name)
                and item.name not in spec.items
            ):
                return item.name
    return None


def _broken(spec: OrderSpec, right: Ticket, fault: Fault, menu: Menu) -> Ticket | None:
    """`right` broken the `fault` way, or None when this order cannot be broken that way."""
    items = list(right.items)
    if fault == "extra_item":
        return right.model_copy(
            update={"items": (*items, "croissant" if "croissant" not in items else "espresso")}
        )
    if fault == "off_menu":
        return right.model_copy(update={"items": (*items, _NOT_SOLD)})
    if fault == "sold_out":
        return right.model_copy(update={"items": (*items[:-1], "cheese omelette")})
    if fault == "wrong_table":
        return right.model_copy(update={"table": right.table % MAX_TABLE + 1})
    if fault == "dropped_allergy":
        return right.model_copy(update={"allergies": ()}) if spec.allergies else None
    extra = _allergen_item(spec, menu)  # unsafe_item
    return right.model_copy(update={"items": (*items, extra)}) if extra else None


def _labelled(
    spec: OrderSpec, ticket: Ticket, menu: Menu, fault: Fault | None, verbose: bool
) -> LabelledTicket:
    failures = check_ticket(ticket, spec, menu)
    return LabelledTicket(
        spec,
        ticket,
        "fail" if failures else "pass",
        tuple(dict.fromkeys(f.check for f in failures)),
        fault,
        verbose,
    )


def labelled_tickets(
    size: int = 40, bad_share: float = 0.5, *, seed: int = 12, menu: Menu | None = None
) -> tuple[LabelledTicket, ...]:
    """`size` labelled tickets, `round(size * bad_share)` of them broken: the same every run for a seed.

    Each is a practice order moved to a random table, drafted right, then (for the broken ones)
    broken one of the `FAULTS` ways; about half carry `VERBOSE_NOTES`, approved on the order as
    well as written on the ticket. The label comes from the checks, so a break that happened not
    to break anything would be labelled right.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size is {size!r}; give a whole number of tickets, at least 1.")
    if not 0 <= bad_share <= 1:
        raise ValueError(
            f"bad_share is {bad_share!r}; give the share of broken tickets, from 0 to 1."
        )
    menu, rng = menu or load_menu(), random.Random(seed)
    bad = set(rng.sample(range(size), round(size * bad_share)))
    found: list[LabelledTicket] = []
    for index in range(size):
        base = rng.choice(PRACTICE_ORDERS)
        table, verbose = rng.randint(1, MAX_TABLE), rng.random() < 0.5
        notes = VERBOSE_NOTES if verbose else ""
        spec = OrderSpec(table, base.items, base.allergies, notes, base.request)
        right = Ticket(table=spec.table, items=spec.items, allergies=spec.allergies, notes=notes)
        if index not in bad:
            found.append(_labelled(spec, right, menu, None, verbose))
            continue
        ways = {f: _broken(spec, right, f, menu) for f in sorted(FAULTS)}
        broken = {fault: ticket for fault, ticket in ways.items() if ticket is not None}
        fault = rng.choice(list(broken))
        found.append(_labelled(spec, broken[fault], menu, fault, verbose))
    return tuple(found)
