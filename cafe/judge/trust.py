"""When may a judge be used? The course's trust rule, as code.

Session 12 (`sessions/s12-model-judge/lesson.md`, notebook `notebooks/s12-model-judge.ipynb`).
A calibration (`cafe.judge.calibration`) says how a judge did on labelled tickets; this module
turns it into a decision the lesson ends on: trust a judge only with a calibration of this very
model, on enough tickets of both kinds, with kappa and the catch rate high enough, few replies
without a verdict, and every ticket graded (an endpoint failure leaves a hole in the measure).
`trust_reading` says yes or no, and every reason for a no.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from cafe.judge.calibration import Calibration

__all__ = ["TRUST_MINIMUMS", "TrustReading", "trust_reading"]

# The lesson's trust rule. kappa 0.8: the top band of Landis and Koch's (1977) widely used scale
# ("almost perfect" agreement). Catch rate 0.9: nine bad tickets in ten, the course's own choice
# for tickets that can hurt someone. 20 of each kind: below that one ticket moves a rate by 5
# points or more. Unparsed share 5%: a judge that often says nothing is not a judge.
TRUST_MINIMUMS: Mapping[str, float] = MappingProxyType(
    {"kappa": 0.8, "catch_rate": 0.9, "each_kind": 20, "unparsed_share": 0.05}
)


@dataclass(frozen=True)
class TrustReading:
    """Whether a calibration lets you use its judge, and every reason it does not."""

    trusted: bool
    reasons: tuple[str, ...]


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
    if calibration.failed:  # the tickets it never graded may be exactly the hard ones
        reasons.append(
            f"{calibration.failed} tickets were never graded (endpoint problems): calibrate again"
        )
    return TrustReading(not reasons, tuple(reasons))
