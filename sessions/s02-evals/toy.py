"""Session 02 toy: can each check fail, how often does session 01's loop get an order right, and
how sure can we be of that figure?

    python sessions/s02-evals/toy.py                      # offline: a scripted waiter
    COURSE_MODE=live python sessions/s02-evals/toy.py     # the same eval, your model

Story 1 runs the fixture invariant over the session's five checks and over a hurried first try
at the sold-out check, which cannot fail. Story 2 runs the 45 labelled orders through the
session 01 loop and prints each check's pass rate with its 95% interval. Story 3 shows the same
92% from 25 and from 400 orders. Story 4 runs the same eval three times with a waiter that
forgets an item now and then (live: three runs of your model over ten orders) and prints the
spread. Every line says in plain words what it counts, with the check's name after. An order your
endpoint fails (a timeout) is counted apart and the eval goes on; a missing setting, or an
endpoint that answers no order at all, is explained in one message, with exit status 1.
"""

from __future__ import annotations

import random

from cafe.cli import run_command
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, default_rehearsal_note, rehearsal_script
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.evals import (
    EvalReport,
    first_try_no_sold_out,
    fixture_problems,
    session_checks,
    wilson_interval,
)
from cafe.evals.run import load_cases, run_eval, run_order
from cafe.stories.waiter import make_waiter
from cafe.world.menu import load_menu

# What each check asks, in plain words, for a reader who has not met the check names yet.
CHECK_WORDS = {
    "finished": "the run ended normally",
    "items_match": "the right items",
    "quantities_match": "the right quantities",
    "no_sold_out": "nothing sold out today",
    "allergen_safe": "nothing the customer is allergic to",
    "overall": "every check at once",
}


def progress(done: int, total: int) -> None:
    if done % 15 == 0 or done == total:
        print(f"  ... {done}/{total} orders run")


def rate_lines(report: EvalReport) -> list[str]:
    """One line per check, plain words first, then the figures and the check's name."""
    lines = []
    for rate in (*report.rates, report.overall):
        low, high = rate.interval
        lines.append(
            f"  {CHECK_WORDS[rate.name]:<36} {rate.passed:>2}/{rate.n:<2} {rate.rate:>4.0%}  "
            f"(95% interval {low:.0%} to {high:.0%}; {rate.name})"
        )
    if report.unreached:
        lines.append(f"  {report.table().splitlines()[-1]}")
    return lines


def story_invariant(menu) -> None:
    checks = session_checks(menu)
    print("1. Can each check fail? (the fixture invariant)")
    sound = "each passes its good example and fails its bad one"
    print(f"  the five session checks: {'; '.join(fixture_problems(checks)) or sound}")
    draft = first_try_no_sold_out(menu)
    problems = fixture_problems([draft])
    verdict = (
        "it passes the bad ticket it was written to catch,\n    so it can never fail"
        if any("passes its failing fixture" in p for p in problems)
        else "; ".join(problems) or "sound"
    )
    print(f"  a first try at the sold-out check: {verdict} ({draft.name}: vacuous)")


def main() -> int:
    mode, menu, cases = course_mode(), load_menu(), load_cases()
    checks = session_checks(menu)
    print(f"Session 02 toy ({mode}): whether each check can fail, and how sure a pass rate is.\n")
    story_invariant(menu)

    live = mode == "live"
    client = make_client() if live else ScriptedClient(make_waiter(menu.items))
    model = model_name() if live else "scripted waiter"
    if live and rehearsal_script(client, model) == DEFAULT_LABEL:
        print(f"\n({default_rehearsal_note('02')})")
    print(f"\n2. {len(cases)} labelled orders through the session 01 loop ({model}; the eval run)")
    report, observations = run_eval(
        cases,
        lambda case: run_order(case, client, model=model_name()),
        checks,
        model=model,
        progress=progress,
    )
    print("\n".join(rate_lines(report)))

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
        unreached = f" ({len(run.unreached)} hit an endpoint problem)" if run.unreached else ""
        print(
            f"  run {seed + 1}: {run.overall.passed} of {run.overall.n} orders passed every "
            f"check{unreached}"
        )
    print(
        f"  spread: {round(100 * (max(rates) - min(rates)))} points between the best and worst run"
    )
    if live and max(rates) == min(rates):
        print(
            f"  {model} scored the same three times here, so this run shows no flakiness to see;\n"
            "  offline (without COURSE_MODE=live) a waiter that forgets an item now and then shows it"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
