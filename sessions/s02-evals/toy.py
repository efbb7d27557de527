"""Session 02 toy: can each check fail, how often does session 01's loop get an order right, and
how sure can we be of that figure?

    python sessions/s02-evals/toy.py                      # offline: a scripted waiter
    COURSE_MODE=live python sessions/s02-evals/toy.py     # the same eval, your model

Story 1 runs the fixture invariant over the session's five checks and over a hurried first try
at the sold-out check, which cannot fail. Story 2 runs the 45 labelled orders through the
session 01 loop and prints each check's pass rate with its 95% interval. Story 3 shows the same
92% from 25 and from 400 orders. Story 4 runs the same eval three times with a waiter that
forgets an item now and then (live: three runs of your model over ten orders) and prints the
spread. A missing setting or an endpoint that does not answer is explained in one message, with
exit status 1.
"""

from __future__ import annotations

import random

from cafe.cli import run_command
from cafe.endpoint.client import make_client
from cafe.endpoint.config import course_mode, model_name
from cafe.endpoint.scripted import ScriptedClient
from cafe.evals import first_try_no_sold_out, fixture_problems, session_checks, wilson_interval
from cafe.evals.run import load_cases, run_eval, run_order
from cafe.stories.waiter import make_waiter
from cafe.world.menu import load_menu


def progress(done: int, total: int) -> None:
    if done % 15 == 0 or done == total:
        print(f"  ... {done}/{total} orders run")


def main() -> int:
    mode, menu, cases = course_mode(), load_menu(), load_cases()
    checks = session_checks(menu)
    print(f"Session 02 toy ({mode}): can each check fail, and how sure is a pass rate?\n")

    print("1. Does every check fail when it should? (the fixture invariant)")
    print(
        f"  the five session checks: {fixture_problems(checks) or 'each passes one fixture and fails the other'}"
    )
    print(f"  a hurried sold-out check: {fixture_problems([first_try_no_sold_out(menu)])[0]}")

    live = mode == "live"
    client = make_client() if live else ScriptedClient(make_waiter(menu.items))
    model = model_name() if live else "scripted waiter"
    print(f"\n2. {len(cases)} labelled orders through the session 01 loop ({model}; the eval run)")
    report, observations = run_eval(
        cases,
        lambda case: run_order(case, client, model=model_name()),
        checks,
        model=model,
        progress=progress,
    )
    print("\n".join("  " + line for line in report.table().splitlines()))
    if live and all(o.stop_reason == "max_turns" and not o.ticket for o in observations):
        print(
            "  Every order ran out of turns with an empty ticket: that is `cafe serve`'s default responder,\n"
            "  which calls the first tool with empty arguments. Point CAFE_MODEL at a real model."
        )

    print("\n3. The same 92% from 25 orders and from 400 (the Wilson interval)")
    for passed, n in ((23, 25), (368, 400)):
        low, high = wilson_interval(passed, n)
        print(f"  {passed}/{n}: somewhere between {low:.0%} and {high:.0%}")

    sample = cases[:10] if live else cases
    print(f"\n4. The same eval three times over {len(sample)} orders (a flaky eval)")
    rates = []
    for seed in range(3):
        again = (
            client
            if live
            else ScriptedClient(make_waiter(menu.items, slip=0.1, rng=random.Random(seed)))
        )
        run, _ = run_eval(
            sample, lambda case, waiter=again: run_order(case, waiter, model=model_name()), checks
        )
        rates.append(run.overall.rate)
        print(f"  run {seed + 1}: {run.overall.passed}/{run.overall.n} orders passed every check")
    print(
        f"  spread: {round(100 * (max(rates) - min(rates)))} points between the best and worst run"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
