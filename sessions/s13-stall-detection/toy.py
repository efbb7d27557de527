"""Session 13 toy: the same thrashing agent, watched by a blind counter and by the evidence.

    python sessions/s13-stall-detection/toy.py                    # offline: scripted agents
    COURSE_MODE=live python sessions/s13-stall-detection/toy.py   # your model repairs the till

An agent works on the café till in a real temporary git repository: its edits are real file
writes and `run_tests` really runs pytest. Offline, four short stories, each on one line in plain
words with the technical name after: a scripted agent thrashes (edit, re-test, the same failure,
again) under the blind counter, then under the repair-aware detector (one warning, and the run
goes on to `max_turns`: a run is sent one warning, and only trips back to back stop it), then
with the hard cap on (the warning, then the cap stops it at once: `stuck`); last, a productive
agent under the repair-aware detector. A dot is printed per turn while a run works. Offline the output is the same on every
run. Live, your model gets the repair-aware detector; against `cafe serve` (model
`cafe-scripted`) the toy says that a rehearsal server, not a model, answered. A missing variable
or an unusable endpoint is explained in one message and the toy exits with status 1.
"""

from __future__ import annotations

import sys
import textwrap

import cafe
from cafe.cli import run_command
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.stall import failure_snippet, run_with_stall, stall_config
from cafe.stories.scenarios import scenario_replies
from cafe.world.workbench import open_workbench

TASK = [
    {
        "role": "system",
        "content": "You maintain the café's till, a small Python project. Use the tools to "
        "read files, edit them and run the tests.",
    },
    {
        "role": "user",
        "content": "One of the till's tests fails. Find the bug in bill.py, fix it, run the "
        "tests, and say when they pass.",
    },
]
MAX_TURNS = 12
# A low hard cap, so the stop after the warning fits in the toy's budget; the detector's own
# default is 16.
TOY_HARD_CAP = 5


def progress(view) -> None:
    """After-turn hook: one dot per finished turn, so a run that takes seconds is never silent."""
    print(".", end="", flush=True)


def run(scenario: str | None, config):
    live = cafe.course_mode() == "live"
    client = cafe.make_client(None if live else scenario_replies(scenario))
    print("   running ", end="", flush=True)
    with open_workbench() as bench:
        stalled = run_with_stall(
            client,
            TASK,
            bench.tools,
            verify=bench.verify,
            config=config,
            max_turns=MAX_TURNS,
            after_turn=[progress],
        )
    print(f" {len(stalled.result.turns)} turns")
    return stalled


def _trip(warning) -> str:
    if warning.stopped:
        return "stopped the run"
    return (
        "warned the agent" if warning.sent else "noted a trip (not sent: the one message was spent)"
    )


def trips(stalled) -> str:
    """The trips in words: 'warned the agent on turn 4 (stuck_same_diagnostic)', 'stopped ...'."""
    said = [f"{_trip(w)} on turn {w.turn} ({w.pattern})" for w in stalled.warnings]
    return "; then ".join(said) or "sent no warning"


def report(stalled) -> None:
    ending = {
        "max_turns": "used its whole budget",
        "stuck": "was stopped as stuck",
        "done": "finished, tests passing",
        "verify_failed": "claimed a finish the check refused, until no check was left",
    }.get(stalled.stop_reason, "ended")
    print(f"   -> {trips(stalled)}; the run {ending} (stop reason: {stalled.stop_reason})")
    failure = stalled.current_failure
    if failure is not None:
        print(
            f"      handed back as still failing: {words(failure_snippet(failure.snippet), 120)} "
            f"(seen {failure.same_diagnostic_streak} times in a row; current_failure, "
            f"{len(failure.snippet)} characters of the output)"
        )


def words(text: str, limit: int) -> str:
    """`text` on one line, cut at a word boundary with "…" when it is longer than `limit`."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rsplit(" ", 1)[0].rstrip("…") + "…"


def offline() -> None:
    aware = stall_config(repair_aware=True)
    print(
        "1. The thrash (edits that change nothing, each re-tested), watched by a counter of repeated actions "
        "(blind counter):"
    )
    report(run("thrash", stall_config()))
    print("2. The same thrash, watched by the detector that compares failures (repair_aware):")
    report(run("thrash", aware))
    print(
        "   A run is sent one warning; later trips are noted, and only trips back to back (three in a\n"
        "   row) stop it. This one runs on until the budget is gone (max_turns, not stuck)."
    )
    print(
        f"3. The same thrash with the no-progress hard cap at {TOY_HARD_CAP} failing checks, which stops "
        "a run at once (no_net_progress_hard_cap):"
    )
    report(
        run(
            "thrash",
            stall_config(
                repair_aware=True,
                no_net_progress_extend_guard=True,
                no_net_progress_hard_cap_after=TOY_HARD_CAP,
            ),
        )
    )
    print(
        "4. A real repair whose first edit changes the error (productive), watched by the same detector:"
    )
    report(run("productive", aware))


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        model = cafe.model_name()
        if live:
            print(
                "Session 13 toy (live): your model fixing the café till (real files, real pytest),\n"
                "watched by the detector that asks 'is this the same failure as before?'."
            )
        else:
            print(
                "Session 13 toy (offline): an agent stuck on one failing test looks busy to a counter of\n"
                "repeated actions, but not to a detector that compares the failures; and a real repair\n"
                "is left alone."
            )
        print(
            f"mode: {cafe.course_mode()} (model {model}); budget {MAX_TURNS} turns per run; a dot per turn"
        )
        if live:
            if rehearsal_script(cafe.make_client(), cafe.model_name()) == "default":
                print(
                    textwrap.fill(
                        default_rehearsal_note("13"),
                        96,
                        initial_indent="  ",
                        subsequent_indent="  ",
                    )
                )
            print("1. Your model, repair-aware detector:")
            stalled = run(None, stall_config(repair_aware=True))
            report(stalled)
            if not any(turn.calls for turn in stalled.result.turns):
                print(
                    f"      {model} called no tool: it never edited or ran anything, so the detector\n"
                    "      had no failures to compare; offline, scripted agents show it telling a stuck\n"
                    "      run from a real repair"
                )
            return 0
        offline()
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"\ntoy s13: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
