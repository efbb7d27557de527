"""Session 14 toy: the same till repair under a fixed timeout and under the pace governor.

    python sessions/s14-host-facts/toy.py                    # offline: scripted agents
    COURSE_MODE=live python sessions/s14-host-facts/toy.py   # your model does the repair

An agent fixes the café till's bill-splitting bug in a real temporary git repository (real file
writes, real pytest runs). Every turn is charged 10 seconds on a fake clock, and the budget is
30 seconds. The same run goes once under `wall_timeout` and once under `PaceGovernor`; offline a
second agent, busy but going nowhere (its edits leave pytest saying the same thing), runs under
the governor too. Each story is one line in plain words with the technical name after, a legend
says what the governor's decisions mean, and a dot per turn shows a run is working. Offline the
output is the same on every run. Live, against `cafe serve`, the toy says that a rehearsal
server, not a model, answered (and, when it was started with no script, to restart it with
`--session 14`). A missing variable or an unusable endpoint is
explained in one message and the toy exits with status 1.
"""

from __future__ import annotations

import sys

import cafe
from cafe.cli import run_command
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, default_rehearsal_note, rehearsal_script
from cafe.governor.pacing import (
    PACE_STOP_REASONS,
    PaceGovernor,
    TurnClock,
    passing_tests,
    wall_timeout,
)
from cafe.loop import run_loop
from cafe.stall import VerifyEntrypoint
from cafe.stories.scenarios import scenario_replies
from cafe.world.workbench import open_workbench

SECONDS_PER_TURN = 10.0
BUDGET_MS = 30_000
MAX_TURNS = 12
TASK = [
    {
        "role": "system",
        "content": "You maintain the café's till, a small Python project. Use the "
        "tools to read files, edit them and run the tests.",
    },
    {
        "role": "user",
        "content": "One of the till's tests fails. Find the bug in bill.py, fix it, "
        "run the tests, and say when they pass.",
    },
]
# What each of the governor's decisions means, for the legend and the per-story lines.
MEANING = {
    "proceed": "let it run on (the run was done, or nothing called for a decision)",
    "extend": "moved the deadline one checkpoint on, silently",
    "pace_check": "told the agent to wrap up",
    "cut": "stopped the run",
}
# The governor's cut reasons in plain words (cafe.governor.CUT_REASONS).
WHY_CUT = {
    "no_progress_at_checkpoint": "nothing had moved by the checkpoint",
    "no_verifier_progress": "files changed, the tests did not move",
    "env_blame_without_infra": "the agent blamed its environment, and the host saw no fault",
    "extend_budget_exhausted": "it used every silent extension",
    "pace_check_budget_exhausted": "it was told to wrap up too often",
}
ENDINGS = {
    "done": "finished (tests passing)",
    "cut": "was cut",
    "max_turns": "used every turn",
    "verify_failed": "claimed a finish its check refused, until no check was left",
}
SCRIPTED = "  (cafe serve's session-14 script answered, not a model: the same repair every time.)"


def progress(view) -> None:
    """After-turn hook: one dot per finished turn, so a run that takes seconds is never silent."""
    print(".", end="", flush=True)


def run(scenario: str | None, hook):
    """One run on a fresh workbench: scripted replies offline (`scenario`), your model live."""
    live = cafe.course_mode() == "live"
    client = cafe.make_client(None if live else scenario_replies(scenario))
    clock = TurnClock(SECONDS_PER_TURN)
    print("   running ", end="", flush=True)
    with open_workbench() as bench:
        verifier = VerifyEntrypoint(bench.verify)  # a claimed finish is checked (session 13)
        result = run_loop(
            client,
            TASK,
            bench.tools,
            observers=[clock.tick],
            after_turn=[verifier.after_turn, hook, progress],
            before_finish=[verifier.before_finish],
            stop_reasons=PACE_STOP_REASONS | verifier.stop_reasons,
            clock=clock,
            max_turns=MAX_TURNS,
        )
    print(f" {len(result.turns)} turns")
    return result


def decisions(governor: PaceGovernor) -> str:
    asked = [
        f"at {t.elapsed_ms / 1000:g} s {MEANING[t.decision.action].split(' (')[0]} "
        f"({t.decision.action}"
        + (
            f": {WHY_CUT[t.decision.reason]}, {t.decision.reason})"
            if t.decision.action == "cut"
            else ")"
        )
        for t in governor.turns
        if t.decision
    ]
    return "; ".join(asked) or "never asked: the run finished inside its first budget"


def ending(result) -> str:
    return (
        f"-> the run {ENDINGS.get(result.stop_reason, 'ended')} on turn {len(result.turns)}, "
        f"at {len(result.turns) * SECONDS_PER_TURN:g} s (stop reason: {result.stop_reason})"
    )


def story(title: str, scenario: str | None, governed: bool) -> None:
    print(title)
    hook = PaceGovernor(BUDGET_MS, reading=passing_tests) if governed else wall_timeout(BUDGET_MS)
    result = run(scenario, hook)
    print(f"   {ending(result)}")
    if governed:
        print(f"      the governor, each time the deadline came: {decisions(hook)}")
    if scenario is None and not any(turn.calls for turn in result.turns):
        print(
            f"      {cafe.model_name()} called no tool, so its time went on nothing the governor could\n"
            "      weigh; offline, scripted agents show a repair extended and a thrash cut"
        )


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        model = cafe.model_name()
        print(
            f"Session 14 toy ({cafe.course_mode()}): the same till repair under a fixed timeout "
            "and under the pace governor."
        )
        print(
            f"Model {model}; each turn costs {SECONDS_PER_TURN:g} s on a fake clock, "
            f"budget {BUDGET_MS / 1000:g} s; a dot per turn."
        )
        print(
            "A fixed timeout stops a run when its time is up; a pace governor, when the time is "
            "up, first asks what the run did with it."
        )
        print("Legend: " + "; ".join(f"{name} = {meaning}" for name, meaning in MEANING.items()))
        script = rehearsal_script(cafe.make_client(), model) if live else None
        if script == DEFAULT_LABEL:
            print("  " + default_rehearsal_note("14"))
        elif script is not None:
            print(SCRIPTED)
        who = "Your model" if live else "A repair that needs 7 turns (productive)"
        story(
            f"1. {who}, under a fixed {BUDGET_MS / 1000:g} s timeout (wall_timeout):",
            None if live else "productive",
            governed=False,
        )
        story(
            f"2. {who}, under the pace governor (PaceGovernor):",
            None if live else "productive",
            governed=True,
        )
        if not live:
            story(
                "3. A busy agent going nowhere: it edits, and pytest says the same thing (thrash), under the "
                "governor:",
                "thrash",
                governed=True,
            )
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"\ntoy s14: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
