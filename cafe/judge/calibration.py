"""Calibrating a judge: measure it against the deterministic checks before believing a word it says.

Session 12 (`sessions/s12-model-judge/lesson.md`, notebook `notebooks/s12-model-judge.ipynb`).
A judge that says `pass` or `fail` is a classifier, and the labelled tickets of
`cafe.judge.labelled` carry the checks' answer. This module adds:

- `calibrate(judge, labelled)`: grades every ticket and counts the four cells of the confusion
  table (`Calibration`), with the judge's `unparsed` answers counted on their own, never folded
  into a verdict, and the tickets the endpoint failed on (`failed`: a timeout, a dropped
  connection) counted apart again: one slow reply costs one ticket, not the calibration. A bad
  ticket is the positive class: a true positive is a bad ticket caught;
- `cohen_kappa`: agreement corrected for the agreement chance alone would give, the number that
  class imbalance cannot inflate (an always-`pass` judge on 95 good tickets out of 100 agrees 95%
  of the time and has a kappa of 0);
- `catch_rate_by_notes`: the catch rate with long notes and without, side by side;
- `probe_pairs` / `position_probe`: each broken ticket beside its right twin, asked both ways
  round, to see a judge that prefers whichever ticket it was shown first;
- `scripted_judge`: a `ModelJudge` answered by `cafe.judge.biased.BiasedJudge`, offline in every
  mode; handed the labelled tickets, its dials are realised exactly on them.

What it leaves out: the prompt and the model judge (`cafe.judge.grading`), when to trust a judge
(`cafe.judge.trust`), and what the judge's tokens cost in money (session 11's price table).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.errors import EndpointError
from cafe.judge.biased import BiasedJudge
from cafe.judge.grading import Grade, ModelJudge, Preference, Verdict
from cafe.judge.labelled import LabelledTicket
from cafe.schema.ticket import Ticket, Usage
from cafe.taxonomy.sorting import SETUP_PROBLEMS

__all__ = [
    "Calibration",
    "PositionReport",
    "scripted_judge",
    "grade_of",
    "calibrate",
    "catch_rate_by_notes",
    "cohen_kappa",
    "probe_pairs",
    "position_probe",
]

# A pairwise question: the order, the ticket shown first, the ticket shown second.
Pair = tuple[OrderSpec, Ticket, Ticket]


# --- records ---------------------------------------------------------------------------------


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
    graded: tuple[tuple[LabelledTicket, Verdict], ...] = field(
        default=(), repr=False, compare=False
    )
    failed: int = 0  # the endpoint failed before the judge answered: never graded at all

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
            # not "failed": a checkpoint value holding that key reads as a failed live story
            "not_graded": self.failed,
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


# --- measuring -------------------------------------------------------------------------------


def probe_pairs(labelled: Sequence[LabelledTicket]) -> tuple[Pair, ...]:
    """Each broken ticket beside its right twin, both ways round: (order, right, broken), then
    (order, broken, right). The twin keeps the broken ticket's notes, so only the fault differs."""
    pairs: list[Pair] = []
    for item in labelled:
        if item.truth != "fail":
            continue
        right = Ticket(
            table=item.spec.table,
            items=item.spec.items,
            allergies=item.spec.allergies,
            notes=item.ticket.notes,
        )
        pairs += [(item.spec, right, item.ticket), (item.spec, item.ticket, right)]
    return tuple(pairs)


def scripted_judge(
    leniency: float = 0.0,
    verbosity: float = 0.0,
    position: float = 0.0,
    *,
    seed: int = 12,
    tickets: Sequence[LabelledTicket] = (),
) -> ModelJudge:
    """A `ModelJudge` answered by a `BiasedJudge`, offline whatever the course mode.

    Pass the labelled `tickets` it will be measured on, and each dial is realised exactly on
    them: `leniency=0.3` lets through 30% of the broken tickets (rounded half up), and
    `position=0.6` names the first ticket in 60% of the `probe_pairs` questions. Without them,
    each dial is a per-ticket chance, and the share you see varies with the tickets.
    """
    from cafe.endpoint.client.scripted import ScriptedClient
    from cafe.endpoint.settings.config import OFFLINE_MODEL

    biased = BiasedJudge(
        leniency,
        verbosity,
        position,
        seed=seed,
        tickets=[(item.spec, item.ticket) for item in tickets],
        pairs=probe_pairs(tickets),
    )
    return ModelJudge(ScriptedClient(biased), OFFLINE_MODEL)


def grade_of(answer: Any) -> Grade:
    """A judge's answer as a `Grade`: a Grade as it is, or a verdict word ("pass", "fail")."""
    if isinstance(answer, Grade):
        return answer
    if isinstance(answer, str):
        word = answer.strip().lower()
        if word == "pass":
            return Grade("pass")
        if word == "fail":
            return Grade("fail")
        return Grade("unparsed", answer)
    raise TypeError(
        f"A judge returned {type(answer).__name__}; return a cafe.judge.Grade or 'pass'/'fail'."
    )


def calibrate(
    judge: Callable[[OrderSpec, Ticket], Any],
    labelled: Sequence[LabelledTicket],
    *,
    model: str | None = None,
) -> Calibration:
    """Grade every labelled ticket with `judge` and count the confusion table against the checks.

    A ticket whose request hit an `EndpointError` (a timeout, a dropped connection) is counted as
    `failed` and left out of every other figure; a set-up problem (`SETUP_PROBLEMS`: a refused
    key, a model the endpoint does not have) still stops the calibration, as no ticket could pass,
    and so does the last ticket's error when every ticket failed: there is nothing to report.
    """
    if not labelled:
        raise ValueError("calibrate() needs labelled tickets; make some with labelled_tickets().")
    cells: Counter[str] = Counter()
    usage: Usage | None = None
    graded: list[tuple[LabelledTicket, Verdict]] = []
    for item in labelled:
        try:
            answer = judge(item.spec, item.ticket)
        except EndpointError as exc:
            cells["failed"] += 1
            if exc.kind in SETUP_PROBLEMS or cells["failed"] == len(labelled):
                raise
            continue
        grade = grade_of(answer)
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
        cells["failed"],
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
    pairs = probe_pairs(labelled)
    for (spec, right, broken), _ in zip(pairs[::2], pairs[1::2]):
        kinds[_pair_kind(judge.prefer(spec, right, broken), judge.prefer(spec, broken, right))] += 1
    return PositionReport(
        kinds["right_both_ways"],
        kinds["first_both_times"],
        kinds["second_both_times"],
        kinds["wrong_both_ways"],
        kinds["unparsed"],
    )
