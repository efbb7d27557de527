"""Session 13 toy: the same thrashing agent, watched by a blind counter and by the evidence.

    python sessions/s13-stall-detection/toy.py                    # offline: scripted agents
    COURSE_MODE=live python sessions/s13-stall-detection/toy.py   # your model repairs the till

An agent works on the café till in a real temporary git repository: its edits are real file
writes and `run_tests` really runs pytest. Offline, a scripted agent thrashes (edit, re-test,
the same failure, again) under the blind detector and then under the repair-aware one, and a
productive agent runs under the repair-aware one. A trip sends the model one warning and the
run goes on (a second trip would stop it as `stuck`). Offline the output is the same on every run.
Live, your model gets the repair-aware detector; a missing variable or an unusable endpoint is
explained in one message and the toy exits with status 1.
"""

from __future__ import annotations

import sys

import cafe
from cafe.cli import run_command
from cafe.stall import run_with_stall, stall_config
from cafe.scenarios import scenario_replies
from cafe.workbench import open_workbench

TASK = [
    {"role": "system", "content": "You maintain the café's till, a small Python project. Use the tools to "
                                  "read files, edit them and run the tests."},
    {"role": "user", "content": "One of the till's tests fails. Find the bug in bill.py, fix it, run the "
                                "tests, and say when they pass."},
]
MAX_TURNS = 12


def run(scenario: str | None, config):
    live = cafe.course_mode() == "live"
    client = cafe.make_client(None if live else scenario_replies(scenario))
    with open_workbench() as bench:
        return run_with_stall(client, TASK, bench.tools, verify=bench.verify, config=config, max_turns=MAX_TURNS)


def trip(warning) -> str:
    """One trip, and what it did: the first is a warning the model reads, and the run goes on."""
    effect = "stopped the run" if warning.stopped else "warning sent to the model; run continued"
    return f"{warning.pattern} on turn {warning.turn} ({effect})"


def report(label: str, stalled) -> None:
    trips = ", ".join(trip(w) for w in stalled.warnings) or "none"
    print(f"{label:<24}: {stalled.stop_reason} after {len(stalled.result.turns)} turns; trips: {trips}")
    failure = stalled.current_failure
    if failure is not None:
        print(f"  still failing: {failure.snippet} (seen {failure.same_diagnostic_streak} times in a row, "
              f"signature {failure.signature[:12]})")


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        print(f"mode: {cafe.course_mode()} (model {cafe.model_name()}); budget {MAX_TURNS} turns")
        aware = stall_config(repair_aware=True)
        if live:
            report("your model, repair-aware", run(None, aware))
            return 0
        report("thrash, blind counter", run("thrash", stall_config()))
        report("thrash, repair-aware", run("thrash", aware))
        report("productive, repair-aware", run("productive", aware))
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"toy s13: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
