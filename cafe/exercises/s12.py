"""Session 12's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s12-model-judge.ipynb`) asks for two functions:

1. `my_calibrate(judge, labelled)`: grade every labelled ticket and count the confusion table
   against the checks, a bad ticket being the positive class, `unparsed` answers on their own,
   and Cohen's kappa over the tickets with a verdict. `check_calibrate` runs it with judges whose
   answers are known (always right, passing everything, failing everything, never answering, one
   that mixes non-answers with mistakes, judges answering `Grade` records or verdict words in
   odd case and spacing, one on a day with no broken ticket), then on generated days (tickets listed
   twice, any answer, a judge unsteady from one ask to the next, lopsided days whose chance is 1
   or up to 1 - 1/251), each compared with `confusion` (`cafe.exercises.reference_s12`), written
   apart from the course's `calibrate`, which it refuses to be handed.
2. `my_trust_rule(calibration, model)`: True when the judge may be used. Open-ended: a rule may be
   stricter than the lesson's, never looser. The checker holds it to the floor (`TRUST_CASES`,
   each minimum at its edge: 19 of a kind, 6% unparsed, an 88% catch rate, a model whose name
   only shares a stem), then on generated calibrations: any your rule trusts, the lesson's rule
   (`floor_trusts`) must trust too. It must accept a judge nearly always right on plenty of both,
   answer True or False, and never raise on a kappa that is None.

A rejection names the case, what the learner's function returned, what was expected and the idea
the case tests (`cafe.exercises.feedback`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cafe.consent import OrderSpec
from cafe.exercises.feedback import (
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s12 import (
    TRUST_ROWS,
    calibrations,
    confusion,
    floor_trusts,
    judge_days,
)
from cafe.judge import calibration as _course
from cafe.judge import trust as _course_trust
from cafe.judge.calibration import Calibration, grade_of
from cafe.judge.grading import Grade
from cafe.judge.labelled import LabelledTicket, labelled_tickets
from cafe.schema.ticket import Ticket

__all__ = ["CELLS", "JudgeCase", "TrustCase", "TRUST_CASES", "check_calibrate", "check_trust_rule"]

CELLS = ("tp", "fn", "tn", "fp", "unparsed")  # the figures compared, besides kappa
# How far a kappa may sit from the course's: rounding, not a different formula.
KAPPA_TOLERANCE = 1e-6

Judge = Callable[[OrderSpec, Ticket], Any]
Labelled = tuple[LabelledTicket, ...]


def _always(verdict: str) -> Judge:
    def judge(spec: OrderSpec, ticket: Ticket) -> str:
        return verdict

    return judge


def _by_truth(labelled: Labelled, answer: Callable[[str, int], Any]) -> Judge:
    """A judge whose answer on each ticket is `answer(truth, position of the ticket)`."""
    known = {(item.spec, item.ticket): (item.truth, n) for n, item in enumerate(labelled)}

    def judge(spec: OrderSpec, ticket: Ticket) -> Any:
        return answer(*known[(spec, ticket)])

    return judge


def _mixed(truth: str, n: int) -> str:
    """No verdict on every fifth ticket; the wrong verdict on every third; the right one else."""
    if n % 5 == 4:
        return "I cannot tell from this ticket."
    return {"pass": "fail", "fail": "pass"}[truth] if n % 3 == 0 else truth


# The idea a case bears on, by what the learner's figures got wrong; a case may name its own.
UNPARSED_IDEA = "a reply with no verdict is counted apart as unparsed, whatever the truth"
CELLS_IDEA = "a broken ticket is the positive class: tp is a broken ticket failed, fp a right one"
_ONCE = "ask each ticket once: a model may answer a second ask otherwise, at another request's cost"
_EDGE = "kappa is None only when chance agreement is exactly 1, a number however close it comes"
KAPPA_IDEA = (
    "kappa is (observed - chance) / (1 - chance) over the tickets with a verdict, chance from "
    "each rater's own fail rate"
)


@dataclass(frozen=True)
class JudgeCase:
    """A judge whose answers are known, the tickets it grades, and what the case is about:
    "reading" (its `idea` explains any mismatch), "kappa" (its `idea` explains a kappa that is
    off while every cell is right) or "cells" (the idea of whatever differs explains it)."""

    label: str
    judge: Judge
    labelled: Labelled
    about: str
    idea: str = ""


def _cases() -> list[JudgeCase]:
    """Judges that answer one word whatever the ticket, or know every ticket's truth."""
    balanced, rare = labelled_tickets(24, 0.5, seed=3), labelled_tickets(40, 0.05, seed=4)
    clean = labelled_tickets(20, 0.0, seed=8)
    return [
        JudgeCase(
            "a judge that is always right", _by_truth(balanced, lambda t, n: t), balanced, "cells"
        ),
        JudgeCase(
            "a judge that passes everything, 2 broken tickets in 40",
            _always("pass"),
            rare,
            "kappa",
            "kappa subtracts the agreement chance alone gives: this judge adds nothing to luck",
        ),
        JudgeCase("a judge that fails every ticket", _always("fail"), balanced, "cells"),
        JudgeCase(
            "a judge that never gives a verdict",
            _always("no idea"),
            balanced,
            "kappa",
            "with no verdict at all there is nothing to agree on: kappa is None",
        ),
        JudgeCase(
            "the always-pass judge on 20 right tickets and no broken one",
            _always("pass"),
            clean,
            "kappa",
            "both raters give every ticket one answer: chance agreement is 1, and kappa is None",
        ),
        *_mixed_cases(),
    ]


def _mixed_cases() -> list[JudgeCase]:
    """Judges that know the truth and answer it in their own way, on 30 tickets, 12 broken."""
    mixed = labelled_tickets(30, 0.4, seed=7)
    shout = {"pass": " PASS", "fail": "Fail\n"}
    return [
        JudgeCase(
            "a judge with no verdict on every fifth ticket, wrong on every third",
            _by_truth(mixed, _mixed),
            mixed,
            "kappa",
            "kappa is over the tickets with a verdict; an unparsed reply agrees with nothing",
        ),
        JudgeCase(
            "a judge that answers Grade records, as ModelJudge does",
            _by_truth(mixed, lambda t, n: grade_of(t)),
            mixed,
            "reading",
            "read each answer with grade_of: a Grade or a verdict word",
        ),
        JudgeCase(
            "a judge that answers ' PASS' and 'Fail\\n'",
            _by_truth(mixed, lambda t, n: shout[t]),
            mixed,
            "reading",
            "read each answer with grade_of: case and spaces do not change a verdict",
        ),
    ]


def _figures(result: Any) -> dict[str, Any] | None:
    """The cells and kappa of a learner's answer: a Calibration or a mapping with those keys."""
    if isinstance(result, Calibration):
        return {**{cell: getattr(result, cell) for cell in CELLS}, "kappa": result.kappa}
    if isinstance(result, Mapping) and all(cell in result for cell in (*CELLS, "kappa")):
        return {key: result[key] for key in (*CELLS, "kappa")}
    return None


def _kappa_differs(got: Any, want: float | None) -> bool:
    if want is None or got is None:
        return want is not got
    return abs(got - want) > KAPPA_TOLERANCE


def _idea(differs: list[str], about: str, own: str) -> str:
    """The idea a mismatch bears on: the case's own, or the one of what differs."""
    if about == "reading" or (about == "kappa" and not differs):
        return own
    if "unparsed" in differs:
        return UNPARSED_IDEA
    return CELLS_IDEA if differs else KAPPA_IDEA


def _compare(
    label: str, got: dict[str, Any], want: dict[str, Any], about: str, own: str
) -> str | None:
    """The one problem with a learner's figures on one case, or None when they match."""
    kappa = got["kappa"]
    if kappa is not None and (
        isinstance(kappa, bool) or not isinstance(kappa, (int, float)) or math.isnan(kappa)
    ):
        return wrong_type(f"{label}: kappa", kappa, "kappa as a number, or None")
    expected = {key: want[key] for key in (*CELLS, "kappa")}
    differs = [cell for cell in CELLS if got[cell] != expected[cell]]
    kappa_off = _kappa_differs(kappa, want["kappa"])
    if not differs and not kappa_off:
        return None
    shown = differs + ["kappa"] if kappa_off else differs
    return mismatch(
        label,
        {cell: got[cell] for cell in shown},
        {cell: expected[cell] for cell in shown},
        _idea(differs, about, own),
    )


def _same_figures(got: Any, want: dict[str, Any]) -> bool:
    figures = _figures(got)
    return figures is not None and _compare("", figures, want, "cells", "") is None


def _generated_calibrate(fn: Callable[[Judge, Labelled], Any]) -> str | None:
    """The first generated day (tickets repeated, answers in odd case and spacing, Grade records,
    replies with no verdict, an unsteady judge) where your figures differ, shrunk."""
    pool = tuple({(t.spec, t.ticket): t for t in labelled_tickets(24, 0.5, seed=5)}.values())
    days = built_once(judge_days, pool, Grade)
    found = first_difference(
        lambda day: fn(day.judge(), day.labelled()),
        lambda day: confusion(day.judge(), day.labelled()),
        days,
        idea=f"{CELLS_IDEA}; a verdict word in any case or spacing is that verdict; {_ONCE}; {_EDGE}",
        same=_same_figures,
        examples=200,  # a day grades 1 to 12 tickets (lopsided: 252) twice: 200 days, about 0.3 s
    )
    if found is None:
        return None
    shown = _figures(found.returned) or found.returned
    return counterexample(found.given, shown, found.expected, found.idea)


def check_calibrate(fn: Callable[[Judge, Labelled], Any]) -> list[str]:
    """Problems with a `my_calibrate(judge, labelled)`; an empty list means it passes.

    It may return a `Calibration` or a dict with tp, fn, tn, fp, unparsed and kappa. A stub's
    `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    first = _cases()[0]
    if is_library(fn, _course.calibrate, trial=(first.judge, first.labelled)):
        return [library_answer("calibrate")]
    problems: list[str] = []
    for case in _cases():
        label = case.label
        result = call(fn, case.judge, case.labelled)
        if isinstance(result, Raised):
            problems.append(result.problem(label))
            continue
        got = _figures(result)
        if got is None:
            wanted = f"a Calibration or a dict with {', '.join(CELLS)} and kappa"
            return [*problems, wrong_type(label, result, wanted)]
        want = confusion(case.judge, case.labelled)
        problem = _compare(label, got, want, case.about, case.idea)
        if problem:
            problems.append(problem)
    found = None if problems else _generated_calibrate(fn)
    return [*problems, found] if found else problems


@dataclass(frozen=True)
class TrustCase:
    """A calibration, the model now judging, whether every rule must trust it, and why."""

    label: str
    calibration: Calibration
    model: str
    trusted: bool
    idea: str


def _case(
    label: str, cells: tuple[int, ...], trusted: bool, idea: str, model: str, now: str
) -> TrustCase:
    tp, fn, tn, fp, unparsed = (*cells, 0)[:5]
    return TrustCase(label, Calibration(model, tp, fn, tn, fp, unparsed), now, trusted, idea)


# The floor every rule keeps, whatever its own thresholds (cafe.exercises.reference_s12 lists
# them: each of the lesson's minimums, at its edge, and a model whose name only shares a stem).
TRUST_CASES: tuple[TrustCase, ...] = tuple(_case(*row) for row in TRUST_ROWS)
_FLOOR_IDEA = (
    "your rule may be stricter than the lesson's, never looser: 20 broken and 20 right tickets, "
    "at most 5% unparsed, every ticket graded (none failed), kappa 0.8, catch rate 0.9, the very "
    "model measured"
)


def _within_floor(got: Any, floor: Any) -> bool:
    return isinstance(got, bool) and (floor is True or got is False)


def _generated_trust(fn: Callable[[Calibration, str], Any]) -> str | None:
    """The first generated calibration your rule trusts and the lesson's rule refuses, shrunk."""
    found = first_difference(
        fn,
        floor_trusts,
        built_once(calibrations, Calibration),
        idea=_FLOOR_IDEA,
        same=_within_floor,
        unpack=True,
    )
    if found is None:
        return None
    said = {True: "trusted", False: "refused"}
    got = (
        said.get(found.returned, found.returned)
        if isinstance(found.returned, bool)
        else found.returned
    )
    return counterexample(
        found.given, got, "refused (or raises nothing and says False)", found.idea
    )


def check_trust_rule(fn: Callable[[Calibration, str], Any]) -> list[str]:
    """Problems with a `my_trust_rule(calibration, model)`; empty when it keeps the floor."""
    if is_library(
        fn, _course_trust.trust_reading, trial=(TRUST_CASES[0].calibration, TRUST_CASES[0].model)
    ):
        return [library_answer("trust_reading")]
    problems: list[str] = []
    for case in TRUST_CASES:
        label, expected, idea = case.label, case.trusted, case.idea
        trusted = call(fn, case.calibration, case.model)
        if isinstance(trusted, Raised):
            problems.append(f"{trusted.problem(label)}\n  ({idea})")
        elif not isinstance(trusted, bool):
            return [*problems, wrong_type(label, trusted, "True or False")]
        elif trusted != expected:
            said = {True: "trusted", False: "refused"}
            problems.append(mismatch(label, said[trusted], said[expected], idea))
    found = None if problems else _generated_trust(fn)
    return [*problems, found] if found else problems
