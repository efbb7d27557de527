"""Session 12's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s12-model-judge.ipynb`) asks for two functions:

1. `my_calibrate(judge, labelled)`: grade every labelled ticket and count the confusion table
   against the checks, a bad ticket being the positive class, `unparsed` answers on their own,
   and Cohen's kappa. `check_calibrate` runs it with judges whose answers are known (one that is
   always right, one that passes everything, one that never answers, one that fails right tickets)
   and compares every cell with `cafe.judge.calibration.calibrate`, the course's own answer.
2. `my_trust_rule(calibration, model)`: True when the judge may be used. Open-ended: the checker
   only holds it to the floor every rule must keep (`check_trust_rule`): refuse a judge measured
   on another model, one that agrees 95% of the time by passing everything, one measured on a
   handful of bad tickets, and one that often gives no verdict; accept a judge that is nearly
   always right on plenty of both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cafe.consent import OrderSpec
from cafe.judge.calibration import Calibration, calibrate, cohen_kappa
from cafe.judge.labelled import LabelledTicket, labelled_tickets
from cafe.schema.ticket import Ticket

__all__ = ["CELLS", "TRUST_CASES", "check_calibrate", "check_trust_rule"]

# The figures a calibration is compared on.
CELLS = ("tp", "fn", "tn", "fp", "unparsed")


def _always(verdict: str) -> Callable[[OrderSpec, Ticket], str]:
    def judge(spec: OrderSpec, ticket: Ticket) -> str:
        return verdict

    judge.__name__ = f"always_{verdict}"
    return judge


def _knowing(
    labelled: tuple[LabelledTicket, ...], flip_good: bool
) -> Callable[[OrderSpec, Ticket], str]:
    """A judge that knows each ticket's truth; with `flip_good` it also fails every right ticket."""
    truth = {(item.spec, item.ticket): item.truth for item in labelled}

    def judge(spec: OrderSpec, ticket: Ticket) -> str:
        return "fail" if flip_good else truth[(spec, ticket)]

    return judge


def _figures(result: Any) -> dict[str, Any] | None:
    """The cells and kappa of a learner's answer: a Calibration or a mapping with those keys."""
    if isinstance(result, Calibration):
        return {**{cell: getattr(result, cell) for cell in CELLS}, "kappa": result.kappa}
    if isinstance(result, Mapping) and all(cell in result for cell in (*CELLS, "kappa")):
        return {key: result[key] for key in (*CELLS, "kappa")}
    return None


def _compare(label: str, got: dict[str, Any], want: Calibration) -> list[str]:
    problems = [
        f"{label}: {cell} is {got[cell]}, expected {getattr(want, cell)}"
        for cell in CELLS
        if got[cell] != getattr(want, cell)
    ]
    kappa = want.kappa
    if (kappa is None) != (got["kappa"] is None) or (
        kappa is not None and abs(got["kappa"] - kappa) > 1e-6
    ):
        problems.append(
            f"{label}: kappa is {got['kappa']}, expected {kappa} (observed agreement minus chance "
            "agreement, over one minus chance agreement; None when chance agreement is 1)"
        )
    return problems


def check_calibrate(fn: Callable[[Any, Any], Any]) -> list[str]:
    """Problems with a `my_calibrate(judge, labelled)`; an empty list means it passes.

    It may return a `Calibration` or a dict with tp, fn, tn, fp, unparsed and kappa. A stub's
    `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    balanced, rare = labelled_tickets(24, 0.5, seed=3), labelled_tickets(40, 0.05, seed=4)
    cases = [
        ("a judge that is always right", _knowing(balanced, False), balanced),
        ("a judge that passes everything, 2 bad tickets in 40", _always("pass"), rare),
        ("a judge that fails every ticket", _knowing(balanced, True), balanced),
        ("a judge that never gives a verdict", _always("no idea"), balanced),
    ]
    problems: list[str] = []
    for label, judge, labelled in cases:
        try:
            result = fn(judge, labelled)
        except NotImplementedError:
            raise
        except Exception as exc:  # a learner's bug is a problem to show, not a crash
            problems.append(f"{label}: raised {type(exc).__name__}: {exc}")
            continue
        got = _figures(result)
        if got is None:
            problems.append(
                f"{label}: returned {type(result).__name__}; return a Calibration or a dict with "
                f"{', '.join(CELLS)} and kappa"
            )
            continue
        problems += _compare(label, got, calibrate(judge, labelled))
    return problems


def _calibration(model: str, tp: int, fn: int, tn: int, fp: int, unparsed: int = 0) -> Calibration:
    return Calibration(model, tp, fn, tn, fp, unparsed)


# (what the case is, the calibration, the model now judging, whether a rule must trust it)
TRUST_CASES: tuple[tuple[str, Calibration, str, bool], ...] = (
    (
        "nearly always right, 50 bad and 50 right tickets",
        _calibration("m", 49, 1, 50, 0),
        "m",
        True,
    ),
    (
        "the same figures, but measured on another model",
        _calibration("m", 49, 1, 50, 0),
        "other",
        False,
    ),
    (
        "passes everything: 95% agreement with 5 bad tickets in 100",
        _calibration("m", 0, 5, 95, 0),
        "m",
        False,
    ),
    (
        "right on all 3 bad tickets it saw, and 97 right ones",
        _calibration("m", 3, 0, 97, 0),
        "m",
        False,
    ),
    ("misses a third of the bad tickets", _calibration("m", 34, 16, 50, 0), "m", False),
    (
        "no verdict on a quarter of the tickets",
        _calibration("m", 38, 0, 37, 0, unparsed=25),
        "m",
        False,
    ),
)


def check_trust_rule(fn: Callable[[Calibration, str], bool]) -> list[str]:
    """Problems with a `my_trust_rule(calibration, model)`; an empty list means it keeps the floor."""
    problems: list[str] = []
    for label, calibration, model, expected in TRUST_CASES:
        try:
            trusted = fn(calibration, model)
        except NotImplementedError:
            raise
        except Exception as exc:
            problems.append(f"{label}: raised {type(exc).__name__}: {exc}")
            continue
        if not isinstance(trusted, bool):
            problems.append(f"{label}: returned {trusted!r}; return True or False")
        elif trusted != expected:
            kappa = cohen_kappa(calibration.tp, calibration.fn, calibration.fp, calibration.tn)
            problems.append(
                f"{label}: {'trusted' if trusted else 'refused'}; every rule must "
                f"{'accept' if expected else 'refuse'} this judge (kappa "
                f"{'undefined' if kappa is None else f'{kappa:.2f}'})"
            )
    return problems
