"""What the grader saw of one run, and the yardstick a property's verdict is held against.

Session 16, the capstone. `RunEvidence` is everything the properties (`cafe/capstone/properties.py`)
judge a run on: the world after it, the grader's own count of the model (calls, tokens, how far the
world's record had got at each call, the tools the last answer asked for), the report, the replay.
A `Finding` is one property judged on one run: held or not, and held only vacuously when nothing
the property speaks of happened on a scenario where the course's own harness met it: the
`Yardstick` is what that harness met there, counted by `subjects` (`vacuous` marks a finding).

Left out: the judges (`cafe/capstone/properties.py`) and how a run is made (`cafe/capstone/runner.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.capstone.harness import Limits
from cafe.capstone.world import RestockWorld

__all__ = [
    "PROPERTIES",
    "Finding",
    "Property",
    "RunEvidence",
    "Yardstick",
    "numeric",
    "subjects",
    "vacuous",
]

Property = Literal["named_stop", "call_cap", "contract", "approval", "traced", "stall", "costs"]
PROPERTIES: tuple[str, ...] = get_args(Property)


@dataclass(frozen=True)
class Finding:
    """One property judged on one run: held or not, and what was seen."""

    property: Property
    held: bool
    detail: str = ""
    vacuous: bool = False  # held, but only because nothing it speaks of happened (see above)


@dataclass(frozen=True)
class Yardstick:
    """What the course's own harness met on a scenario: each world property's subject, counted.
    `model_calls` for `call_cap`, `orders` for `contract`, `over_limit` (orders over the limit)
    for `approval`, `supplier_failures` for `stall`."""

    model_calls: int
    orders: int
    over_limit: int
    supplier_failures: int


def subjects(world: RestockWorld, calls: int) -> Yardstick:
    """The subjects of the world properties on one run's record (`Yardstick`'s counts)."""
    orders = world.orders()
    over = sum(1 for o in orders if not numeric(o.total_cents) or o.total_cents > world.limit_cents)
    failures = sum(1 for e in world.events if e.kind == "quote" and not e.ok)
    return Yardstick(calls, len(orders), over, failures)


@dataclass(frozen=True)
class RunEvidence:
    """What the grader saw of one run: the world after it, the model's ledger, the report (or why
    there is none), and the replay (its world and report, or why it failed)."""

    world: RestockWorld
    limits: Limits
    calls: int  # model calls the scripted client answered
    usage: tuple[tuple[int, int], ...]  # (prompt, completion) tokens of each call
    report: Any  # whatever the harness returned (None when it raised or ran out of time)
    error: str  # why there is no report; empty when there is one
    replay_world: RestockWorld | None = None
    replay_report: Any = None
    replay_error: str = ""
    replay_unused: int = 0
    final_answer: bool = False  # the model's last answer was a final one (no tool call)
    endpoint_failed: bool = False  # the model's endpoint failed during the run
    # How many world events there were when each model call was answered, in call order: the
    # record's turns. Empty when unknown (then the stops' causes are not judged turn by turn).
    marks: tuple[int, ...] = ()
    last_calls: tuple[str, ...] = ()  # the tools the model's last answer asked for, by name
    yardstick: Yardstick | None = None  # the course's harness on the same scenario (None: none)


def vacuous(run: RunEvidence, finding: Finding, subject: str, what: str) -> Finding:
    """`finding` (held) marked vacuous when this run met none of `subject` and the course's
    harness, on the same scenario, met some: then it held only because nothing happened."""
    if run.yardstick is None or not finding.held:
        return finding
    mine, theirs = getattr(subjects(run.world, run.calls), subject), getattr(run.yardstick, subject)
    if mine or not theirs:
        return finding
    detail = (
        f"held only because nothing happened: {what} none, where the course's harness, "
        f"on the same scenario, met {theirs}"
    )
    return Finding(finding.property, True, detail, vacuous=True)


def numeric(value: Any) -> bool:
    return type(value) in (int, float)
