"""Session 02's experiment on your model: do its tickets pass the checks more often than the waiter's?

`cafe experiment 02` runs this module as a program in live mode. Section 6 of the notebook puts
your model's eval beside the scripted waiter's (the waiter of section 4, which reads menu names
and the number word before each, and nothing else). Each arm here is that cell for one labelled
order: `run_order` through the session 01 loop, then the five checks of `session_checks`; an
order counts when its ticket passes all five. The waiter stays scripted in both modes, so its arm
is the fixed baseline; your model's arm goes through `cafe.make_client`.
Lesson: sessions/s02-evals/lesson.md; notebook: notebooks/s02-evals.ipynb.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.evals.checks import score_observations
from cafe.evals.experiment import Arm, pick
from cafe.evals.experiment_program import program
from cafe.evals.run import load_cases, run_order
from cafe.evals.ticket_checks import session_checks
from cafe.stories.waiter import make_waiter
from cafe.world.menu import load_menu

__all__ = ["live_arms", "LIVE", "main"]


def _eval_arm(client: ChatClient, model: str | None) -> Arm:
    menu = load_menu()
    cases, checks = load_cases(), session_checks(menu)

    def one(seed: int, order: int) -> bool:
        observed = run_order(pick(cases, seed, order), client, model=model, menu=menu)
        return score_observations([observed], checks).overall.passed == 1

    return one


def live_arms(client: ChatClient, model: str) -> dict[str, Arm]:
    """The scripted waiter's arm, and your model's through `client`."""
    waiter = ScriptedClient(make_waiter(load_menu().items))
    return {"scripted waiter": _eval_arm(waiter, None), "your model": _eval_arm(client, model)}


LIVE = {"02": live_arms}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """`python -m cafe.evals.experiment_arms 02 [--orders N] ...`, as `cafe experiment` starts it."""
    return program(argv, out, live=LIVE)


if __name__ == "__main__":
    sys.exit(main())
