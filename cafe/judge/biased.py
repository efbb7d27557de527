"""A scripted judge with biases you can dial, each realised exactly on the tickets it is told about.

Session 12 (`sessions/s12-model-judge/lesson.md`, notebook `notebooks/s12-model-judge.ipynb`).
`cafe.judge.grading` asks a model; offline, the course needs a judge whose mistakes are known in
advance, so a calibration can be checked against them. This module adds:

- `BiasedJudge`: a `Script` responder for `make_client`. It knows the deterministic checks'
  answer (it runs `cafe.detect.check_ticket`) and errs on purpose in three ways: `leniency` (a
  broken ticket passes anyway), `verbosity` (a broken ticket with long, friendly notes passes
  more often) and `position` (asked which of two tickets is better, it names the first shown);
- `quota_keys`: how a dial becomes a count: of the `n` requests in one group, exactly
  `floor(rate * n + 0.5)` are picked, by a seeded draw per request.

Why quotas. A judge "letting 30% of broken tickets through" should let 30% through. Drawing one
seeded coin per ticket does not: on 20 broken tickets the share let through is a binomial sample
(anywhere from 1 to 15 for the same dial), so a calibration would measure the coin, not the
dial. Given the tickets it will be graded on (`tickets`) and the pairs it will be asked about
(`pairs`), the judge fixes in advance which ones its bias acts on: per group (plain broken
tickets at `leniency`; broken tickets with long notes at `leniency + verbosity`; pairs at
`position`), exactly the quota, whatever order they are asked in. A request outside those lists
falls back to the per-request draw, whose rate is only expected, not realised.

What it leaves out: the prompt, the reading of replies and `ModelJudge` (`cafe.judge.grading`),
and measuring a judge (`cafe.judge.calibration`). A real model's biases have no dials.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

from cafe.consent import OrderSpec
from cafe.detect.checks import check_ticket
from cafe.judge.grading import (
    VERBOSE_NOTES_CHARS,
    Verdict,
    order_text,
    read_grade_request,
    ticket_text,
)
from cafe.schema.ticket import Ticket
from cafe.world.menu import Menu, load_menu

__all__ = ["quota_keys", "BiasedJudge"]

Key = TypeVar("Key", bound=Hashable)
# One graded ticket, and one pairwise question (the first ticket shown, then the second), as text.
_GradeKey = tuple[str, str]
_PairKey = tuple[str, str, str]


def quota_keys(keys: Sequence[Key], rate: float, draw: Callable[[Key], float]) -> frozenset[Key]:
    """The keys a dial of `rate` acts on: exactly `floor(rate * len(keys) + 0.5)` of them.

    Keys are counted with multiplicity (a ticket graded twice counts twice) and taken lowest
    `draw` first, ties broken by the key's text, so the choice is the same every run. Half rounds
    up (Python's `round` would round half to even). A key whose copies would overshoot the quota
    is skipped for the next; only when nothing but such duplicates is left does the count fall
    short, to the closest count below.
    """
    want = math.floor(rate * len(keys) + 0.5)
    counts = Counter(keys)
    chosen: set[Key] = set()
    taken = 0
    for key in sorted(counts, key=lambda k: (draw(k), str(k))):
        if taken == want:
            break
        if taken + counts[key] <= want:
            chosen.add(key)
            taken += counts[key]
    return frozenset(chosen)


def _verbose(ticket: Ticket) -> bool:
    """Whether the ticket's notes are long enough to sway a judge with a verbosity bias."""
    return len(ticket.notes) > VERBOSE_NOTES_CHARS


def _rate(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(
            f"BiasedJudge {name}={value!r}; give a share from 0 to 1, e.g. {name}=0.3."
        )
    return float(value)


class BiasedJudge:
    """A scripted judge (a `Script` responder for `make_client`) with biases you set.

    It reads the order and ticket from the request, runs the deterministic checks, and answers
    as a judge would, except: of the broken tickets in `tickets`, it passes exactly the share
    `leniency` (or `leniency + verbosity` of those whose notes are longer than
    `VERBOSE_NOTES_CHARS`); and of the questions in `pairs` (order, first ticket, second ticket),
    it names the first ticket shown in exactly the share `position`, whatever they hold. Which
    ones is a seeded draw, so verdicts never depend on the order requests arrive in. A request
    outside `tickets` or `pairs` gets its own draw, at the dial's rate on average.
    """

    def __init__(
        self,
        leniency: float = 0.0,
        verbosity: float = 0.0,
        position: float = 0.0,
        *,
        seed: int = 12,
        menu: Menu | None = None,
        tickets: Sequence[tuple[OrderSpec, Ticket]] = (),
        pairs: Sequence[tuple[OrderSpec, Ticket, Ticket]] = (),
    ):
        self.leniency, self.verbosity = _rate("leniency", leniency), _rate("verbosity", verbosity)
        self.position = _rate("position", position)
        if self.leniency + self.verbosity > 1:
            raise ValueError(
                f"BiasedJudge leniency + verbosity is {self.leniency + self.verbosity}; "
                "keep their sum at most 1 (it is the share of verbose bad tickets that pass)."
            )
        self.seed, self.menu = seed, menu or load_menu()
        self._graded, self._lenient = self._grade_quota(tickets)
        self._asked, self._first = self._pair_quota(pairs)

    def _draw(self, *key: str) -> float:
        return random.Random("|".join((str(self.seed), *key))).random()

    def _slack(self, ticket: Ticket) -> float:
        """The share of broken tickets like this one that pass: more when its notes are long."""
        return self.leniency + (self.verbosity if _verbose(ticket) else 0.0)

    def _grade_quota(
        self, tickets: Sequence[tuple[OrderSpec, Ticket]]
    ) -> tuple[frozenset[_GradeKey], frozenset[_GradeKey]]:
        """The broken tickets it will be asked about, and the ones it lets through."""
        groups: dict[bool, list[_GradeKey]] = {False: [], True: []}  # by "has long notes"
        for spec, ticket in tickets:
            if check_ticket(ticket, spec, self.menu):
                key = (order_text(spec), ticket_text(ticket))
                groups[_verbose(ticket)].append(key)
        lenient: set[_GradeKey] = set()
        for verbose, keys in groups.items():
            slack = self.leniency + (self.verbosity if verbose else 0.0)
            lenient |= quota_keys(keys, slack, lambda key: self._draw("grade", *key))
        return frozenset(groups[False] + groups[True]), frozenset(lenient)

    def _pair_quota(
        self, pairs: Sequence[tuple[OrderSpec, Ticket, Ticket]]
    ) -> tuple[frozenset[_PairKey], frozenset[_PairKey]]:
        """The pairs it will be asked about, and the ones where it names the first shown.

        The quota is taken apart among the pairs whose better ticket is shown second (where the
        bias changes the answer) and the others (where it agrees with the honest one), so the
        share is exact in each, and over all of them.
        """
        honest: dict[bool, list[_PairKey]] = {True: [], False: []}
        for spec, first, second in pairs:
            key = (order_text(spec), ticket_text(first), ticket_text(second))
            honest[self._second_is_better(spec, first, second)].append(key)
        first_named: set[_PairKey] = set()
        for keys in honest.values():
            first_named |= quota_keys(keys, self.position, lambda key: self._draw("prefer", *key))
        return frozenset(honest[True] + honest[False]), frozenset(first_named)

    def _second_is_better(self, spec: OrderSpec, first: Ticket, second: Ticket) -> bool:
        wrong = [len(check_ticket(ticket, spec, self.menu)) for ticket in (first, second)]
        return wrong[1] < wrong[0]

    def grade(self, spec: OrderSpec, ticket: Ticket) -> tuple[Verdict, str]:
        """The judge's verdict and reason for one ticket."""
        failures = check_ticket(ticket, spec, self.menu)
        if not failures:
            return "pass", "the ticket holds exactly the approved order"
        key = (order_text(spec), ticket_text(ticket))
        lenient = (
            key in self._lenient
            if key in self._graded
            else self._draw("grade", *key) < self._slack(ticket)
        )
        if lenient:
            return "pass", "looks fine to me"
        return "fail", f"{failures[0].check}: {failures[0].span}"

    def prefer(self, spec: OrderSpec, first: Ticket, second: Ticket) -> Mapping[str, str]:
        """The judge's answer to "which is better?": "A" (the first shown) or "B", and why."""
        key = (order_text(spec), ticket_text(first), ticket_text(second))
        biased = (
            key in self._first if key in self._asked else self._draw("prefer", *key) < self.position
        )
        if biased:
            return {"better": "A", "reason": "the first one reads well"}
        better = "B" if self._second_is_better(spec, first, second) else "A"
        return {"better": better, "reason": "fewer problems"}

    def __call__(self, request: Mapping[str, Any]) -> str:
        users = [m.get("content") for m in request.get("messages", []) if m.get("role") == "user"]
        read = read_grade_request(users[-1]) if users and isinstance(users[-1], str) else None
        if read is None:
            return "I need an order and a ticket between the markers to judge anything."
        spec, tickets = read
        if len(tickets) == 1:
            verdict, reason = self.grade(spec, tickets[0])
            return json.dumps({"verdict": verdict, "reason": reason})
        return json.dumps(self.prefer(spec, *tickets[:2]))
