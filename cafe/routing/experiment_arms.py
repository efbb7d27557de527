"""Session 11's experiment on your model: does a curated retry get more orders accepted within the cap?

`cafe experiment 11` runs this module as a program in live mode. Each arm is the notebook's step
1 live cell for one order: `repair_ticket(spec, make_model_generator(client), mode=...)` on a
practice order, counted as accepted when it passed within the cap (`CAP_DEFAULT` attempts). The
cost per accepted ticket that step 5 compares is the attempts spent over the tickets accepted, so
an arm that accepts fewer orders within the same cap pays more for each one; this experiment
measures the acceptance half of that, with its interval. Counting and verdicts are
`cafe.evals.experiment`'s (session 02).
Lesson: sessions/s11-cost-routing/lesson.md; notebook: notebooks/s11-cost-routing.ipynb.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from cafe.endpoint.client.protocol import ChatClient
from cafe.evals.experiment import Arm, pick
from cafe.evals.experiment_program import program
from cafe.repair import make_model_generator, repair_ticket
from cafe.repair.feedback import RetryMode
from cafe.stories.feedback_model import PRACTICE_ORDERS

__all__ = ["live_arms", "LIVE", "main"]


def _accepted_arm(client: ChatClient, model: str, mode: RetryMode) -> Arm:
    generate = make_model_generator(client, model)

    def one(seed: int, order: int) -> bool:
        result = repair_ticket(pick(PRACTICE_ORDERS, seed, order), generate, mode=mode)
        return result.stop_reason == "passed"

    return one


def live_arms(client: ChatClient, model: str) -> dict[str, Arm]:
    """The two arms, naive and curated retries, each drafting through `client`."""
    return {mode: _accepted_arm(client, model, mode) for mode in ("naive", "curated")}


LIVE = {"11": live_arms}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """`python -m cafe.routing.experiment_arms 11 [--orders N] ...`, as `cafe experiment` starts it."""
    return program(argv, out, live=LIVE)


if __name__ == "__main__":
    sys.exit(main())
