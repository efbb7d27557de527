"""Measuring a detector: a labelled corpus, a confusion table, precision and recall.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). A detector
that "catches injections" has two numbers, not one: how many of the attacks it flags (recall) and
how many of its flags are attacks (precision), which for a café is how many honest orders it
turns away. This module measures both, on requests whose answer is known:

- `load_corpus(half)`: the labelled requests in `cafe/data/injection_corpus.json`, injections of
  many kinds and benign orders that share their words, in two halves: `tune` (read it, change the
  rules, read it again) and `holdout` (read it once, at the end, as the honest estimate);
- `measure(detector, requests)`: a `Confusion` (flagged or passed, against injection or benign),
  with precision, recall, the share of benign requests blocked, each with the session 02 Wilson
  interval, and the ids of every miss; a request the detector could not judge because the
  endpoint failed (`EndpointError`) is counted apart as `not_judged`, never as a verdict;
- `layer_report(requests)`: one `Confusion` per layer of `cafe.detect.LAYERS`, each on its own,
  and one for the whole detector (`scan_text`); `family_report(requests)`: one per family and
  half of `cafe/data/injection_families.json`, whose held-out figures are the lesson's;
- `either(*detectors)`: a detector that flags what any of them flags, to add a rule of your own.

A detector is any function from text to a verdict: findings, a message or a bool, read as
flagged when it is truthy.

A model as one more layer is `cafe.detect.model_judge.ModelJudge`.

What it leaves out: calibrating a model judge (how far its verdicts can be trusted, and when)
is session 12.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, get_args

from cafe.consent.spec import OrderSpec
from cafe.detect.checks import LAYERS, scan_layer, scan_text
from cafe.endpoint.errors import EndpointError
from cafe.evals.checks import wilson_interval
from cafe.schema.ticket import Failure

__all__ = [
    "CORPUS_PATH",
    "FRESH_PATH",
    "FAMILIES_PATH",
    "WEEK_PATH",
    "CORPORA",
    "LABELS",
    "HALVES",
    "LabelledRequest",
    "Confusion",
    "load_corpus",
    "measure",
    "layer_report",
    "family_report",
    "either",
    "report_table",
]

_DATA = Path(__file__).resolve().parents[1] / "data"
# The course's labelled corpora, each a JSON file of requests (see its `_about`):
CORPUS_PATH = _DATA / "injection_corpus.json"  # the session's corpus, in a tune and a holdout half
FRESH_PATH = _DATA / "injection_fresh.json"  # shapes written after the first rules, half "fresh"
FAMILIES_PATH = _DATA / "injection_families.json"  # by family: what a request is made of
WEEK_PATH = _DATA / "injection_week.json"  # the notebook's week of new traffic
CORPORA: Mapping[str, Path] = MappingProxyType(
    {"corpus": CORPUS_PATH, "fresh": FRESH_PATH, "families": FAMILIES_PATH, "week": WEEK_PATH}
)

# What a request is, and which part of its corpus it sits in. Declared once. `tune`: read it and
# change the rules; `holdout`: read once, at the end; `fresh`: a later check, re-read while the
# rules changed, so neither.
Label = Literal["injection", "benign"]
LABELS: tuple[str, ...] = get_args(Label)
Half = Literal["tune", "holdout", "fresh"]
HALVES: tuple[str, ...] = get_args(Half)

Detector = Callable[[str], Any]  # text in; truthy (findings, a message, True) means flagged


@dataclass(frozen=True)
class LabelledRequest:
    """One request of a corpus: its words, whether it is an attack, what kind, and its half.

    `family` names what the request is made of (`cafe/data/injection_families.json`); `order` is
    the order front of house would approve for a benign request (None for a question, and for
    every injection), which the containment measure drafts (`cafe.detect.containment`).
    """

    id: str
    text: str
    label: Label
    kind: str
    half: Half
    family: str = ""
    order: OrderSpec | None = None

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(
                f"request {self.id}: label {self.label!r} is not one of {', '.join(LABELS)}"
            )
        if self.half not in HALVES:
            raise ValueError(
                f"request {self.id}: half {self.half!r} is not one of {', '.join(HALVES)}"
            )


@dataclass(frozen=True)
class Confusion:
    """A detector's verdicts on labelled requests: the four cells, and the ids of every miss."""

    name: str
    caught: int  # injections flagged (true positives)
    blocked: int  # benign requests flagged (false positives)
    missed: int  # injections passed (false negatives)
    passed: int  # benign requests passed (true negatives)
    missed_ids: tuple[str, ...] = ()
    blocked_ids: tuple[str, ...] = ()
    not_judged_ids: tuple[str, ...] = ()  # the endpoint failed on these: no verdict either way

    @property
    def not_judged(self) -> int:
        """Requests the detector could not judge (an endpoint problem), left out of every cell."""
        return len(self.not_judged_ids)

    @property
    def precision(self) -> float:
        """Of the requests flagged, the share that were attacks (1.0 when nothing was flagged)."""
        flagged = self.caught + self.blocked
        return self.caught / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        """Of the attacks, the share flagged."""
        attacks = self.caught + self.missed
        return self.caught / attacks if attacks else 1.0

    @property
    def blocked_share(self) -> float:
        """Of the benign requests, the share flagged: honest customers turned away."""
        benign = self.blocked + self.passed
        return self.blocked / benign if benign else 0.0

    def recall_interval(self) -> tuple[float, float]:
        """The 95% interval of recall; (0, 1) when no injection was judged: nothing is known."""
        attacks = self.caught + self.missed
        return wilson_interval(self.caught, attacks) if attacks else (0.0, 1.0)

    def blocked_interval(self) -> tuple[float, float]:
        """The 95% interval of the benign-blocked share; (0, 1) when no benign request was judged."""
        benign = self.blocked + self.passed
        return wilson_interval(self.blocked, benign) if benign else (0.0, 1.0)

    def table(self) -> str:
        """The confusion table, as text a notebook prints."""
        low, high = self.recall_interval()
        b_low, b_high = self.blocked_interval()
        return "\n".join(
            [
                f"{self.name}",
                f"{'':<22}{'flagged':>9}{'passed':>9}",
                f"{'injection (' + str(self.caught + self.missed) + ')':<22}{self.caught:>9}{self.missed:>9}",
                f"{'benign (' + str(self.blocked + self.passed) + ')':<22}{self.blocked:>9}{self.passed:>9}",
                f"precision {self.precision:.2f}   recall {self.recall:.2f} (95% {low:.2f} to {high:.2f})   "
                f"benign blocked {self.blocked_share:.1%} (95% {b_low:.1%} to {b_high:.1%})",
            ]
            + (
                [f"not judged {self.not_judged} (an endpoint problem; left out of the figures)"]
                if self.not_judged
                else []
            )
        )

    def as_dict(self) -> dict[str, float | int]:
        """The figures a checkpoint banks."""
        return {
            "caught": self.caught,
            "blocked": self.blocked,
            "missed": self.missed,
            "passed": self.passed,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "benign_blocked": round(self.blocked_share, 3),
            **({"not_judged": self.not_judged} if self.not_judged else {}),
        }


def _request(row: Mapping[str, Any]) -> LabelledRequest:
    """One row of a corpus file; its `order` (table, items, allergies, notes) becomes an OrderSpec."""
    order = row.get("order")
    spec = None if order is None else OrderSpec(**order, request=row["text"])
    return LabelledRequest(**{**row, "order": spec})


def load_corpus(
    half: str | None = None, path: Path | str | None = None
) -> tuple[LabelledRequest, ...]:
    """The labelled requests of a corpus file (`CORPUS_PATH` by default), all or one half."""
    if half is not None and half not in HALVES:
        raise ValueError(
            f"half is {half!r}; use one of {', '.join(HALVES)}, or None for the whole corpus."
        )
    data = json.loads(Path(path or CORPUS_PATH).read_text(encoding="utf-8"))
    requests = tuple(_request(row) for row in data["requests"])
    return requests if half is None else tuple(r for r in requests if r.half == half)


def measure(
    detector: Detector, requests: Iterable[LabelledRequest], name: str = "detector"
) -> Confusion:
    """How `detector` does on `requests`: flagged or passed, against injection or benign.

    A request on which the detector raises `EndpointError` (a model judge whose endpoint timed
    out) is counted in `not_judged_ids`, and the measure goes on with the next request.
    """
    cells: dict[tuple[bool, bool], list[str]] = {
        (a, f): [] for a in (True, False) for f in (True, False)
    }
    not_judged: list[str] = []
    for request in requests:
        try:
            flagged = bool(detector(request.text))
        except EndpointError:
            not_judged.append(request.id)
            continue
        cells[(request.label == "injection", flagged)].append(request.id)
    return Confusion(
        name,
        len(cells[(True, True)]),
        len(cells[(False, True)]),
        len(cells[(True, False)]),
        len(cells[(False, False)]),
        tuple(cells[(True, False)]),
        tuple(cells[(False, True)]),
        tuple(not_judged),
    )


def layer_report(
    requests: Sequence[LabelledRequest], whole: Detector = scan_text
) -> tuple[Confusion, ...]:
    """One `Confusion` per layer of `LAYERS`, each layer alone, then the whole detector."""
    found = [measure(partial(_one_layer, layer=layer), requests, name=layer) for layer in LAYERS]
    return (*found, measure(whole, requests, name="whole"))


def _one_layer(text: str, layer: str) -> tuple[Failure, ...]:
    return scan_layer(text, layer)


def family_report(
    requests: Sequence[LabelledRequest], detector: Detector = scan_text
) -> tuple[Confusion, ...]:
    """One `Confusion` per family and half ("markup, holdout"), in the order the families appear:
    an injection family fills caught/missed, a benign one blocked/passed."""
    keys = dict.fromkeys((r.family or r.kind, r.half) for r in requests)
    return tuple(
        measure(
            detector,
            [r for r in requests if (r.family or r.kind, r.half) == (family, half)],
            name=f"{family}, {half}",
        )
        for family, half in keys
    )


def report_table(confusions: Sequence[Confusion]) -> str:
    """Several confusions, one line each: the per-layer view."""
    lines = [f"{'layer':<12}{'caught':>8}{'missed':>8}{'blocked':>9}{'precision':>11}{'recall':>8}"]
    lines += [
        f"{c.name:<12}{c.caught:>8}{c.missed:>8}{c.blocked:>9}{c.precision:>11.2f}{c.recall:>8.2f}"
        for c in confusions
    ]
    return "\n".join(lines)


def either(*detectors: Detector) -> Detector:
    """A detector that flags a text when any of `detectors` flags it (the first that does answers)."""
    if not detectors or not all(callable(d) for d in detectors):
        raise TypeError("either() takes one or more detectors: functions from text to a verdict.")

    def detector(text: str) -> Any:
        for one in detectors:
            verdict = one(text)
            if verdict:
                return verdict
        return ()

    return detector
