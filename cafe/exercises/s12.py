"""Session 12's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s12-model-judge.ipynb`) asks for two functions:

1. `my_calibrate(judge, labelled)`: grade every labelled ticket and count the confusion table
   against the checks, a bad ticket being the positive class, `unparsed` answers on their own,
   and Cohen's kappa over the tickets with a verdict. `check_calibrate` runs it with judges whose
   answers are known (always right, passing everything, failing everything, never answering, one
   that mixes non-answers with mistakes, one answering `Grade` records, one answering verdict
   words in odd case and spacing, and one on a day with no broken ticket at all) and compares
   every cell with `cafe.judge.calibration.calibrate`, the course's own answer.
2. `my_trust_rule(calibration, model)`: True when the judge may be used. Open-ended: the checker
   only holds it to the floor every rule must keep (`TRUST_CASES`): refuse a judge measured on
   another model, one whose agreement is luck, one measured on a handful of broken tickets or on
   none, one that often gives no verdict, one that fails everything, and one that misses a third
   of the broken tickets even where kappa looks fine; accept a judge that is nearly always right
   on plenty of both. It must answer True or False, and never raise on a kappa that is None.

A rejection names the case, what the learner's function returned, what was expected and the idea
the case tests (`cafe.exercises.feedback`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cafe.consent import OrderSpec
from cafe.exercises.feedback import Raised, call, mismatch, wrong_type
from cafe.judge.calibration import Calibration, calibrate, grade_of
from cafe.judge.labelled import LabelledTicket, labelled_tickets
from cafe.schema.ticket import Ticket

__all__ = ["CELLS", "JudgeCase", "TrustCase", "TRUST_CASES", "check_calibrate", "check_trust_rule"]

# The figures a calibration is compared on, besides kappa.
CELLS = ("tp", "fn", "tn", "fp", "unparsed")
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
    label: str, got: dict[str, Any], want: Calibration, about: str, own: str
) -> str | None:
    """The one problem with a learner's figures on one case, or None when they match."""
    kappa = got["kappa"]
    if kappa is not None and (
        isinstance(kappa, bool) or not isinstance(kappa, (int, float)) or math.isnan(kappa)
    ):
        return wrong_type(f"{label}: kappa", kappa, "kappa as a number, or None")
    expected = {**{cell: getattr(want, cell) for cell in CELLS}, "kappa": want.kappa}
    differs = [cell for cell in CELLS if got[cell] != expected[cell]]
    kappa_off = _kappa_differs(kappa, want.kappa)
    if not differs and not kappa_off:
        return None
    shown = differs + ["kappa"] if kappa_off else differs
    return mismatch(
        label,
        {cell: got[cell] for cell in shown},
        {cell: expected[cell] for cell in shown},
        _idea(differs, about, own),
    )


def check_calibrate(fn: Callable[[Judge, Labelled], Any]) -> list[str]:
    """Problems with a `my_calibrate(judge, labelled)`; an empty list means it passes.

    It may return a `Calibration` or a dict with tp, fn, tn, fp, unparsed and kappa. A stub's
    `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
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
        problem = _compare(label, got, calibrate(case.judge, case.labelled), case.about, case.idea)
        if problem:
            problems.append(problem)
    return problems


@dataclass(frozen=True)
class TrustCase:
    """A calibration, the model now judging, whether every rule must trust it, and why."""

    label: str
    calibration: Calibration
    model: str
    trusted: bool
    idea: str


def _case(
    label: str,
    cells: tuple[int, ...],
    trusted: bool,
    idea: str,
    *,
    model: str = "m",
    now: str = "m",
) -> TrustCase:
    tp, fn, tn, fp, unparsed = (*cells, 0)[:5]
    return TrustCase(label, Calibration(model, tp, fn, tn, fp, unparsed), now, trusted, idea)


# The floor every rule keeps, whatever its own thresholds; cells are (tp, fn, tn, fp[, unparsed]).
TRUST_CASES: tuple[TrustCase, ...] = (
    _case(
        "nearly always right, 50 broken and 50 right tickets",
        (49, 1, 50, 0),
        True,
        "a judge that is nearly always right on plenty of both may be used",
    ),
    _case(
        "the same figures, but measured on another model",
        (49, 1, 50, 0),
        False,
        "a calibration describes the one model it measured",
        now="other",
    ),
    _case(
        "calibrated on gpt-4o-mini, now running gpt-4o",
        (49, 1, 50, 0),
        False,
        "another model is another model, whatever its name shares",
        model="gpt-4o-mini",
        now="gpt-4o",
    ),
    _case(
        "passes everything: 95% agreement with 5 broken tickets in 100",
        (0, 5, 95, 0),
        False,
        "agreement is luck when nearly every ticket is fine",
    ),
    _case(
        "right on all 3 broken tickets it saw, and 97 right ones",
        (3, 0, 97, 0),
        False,
        "a rate measured on 3 tickets moves by a third with one ticket",
    ),
    _case(
        "no broken ticket at all: 100 right tickets, all passed",
        (0, 0, 100, 0),
        False,
        "with nothing broken to catch, kappa and the catch rate are None: nothing was measured",
    ),
    _case(
        "misses a third of the broken tickets",
        (34, 16, 50, 0),
        False,
        "the catch rate is the judge's job: a third missed is too many",
    ),
    _case(
        "misses a third of 50 broken tickets among 2,000 (kappa 0.81)",
        (34, 16, 1950, 0),
        False,
        "kappa can look fine when most tickets are right; the catch rate says what it missed",
    ),
    _case(
        "fails every ticket: every broken one caught, every right one failed",
        (50, 0, 0, 50),
        False,
        "catching everything by failing everything is kappa 0, no better than luck",
    ),
    _case(
        "no verdict on 60 of 100 tickets, right on the 40 it judged",
        (20, 0, 20, 0, 60),
        False,
        "a judge that says nothing most of the time is not a judge",
    ),
    _case(
        "no verdict on a quarter of the tickets",
        (38, 0, 37, 0, 25),
        False,
        "a judge that often says nothing is not a judge",
    ),
)


def check_trust_rule(fn: Callable[[Calibration, str], Any]) -> list[str]:
    """Problems with a `my_trust_rule(calibration, model)`; empty when it keeps the floor."""
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
    return problems
