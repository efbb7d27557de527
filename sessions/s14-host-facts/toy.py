"""Session 14 toy: the same till repair under a fixed timeout and under the pace governor.

    python sessions/s14-host-facts/toy.py                    # offline: scripted agents
    COURSE_MODE=live python sessions/s14-host-facts/toy.py   # your model does the repair

An agent fixes the café till's bill-splitting bug in a real temporary git repository (real file
writes, real pytest runs). Every turn is charged 10 seconds on a fake clock, and the budget is
30 seconds. The same run goes once under `wall_timeout` and once under `PaceGovernor`; offline a
second agent, busy but going nowhere (its edits leave pytest saying the same thing), runs under
the governor too. Offline the output is the same
on every run. Live, a missing variable or an unusable endpoint is explained in one message and the
toy exits with status 1.
"""

from __future__ import annotations

import sys

import cafe
from cafe.cli import run_command
from cafe.loop import run_loop
from cafe.pacing import PaceGovernor, TurnClock, passing_tests, wall_timeout
from cafe.scenarios import scenario_replies
from cafe.workbench import open_workbench

SECONDS_PER_TURN = 10.0
BUDGET_MS = 30_000
MAX_TURNS = 12
TASK = [
    {"role": "system", "content": "You maintain the café's till, a small Python project. Use the "
                                  "tools to read files, edit them and run the tests."},
    {"role": "user", "content": "One of the till's tests fails. Find the bug in bill.py, fix it, "
                                "run the tests, and say when they pass."},
]


def run(scenario: str | None, hook):
    """One run on a fresh workbench: scripted replies offline (`scenario`), your model live."""
    live = cafe.course_mode() == "live"
    client = cafe.make_client(None if live else scenario_replies(scenario))
    clock = TurnClock(SECONDS_PER_TURN)
    with open_workbench() as bench:
        return run_loop(client, TASK, bench.tools, verify=bench.verify, observers=[clock.tick],
                        after_turn=[hook], clock=clock, max_turns=MAX_TURNS)


def decisions(governor: PaceGovernor) -> str:
    asked = [f"turn {t.turn} {t.decision.action}" for t in governor.turns if t.decision]
    return "; ".join(asked) or "never asked (finished inside the budget)"


def ending(result) -> str:
    return f"stopped on turn {len(result.turns)}: {result.stop_reason} ({result.detail})"


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        model = cafe.model_name()
        print(f"mode: {cafe.course_mode()} (model {model}); each turn costs {SECONDS_PER_TURN:g} s, "
              f"budget {BUDGET_MS / 1000:g} s")
        steady = None if live else "productive"
        print(f"fixed timeout: {ending(run(steady, wall_timeout(BUDGET_MS)))}")
        governor = PaceGovernor(BUDGET_MS, reading=passing_tests)
        result = run(steady, governor)
        print(f"pace governor: {ending(result)}")
        print(f"  decisions:   {decisions(governor)}")
        if not live:
            busy = PaceGovernor(BUDGET_MS, reading=passing_tests)
            result = run("thrash", busy)
            print(f"busy, flat:    {ending(result)}")
            print(f"  decisions:   {decisions(busy)}")
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"toy s14: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
