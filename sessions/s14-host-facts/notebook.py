# %% [markdown]
# # Session 14 · Facts only the host knows, and a timeout that reads them
#
# Session 13's detector spots a failure that keeps coming back with the same signature. This
# notebook hands the harness what only the host can tell it, and watches what changes:
#
# 1. **Are writes progress?** An agent keeps editing the till, and every edit produces a
#    *different* wrong total. What does session 13's detector make of that, and what does the
#    host's `progress_signal` (how many tests pass) add?
# 2. **A delivered fix that changed nothing.** The agent's fix reaches the file, and the same
#    failure comes back. What does `remediation_delivered` change about when the detector speaks?
# 3. **The pace governor's decisions**, as a table you can push across its boundaries.
# 4. **Your turn (1 of 2):** observations where a cut's own fact holds and another check wins.
# 5. **The governor drives a real loop** on a fake clock, against a fixed timeout.
# 6. **Your turn (2 of 2):** a host reading of your own, with a live stretch; your model under the
#    governor (live mode); the checkpoint.
#
# Every run here is real: a scripted agent works on the café's till project in a temporary git
# repository, its edits are real file writes, and `run_tests` really runs pytest. The stories stay
# scripted in both modes, so they show everyone the same mechanism; only cells marked *live* use
# your model.

# %%
import cafe
from cafe import course
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, default_rehearsal_note, rehearsal_script
from cafe.exercises.s14 import check_overruled, check_reading
from cafe.governor import (
    CUT_REASONS,
    DECISIONS,
    OBSERVATION_KEYS,
    decide_pace,
    decision_table,
    governor_pace_decision,
)
from cafe.governor.facts import HostFacts, ProgressCheck, RemediationInfo
from cafe.governor.pacing import (
    PACE_STOP_REASONS,
    PaceGovernor,
    TurnClock,
    passing_tests,
    wall_timeout,
)
from cafe.loop import RUN_STOP_REASONS, run_loop
from cafe.stall import (
    STALL_STOP_REASONS,
    VERIFY_STOP_REASONS,
    VerifyEntrypoint,
    run_with_stall,
    stall_config,
)
from cafe.stories.scenarios import scenario_replies
from cafe.world.workbench import open_workbench

TASK = [
    {"role": "user", "content": "One of the till's tests fails. Fix bill.py and run the tests."}
]
LIVE = cafe.course_mode() == "live"


def rehearsal_note():
    """What to expect when `cafe serve` answers instead of a model (live mode)."""
    script = rehearsal_script(cafe.make_client(), cafe.model_name()) if LIVE else None
    if script == DEFAULT_LABEL:
        print(default_rehearsal_note("14"))
    elif script is not None:
        print("(cafe serve's session-14 script answered, not a model: the same repair every time.)")


def calls_of(record) -> str:
    """One turn's tool calls, short: 'write_file+run_tests*' (* marks a check the harness forced)."""
    names = [r.name + ("*" if r.forced else "") for r in record.dispatch]
    return "+".join(names) or "(answered)"


# %% [markdown]
# ## 1. When does a run that keeps changing its error stop?
#
# The scripted agent `varied_failures` runs the tests, then edits `bill.py` and re-tests, over
# and over. Each edit changes the wrong total (999, then 1001, then 1002, ...), so pytest's
# message is different every time. Session 13's current-failure model is keyed on the failure
# signature: a *different* failure resets its streak, which is normally exactly right (the error
# moved). Here it means the detector never trips.
#
# The host knows better. After each turn it can say how many of the till's tests pass. That is
# `progress_signal`: a number, or `None` when the turn ran no check. We hand the stall detector
# `passing_tests`, which reads pytest's summary line.
#
# Predict first: with `progress_signal` set, on which turn does the run stop?

# %%
writes_guess = course.predict(
    "s14.varied_run_end",
    "With progress_signal set, on which turn does the varied_failures run stop?",
    options=["2", "4", "8", "it never stops early"],
)

# %% [markdown]
# First without the host fact (session 13's detector alone), then with it, plugged into the
# detector as a `ProgressCheck`. The extra after-turn hook only records the check's memory of
# `progress_signal` after each turn, for the table.


# %%
def varied_run(progress_signal):
    checks = [ProgressCheck(progress_signal)] if progress_signal else []
    memory = []

    def record(view):
        for check in checks:
            memory.append(
                (
                    check.progress.high_water,
                    check.progress.flat_streak,
                    check.progress.wrote_while_flat,
                )
            )

    with open_workbench() as bench:
        run = run_with_stall(
            ScriptedClient(scenario_replies("varied_failures")),
            TASK,
            bench.tools,
            verify=bench.verify,
            config=stall_config(repair_aware=True),
            checks=checks,
            after_turn=[record],
            max_turns=14,
        )
    return run, memory


blind, _ = varied_run(None)
told, memory = varied_run(passing_tests)

print(f"session 13 alone:     {blind.stop_reason} after {len(blind.result.turns)} turns")
print(f"with progress_signal: {told.stop_reason} after {len(told.result.turns)} turns")
print(f"  {told.result.detail}")
print()
rows = [
    (record.turn, calls_of(record), high, streak, wrote)
    for record, (high, streak, wrote) in zip(told.result.turns, memory)
]
course.print_table(rows, ["turn", "calls", "best passing", "flat streak", "wrote while flat"])

# %%
course.show_outcome(writes_guess, str(len(told.result.turns)))

# %% [markdown]
# Read the table. Edits land on every other turn and pytest runs on every turn (the `*` marks
# the re-check the repair-aware loop forces after an edit), yet the best passing count never
# moves off 3. After three flat turns with a write among them, the write-axis cut stops the run
# as `stuck`. Without the host's number, the same agent ran until it had used every
# verification attempt.

# %%
assert blind.stop_reason != "stuck", "session 13 alone should not see this stall"
assert told.stop_reason == "stuck" and "no_net_progress" in told.result.detail
assert "write axis" in told.result.detail
assert {high for high, _, _ in memory} == {3.0}, "the verifier never moved past 3 passing tests"
assert len(told.result.turns) < len(blind.result.turns)

# %%
course.reveal("s14.writes_not_progress")

# %% [markdown]
# ## 2. How much sooner does a delivered fix that changed nothing raise a flag?
#
# The `thrash` agent runs the tests, then tries three rewrites of the split (`round`, `int`, a
# comment), each followed by a test run. None of them changes the failure. Session 13 already
# catches this: after the same signature three times, `stuck_same_diagnostic` nudges the agent.
#
# The host can add one fact: *the fix reached the files*. Our host checks the workbench itself:
# for each write in the previous turn, is the file on disk now exactly what the agent sent? That
# is `remediation_delivered`. When the answer is yes and the same failure is back, the detector
# raises `delivered_fix_not_landing` (the fix was delivered, but it had no effect on the
# failure). The host is asked when the detector folds a turn, which happens at the start of the
# next one, once the same failure has come back `STALL_DELIVERED_FIX_AFTER` (2) times in a row.
# The detector is session 13's, repair-aware with its default knobs, the post-edit re-verify
# included.
#
# Predict first: with `remediation_delivered` set, on which turn is the first warning raised?

# %%
delivered_guess = course.predict(
    "s14.delivered_fix_turn",
    "With remediation_delivered set, on which turn does the first stall warning fire?",
    options=["2", "3", "4", "5"],
)


# %%
def thrash_run(with_host_fact: bool):
    with open_workbench() as bench:

        def fix_delivered(info: RemediationInfo) -> bool:
            """Host fact: every file the agent wrote last turn is on disk as it was sent."""
            writes = [r for r in info.prev_dispatch if r.kind == "mutate" and r.ok]
            return bool(writes) and all(
                (bench.root / r.arguments["path"]).read_text(encoding="utf-8")
                == r.arguments["content"]
                for r in writes
            )

        facts = HostFacts(remediation_delivered=fix_delivered if with_host_fact else None)
        return run_with_stall(
            ScriptedClient(scenario_replies("thrash")),
            TASK,
            bench.tools,
            verify=bench.verify,
            config=stall_config(repair_aware=True),
            checks=facts.checks(),
            max_turns=14,
        )


plain, delivered = thrash_run(False), thrash_run(True)
for name, run in (("session 13 alone", plain), ("with remediation_delivered", delivered)):
    print(f"{name}: {run.stop_reason} after {len(run.result.turns)} turns")
    for warning in run.warnings:
        said = "stopped the run" if warning.stopped else "sent" if warning.sent else "recorded"
        print(f"  turn {warning.turn}: {warning.pattern} ({said})")
print()
course.print_table(
    [
        (s.turn, s.folded, s.failure_state.same_diagnostic_streak, s.pattern or "")
        for s in delivered.timeline
    ],
    ["turn", "folded", "same-failure streak", "pattern"],
)

# %%
first = delivered.warnings[0]
course.show_outcome(delivered_guess, str(first.turn))

# %%
assert first.pattern == "delivered_fix_not_landing"
assert plain.warnings[0].pattern == "stuck_same_diagnostic"
assert first.turn == plain.warnings[0].turn - 1, "the host fact escalates one turn sooner"

# %% [markdown]
# The detector only raises the flag. What to do about a delivered fix that changed nothing
# (switch strategy, give the agent a new tool, call a person) is your host's policy. The
# detector's own escalation applies meanwhile: the first warning is sent to the agent, and the
# later ones are recorded for the host but not sent. None of them stops the run: each comes after
# a call that tripped nothing, so none is a second trip in a row. The run goes on until its verify
# entrypoint has no check left, and ends on that.

# %%
course.reveal("s14.delivered_fix")

# %% [markdown]
# ## 3. What does the pace governor decide at its boundaries?
#
# `governor_pace_decision(policy, obs)` is a pure function: a policy with two caps, an
# observation of the run, one decision back from the closed set below. It reads no clock; you
# pass `elapsed_ms` in.

# %%
print("decisions:  ", sorted(DECISIONS))
print("cut reasons:", list(CUT_REASONS), "(in the order they are checked)")
print("observation:", list(OBSERVATION_KEYS))

# %% [markdown]
# A run armed with a 30 s budget, checkpoints every 30 s, expected to take 90 s. Each row of the
# table below changes one or two facts of the first; a blank cell is a key left out, which reads
# as 0 or `False`.
#
# Predict first: the run is at exactly 120 000 ms, still progressing, it has used all six of its
# silent extensions and none of its pace checks. What does the governor decide, and why?

# %%
boundary_guess = course.predict(
    "s14.boundary",
    "Expected 90 s, checkpoint 30 s, progressing, extends_used 6, no pace checks yet: the decision at 120 000 ms?",
    options=[
        "cut: extend_budget_exhausted",
        "extend: progress_within_estimate",
        "pace_check: over_estimate_while_progressing",
        "cut: pace_check_budget_exhausted",
    ],
)

# %%
RUN = {
    "armed_budget_ms": 30_000,
    "checkpoint_ms": 30_000,
    "expected_total_ms": 90_000,
    "elapsed_ms": 30_000,
    "made_progress": True,
}
observations = [
    RUN,
    {**RUN, "elapsed_ms": 29_999},
    {**RUN, "done": True, "made_progress": False},
    {**RUN, "made_progress": False},
    {**RUN, "verifier_signature_unchanged": True},
    {**RUN, "env_blame_without_infra": True},
    {**RUN, "extends_used": 6},
    {**RUN, "elapsed_ms": 119_999},
    {**RUN, "elapsed_ms": 120_000},
    {**RUN, "elapsed_ms": 120_000, "pace_checks_used": 2},
    {**RUN, "made_progress": False, "env_blame_without_infra": True},
    {**RUN, "elapsed_ms": 119_999, "extends_used": 6},
    {**RUN, "elapsed_ms": 120_000, "extends_used": 6},
]
table = decision_table(observations)
shown = [
    "elapsed_ms",
    "made_progress",
    "verifier_signature_unchanged",
    "env_blame_without_infra",
    "done",
    "extends_used",
    "pace_checks_used",
    "action",
    "reason",
    "new_budget_ms",
]
course.print_table([[("" if row[c] is None else row[c]) for c in shown] for row in table], shown)

# %%
course.show_outcome(boundary_guess, f"{table[-1]['action']}: {table[-1]['reason']}")

# %% [markdown]
# Four things to read off the table. The row with no progress and an environment blame meets two
# cut conditions and gets the earlier reason, `no_progress_at_checkpoint`: the order is part of
# the contract. One millisecond decides between `extend` and `pace_check`: "past the estimate"
# means `elapsed_ms` at or beyond `expected_total_ms + checkpoint_ms`. The spent extensions cut
# the run at 119 999 ms but not at 120 000 ms: that cut belongs to a run *inside* its estimate,
# and past it the pace checks take over. And only `extend` carries `new_budget_ms`.

# %%
assert [row["action"] for row in table] == [
    "extend",
    "proceed",
    "proceed",
    "cut",
    "cut",
    "cut",
    "cut",
    "extend",
    "pace_check",
    "cut",
    "cut",
    "cut",
    "pace_check",
]
assert (
    table[10]["reason"] == "no_progress_at_checkpoint"
    and table[11]["reason"] == "extend_budget_exhausted"
)
assert all((row["new_budget_ms"] is not None) == (row["action"] == "extend") for row in table)

# %% [markdown]
# Move one value at a time. In Jupyter the sliders below redraw the decision; headless, the cell
# prints how to do the same by hand.


# %%
def explore(
    elapsed_ms=30_000,
    expected_total_ms=90_000,
    extends_used=0,
    pace_checks_used=0,
    made_progress=True,
    verifier_signature_unchanged=False,
):
    obs = {
        **RUN,
        "elapsed_ms": elapsed_ms,
        "expected_total_ms": expected_total_ms,
        "extends_used": extends_used,
        "pace_checks_used": pace_checks_used,
        "made_progress": made_progress,
        "verifier_signature_unchanged": verifier_signature_unchanged,
    }
    print(governor_pace_decision({}, obs))


if course.headless():
    print(
        "[widget s14.explore] Sliders for elapsed_ms, expected_total_ms and the two counters. "
        "Without widgets, call explore(elapsed_ms=..., ...) yourself, e.g. explore(elapsed_ms=120_000)."
    )
else:
    import ipywidgets as widgets

    widgets.interact(
        explore,
        elapsed_ms=widgets.IntSlider(30_000, 0, 200_000, 1_000),
        expected_total_ms=widgets.IntSlider(90_000, 0, 200_000, 5_000),
        extends_used=widgets.IntSlider(0, 0, 8),
        pace_checks_used=widgets.IntSlider(0, 0, 4),
    )

# %%
course.reveal("s14.boundary")

# %% [markdown]
# ## 4. Your turn (1 of 2): when does a cut's own fact not decide?
#
# Each cut reason is named after a fact: `verifier_signature_unchanged`,
# `env_blame_without_infra`, extensions spent (`extends_used` at `extend_max`, 6), pace checks
# spent (`pace_checks_used` at `pace_check_max`, 2). A fact is not a verdict: the governor's
# checks run in order, and some cuts need more than their fact.
#
# Write `my_overruled()`: return a dict from each of `no_verifier_progress`,
# `env_blame_without_infra`, `extend_budget_exhausted` and `pace_check_budget_exhausted` to one
# observation in which that reason's fact holds, yet the governor decides something else. Two
# rules make it a puzzle: the governor must not simply `proceed` (so the run is armed, not done,
# and at or past its checkpoint), and the four decisions (action and reason) must all differ.
# Why is `no_progress_at_checkpoint` not on the list? The compare cell says, if you add it.
# Start from `RUN` above; the default policy applies.


# %%
def my_overruled() -> dict:
    raise NotImplementedError("your turn: one observation per cut reason, each overruled")


# %%
course.compare(my_overruled, check=check_overruled, key="s14.overruled")

# %% [markdown]
# Done, or stuck? One answer is behind the first switch; the governor itself, `decide_pace`, is
# behind the second: the decision table written on frozen records (`PacePolicy`,
# `PaceObservation`, `PaceDecision`) that check their values when built.

# %%
course.reveal("s14.overruled")

# %%
course.reveal("s14.pace_decision_source", source=decide_pace)

# %% [markdown]
# ## 5. Fixed timeout or pace governor: how do the runs end?
#
# `PaceGovernor` (from `cafe.governor.pacing`) is the host side of the decision: an after-turn hook for
# `run_loop` that keeps the armed deadline, the two counters and the evidence since the last
# checkpoint. It asks the governor only once the deadline has passed, which is the moment a
# fixed timeout would fire.
#
# Time comes from a fake clock: `TurnClock(10.0)` charges every turn 10 seconds, so turn *n*
# ends at *n* × 10 s and the runs below are deterministic. The budget is 30 s. The `productive`
# agent needs seven turns: test, read, a first edit that changes the failure, test, the real fix,
# test, done.
#
# Predict first: how does the productive run end under a plain 30 s `wall_timeout`, and under
# the pace governor?

# %%
pace_guess = course.predict(
    "s14.steady_run",
    "Budget 30 s, 10 s a turn, a repair that needs 7 turns. Fixed timeout vs pace governor?",
    options=[
        "both finish",
        "timeout cuts it, governor lets it finish",
        "both cut it",
        "governor cuts it, timeout lets it finish",
    ],
)


# %%
def governed(scenario: str, hook, facts: HostFacts | None = None, client=None):
    """A run under a pace hook; with `facts`, session 13's detector (repair-aware) runs too, with
    the host facts plugged in. The scripted `scenario` answers unless a `client` is given."""
    clock = TurnClock(10.0)
    with open_workbench() as bench:
        client = client or ScriptedClient(scenario_replies(scenario))
        if facts is not None:
            return run_with_stall(
                client,
                TASK,
                bench.tools,
                verify=bench.verify,
                config=stall_config(repair_aware=True),
                checks=facts.checks(),
                observers=[clock.tick],
                after_turn=[hook],
                stop_reasons=PACE_STOP_REASONS,
                clock=clock,
                max_turns=14,
            ).result
        return checked_run(client, bench, hook, clock)


def checked_run(client, bench, hook, clock):
    """The loop with the till's verify entrypoint and one pace hook, each plugged into its seam
    and each bringing the stop reason it declares."""
    verifier = VerifyEntrypoint(bench.verify)
    return run_loop(
        client,
        TASK,
        bench.tools,
        observers=[clock.tick],
        after_turn=[verifier.after_turn, hook],
        before_finish=[verifier.before_finish],
        stop_reasons=PACE_STOP_REASONS | VERIFY_STOP_REASONS,
        clock=clock,
        max_turns=14,
    )


def decisions(governor: PaceGovernor) -> list[str]:
    return [
        f"turn {t.turn} ({t.elapsed_ms / 1000:g} s): {t.decision.action}"
        + (f" {t.decision.reason}" if t.decision.reason else "")
        for t in governor.turns
        if t.decision
    ]


timed = governed("productive", wall_timeout(30_000))
steady_governor = PaceGovernor(30_000, reading=passing_tests)
steady = governed("productive", steady_governor)
print(f"fixed timeout: {timed.stop_reason} on turn {len(timed.turns)} ({timed.detail})")
print(f"pace governor: {steady.stop_reason} on turn {len(steady.turns)} ({steady.detail})")
for line in decisions(steady_governor):
    print("   ", line)

# %%
outcome = {
    ("cut", "done"): "timeout cuts it, governor lets it finish",
    ("done", "done"): "both finish",
    ("cut", "cut"): "both cut it",
}.get((timed.stop_reason, steady.stop_reason), "governor cuts it, timeout lets it finish")
course.show_outcome(pace_guess, outcome)

# %% [markdown]
# At 30 s the run had shown progress (its first test reading, then an edit), so the governor
# moved the deadline to 60 s without a word to the agent. At 60 s the tests had just passed:
# `done`, so it stood back. The fixed timeout cut the same run at 30 s, four turns from green.
#
# Now the `thrash` agent from section 2 under the same governor: it edits, and pytest keeps
# saying exactly the same thing. Predict first: when does the governor stop it, and why?

# %%
thrash_guess = course.predict(
    "s14.thrash_governed",
    "When and why does the governor stop the thrash?",
    options=[
        "turn 3: nothing moved by the first checkpoint",
        "turn 6: files changed, the verifier did not",
        "turn 6: the agent blamed its environment",
        "never: every edit counts as progress",
    ],
)

# %%
thrash_governor = PaceGovernor(30_000, reading=passing_tests)
thrashed = governed("thrash", thrash_governor)
print(f"pace governor: {thrashed.stop_reason} on turn {len(thrashed.turns)} ({thrashed.detail})")
for line in decisions(thrash_governor):
    print("   ", line)
WHY = {
    "no_progress_at_checkpoint": "nothing moved by the first checkpoint",
    "no_verifier_progress": "files changed, the verifier did not",
    "env_blame_without_infra": "the agent blamed its environment",
}
thrash_reason = thrash_governor.turns[-1].decision.reason
course.show_outcome(
    thrash_guess,
    f"turn {len(thrashed.turns)}: {WHY.get(thrash_reason, thrash_reason)}"
    if thrashed.stop_reason == "cut"
    else "never: every edit counts as progress",
)

# %% [markdown]
# The first checkpoint gives the benefit of the doubt: the first test reading counts as an
# advance. In the second window the agent wrote, the passing count stayed at 3 and the failure's
# signature did not change, so the governor cut with `no_verifier_progress`.
#
# A tighter estimate shows the third decision. Expect the productive run to take 20 s, with
# 20 s checkpoints: past the estimate means 40 s or more. The agent is still progressing then
# (its edit changed the failure), so it gets a `pace_check`, a note asking it to wrap up, and the
# deadline moves one checkpoint on.

# %%
tight_governor = PaceGovernor(20_000, expected_total_ms=20_000, reading=passing_tests)
tight = governed("productive", tight_governor)
print(f"pace governor: {tight.stop_reason} on turn {len(tight.turns)}")
for line in decisions(tight_governor):
    print("   ", line)
notes = [(record.turn, nudge.source) for record in tight.turns for nudge in record.nudges]
print("notes sent to the agent:", notes)

# %%
assert timed.stop_reason == "cut" and steady.stop_reason == "done"
assert steady_governor.extends_used == 1 and not any(r.nudges for r in steady.turns)
assert thrashed.stop_reason == "cut" and "no_verifier_progress" in thrashed.detail
assert [t.decision.action for t in tight_governor.turns if t.decision][:2] == [
    "extend",
    "pace_check",
]
assert notes and notes[0][1] == "pace_check" and tight.stop_reason == "done"

# %% [markdown]
# Last, the agent from section 1, whose every edit produces a new wrong total. To the governor
# a changed failure looks like movement, so on its own it keeps the run alive: it extends, then
# nudges, and cuts only when the nudges are spent. Add the stall detector with `progress_signal`
# and the two host facts work side by side: the detector reads the passing count every turn,
# the governor reads the clock's checkpoints, and whichever sees the stall first stops the run.

# %%
alone_governor = PaceGovernor(30_000, reading=passing_tests)
alone = governed("varied_failures", alone_governor)
both = governed(
    "varied_failures",
    PaceGovernor(30_000, reading=passing_tests),
    facts=HostFacts(progress_signal=passing_tests),
)
print(f"governor alone:          {alone.stop_reason} on turn {len(alone.turns)} ({alone.detail})")
print(
    f"governor + stall signal: {both.stop_reason} on turn {len(both.turns)} ({both.detail[:60]}...)"
)

# %%
assert alone.stop_reason == "cut" and "no_verifier_progress" not in alone.detail
assert both.stop_reason == "stuck" and len(both.turns) < len(alone.turns)

# %%
course.reveal("s14.silent_extend")

# %% [markdown]
# ## 6. Your turn (2 of 2): a host reading of your own
#
# The governor and the stall detector both trust one number from the host: the reading. The till's
# is `passing_tests`. Write your own, `my_reading(view)`: given a turn's `TurnView`, return a
# number that rises as the till gets greener, or `None` when the turn verified nothing. Any scale
# works (a count, a fraction, a score you design); the compare cell checks what the governor
# relies on: `None` only when nothing was verified, a number (never `None`) when the tests ran
# red, and a higher number for more passing tests.


# %%
def my_reading(view) -> float | None:
    raise NotImplementedError(
        "your turn: read this turn's verify results; None when there are none"
    )


# %%
reading_check = course.compare(my_reading, check=check_reading, key="s14.reading")

# %% [markdown]
# **Stretch.** The cell below runs one repair under `PaceGovernor` twice, once reading
# `passing_tests` and once reading yours, and prints each decision. Offline the repair is the
# scripted `productive` agent. With `COURSE_MODE=live` it is your own model working on the till (a
# *live* run: what it does is its choice, so the cell asserts nothing about it). The clock is
# still section 5's fake one, `TurnClock(10.0)`: every turn counts 10 s, however long your model
# really took, so the governor's decisions weigh its turns, not its speed. Run it against your
# model: did your reading change a decision? Which one, and why?


# %%
def governed_by(reading):
    governor = PaceGovernor(30_000, reading=reading)
    clock = TurnClock(10.0)
    client = cafe.make_client() if LIVE else ScriptedClient(scenario_replies("productive"))
    with open_workbench() as bench:
        result = checked_run(client, bench, governor, clock)
    return result, governor


def stretch_run(name, reading):
    """One governed run, as a live story in live mode (an endpoint problem is one line)."""
    if not LIVE:
        return course.LiveStory(f"s14.stretch_{name}", value=governed_by(reading))
    run = lambda: governed_by(reading)  # noqa: E731
    return course.live_story(f"s14.stretch_{name}", run, model=cafe.model_name())


print(f"{'live: ' + cafe.model_name() if LIVE else 'offline: the scripted productive agent'}")
rehearsal_note()
readings = {"passing_tests": passing_tests, "my_reading": my_reading}
stretch = {}
for name, reading in readings.items():
    try:
        story = stretch_run(name, reading)
    except NotImplementedError:
        print(f"{name}: still a stub; write it above, then run this cell again.")
        continue
    if story.skipped(f"the {name} run"):
        continue
    result, governor = story.value
    stretch[name] = story
    print(f"{name}: {result.stop_reason} on turn {len(result.turns)}")
    for line in decisions(governor):
        print("   ", line)

# %% [markdown]
# ## 7. Your model under the governor (live mode only)
#
# With `COURSE_MODE=live` this cell puts your own model on the till under the pace governor, with
# `progress_signal` plugged into the stall detector as well, and prints the scripted productive
# agent's run beside it. The clock is section 5's fake one (`TurnClock(10.0)`, 10 s a turn): the
# seconds in the decisions count your model's turns, not the time it took. It is a *live* cell: it asserts only that the run ended on a named stop
# reason. If the endpoint fails, the cell says so in one line and the checkpoint keeps what you
# banked before. Offline it is skipped, and the checkpoint banks the scripted runs instead.

# %%
live_run = course.LiveStory("s14.your_model")  # offline: nothing ran
if LIVE:
    live_governor = PaceGovernor(30_000, reading=passing_tests)
    live_run = course.live_story(
        "s14.your_model",
        lambda: governed(
            "productive",
            live_governor,
            facts=HostFacts(progress_signal=passing_tests),
            client=cafe.make_client(),
        ),
        model=cafe.model_name(),
    )
if not LIVE:
    print("offline: skipped (set COURSE_MODE=live and the CAFE_* variables to run your model)")
elif not live_run.skipped("your model's run under the governor"):
    live = live_run.value
    print(
        f"live: {cafe.model_name()}: {live.stop_reason} on turn {len(live.turns)} ({live.detail})"
    )
    rehearsal_note()
    print("  (the fake clock: 10 s a turn, not your model's real time)")
    for line in decisions(live_governor):
        print("   ", line)
    print(f"scripted productive agent: {steady.stop_reason} on turn {len(steady.turns)}")
    if not any(record.dispatch for record in live.turns):
        print(
            "Your model called no tool, so no test ran and the governor had no reading to weigh: "
            "its decisions above come from the clock alone. The scripted runs in section 5 show "
            "what it does with a reading."
        )
    assert (
        live.stop_reason
        in RUN_STOP_REASONS | STALL_STOP_REASONS | VERIFY_STOP_REASONS | PACE_STOP_REASONS
    )

# %% [markdown]
# ## Checkpoint
#
# Offline, bank how each scripted run ended, fixed timeout against pace governor: the turn and
# the reason, and how many silent extensions the steady run used. Live, bank your model's run
# under the governor: how it ended, on which turn, and what the governor decided along the way.
#
# A second entry is yours, once `my_reading` has passed its check: how section 6's run ended and
# what the governor decided with your reading, beside the same with `passing_tests`.


# %%
def ended(result) -> dict:
    return {"turn": len(result.turns), "stop_reason": result.stop_reason}


if LIVE and live_run.ok:
    banked = {
        **ended(live),
        "extends_used": live_governor.extends_used,
        "pace_checks_used": live_governor.pace_checks_used,
        "decisions": decisions(live_governor),
    }
elif LIVE:
    banked = {}  # the live run failed: the checkpoint keeps what you banked before
else:
    banked = {
        "steady_fixed_timeout": ended(timed),
        "steady_governor": ended(steady),
        "steady_extends_used": steady_governor.extends_used,
        "thrash_governor": {**ended(thrashed), "reason": thrash_governor.turns[-1].decision.reason},
        "varied_governor_alone": ended(alone),
        "varied_with_progress_signal": ended(both),
    }
course.checkpoint("s14", "timeout_vs_governor", banked, model=cafe.model_name(), needs=[live_run])


def governed_figures(story):
    result, governor = story.value
    return {**ended(result), "decisions": decisions(governor)}


if reading_check.passed and "my_reading" in stretch:
    course.checkpoint(
        "s14",
        "your_reading",
        {name: governed_figures(story) for name, story in stretch.items()},
        model=cafe.model_name(),
        source="yours",
        needs=list(stretch.values()),
    )
elif reading_check.passed:
    print("[checkpoint s14.your_reading] nothing banked: section 6's run with your reading failed")
else:
    print("[checkpoint s14.your_reading] nothing banked yet: my_reading has not passed its check")

# %% [markdown]
# Session 15 asks the next question: how much do you trust each piece of evidence, and when a
# run is stopped, what state does it leave the workspace in?
