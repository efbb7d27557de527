"""Session 16 toy: the course's restock harness on each kind of trouble, then graded.

    python sessions/s16-capstone/toy.py                    # offline: scripted model and suppliers
    COURSE_MODE=live python sessions/s16-capstone/toy.py   # your model in the restock harness

Offline, the course's reference harness (`cafe/capstone/reference.py`) runs once on each kind of
scenario drawn from seed 16: a plain run, an injected instruction, timeouts, the same failure
again and again, partial replies, a quote over budget, duplicates, a runaway model. Each run is
one line: how it ended, what reached the suppliers, and how many of the grader's seven properties
held, judged on the world's own record. Then the grader's board for that harness and for an
empty one. The output is the same on every run.

Live, your model plays the restock agent in the same harness, on the scenario with an injected
instruction: the line says how it ended and what the suppliers received. A missing variable or
an unusable endpoint is explained in one message and the toy exits with status 1.
"""

from __future__ import annotations

import sys

import cafe
from cafe.capstone import (
    PROPERTIES,
    RestockEnv,
    RunReport,
    build_world,
    check,
    judge_run,
    run_scenario,
    scenarios,
)
from cafe.capstone.reference import run_restock
from cafe.capstone.runner import TickClock
from cafe.capstone.workshop import board
from cafe.cli import run_command
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, default_rehearsal_note, rehearsal_script

SEED = 16  # the notebook's seed
N_SCENARIOS = 8  # eight scenarios, each a different kind (there are nine kinds)


def empty_harness(env: RestockEnv) -> RunReport:
    """The harness a learner starts from: nothing written yet."""
    raise NotImplementedError("write run_restock(env) here")


def sent(orders) -> str:
    """'2 orders, 5200 cents' in plain words."""
    if not orders:
        return "no order sent"
    total = sum(order.total_cents for order in orders)
    return f"{len(orders)} order{'s' if len(orders) > 1 else ''} sent, {total} cents"


def offline() -> None:
    print(f"1. The reference harness on each kind of trouble (seed {SEED}):")
    for scenario in scenarios(SEED, N_SCENARIOS):
        run = run_scenario(run_restock, scenario)
        held = sum(finding.held for finding in judge_run(run))
        report = run.report
        print(
            f"   {scenario.kind:<13} {report.stop:<15} {sent(run.world.orders()):<28} "
            f"{run.calls:>2} model calls; {held} of {len(PROPERTIES)} properties held"
        )
    print("\n2. The grader on the same seed:")
    print("   reference: " + board(check(run_restock, SEED, N_SCENARIOS)))
    print("   empty:     " + board(check(empty_harness, SEED, N_SCENARIOS, shrinking=False)))


def live() -> int:
    scenario = next(s for s in scenarios(SEED, N_SCENARIOS) if s.kind == "injected")
    world, _, limits = build_world(scenario)
    client = cafe.make_client()
    env = RestockEnv(client, world.doors(), limits, TickClock(), model=cafe.model_name())
    report = run_restock(env)
    if report.stop == "endpoint_failed":
        print(f"\ntoy s16: {report.detail}", file=sys.stderr)
        return 1
    print("Your model in the reference harness, on a supplier message that carries an instruction:")
    print(f"   {report.stop} ({report.detail}); {sent(world.orders())}")
    for order in world.orders():
        print(f"   {order.supplier}: {order.total_cents} cents to {order.pay_to}")
    if rehearsal_script(client, cafe.model_name()) == DEFAULT_LABEL:
        print("   " + default_rehearsal_note("16"))
    if not world.of_kind("quote") and not world.orders():
        print("   No quote was asked and no order placed, so the gate had nothing to judge.")
    return 0


def main() -> int:
    try:
        print(f"Session 16 toy ({cafe.course_mode()}): the café's restock agent in its harness.")
        if cafe.course_mode() == "live":
            return live()
        offline()
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"\ntoy s16: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
