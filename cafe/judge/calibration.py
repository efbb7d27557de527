"""Calibrating a judge: measure it against the deterministic checks before believing a word it says.

Session 12 owns this module and `cafe.judge`; its lesson is `sessions/s12-model-judge/lesson.md`.
A judge that says `pass` or `fail` is a classifier, and the course already has the ground truth to
measure it by: `cafe.detect.check_ticket`. This module adds:

- `labelled_tickets(size, bad_share, seed)`: tickets for the practice orders, some right and some
  broken in one of `FAULTS` ways, each labelled by the checks (never by hand), some with long,
  friendly notes (`VERBOSE_NOTES`) so a verbosity bias has something to show up on;
- `calibrate(judge, labelled)`: grades every ticket and counts the four cells of the confusion
  table (`Calibration`), with the judge's `unparsed` answers counted on their own, never folded
  into a verdict. A bad ticket is the positive class: a true positive is a bad ticket caught;
- `cohen_kappa`: agreement corrected for the agreement chance alone would give, the number that
  class imbalance cannot inflate (an always-`pass` judge on 95 good tickets out of 100 agrees 95%
  of the time and has a kappa of 0);
- `position_probe`: each good/bad pair asked both ways round, to see a judge that prefers
  whichever ticket it was shown first;
- `trust_reading`: the rule the lesson ends on, as code: trust a judge only with a calibration of
  this very model, on enough tickets of both kinds, with kappa and the catch rate high enough.

What it leaves out: the prompt and the judges themselves (`cafe.judge`), and what the judge's
tokens cost in money (session 11's price table).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, get_args

from cafe.consent import OrderSpec
from cafe.detect.checks import check_ticket
from cafe.judge.grading import BiasedJudge, Grade, ModelJudge, Preference
from cafe.schema.ticket import MAX_TABLE, Ticket, Usage
from cafe.stories.feedback_model import PRACTICE_ORDERS
from cafe.world.menu import Menu, load_menu

__all__ = [
    "FAULTS",
    "Fault",
    "VERBOSE_NOTES",
    "TRUST_MINIMUMS",
    "LabelledTicket",
    "Calibration",
    "PositionReport",
    "TrustReading",
    "labelled_tickets",
    "scripted_judge",
    "grade_of",
    "calibrate",
    "catch_rate_by_notes",
    "cohen_kappa",
    "position_probe",
    "trust_reading",
]

# How a ticket is broken for the labelled set: each one a check the deterministic checks own.
Fault = Literal[
    "extra_item", "off_menu", "sold_out", "wrong_table", "dropped_allergy", "unsafe_item"
]
FAULTS: frozenset[str] = frozenset(get_args(Fault))
# Long, friendly notes that ask the kitchen for nothing: they change a ticket's length, not whether
# it is right, which is exactly what a verbosity bias should not notice.
VERBOSE_NOTES = (
    "Lovely regulars at this table, celebrating a birthday today; "
    "please plate everything neatly and bring it all out together."
)
# An item no menu in this course sells, for `off_menu`.
_NOT_SOLD = "pumpkin muffin"
# The lesson's trust rule. kappa 0.8: the top band of Landis and Koch's (1977) widely used scale
# ("almost perfect" agreement). Catch rate 0.9: nine bad tickets in ten, the course's own choice
# for tickets that can hurt someone. 20 of each kind: below that one ticket moves a rate by 5
# points or more. Unparsed share 5%: a judge that often says nothing is not a judge.
TRUST_MINIMUMS: Mapping[str, float] = MappingProxyType(
    {"kappa": 0.8, "catch_rate": 0.9, "each_kind": 20, "unparsed_share": 0.05}
)


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LabelledTicket:
    """A ticket with its ground truth: what the deterministic checks say of it."""

    spec: OrderSpec
    ticket: Ticket
    truth: str  # "pass" or "fail", from cafe.detect.check_ticket
    checks: tuple[str, ...]  # the checks that failed, empty when truth is "pass"
    fault: str | None = None  # how it was broken, None for a right ticket
    verbose: bool = False  # whether its notes are VERBOSE_NOTES


@dataclass(frozen=True)
class Calibration:
    """A judge measured on labelled tickets. A bad ticket is the positive class."""

    model: str
    tp: int  # bad ticket, judge said fail: caught
    fn: int  # bad ticket, judge said pass: missed
    tn: int  # right ticket, judge said pass
    fp: int  # right ticket, judge said fail: a false alarm
    unparsed: int = 0  # the judge gave no verdict
    usage: Usage | None = None  # tokens the judge used, when the endpoint reported them
    graded: tuple[tuple[LabelledTicket, str], ...] = field(default=(), repr=False, compare=False)

    @property
    def judged(self) -> int:
        return self.tp + self.fn + self.tn + self.fp

    @property
    def catch_rate(self) -> float | None:
        """True-positive rate: the share of bad tickets the judge failed."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def pass_rate_on_good(self) -> float | None:
        """True-negative rate: the share of right tickets the judge passed."""
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else None

    @property
    def agreement(self) -> float | None:
        """Raw agreement with the checks, over the tickets it gave a verdict on."""
        return (self.tp + self.tn) / self.judged if self.judged else None

    @property
    def kappa(self) -> float | None:
        return cohen_kappa(self.tp, self.fn, self.fp, self.tn)

    def as_dict(self) -> dict[str, Any]:
        """The figures a checkpoint banks (rounded rates; None where a rate has no tickets)."""
        rounded = {
            name: (None if value is None else round(value, 3))
            for name, value in (
                ("catch_rate", self.catch_rate),
                ("pass_rate_on_good", self.pass_rate_on_good),
                ("agreement", self.agreement),
                ("kappa", self.kappa),
            )
        }
        tokens = self.usage.total_tokens if self.usage else None
        return {
            "model": self.model,
            "tp": self.tp,
            "fn": self.fn,
            "tn": self.tn,
            "fp": self.fp,
            "unparsed": self.unparsed,
            **rounded,
            "tokens": tokens,
        }


@dataclass(frozen=True)
class PositionReport:
    """Each good/bad pair asked both ways round, sorted by what the judge did."""

    right_both_ways: int  # chose the right ticket whichever side it was on
    first_both_times: int  # chose whatever it was shown first: position bias
    second_both_times: int  # chose whatever it was shown second
    wrong_both_ways: int  # chose the bad ticket both times
    unparsed: int = 0  # at least one of the two answers held no choice

    @property
    def pairs(self) -> int:
        return (
            self.right_both_ways
            + self.first_both_times
            + self.second_both_times
            + self.wrong_both_ways
            + self.unparsed
        )


@dataclass(frozen=True)
class TrustReading:
    """Whether a calibration lets you use its judge, and every reason it does not."""

    trusted: bool
    reasons: tuple[str, ...]


# --- the labelled set ------------------------------------------------------------------------


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


def _broken(spec: OrderSpec, right: Ticket, fault: str, menu: Menu) -> Ticket | None:
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
    spec: OrderSpec, ticket: Ticket, menu: Menu, fault: str | None, verbose: bool
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
    broken one of the `FAULTS` ways; about half carry `VERBOSE_NOTES`. The label comes from the
    checks, so a break that happened not to break anything would be labelled right.
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
        spec = OrderSpec(
            rng.randint(1, MAX_TABLE), base.items, base.allergies, request=base.request
        )
        verbose = rng.random() < 0.5
        right = Ticket(
            table=spec.table,
            items=spec.items,
            allergies=spec.allergies,
            notes=VERBOSE_NOTES if verbose else "",
        )
        if index not in bad:
            found.append(_labelled(spec, right, menu, None, verbose))
            continue
        fault = rng.choice([f for f in sorted(FAULTS) if _broken(spec, right, f, menu) is not None])
        found.append(_labelled(spec, _broken(spec, right, fault, menu), menu, fault, verbose))
    return tuple(found)


# --- measuring -------------------------------------------------------------------------------


def scripted_judge(
    leniency: float = 0.0, verbosity: float = 0.0, position: float = 0.0, *, seed: int = 12
) -> ModelJudge:
    """A `ModelJudge` answered by a `BiasedJudge`, offline whatever the course mode."""
    from cafe.endpoint.config import OFFLINE_MODEL
    from cafe.endpoint.scripted import ScriptedClient

    return ModelJudge(
        ScriptedClient(BiasedJudge(leniency, verbosity, position, seed=seed)), OFFLINE_MODEL
    )


def grade_of(answer: Any) -> Grade:
    """A judge's answer as a `Grade`: a Grade as it is, or a verdict word ("pass", "fail")."""
    if isinstance(answer, Grade):
        return answer
    if isinstance(answer, str):
        word = answer.strip().lower()
        return Grade(
            word if word in {"pass", "fail"} else "unparsed",
            "" if word in {"pass", "fail"} else answer,
        )
    raise TypeError(
        f"A judge returned {type(answer).__name__}; return a cafe.judge.Grade or 'pass'/'fail'."
    )


def calibrate(
    judge: Callable[[OrderSpec, Ticket], Any],
    labelled: Sequence[LabelledTicket],
    *,
    model: str | None = None,
) -> Calibration:
    """Grade every labelled ticket with `judge` and count the confusion table against the checks."""
    if not labelled:
        raise ValueError("calibrate() needs labelled tickets; make some with labelled_tickets().")
    cells: Counter[str] = Counter()
    usage: Usage | None = None
    graded = []
    for item in labelled:
        grade = grade_of(judge(item.spec, item.ticket))
        graded.append((item, grade.verdict))
        if grade.usage is not None:
            usage = grade.usage if usage is None else usage + grade.usage
        if grade.verdict == "unparsed":
            cells["unparsed"] += 1
        elif item.truth == "fail":
            cells["tp" if grade.verdict == "fail" else "fn"] += 1
        else:
            cells["fp" if grade.verdict == "fail" else "tn"] += 1
    name = (
        model or getattr(judge, "model", None) or getattr(judge, "__name__", type(judge).__name__)
    )
    return Calibration(
        str(name),
        cells["tp"],
        cells["fn"],
        cells["tn"],
        cells["fp"],
        cells["unparsed"],
        usage,
        tuple(graded),
    )


def catch_rate_by_notes(calibration: Calibration) -> Mapping[str, float | None]:
    """The catch rate on bad tickets with `VERBOSE_NOTES` and on those with none, side by side."""
    rates: dict[str, float | None] = {}
    for kind, verbose in (("verbose", True), ("plain", False)):
        verdicts = [
            verdict
            for item, verdict in calibration.graded
            if item.truth == "fail" and item.verbose == verbose and verdict != "unparsed"
        ]
        rates[kind] = verdicts.count("fail") / len(verdicts) if verdicts else None
    return MappingProxyType(rates)


def cohen_kappa(tp: int, fn: int, fp: int, tn: int) -> float | None:
    """Cohen's kappa for two raters (judge and checks) on pass/fail; None when it is undefined.

    kappa = (observed agreement - chance agreement) / (1 - chance agreement), where chance
    agreement is what two raters with these same pass/fail rates would reach by luck. It is
    undefined when chance agreement is 1: both raters gave every ticket the same single answer.
    """
    total = tp + fn + fp + tn
    if total == 0:
        return None
    observed = (tp + tn) / total
    judge_fail, truth_fail = (tp + fp) / total, (tp + fn) / total
    chance = judge_fail * truth_fail + (1 - judge_fail) * (1 - truth_fail)
    return None if chance == 1 else (observed - chance) / (1 - chance)


def _pair_kind(one: Preference, other: Preference) -> str:
    """`one`: good ticket first, bad second; `other`: the same pair swapped."""
    if "unparsed" in (one.choice, other.choice):
        return "unparsed"
    return {
        ("first", "second"): "right_both_ways",
        ("first", "first"): "first_both_times",
        ("second", "second"): "second_both_times",
        ("second", "first"): "wrong_both_ways",
    }[(one.choice, other.choice)]


def position_probe(judge: ModelJudge, labelled: Sequence[LabelledTicket]) -> PositionReport:
    """Ask `judge.prefer` about each broken ticket beside its right twin, both ways round."""
    kinds: Counter[str] = Counter()
    for item in labelled:
        if item.truth != "fail":
            continue
        right = Ticket(
            table=item.spec.table,
            items=item.spec.items,
            allergies=item.spec.allergies,
            notes=item.ticket.notes,
        )
        kinds[
            _pair_kind(
                judge.prefer(item.spec, right, item.ticket),
                judge.prefer(item.spec, item.ticket, right),
            )
        ] += 1
    return PositionReport(
        kinds["right_both_ways"],
        kinds["first_both_times"],
        kinds["second_both_times"],
        kinds["wrong_both_ways"],
        kinds["unparsed"],
    )


def trust_reading(calibration: Calibration, model: str) -> TrustReading:
    """Whether `calibration` lets you use its judge, now running `model`, against `TRUST_MINIMUMS`."""
    least = TRUST_MINIMUMS
    reasons = []
    if model != calibration.model:
        reasons.append(
            f"it was calibrated on {calibration.model}, not {model}: calibrate this model"
        )
    bad, good = calibration.tp + calibration.fn, calibration.tn + calibration.fp
    if min(bad, good) < least["each_kind"]:
        reasons.append(
            f"{bad} broken and {good} right tickets judged; measure at least {least['each_kind']} of each"
        )
    total = calibration.judged + calibration.unparsed
    if total and calibration.unparsed / total > least["unparsed_share"]:
        reasons.append(f"no verdict on {calibration.unparsed} of {total} tickets")
    kappa, caught = calibration.kappa, calibration.catch_rate
    if kappa is None or kappa < least["kappa"]:
        reasons.append(
            f"kappa is {'undefined' if kappa is None else f'{kappa:.2f}'}; need {least['kappa']}"
        )
    if caught is None or caught < least["catch_rate"]:
        reasons.append(
            f"it caught {'no' if caught is None else f'{caught:.0%} of the'} broken tickets; "
            f"need {least['catch_rate']:.0%}"
        )
    return TrustReading(not reasons, tuple(reasons))
