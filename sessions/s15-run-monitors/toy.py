"""Session 15 toy: four run monitors watching an agent repair the café's till.

    python sessions/s15-run-monitors/toy.py                    # offline: scripted agents
    COURSE_MODE=live python sessions/s15-run-monitors/toy.py   # your model, every monitor on

An agent works on the till's bill-splitting bug in a real temporary git repository (real file
writes, real shell commands, real pytest runs). Offline, four scripted agents each get into a
kind of trouble no error announces, and the line under each story says which monitor spoke and
what it said, in plain words with the technical name after. A dot per turn shows a run is
working. Live, your own model gets the task with every monitor on (advisory) and the toy prints
what each monitor sent and what the todo board still had open. Against `cafe serve` (model
`cafe-scripted`) the toy says that a rehearsal server, not a model, answered. A missing variable
or an unusable endpoint is explained in one message and the toy exits with status 1.
"""

from __future__ import annotations

import sys
import textwrap

import cafe
from cafe.cli import run_command
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.monitors import MONITOR_PREFIXES, MonitorConfig, run_with_monitors
from cafe.stories.monitor_stories import TASK, story_replies, story_timeout
from cafe.world.workbench import open_workbench

ALL_ON = MonitorConfig(
    progress_stall_threshold=4, verification_tiers="advisory", safe_state_abort="advisory"
)
# What each monitor's tag means, for the legend.
MEANING = {
    "[verify-before-done]": "the finish gate asked for a check (verification tiers)",
    "[stall]": "no new state for several turns (progress monitor)",
    "[budget]": "the turn budget is running down (progress monitor)",
    "[recovery]": "failures in a row: take stock (the ladder's second rung)",
    "[safe-state]": "stop digging, back to the last green point (safe-state abort)",
}
# How the verify-before-done gate's record of the run reads, and how each ending reads.
VERDICT = {
    "verified_green": "green",
    "verified_red": "red",
    "unverified": "not run since the last edit",
    "fast_green_only": "only a fast check",
    "no_code_edited": "not needed (no code changed)",
}
ENDED = {
    "done": "the run ended done",
    "verify_failed": "the run ended verify_failed, never done",
    "max_turns": "the turns ran out",
}


def dots(view) -> None:
    """After-turn hook: one dot per finished turn, so a run that takes seconds is never silent."""
    print(".", end="", flush=True)


def run(name: str | None, config: MonitorConfig, max_turns: int = 30):
    """One run on a fresh workbench: a scripted story offline, your model live."""
    client = cafe.make_client(None if name is None else story_replies(name))
    print("   running ", end="", flush=True)
    with open_workbench() as bench:
        result = run_with_monitors(
            client,
            TASK,
            bench,
            config=config,
            max_turns=max_turns,
            command_timeout_s=story_timeout(name) if name else 60.0,
            after_turn=[dots],
        )
        changed = bench.changed_files()
    turns = len(result.result.turns)
    print(f" {turns} turn{'' if turns == 1 else 's'}, ended {result.stop_reason}")
    return result, changed


def tally(run) -> str:
    sent = [f"{n} x {tag}" for tag, n in run.counts.items() if n]
    return ", ".join(sent) or "no monitor said anything"


def offline() -> None:
    print("1. An agent rewrites bill.py again and again and never runs a check (thrasher):")
    thrash, _ = run("thrasher", ALL_ON, max_turns=16)
    print(
        "   -> the progress monitor noticed no new state twice and counted the turns down, and the gate\n"
        f"      asked for a check mid-run and at the finish: {tally(thrash)}"
    )
    print("      it ran out of turns, and the notice says what was left undone:")
    print("      " + thrash.notice.replace("\n", "\n      "))
    print(
        "2. An agent checks its fix with pytest -k split only, after a red full suite (fast_finisher):"
    )
    fast, _ = run("fast_finisher", MonitorConfig(verification_tiers="advisory"))
    print(
        f"   -> at its finish only the fast tier had passed; the gate asked once for the full suite, the agent ran "
        f"it: {tally(fast)}"
    )
    for name, title in (
        ("streak_after_green", "A streak of failures after a green point (streak_after_green)"),
        (
            "streak_shell_edit",
            "The same streak, after a sed -i the harness never saw (streak_shell_edit)",
        ),
    ):
        print(
            f"3. {title}, safe_state_abort auto:"
            if name == "streak_after_green"
            else f"4. {title}:"
        )
        streak, changed = run(name, MonitorConfig(safe_state_abort="auto"))
        abort = streak.aborts[0]
        done = (
            f"put {', '.join(abort.restored)} back as it was at green"
            if abort.restored
            else f"declined to touch the tree ({abort.reason}: {abort.path}) and only advised"
        )
        print(
            f"   -> on turn {abort.turn} the safe-state abort {done}; files changed at the end: {', '.join(changed)}"
        )
        print(
            f"      the last suite run was {VERDICT[streak.verification]}: {ENDED[streak.stop_reason]}"
        )


def words(text: str, limit: int) -> str:
    """`text` on one line, cut at a word boundary with "…" when it is longer than `limit`."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rsplit(" ", 1)[0].rstrip("…") + "…"


def run_live() -> None:
    if rehearsal_script(cafe.make_client(), cafe.model_name()) == "default":
        print(
            textwrap.fill(
                default_rehearsal_note("15"), 96, initial_indent="  ", subsequent_indent="  "
            )
        )
    print("Your model on the till, every monitor on (advisory, stall threshold 4, 12 turns):")
    mine, changed = run(None, ALL_ON, max_turns=12)
    print(f"   -> {tally(mine)}; files changed: {', '.join(changed) or 'none'}")
    if not any(turn.calls for turn in mine.result.turns):
        print(
            f"      {cafe.model_name()} called no tool, so the monitors had nothing to watch; offline\n"
            "      (without COURSE_MODE=live) scripted agents show each monitor speaking up"
        )
    for text in mine.messages:
        print("      " + words(text.splitlines()[0], 110))
    if mine.notice:
        print("      " + mine.notice.replace("\n", "\n      "))


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        print(
            f"Session 15 toy ({'live' if live else 'offline'}): four monitors that speak up when a "
            "run goes wrong\nwithout any error saying so."
        )
        print(f"mode: {cafe.course_mode()} (model {cafe.model_name()}); a dot per turn")
        print("Legend:\n" + "\n".join(f"  {tag:<21} {MEANING[tag]}" for tag in MONITOR_PREFIXES))
        run_live() if live else offline()
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"\ntoy s15: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
