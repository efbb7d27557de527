# %% [markdown]
# # Session 13 · Is the agent still fighting the same failure?
#
# A stall detector that counts repeated actions and one that reads the evidence look alike on
# paper. This notebook puts both on the same agents and asks you, before each run, what they will
# do:
#
# 1. **The thrash** (edit, re-test, again) under a counter of repeated actions.
# 2. **The lag**: on which turn a detector that runs at the start of a turn can trip.
# 3. **The thrash** again, under the repair-aware detector.
# 4. **What counts as one failure**: the signature, and what its normalization ignores.
# 5. **A repair that changes its error**, under the same detector.
# 6. **The post-edit re-verify**: when an edit gets checked.
# 7. **The hand-back**: what a run that ends without success says.
# 8-9. **Your turn**: the fold, then a signature of your own (with a live stretch).
# 10. **The hard cap**, and when trips turn from a message into a stop.
# 11-12. **Your model** (live mode), and the **checkpoint**.
#
# Every run is real. A scripted agent works on the café's till (a bill calculator with one failing
# test) in a temporary git repository: its edits are real file writes, and `run_tests` really runs
# pytest. The stories stay scripted in both modes, so they show the same mechanism to everyone;
# only the cells marked *live* use your model.

# %%
import cafe
from cafe import course
from cafe.endpoint.config import OFFLINE_MODEL
from cafe.endpoint.scripted import ScriptedClient
from cafe.exercises.s13 import check_fold_diagnostic, check_signature
from cafe.loop import RUN_STOP_REASONS, ToolResult
from cafe.stall import STALL_STOP_REASONS, VERIFY_STOP_REASONS, run_with_stall, stall_config
from cafe.stall.evidence import failure_signature, normalize_evidence
from cafe.stall.failure_state import FailureState, fold_diagnostic
from cafe.stories.scenarios import edited_bill, scenario_replies
from cafe.world.workbench import open_workbench

TASK = [
    {"role": "user", "content": "One of the till's tests fails. Fix bill.py and run the tests."}
]
BLIND = stall_config()  # the default: repair_aware off
AWARE = stall_config(repair_aware=True)  # the evidence-aware detector, default knobs
AWARE_NO_MANDATE = stall_config(repair_aware=True, post_edit_reverify=False)
LIVE = cafe.course_mode() == "live"


def run(scenario, config, max_turns=None):
    """One scripted agent on a fresh copy of the till, with a stall detector plugged in. The turn
    budget defaults to the length of the agent's script."""
    replies = scenario_replies(scenario)
    with open_workbench() as bench:
        return run_with_stall(
            ScriptedClient(replies),
            TASK,
            bench.tools,
            verify=bench.verify,
            config=config,
            max_turns=max_turns or len(replies),
        )


def calls_of(record):
    """One turn's tool results, short: 'write_file+run_tests*' (* marks a check the harness forced)."""
    return (
        "+".join(
            r.name + ("*" if r.forced else "") + ("" if r.ok else "(fail)") for r in record.dispatch
        )
        or "(answered)"
    )


def print_table(rows, columns):
    widths = [max(len(str(c)), *(len(str(row[i])) for row in rows)) for i, c in enumerate(columns)]
    print("  ".join(str(c).ljust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))


def blind_timeline(stalled):
    """Per turn: what ran, and the blind counters for the call proposed that turn: how many times
    in a row that same call failed the same way, and how many times in a row it was asked for
    and answered the same."""
    rows = [
        (record.turn, calls_of(record), snap.same_error, snap.same_observation, snap.pattern or "")
        for record, snap in zip(stalled.result.turns, stalled.timeline)
    ]
    print_table(rows, ["turn", "what ran", "same failure", "same answer", "trip"])
    print(f"stop_reason: {stalled.stop_reason}")


def timeline(stalled):
    """Per turn: what ran, what the repair-aware detector folded at the start of that turn (the
    previous turn's results), and what it concluded."""
    rows = []
    for record, snap in zip(stalled.result.turns, stalled.timeline):
        m = snap.failure_state
        rows.append(
            (
                record.turn,
                calls_of(record),
                snap.folded,
                m.same_diagnostic_streak,
                m.write_epoch,
                m.reverify_owed,
                snap.pattern or "",
            )
        )
    print_table(rows, ["turn", "what ran", "folded", "streak", "epoch", "owed", "trip"])
    print(f"stop_reason: {stalled.stop_reason}")


def failing_outputs(stalled):
    """Every failing tool result of a run, in order: the evidence a signature is computed from."""
    return [r for record in stalled.result.turns for r in record.dispatch if not r.ok]


def rehearsal_note():
    """What to expect when `cafe serve` answers instead of a model (live mode, model cafe-scripted)."""
    if LIVE and cafe.model_name() == OFFLINE_MODEL:
        print(
            "(cafe serve answered, not a real model. With no script its default rule calls the first tool "
            "offered,\n read_file, with an empty path, so every turn reads \"There is no file ''\". "
            "Point CAFE_* at a real model\n to see a real repair.)"
        )


_model_runs = []


def your_model_run():
    """Live only: your model on a fresh till, repair-aware detector on, once per notebook run."""
    if not _model_runs:
        with open_workbench() as bench:
            _model_runs.append(
                run_with_stall(
                    cafe.make_client(),
                    TASK,
                    bench.tools,
                    verify=bench.verify,
                    config=AWARE,
                    max_turns=12,
                )
            )
    return _model_runs[0]


# %% [markdown]
# ## 0. The till, and its failing test
#
# Here is the bug the agent is asked to fix, and what pytest says about it. `split(1000, 3)`
# gives three shares of 333, which add up to 999.

# %%
with open_workbench() as bench:
    first = bench.run_tests()
print(first.text)

# %% [markdown]
# ## 1. Does a counter of repeated actions see the thrash?
#
# The `thrash` agent runs the tests, then "fixes" `split` with an edit that changes nothing that
# matters (`round(amount / people)` still gives 333), re-tests, tries another such edit,
# re-tests, and so on, for twelve turns.
#
# The **blind** detector (`repair_aware` off) counts, call by call, how many times in a row the
# same call was answered the same way: it trips when a call has failed the same way three times
# (`repeat_same_error`) or has been asked for four times with the same answer
# (`repeat_same_observation`). Predict first: does it trip on this agent?

# %%
blind_guess = course.predict(
    "s13.blind_thrash",
    "Does the blind detector trip on the edit/re-test thrash?",
    options=["yes", "no"],
)

# %%
blind = run("thrash", BLIND, max_turns=12)
blind_timeline(blind)
course.show_outcome(blind_guess, "yes" if blind.warnings else "no")
assert max(snap.same_error for snap in blind.timeline) < 3

# %% [markdown]
# The calls alternate (`write_file`, then `run_tests`), so each call differs from the one before
# it, both counts start again, and neither ever reaches its threshold. The agent burned the whole
# budget and the run ended on `max_turns`, with nothing to say about why.
#
# ## 2. On which turn can a start-of-turn detector trip?
#
# The repair-aware detector keeps a current-failure model instead (the lesson's six fields), and
# its streak counts sightings of one failure. Like every observer from session 01, it runs at the
# start of a turn, before that turn's calls. The `retest_only` agent re-runs the failing tests on
# every turn and touches nothing. Predict first: with `stuck_same_diagnostic_after` set to 3, on
# which turn does it trip?

# %%
lag_guess = course.predict(
    "s13.lag_turn",
    "retest_only, threshold 3: on which turn is the trip?",
    options=["2", "3", "4", "5"],
)

# %%
rows = []
for threshold in (2, 3, 4):
    stalled = run(
        "retest_only", stall_config(repair_aware=True, stuck_same_diagnostic_after=threshold)
    )
    rows.append((threshold, [w.turn for w in stalled.warnings]))
print_table(rows, ["stuck_same_diagnostic_after", "trip on turn"])
course.show_outcome(lag_guess, str(rows[1][1][0]))
assert all(turns == [threshold + 1] for threshold, turns in rows)

# %%
course.reveal("s13.why_lag")

# %% [markdown]
# ## 3. Does the repair-aware detector see the thrash, and when?
#
# Back to the `thrash` agent, now under the repair-aware detector, threshold 3. (The detector
# also has a re-verify mandate, the subject of section 6; it is off here, so the only test runs
# are the agent's own: turns 1, 3, 5, ..., with an edit in between.) Predict first: on which turn
# does `stuck_same_diagnostic` trip?

# %%
aware_guess = course.predict(
    "s13.aware_trip_turn",
    "On which turn does stuck_same_diagnostic trip?",
    options=["3", "4", "5", "6", "never"],
)

# %%
aware = run("thrash", AWARE_NO_MANDATE, max_turns=12)
timeline(aware)
trip_turns = [w.turn for w in aware.warnings if w.pattern == "stuck_same_diagnostic"]
course.show_outcome(aware_guess, str(trip_turns[0]) if trip_turns else "never")

# %% [markdown]
# The edits did not reset the streak: an edit turn folds as `edit` and holds it, and the next
# sighting of the same failure adds one. The third sighting came on turn 5, and the detector,
# folding it at the start of turn 6, tripped there. It fired **once**: the streak kept climbing,
# but the trip fires only on the turn the streak *reaches* the threshold. Here is what the model
# was told:

# %%
nudge = aware.result.turns[trip_turns[0] - 1].nudges[0]
print(nudge.text)
assert len(trip_turns) == 1
assert "assert 999 == 1000" in nudge.text  # it quotes the real failing evidence

# %%
course.reveal("s13.why_signature_streak")

# %% [markdown]
# ## 4. Does moving the failing line change its signature?
#
# The signature is the SHA-256 of the failing output after normalisation. Each kind of run-to-run
# noise has its own rule (the table is in the lesson and in `cafe/stall/noise.py`, with the rules
# for what a test runner writes in `cafe/stall/runner_noise.py`), and each rule masks a token only
# where it cannot be the failure itself: a runner's rule never looks inside the test's own data.
#
# Predict first: we add two lines at the top of the till's test file, so pytest reports the
# failure at `check_bill.py:23` instead of `:21`, and re-run. Does the signature stay as it was?

# %%
moved_guess = course.predict(
    "s13.moved_signature",
    "The failure moved from line 21 to line 23. Its signature...",
    options=["stays", "changes"],
)

# %%
noisy = "\x1b[31mE   assert 999 == 1000\x1b[0m\n/tmp/cafe-workbench-ab12/till/check_bill.py:21\n1 failed in 0.02s"
print(normalize_evidence(noisy))
# ...and what stays, because it can be the failure: the missing file's name, a checksum.
for missing in ("/tmp/config.json", "/tmp/data.csv"):
    print(normalize_evidence(f"FileNotFoundError: '{missing}'"))
print(normalize_evidence("checksum 0xdeadbeef != 0x12345678"))

with open_workbench() as bench:
    before = bench.run_tests()
    bench.write_file(
        "check_bill.py", "# two new lines at the top\n\n" + bench.read_file("check_bill.py").text
    )
    moved = bench.run_tests()
    bench.write_file("bill.py", edited_bill("ceil"))
    different = bench.run_tests()


def signature_of(output):
    """The signature of a test run, as the detector computes it from the loop's record of the call."""
    return failure_signature(ToolResult("check", "run_tests", {}, output.ok, output.text, "verify"))


signatures = [signature_of(check) for check in (before, moved, different)]
for label, signature in zip(
    ["the original failure", "moved down two lines", "a different wrong total"], signatures
):
    print(f"{label:24} {signature[:16]}...")
course.show_outcome(moved_guess, "stays" if signatures[0] == signatures[1] else "changes")
assert signatures[0] == signatures[1] != signatures[2]

# %% [markdown]
# ## 5. Does a repair that changes its error trip the detector?
#
# The `productive` agent's first edit is wrong too, but it *changes* the error (999 becomes
# 1002); its second edit fixes the bug. Predict first: does the repair-aware detector trip?

# %%
productive_guess = course.predict(
    "s13.productive_trips", "Does the productive repair trip the detector?", options=["yes", "no"]
)

# %%
productive = run("productive", AWARE_NO_MANDATE)
timeline(productive)
course.show_outcome(productive_guess, "yes" if productive.warnings else "no")
assert productive.warnings == () and productive.stop_reason == "done"

# %% [markdown]
# A different signature resets the streak to 1: the error moved, which is what progress looks
# like. That reset is the detector's safety property: an agent that is getting somewhere is never
# flagged, however many edits it makes.
#
# ## 6. After an edit, when do the tests run again?
#
# The `edit_then_done` agent runs the tests (red) on turn 1, applies the right fix on turn 2,
# adds a note to its todo board on turn 3 and says it is done on turn 4, never re-running the
# tests itself. Predict first: on which turn do the tests first run after the edit, with
# `post_edit_reverify` on (its default once `repair_aware` is) and with it off?

# %%
reverify_guess = course.predict(
    "s13.reverify_turn",
    "The edit lands on turn 2. When do the tests next run, mandate on / mandate off?",
    options=["3 / never", "3 / 4", "2 / never", "2 / 4"],
)

# %%
with_mandate = run("edit_then_done", AWARE)
without_mandate = run("edit_then_done", AWARE_NO_MANDATE)


def first_check_after_edit(stalled):
    return next(
        (
            str(r.turn)
            for r in stalled.result.turns[1:]
            if any(d.name == "run_tests" for d in r.dispatch)
        ),
        "never",
    )


for label, stalled in [
    ("post_edit_reverify on", with_mandate),
    ("post_edit_reverify off", without_mandate),
]:
    print(label)
    for record in stalled.result.turns:
        print(f"  turn {record.turn}: {calls_of(record)}")
course.show_outcome(
    reverify_guess,
    f"{first_check_after_edit(with_mandate)} / {first_check_after_edit(without_mandate)}",
)

# %% [markdown]
# An edit that wrote successfully proves the file was written, not that the bug is gone. With
# the mandate, the detector has the run's verify entrypoint run its check right after an edit on
# a failing check, in the same turn (the hook runs after the turn, so it has no lag). Without it,
# the fix goes unchecked until the agent claims to be done, and the entrypoint's check of that
# claim runs it.
#
# Here is the section 3 thrash again, with the mandate on: each edit is now checked in its own
# turn, so the sightings come faster. Those forced checks come out of the entrypoint's one budget
# (`DEFAULT_MAX_VERIFY_ATTEMPTS`, 3): once it is spent, the `*` disappears.

# %%
aware_mandate = run("thrash", AWARE, max_turns=12)
timeline(aware_mandate)
print(
    "trip turns, mandate off:",
    trip_turns,
    "  mandate on:",
    [w.turn for w in aware_mandate.warnings],
)
assert [w.turn for w in aware_mandate.warnings] == [4]

# %%
course.reveal("s13.why_reverify")

# %% [markdown]
# ## 7. What does a run that gives up hand back?
#
# A run that ends without success carries `current_failure`: the class, the signature, a
# snippet of the evidence, and the streak. Compare the thrash from section 3 with the productive
# repair from section 5.

# %%
failure = aware.current_failure
print(aware.stop_reason, {**failure.as_dict(), "signature": failure.signature[:12] + "..."})
print(productive.stop_reason, productive.current_failure)
assert failure.as_dict()["class"] == "fail" and failure.snippet.startswith("assert 999 == 1000")
assert productive.current_failure is None

# %% [markdown]
# A successful run clears the state first, so it never reports a stale failure.
#
# ## 8. Your turn (1 of 2): the fold
#
# Write `my_fold(state, dispatch)`: given the current `FailureState` and one turn's results,
# return the new state. Use `classify_turn(dispatch)` (it returns the turn's class, one of
# `fail`, `edit`, `pass`, `quiet`, and the deciding result) and `failure_signature(result)`.
#
# - `fail`: same signature as a live failure → streak + 1, otherwise 1; `edit_since_failure`
#   becomes False; `reverify_owed` is paid if the turn ran a `verify` tool.
# - `edit`: keep the diagnosis; if a failure is live, set `edit_since_failure` and `reverify_owed`.
# - `pass`: class `pass`, no signature, streak 0, nothing owed.
# - `quiet`: change nothing.
# - In every case, `write_epoch` grows by the number of successful `mutate` results.
#
# The compare cell names each field your fold gets wrong, case by case.


# %%
def my_fold(state: FailureState, dispatch) -> FailureState:
    raise NotImplementedError("your turn: fold one turn's results into the failure state")


# %%
course.compare(my_fold, check=check_fold_diagnostic, key="s13.fold")

# %%
course.reveal("s13.fold", source=fold_diagnostic)

# %% [markdown]
# ## 9. Your turn (2 of 2): a signature of your own
#
# Write `my_signature(output)`: test output in, a short text out, equal for two sightings of one
# failure and different for two failures. Any approach is fine (regular expressions, keeping
# only pytest's `E` lines, ...). The compare cell tries it on pairs: a failure that moved two
# lines, ran slower, ran in another temporary folder (one failure each), and a different wrong
# total, a different missing file, a different failing test (two failures each). Masking too
# little and masking too much both fail, with a message saying which.


# %%
def my_signature(output: str) -> str:
    raise NotImplementedError("your turn: normalise the output, then hash it")


# %%
course.compare(my_signature, check=check_signature, key="s13.signature")

# %% [markdown]
# **Stretch.** The cell below counts how many different failures a run met, by
# `failure_signature` and by yours. Offline it reads the scripted `productive` agent. With
# `COURSE_MODE=live` it reads your own model's attempt at the till (a *live* run: what it does is
# your model's choice). Run it against your model: did your signature and the detector's count
# the same failures? What changed, and which of your rules decided it?

# %%
stretch = your_model_run() if LIVE else productive
print(f"{'live: ' + cafe.model_name() if LIVE else 'offline: the scripted productive agent'}")
rehearsal_note()
evidence = failing_outputs(stretch)
print(
    f"failing results: {len(evidence)}; different failures by failure_signature: "
    f"{len({failure_signature(r) for r in evidence})}"
)
try:
    print(f"different failures by my_signature: {len({my_signature(r.output) for r in evidence})}")
except NotImplementedError:
    print("my_signature is still a stub: write it above, then run this cell again.")

# %% [markdown]
# ## 10. Can an agent escape by changing the error?
#
# The `varied_failures` agent makes every edit produce a *different* wrong total, so the
# signature never repeats and `stuck_same_diagnostic` can never trip. The no-net-progress guard
# adds a second counter that counts every failing verification turn, survives edits, and resets
# only on a clean pass without an edit. Its default cap is 16; here we set 4 to keep the run short,
# and switch the re-verify off so the agent's own test runs are the only checks.
#
# Predict first: the agent tests on turns 1, 3, 5, 7, ... and edits in between. On which turn does
# the hard cap stop it?

# %%
cap_guess = course.predict(
    "s13.hard_cap_turn",
    "varied_failures, hard cap 4: on which turn does the run stop?",
    options=["4", "7", "8", "it never stops"],
)

# %%
capped = run(
    "varied_failures",
    stall_config(
        repair_aware=True,
        post_edit_reverify=False,
        no_net_progress_extend_guard=True,
        no_net_progress_hard_cap_after=4,
    ),
    max_turns=14,
)
timeline(capped)
print(capped.result.detail)
course.show_outcome(
    cap_guess, str(len(capped.result.turns)) if capped.stop_reason == "stuck" else "it never stops"
)
assert capped.stop_reason == "stuck" and capped.warnings[0].pattern == "no_net_progress_hard_cap"

# %% [markdown]
# The fourth failing check came on turn 7 and, one turn behind as always, the detector folded it on
# turn 8. Not one of those failures repeated, and the streak never passed 1. The hard cap is one
# of the few trips that stop a run at once.
#
# Why did section 3's thrash end on `max_turns` and not `stuck`? Because a trip is first of all a
# message: the run's one message (`max_feedback`, 1) goes to the model, and later trips are only
# recorded. What stops a run is trips coming back to back: `hard_stop_after_trips` (3) in a row,
# with no call in between that tripped nothing. The blind detector on the `retest_only` agent
# shows it: the same red test, proposed again and again.

# %%
escalated = run("retest_only", BLIND)
for warning in escalated.warnings:
    if warning.stopped:
        said = "stopped the run"
    else:
        said = (
            "sent to the model" if warning.sent else "recorded, not sent (the one message is spent)"
        )
    print(
        f"turn {warning.turn}: {warning.pattern}, trip {warning.consecutive_trips} in a row: {said}"
    )
print("stop_reason:", escalated.stop_reason, "| declared:", sorted(STALL_STOP_REASONS))
assert [(w.sent, w.stopped) for w in escalated.warnings] == [
    (True, False),
    (False, False),
    (False, True),
]
assert escalated.stop_reason == "stuck"

# %% [markdown]
# A call that trips nothing resets the count to zero. That is why the repair-aware trips of
# section 3 never add up to a stop: every proposed call passes the blind counters cleanly before
# the failure model is folded, so each `stuck_same_diagnostic` is the first trip in a row. A run
# the evidence says is stuck still gets one grounded message, and the stop is left to the hard
# cap, the turn budget, or the verify entrypoint refusing a claimed finish until its budget is
# spent (`verify_failed`, the reason `VERIFY_STOP_REASONS` declares).

# %% [markdown]
# ## 11. Your model (live mode only)
#
# With `COURSE_MODE=live` this cell shows your own model's attempt at the till under the
# repair-aware detector (the run the stretch above used). It is a *live* cell: it asserts only
# that the run ended on a named stop reason, since what a real model does is its own choice.
# Offline it is skipped.

# %%
if LIVE:
    mine = your_model_run()
    print(f"live: {cafe.model_name()}")
    rehearsal_note()
    timeline(mine)
    print("current_failure:", mine.current_failure and mine.current_failure.snippet)
    assert mine.stop_reason in RUN_STOP_REASONS | STALL_STOP_REASONS | VERIFY_STOP_REASONS
else:
    print("offline: skipped (set COURSE_MODE=live and the CAFE_* variables to run your model)")

# %% [markdown]
# ## 12. Checkpoint
#
# Offline, bank what the detectors did on the scripted agents: the turn the repair-aware detector
# tripped on the thrash, whether the blind counter caught it, and the number of false alarms on
# the productive repair. Live, bank your model's run instead: how it ended, after how many turns,
# which trips fired, and the streak of the failure it handed back.

# %%
if LIVE:
    mine = your_model_run()
    banked = {
        "stop_reason": mine.stop_reason,
        "turns": len(mine.result.turns),
        "trips": [[w.turn, w.pattern] for w in mine.warnings],
        "handed_back_streak": mine.current_failure.same_diagnostic_streak
        if mine.current_failure
        else None,
    }
else:
    banked = {
        "thrash_trip_turn": trip_turns[0],
        "blind_caught_thrash": bool(blind.warnings),
        "productive_false_alarms": len(productive.warnings),
    }
course.checkpoint("s13", "stall_trips", banked, model=cafe.model_name())
