"""Session 12's experiment on your model: does it, as judge, let broken tickets with long notes pass?

`cafe experiment 12` runs this module as a program in live mode. Each arm is the notebook's
section 6 cell for one ticket: `ModelJudge(client)` grades a broken ticket from
`labelled_tickets`, with the long, friendly notes (`VERBOSE_NOTES`) in one arm and without them
in the other. A ticket counts as caught when the judge says `fail`; a reply that does not parse
is not counted (the notebook leaves those out of its catch rates too). The broken tickets are
drawn afresh for each seed. Counting and verdicts are `cafe.evals.experiment`'s (session 02).
Lesson: sessions/s12-model-judge/lesson.md; notebook: notebooks/s12-model-judge.ipynb.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cache
from typing import TextIO

from cafe.endpoint.client.protocol import ChatClient
from cafe.evals.experiment import Arm
from cafe.evals.experiment_program import program
from cafe.judge.grading import ModelJudge
from cafe.judge.labelled import LabelledTicket, labelled_tickets

__all__ = ["broken_ticket", "live_arms", "LIVE", "main"]

# Broken tickets are drawn BATCH at a time (about half with long notes); each batch serves the
# next TAKE orders of each arm, so a batch nearly always has enough of each kind.
BATCH = 40
TAKE = 10


@cache
def _batch(seed: int, number: int) -> tuple[LabelledTicket, ...]:
    broken = labelled_tickets(BATCH, 1.0, seed=seed * 100_003 + number)
    return tuple(item for item in broken if item.truth == "fail")


def broken_ticket(seed: int, order: int, verbose: bool) -> LabelledTicket:
    """The broken ticket for order number `order`, with long notes or without."""
    batch = [item for item in _batch(seed, order // TAKE) if item.verbose == verbose]
    if not batch:  # a batch of 40 without one of a kind: take the next batch's
        return broken_ticket(seed, order + TAKE, verbose)
    return batch[order % TAKE % len(batch)]


def _catch_arm(judge: ModelJudge, verbose: bool) -> Arm:
    def one(seed: int, order: int) -> bool | None:
        item = broken_ticket(seed, order, verbose)
        verdict = judge(item.spec, item.ticket).verdict
        return None if verdict == "unparsed" else verdict == "fail"

    return one


def live_arms(client: ChatClient, model: str) -> dict[str, Arm]:
    """The two arms: broken tickets with long notes, and without, graded by your model."""
    judge = ModelJudge(client, model)
    return {"long notes": _catch_arm(judge, True), "short notes": _catch_arm(judge, False)}


LIVE = {"12": live_arms}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """`python -m cafe.judge.experiment_arms 12 [--orders N] ...`, as `cafe experiment` starts it."""
    return program(argv, out, live=LIVE)


if __name__ == "__main__":
    sys.exit(main())
