# %% [markdown]
# # Session 13 · Is the agent still fighting the same failure?
#
# A stall detector that counts repeated actions and one that reads the evidence look alike on
# paper. This notebook puts both on the same agents and asks you, before each run, what they will
# do:
#
# 1. **The thrash** (edit, re-test, again) under a counter of repeated actions.
# 2. **The first trip**: on which turn a detector that runs at the start of a turn can trip.
# 3. **The thrash** again, under the repair-aware detector.
# 4. **What counts as one failure**: the signature, and what its normalization ignores.
# 5. **An agent whose error keeps changing**, under the same detector.
# 6. **The post-edit re-verify**: when an edit gets checked.
# 7. **The hand-back**: what a run that ends without success says.
# 8-9. **Your turn**: the fold, then a signature of your own (with a live stretch).
# 10. **The hard cap**, and when trips turn from a message into a stop.
# 11-12. **Your model** (live mode), and the **checkpoint**.
#
# *Live* cells meet your endpoint: if it fails, the cell says so in one line, the cells that need
# its run say they are skipped, and the notebook goes on.
#
# Every run is real. A scripted agent works on the café's till (a bill calculator with one failing
# test) in a temporary git repository: its edits are real file writes, and `run_tests` really runs
# pytest. The stories stay scripted in both modes, so they show the same mechanism to everyone;
# only the cells marked *live* use your model.

# %%
import cafe
from cafe import course
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.exercises.s13 import check_fold_diagnostic, check_signature
from cafe.loop import RUN_STOP_REASONS, ToolResult
from cafe.stall import STALL_STOP_REASONS, VERIFY_STOP_REASONS, run_with_stall, stall_config
from cafe.stall.evidence import failure_signature, normalize_evidence
from cafe.stall.failure_state import (
    FailureState,
    classify_turn,
    edited_after_last_check,
    fold_diagnostic,
)
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


def blind_timeline(stalled):
    """Per turn: what ran, and the blind counters for the call proposed that turn: how many times
    in a row that same call failed the same way, and how many times in a row it was asked for
    and answered the same."""
    rows = [
        (record.turn, calls_of(record), snap.same_error, snap.same_observation, snap.pattern or "")
        for record, snap in zip(stalled.result.turns, stalled.timeline)
    ]
    course.print_table(rows, ["turn", "what ran", "same failure", "same answer", "trip"])
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
    course.print_table(rows, ["turn", "what ran", "folded", "streak", "epoch", "owed", "trip"])
    print(f"stop_reason: {stalled.stop_reason}")


def failing_outputs(stalled):
    """Every failing tool result of a run, in order: the evidence a signature is computed from."""
    return [r for record in stalled.result.turns for r in record.dispatch if not r.ok]


def rehearsal_note():
    """What to expect when `cafe serve`'s default rule answers instead of a model (live mode)."""
    if LIVE and rehearsal_script(cafe.make_client(), cafe.model_name()) == "default":
        print(default_rehearsal_note("13"))


_model_runs = []


def _run_your_model():
    with open_workbench() as bench:
        return run_with_stall(
            cafe.make_client(),
            TASK,
            bench.tools,
            verify=bench.verify,
            config=AWARE,
            max_turns=12,
        )


def your_model_run():
    """Live only: your model on a fresh till, repair-aware detector on, once per notebook run.
    A `LiveStory`: its `value` is the run, or `failed` names the endpoint problem that stopped it."""
    if not _model_runs:
        _model_runs.append(
            course.live_story("s13.your_model", _run_your_model, model=cafe.model_name())
        )
    return _model_runs[0]


def tool_calls_in(stalled):
    """How many tool calls the model itself asked for in a run (forced checks left out)."""
    return sum(len(record.calls) for record in stalled.result.turns)


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
retest_guess = course.predict(
    "s13.retest_trip_turn",
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
course.print_table(rows, ["stuck_same_diagnostic_after", "trip on turn"])
course.show_outcome(retest_guess, str(rows[1][1][0]))
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
# ## 4. Which red runs count as one failure?
#
# The signature is the SHA-256 of the failing output after normalisation. Each kind of run-to-run
# noise has its own rule (tabled in `docs/notes/s13-stall-detection.md`; the code is in
# `cafe/stall/noise.py`, with the rules for what a test runner writes in
# `cafe/stall/runner_noise.py`), and each rule masks a token only
# where it cannot be the failure itself: a runner's rule never looks inside the test's own data.
#
# Three real pytest runs of the till, each red: (1) the original failure; (2) the same test after
# we add two lines at the top of the test file, so pytest reports it two lines further down; (3)
# the original test file again, after an edit to `split` that rounds up instead of down.
#
# Predict first: which of the three runs share a signature?

# %%
signatures_guess = course.predict(
    "s13.which_signatures",
    "Three red runs: the original, the same test two lines lower, a new edit to split. "
    "Which share a signature?",
    options=["all three", "the first two", "the first and the third", "none"],
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
for label, check, signature in zip(
    ["1. the original", "2. two lines lower", "3. rounds up"],
    (before, moved, different),
    signatures,
):
    said = next((line for line in check.text.splitlines() if line.startswith("E ")), "")
    print(f"{label:20} {signature[:16]}...  {said.strip()}")
shared = {
    (True, False, False): "the first two",
    (False, True, False): "the first and the third",
    (True, True, True): "all three",
}.get(
    (
        signatures[0] == signatures[1],
        signatures[0] == signatures[2],
        signatures[1] == signatures[2],
    ),
    "none",
)
course.show_outcome(signatures_guess, shared)
assert signatures[0] == signatures[1] != signatures[2]

# %% [markdown]
# ## 5. An agent whose error keeps changing
#
# The `varied_failures` agent works like the thrash: it runs the tests on turns 1, 3, 5, ... and
# edits `bill.py` in between, for twelve turns, and never fixes the bug. But each of its edits is
# wrong in a new way, so each red run reports a different wrong total. The detector is the
# repair-aware one of section 3, threshold 3, no re-verify mandate.
#
# Predict first: does `stuck_same_diagnostic` trip on this agent?

# %%
changing_guess = course.predict(
    "s13.changing_error",
    "The varied_failures agent, twelve turns: does stuck_same_diagnostic trip?",
    options=["yes", "no"],
)

# %%
varied = run("varied_failures", AWARE_NO_MANDATE, max_turns=12)
timeline(varied)
for result in failing_outputs(varied):
    said = next((line for line in result.output.splitlines() if line.startswith("E ")), "")
    print(f"  {failure_signature(result)[:12]}...  {said.strip()}")
varied_trips = [w.turn for w in varied.warnings if w.pattern == "stuck_same_diagnostic"]
course.show_outcome(changing_guess, "yes" if varied_trips else "no")
assert not varied.warnings and varied.stop_reason == "max_turns"

# %% [markdown]
# Every red run had a signature of its own, so the streak started again at 1 each time and never
# reached 3. That reset is the detector's safety property: an agent whose error moves is never
# told it is stuck on the same failure. Here it also means a twelve-turn run that never got
# anywhere went unflagged; section 10 comes back to that.
#
# The `productive` agent below is what the reset is for. Its first edit is wrong too but changes
# the error (999 becomes 1002); its second edit fixes the bug. No trip, and a run that ends `done`.

# %%
productive = run("productive", AWARE_NO_MANDATE)
timeline(productive)
assert productive.warnings == () and productive.stop_reason == "done"

# %% [markdown]
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
# snippet of the evidence (the failing output itself, up to `HANDBACK_MAX_CHARS` of its head and
# tail, longer than the line a nudge quotes), and the streak. Compare the thrash from section 3 with the productive
# repair from section 5.

# %%
failure = aware.current_failure
shown = {"signature": failure.signature[:12] + "...", "snippet": f"{len(failure.snippet)} chars"}
print(aware.stop_reason, {**failure.as_dict(), **shown})
print("the snippet's last lines:", *failure.snippet.splitlines()[-3:], sep="\n  ")
print(productive.stop_reason, productive.current_failure)
assert failure.as_dict()["class"] == "fail" and "assert 999 == 1000" in failure.snippet
assert productive.current_failure is None

# %% [markdown]
# A successful run clears the state first, so it never reports a stale failure.
#
# A run can also run out of turns right after a good turn. The hand-back folds the final turn
# first, reading its calls in the order they ran. Below, the thrash's live failure meets final
# turns made of a write to `bill.py` and a test run, in both orders. A green run vouches only for
# what ran before it: a write after it is unchecked, so the failure is kept and a re-verify owed.

# %%
red = failing_outputs(aware)[-1]
write = ToolResult("w", "write_file", {"path": "bill.py"}, True, "wrote bill.py", "mutate")
green = ToolResult("t", "run_tests", {}, True, "4 passed in 0.02s", "verify")
for label, last_turn in [
    ("write, then green tests", [write, green]),
    ("red tests, then write", [red, write]),
    ("green tests, then write", [green, write]),
]:
    after = fold_diagnostic(aware.failure_state, last_turn)
    kind, _ = classify_turn(last_turn)
    unchecked = edited_after_last_check(last_turn)
    print(f"{label:24} turn: {kind:5} edit unchecked: {unchecked!s:5} hand-back: ", end="")
    print(after.last_diagnostic_class, "with a re-verify owed" if after.reverify_owed else "")
assert fold_diagnostic(aware.failure_state, [write, green]).last_diagnostic_class == "pass"
assert fold_diagnostic(aware.failure_state, [red, write]).reverify_owed
assert fold_diagnostic(aware.failure_state, [green, write]).reverify_owed

# %% [markdown]
# ## 8. Your turn (1 of 2): the fold
#
# Write `my_fold(state, dispatch)`: given the current `FailureState` and one turn's results,
# return the new state. Use `classify_turn(dispatch)` (it reads the results in the order they ran
# and returns the turn's class, one of `fail`, `edit`, `pass`, `quiet`, and the deciding result),
# `edited_after_last_check(dispatch)` and `failure_signature(result)`.
#
# - `fail`: same signature as a live failure → streak + 1, otherwise 1; `edit_since_failure` and
#   `reverify_owed` are True only when a successful edit ran after the turn's last check.
# - `edit` (an edit no check ran after: no check at all, or green checks and then an edit): keep
#   the diagnosis; if a failure is live, set `edit_since_failure` and `reverify_owed`.
# - `pass` (the latest checks all passed, with no edit after them): class `pass`, no signature,
#   streak 0, nothing owed. It is the only way a failure is cleared.
# - `quiet` (reads, nothing, or only failing tools that are not checks): change nothing.
# - In every case, `write_epoch` grows by the number of successful `mutate` results.
#
# The compare cell names each field your fold gets wrong, case by case.


# %%
def my_fold(state: FailureState, dispatch) -> FailureState:
    raise NotImplementedError("your turn: fold one turn's results into the failure state")


# %%
fold_check = course.compare(my_fold, check=check_fold_diagnostic, key="s13.fold")

# %%
course.reveal("s13.fold", source=fold_diagnostic)

# %% [markdown]
# ## 9. Your turn (2 of 2): a signature of your own
#
# Write `my_signature(output)`: test output in, a short text out, equal for two sightings of one
# failure and different for two failures. Any approach is fine (regular expressions, keeping
# only the lines that name the failure, such as pytest's `E` and `FAILED` lines, ...). The compare
# cell tries it on pairs of one failure seen twice (it moved two lines, ran slower, ran in another
# temporary folder, in colour, on another test worker, with an object at another address, logged
# seconds or minutes later with its clock written any usual way) and pairs of two failures (a
# different wrong total, price or checksum, a different missing file, a different failing test, a
# different call in the assertion, two items swapped, a name in another case). Masking too little
# and masking too much both fail, with a message saying which. A signature is compared across
# runs, so it must also come out the same in a fresh Python process: Python's own `hash()` is
# seeded anew in each process, so the compare cell signs a few outputs again in a new process
# (`hashlib`, as in `failure_signature`, gives the same digest everywhere).


# %%
def my_signature(output: str) -> str:
    raise NotImplementedError("your turn: normalise the output, then hash it")


# %%
signature_check = course.compare(my_signature, check=check_signature, key="s13.signature")

# %% [markdown]
# **Stretch.** The cell below counts how many different failures a run met, by
# `failure_signature` and by yours. Offline it reads the scripted `productive` agent. With
# `COURSE_MODE=live` it reads your own model's attempt at the till (a *live* run: what it does is
# your model's choice). Run it against your model: did your signature and the detector's count
# the same failures? What changed, and which of your rules decided it?

# %%
stretch = your_model_run() if LIVE else course.LiveStory("s13.stretch", value=productive)
evidence = []
if not stretch.skipped("counting your model's failures"):
    print(f"{'live: ' + cafe.model_name() if LIVE else 'offline: the scripted productive agent'}")
    rehearsal_note()
    evidence = failing_outputs(stretch.value)
    print(
        f"failing results: {len(evidence)}; different failures by failure_signature: "
        f"{len({failure_signature(r) for r in evidence})}"
    )
    if signature_check.status == "passed":
        mine_count = len({my_signature(r.output) for r in evidence})
        print(f"different failures by my_signature: {mine_count}")
    else:
        print(f"my_signature has not passed yet ({signature_check.status}): fix it, then rerun.")
    if LIVE and not evidence:
        print(
            "Your model's run had no failing result, so there was nothing to count: "
            f"it asked for {tool_calls_in(stretch.value)} tool calls in "
            f"{len(stretch.value.result.turns)} turns. The scripted agents above show the count."
        )

# %% [markdown]
# ## 10. When does a run that never fixes anything stop?
#
# Section 5's `varied_failures` agent makes every edit produce a *different* wrong total, so the
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
if not LIVE:
    print("offline: skipped (set COURSE_MODE=live and the CAFE_* variables to run your model)")
elif not your_model_run().skipped("your model's timeline"):
    mine = your_model_run().value
    print(f"live: {cafe.model_name()}")
    rehearsal_note()
    timeline(mine)
    print("current_failure:", mine.current_failure and mine.current_failure.snippet[-300:])
    assert mine.stop_reason in RUN_STOP_REASONS | STALL_STOP_REASONS | VERIFY_STOP_REASONS
    print(
        f"offline, the scripted thrash (section 3): tripped on turn {trip_turns[0]}, "
        f"ended {aware.stop_reason}"
    )
    print(
        f"your model: {tool_calls_in(mine)} tool calls, {len(failing_outputs(mine))} failing "
        f"results, trips on turns {[w.turn for w in mine.warnings] or 'none'}, ended {mine.stop_reason}"
    )
    if not failing_outputs(mine):
        print(
            "No failing result reached the detector, so it had nothing to fold: a model that "
            "never runs the tests (or calls no tool at all) cannot be seen to be stuck. The "
            "scripted agents above show the mechanism."
        )

# %% [markdown]
# ## 12. Checkpoint
#
# Offline, bank what the detectors did on the scripted agents: the turn the repair-aware detector
# tripped on the thrash, whether the blind counter caught it, and the number of false alarms on
# the agent whose error kept changing and on the productive repair. Live, bank your model's run
# instead: how it ended, after how many turns, which trips fired, and the streak of the failure it
# handed back (if the endpoint failed, what you banked before is kept).
#
# Then your own work, banked as yours once it has passed its check: the turn on which your fold's
# streak reaches 3 on the thrash's evidence (the detector trips one turn later), and how many
# different failures your signature counts among the stretch run's red results.

# %%
needs = []
if LIVE:
    needs = [your_model_run()]
    banked = {}
    if your_model_run().ok:
        mine = your_model_run().value
        banked = {
            "stop_reason": mine.stop_reason,
            "turns": len(mine.result.turns),
            "tool_calls": tool_calls_in(mine),
            "trips": [[w.turn, w.pattern] for w in mine.warnings],
            "handed_back_streak": mine.current_failure.same_diagnostic_streak
            if mine.current_failure
            else None,
        }
else:
    banked = {
        "thrash_trip_turn": trip_turns[0],
        "blind_caught_thrash": bool(blind.warnings),
        "changing_error_false_alarms": len(varied.warnings),
        "productive_false_alarms": len(productive.warnings),
    }
course.checkpoint("s13", "stall_trips", banked, model=cafe.model_name(), needs=needs)


def your_streak_turn(fold):
    """The turn whose results take your fold's streak to 3, folding the thrash run turn by turn."""
    state = FailureState()
    for record in aware.result.turns:
        state = fold(state, record.dispatch)
        if state.same_diagnostic_streak >= 3:
            return record.turn
    return None


yours = {}
if fold_check.status == "passed":
    yours["fold_streak_3_on_turn"] = your_streak_turn(my_fold)
    yours["detector_trip_turn"] = trip_turns[0]
if signature_check.status == "passed" and evidence:
    yours["failures_by_your_signature"] = len({my_signature(r.output) for r in evidence})
    yours["failures_by_failure_signature"] = len({failure_signature(r) for r in evidence})
if yours:
    # the signature read your model's output in live mode; the fold reads the scripted thrash
    model = cafe.model_name() if LIVE and "failures_by_your_signature" in yours else None
    course.checkpoint("s13", "your_fold_and_signature", yours, model=model, source="yours")
else:
    print("nothing of yours banked yet: your fold and signature bank here once they pass.")
