# %% [markdown]
# # Session 13 · Is the agent still fighting the same failure?
#
# A stall detector that counts repeated actions cannot tell an agent that is thrashing from one
# that is getting somewhere: both "do the same thing again". This notebook watches a detector that
# reads the evidence instead. You will predict, then watch:
#
# 1. **The thrash**: edit, re-test, the same failure, again, under the blind counter and under
#    the repair-aware detector.
# 2. **What "the same failure" means**: the failure signature, and what its normalization ignores.
# 3. **Productive edits** that change the error, under the same detector.
# 4. **The post-edit re-verify**: an edit is checked even when the agent does not ask.
# 5. **The hand-back**: a run that ends without success says what is still failing.
# 6. **The lag**: when a trip lands, relative to the failure that caused it.
# 7. **Your turn**: write the fold. Then the **hard cap**, and the **checkpoint**.
#
# Every run is real. A scripted agent works on the café's till (a bill calculator with one failing
# test) in a temporary git repository: its edits are real file writes, and `run_tests` really runs
# pytest. The failure signatures below are computed from pytest's own output.

# %%
import cafe
from cafe import course
from cafe.loop import ToolResult
from cafe.endpoint.scripted import ScriptedClient
from cafe.evidence import failure_signature, normalize_evidence
from cafe.exercises.s13 import check_fold_diagnostic
from cafe.failure_state import FailureState, classify_turn, fold_diagnostic
from cafe.stall import run_with_stall, stall_config
from cafe.scenarios import edited_bill, scenario_replies
from cafe.workbench import open_workbench

TASK = [{"role": "user", "content": "One of the till's tests fails. Fix bill.py and run the tests."}]
BLIND = stall_config()                                        # the default: repair_aware off
AWARE = stall_config(repair_aware=True)                       # the evidence-aware detector, default knobs
AWARE_NO_MANDATE = stall_config(repair_aware=True, post_edit_reverify=False)


def run(scenario, config, max_turns=None):
    """One scripted agent on a fresh copy of the till, with a stall detector plugged in. The turn
    budget defaults to the length of the agent's script."""
    replies = scenario_replies(scenario)
    with open_workbench() as bench:
        return run_with_stall(ScriptedClient(replies), TASK, bench.tools, verify=bench.verify, config=config,
                              max_turns=max_turns or len(replies))


def calls_of(record):
    """One turn's tool results, short: 'write_file+run_tests*' (* marks a check the harness forced)."""
    return "+".join(r.name + ("*" if r.forced else "") + ("" if r.ok else "(fail)") for r in record.dispatch) \
        or "(answered)"


def print_table(rows, columns):
    widths = [max(len(str(c)), *(len(str(row[i])) for row in rows)) for i, c in enumerate(columns)]
    print("  ".join(str(c).ljust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))


def blind_timeline(stalled):
    """Per turn: what ran, and the blind counter's count after folding the previous turn: how many
    turns in a row the same action was answered the same way. It trips at 3."""
    rows = [(record.turn, calls_of(record), snap.same_action_repeats, snap.pattern or "")
            for record, snap in zip(stalled.result.turns, stalled.timeline)]
    print_table(rows, ["turn", "what ran", "same action, same answer", "trip"])
    print(f"stop_reason: {stalled.stop_reason}")


def timeline(stalled):
    """Per turn: what ran, what the repair-aware detector folded at the start of that turn (the
    previous turn's results), and what it concluded."""
    rows = []
    for record, snap in zip(stalled.result.turns, stalled.timeline):
        m = snap.failure_state
        rows.append((record.turn, calls_of(record), snap.folded, m.same_diagnostic_streak, m.write_epoch,
                     m.reverify_owed, snap.pattern or ""))
    print_table(rows, ["turn", "what ran", "folded", "streak", "epoch", "owed", "trip"])
    print(f"stop_reason: {stalled.stop_reason}")


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
# ## 1. The thrash
#
# The `thrash` agent runs the tests, then "fixes" `split` with an edit that changes nothing that
# matters (`round(amount / people)` still gives 333), re-tests, tries another such edit,
# re-tests, and so on. The same failure every time, with an edit in between.
#
# Predict first: the **blind** detector counts the same action failing the same way three times
# in a row. Does it trip on this agent?

# %%
blind_guess = course.predict("s13.blind_thrash", "Does the blind detector trip on the edit/re-test thrash?",
                             options=["yes", "no"])

# %%
blind = run("thrash", BLIND, max_turns=12)
blind_timeline(blind)
course.show_outcome(blind_guess, "yes" if blind.warnings else "no")
assert max(snap.same_action_repeats for snap in blind.timeline) < 3

# %% [markdown]
# The blind counter is a turn behind, like every observer (section 6): on turn 2 it counts turn
# 1's test run. The actions alternate (`write_file`, then `run_tests`), so each turn's action
# differs from the one before, the counter starts again at 1, and it never reaches three. The
# agent burned the whole budget and the run ended on `max_turns`, with nothing to say about why.
#
# Now the repair-aware detector on the same agent. It keeps a current-failure model whose streak
# is keyed on the failure's *signature*: the same failure counts up, even across edits. Its
# `stuck_same_diagnostic_after` is 3. Predict first: on which turn does it trip?

# %%
aware_guess = course.predict("s13.aware_trip_turn", "On which turn does stuck_same_diagnostic trip?",
                             options=["3", "4", "5", "6", "never"])

# %%
aware = run("thrash", AWARE, max_turns=12)
timeline(aware)
trip_turns = [w.turn for w in aware.warnings if w.pattern == "stuck_same_diagnostic"]
course.show_outcome(aware_guess, str(trip_turns[0]) if trip_turns else "never")

# %% [markdown]
# Read the `what ran` column: after each edit there is a `run_tests*`. That is the post-edit
# re-verify (section 4): with `repair_aware` on, an edit on a failing check is checked at once,
# so the third sighting of the failure comes on turn 3 and the trip on turn 4 (section 6 explains
# the one-turn gap). From turn 8 on there is no `*` any more: the loop may run its check at most
# `max_verify_attempts` (3) times per run, and the mandate has used them. The trip fired
# **once**: the streak kept climbing afterwards, but the trip only fires on the turn the streak
# *reaches* the threshold. Here is what the model was told:

# %%
nudge = aware.result.turns[trip_turns[0] - 1].nudges[0]
print(nudge.text)
assert len(trip_turns) == 1
assert "assert 999 == 1000" in nudge.text  # it quotes the real failing evidence

# %%
course.reveal("s13.why_signature_streak")

# %% [markdown]
# ## 2. What "the same failure" means
#
# The signature is the SHA-256 of the failing output after normalisation. Each kind of run-to-run
# noise has its own rule (the table is in the lesson and in `cafe/evidence.py`): colour codes,
# the temporary folder a run works in, the test runner's clock, timestamps, line numbers in
# locations and tracebacks, process ids, ephemeral ports, object addresses and set order are
# masked; the file name under a temporary folder, other durations, other numbers and other hex
# are kept, because they may be the bug itself. So a failure that only moved down two lines, or
# ran in another folder, or took a different time, keeps its signature.
#
# Predict first: we add two lines at the top of the till's test file, so pytest reports the
# failure at `check_bill.py:23` instead of `:21`. Same signature or a new one?

# %%
moved_guess = course.predict("s13.moved_signature", "The failure moved from line 21 to line 23. Its signature is...",
                             options=["the same", "different"])

# %%
noisy = "\x1b[31mE   assert 999 == 1000\x1b[0m\n/tmp/cafe-workbench-ab12/till/check_bill.py:21\n1 failed in 0.02s"
print(normalize_evidence(noisy))
# ...and what stays, because it can be the failure: the missing file's name, a checksum.
for missing in ("/tmp/config.json", "/tmp/data.csv"):
    print(normalize_evidence(f"FileNotFoundError: '{missing}'"))
print(normalize_evidence("checksum 0xdeadbeef != 0x12345678"))

with open_workbench() as bench:
    before = bench.run_tests()
    bench.write_file("check_bill.py", "# two new lines at the top\n\n" + bench.read_file("check_bill.py").text)
    moved = bench.run_tests()
    bench.write_file("bill.py", edited_bill("ceil"))
    different = bench.run_tests()


def signature_of(output):
    """The signature of a test run, as the detector computes it from the loop's record of the call."""
    return failure_signature(ToolResult("check", "run_tests", {}, output.ok, output.text, "verify"))


signatures = [signature_of(check) for check in (before, moved, different)]
for label, signature in zip(["the original failure", "moved down two lines", "a different wrong total"],
                            signatures):
    print(f"{label:24} {signature[:16]}...")
course.show_outcome(moved_guess, "the same" if signatures[0] == signatures[1] else "different")
assert signatures[0] == signatures[1] != signatures[2]

# %% [markdown]
# ## 3. Productive edits never trip
#
# The `productive` agent's first edit is wrong too, but it *changes* the error (999 becomes
# 1002); its second edit fixes the bug. Predict first: does the repair-aware detector trip?

# %%
productive_guess = course.predict("s13.productive_trips", "Does the productive repair trip the detector?",
                                  options=["yes", "no"])

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
# ## 4. The post-edit re-verify
#
# The `edit_then_done` agent runs the tests (red), applies the right fix, then adds a note to its
# todo board and says it is done, never re-running the tests itself. Predict first: with the
# default knobs (`post_edit_reverify` is on), on which turn do the tests first run after the edit?

# %%
reverify_guess = course.predict("s13.reverify_turn", "On which turn do the tests first run after the edit on turn 2?",
                                options=["2", "3", "4", "never"])

# %%
with_mandate = run("edit_then_done", AWARE)
without_mandate = run("edit_then_done", AWARE_NO_MANDATE)
for label, stalled in [("post_edit_reverify on", with_mandate), ("post_edit_reverify off", without_mandate)]:
    print(label)
    for record in stalled.result.turns:
        print(f"  turn {record.turn}: {calls_of(record)}")
first_check = next(r.turn for r in with_mandate.result.turns[1:] if any(d.name == "run_tests" for d in r.dispatch))
course.show_outcome(reverify_guess, str(first_check))

# %% [markdown]
# An edit that wrote successfully proves the file was written, not that the bug is gone. With
# the mandate, the loop runs its verify entrypoint right after an edit on a failing check, in the
# same turn (the hook runs after the turn, so it has no lag), and those checks count against the
# loop's `max_verify_attempts`. Without it, the fix goes unchecked until the agent claims to be done.

# %%
course.reveal("s13.why_reverify")

# %% [markdown]
# ## 5. The hand-back names what is failing
#
# A run that ends without success carries `current_failure`: the class, the signature, a
# snippet of the evidence, and the streak. A successful run clears it, so it never reports a
# stale failure.

# %%
failure = aware.current_failure
print(aware.stop_reason, {**failure.as_dict(), "signature": failure.signature[:12] + "..."})
print(productive.stop_reason, productive.current_failure)
assert failure.as_dict()["class"] == "fail" and failure.snippet.startswith("assert 999 == 1000")
assert productive.current_failure is None

# %% [markdown]
# ## 6. The one-turn lag
#
# The detector is an *observer*: it runs at the start of a turn, when only the previous turn's
# results exist. So it folds turn N's evidence on turn N+1. The `retest_only` agent re-runs the
# failing tests and nothing else. Predict first: with `stuck_same_diagnostic_after` set to 3,
# on which turn does it trip?

# %%
lag_guess = course.predict("s13.lag_turn", "retest_only, threshold 3: on which turn is the trip?",
                           options=["3", "4", "5"])

# %%
rows = []
for threshold in (2, 3, 4):
    stalled = run("retest_only", stall_config(repair_aware=True, stuck_same_diagnostic_after=threshold))
    rows.append((threshold, [w.turn for w in stalled.warnings]))
print_table(rows, ["stuck_same_diagnostic_after", "trip on turn"])
course.show_outcome(lag_guess, str(rows[1][1][0]))
assert all(turns == [threshold + 1] for threshold, turns in rows)

# %%
course.reveal("s13.why_lag")

# %% [markdown]
# ## 7. Your turn: the fold
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

# %%
def my_fold(state: FailureState, dispatch) -> FailureState:
    raise NotImplementedError("your turn: fold one turn's results into the failure state")


# %%
course.compare(my_fold, check=check_fold_diagnostic, key="s13.fold")

# %%
course.reveal("s13.fold", source=fold_diagnostic)

# %% [markdown]
# ## 8. The hard cap: no escape by changing the error
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
cap_guess = course.predict("s13.hard_cap_turn", "varied_failures, hard cap 4: on which turn does the run stop?",
                           options=["4", "7", "8", "it never stops"])

# %%
capped = run("varied_failures", stall_config(repair_aware=True, post_edit_reverify=False,
                                             no_net_progress_extend_guard=True, no_net_progress_hard_cap_after=4),
             max_turns=14)
timeline(capped)
print(capped.result.detail)
course.show_outcome(cap_guess, str(len(capped.result.turns)) if capped.stop_reason == "stuck" else "it never stops")
assert capped.stop_reason == "stuck" and capped.warnings[0].pattern == "no_net_progress_hard_cap"

# %% [markdown]
# The fourth failing check came on turn 7 and, one turn behind as always, the detector folded it on
# turn 8. Not one of those failures repeated, and the streak never passed 1.
#
# ## 9. Checkpoint
#
# Bank what the detectors did on the three scripted agents: the turn the repair-aware detector
# tripped on the thrash, whether the blind counter caught it, and the number of false alarms on
# the productive repair (it should be zero).

# %%
course.checkpoint("s13", "stall_trips", {
    "thrash_trip_turn": trip_turns[0],
    "blind_caught_thrash": bool(blind.warnings),
    "productive_false_alarms": len(productive.warnings),
}, model=cafe.model_name())
