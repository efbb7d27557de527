"""Session 07's experiment on your model: does a curated retry rescue more orders than a naive one?

`cafe experiment 07` runs this module as a program in live mode. Each arm is the notebook's step
5b cell for one order: `repair_ticket(spec, make_model_generator(client), mode=...)` on a
practice order, counted as the notebook counts a rescue: an order whose first draft failed and
that then passed. An order whose first draft passed has nothing to rescue and is not counted.
The claim, the counting and the verdict are `cafe.evals.experiment`'s (session 02).
Lesson: sessions/s07-repair-loop/lesson.md; notebook: notebooks/s07-repair-loop.ipynb.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from cafe.endpoint.client.protocol import ChatClient
from cafe.evals.experiment import Arm, pick
from cafe.evals.experiment_program import program
from cafe.repair.feedback import RetryMode
from cafe.repair.reask import make_model_generator, repair_ticket
from cafe.stories.feedback_model import PRACTICE_ORDERS

__all__ = ["live_arms", "LIVE", "main"]


def _rescue_arm(client: ChatClient, model: str, mode: RetryMode) -> Arm:
    generate = make_model_generator(client, model)

    def one(seed: int, order: int) -> bool | None:
        result = repair_ticket(pick(PRACTICE_ORDERS, seed, order), generate, mode=mode)
        if not result.attempts or not result.attempts[0].failures:
            return None  # the first draft passed (or none was drafted): nothing to rescue
        return result.stop_reason == "passed"

    return one


def live_arms(client: ChatClient, model: str) -> dict[str, Arm]:
    """The two arms, naive and curated retries, each drafting through `client`."""
    return {mode: _rescue_arm(client, model, mode) for mode in ("naive", "curated")}


LIVE = {"07": live_arms}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """`python -m cafe.repair.experiment_arms 07 [--orders N] ...`, as `cafe experiment` starts it."""
    return program(argv, out, live=LIVE)


if __name__ == "__main__":
    sys.exit(main())
