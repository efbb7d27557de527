# %% [markdown]
# # Session 15 · Run monitors: trouble that no error announces
#
# Sessions 13 and 14 stop an agent that keeps meeting the same failure. This notebook watches for
# what they cannot see, on the same till project, with four monitors:
#
# 1. **Verification tiers.** Which checks count, how thorough each one is, and what a run has
#    really seen passing before it says it is done.
# 2. **Your turn (1 of 2):** the tier of a command, over a table of real commands.
# 3. **The progress monitor.** A run whose calls all succeed and lead nowhere, and a turn budget
#    the agent can see running down.
# 4. **The safe-state abort.** A failure streak on top of a green point: tell the agent to stop
#    digging, and (in `auto`) put the tree back, but only when that is provably safe.
# 5. **Your turn (2 of 2):** the restore gate, with a live stretch.
# 6. **Residual objectives** in the notice a truncated run leaves, and the checkpoint.
#
# Every run here is real: a scripted agent works on the café's till in a temporary git repository,
# its edits are real file writes, its commands (`pytest -k split`, `sed -i`, `sleep`) really run.
# The stories stay scripted in both modes, so everyone sees the same mechanism; only cells marked
# *live* use your model. A live cell that meets an endpoint problem says so in one line, the cells
# that need its run say they are skipped, and the notebook goes on.

# %%
import cafe
from cafe import course
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.exercises.s15 import TIER_EXAMPLES, check_can_restore, check_verification_tier
from cafe.loop import RUN_STOP_REASONS
from cafe.monitors import (
    MONITOR_SOURCES,
    TRUNCATION_PREFIX,
    MonitorConfig,
    RunMonitors,
    run_with_monitors,
)
from cafe.monitors.gate import TierState, finish_message, fold_tiers
from cafe.monitors.snapshots import can_restore, fingerprint
from cafe.stall import VERIFY_STOP_REASONS
from cafe.stories.monitor_stories import TASK, story_replies, story_timeout
from cafe.world.workbench import open_workbench

LIVE = cafe.course_mode() == "live"
ALL_ADVISORY = MonitorConfig(
    progress_stall_threshold=4, verification_tiers="advisory", safe_state_abort="advisory"
)


def rehearsal_note():
    """What to expect when `cafe serve`'s default rule answers instead of a model (live mode)."""
    if LIVE and rehearsal_script(cafe.make_client(), cafe.model_name()) == "default":
        print(default_rehearsal_note("15"))


def story(name, config, max_turns=30, client=None):
    """One story on a fresh workbench; returns the run and the files it left changed."""
    with open_workbench() as bench:
        run = run_with_monitors(
            client or ScriptedClient(story_replies(name)),
            TASK,
            bench,
            config=config,
            max_turns=max_turns,
            command_timeout_s=story_timeout(name) if name else 60.0,
        )
        return run, bench.changed_files()


def calls_of(record) -> str:
    """One turn's calls, short: 'run_command(pytest -k split)'; * marks the harness's own check."""
    shown = []
    for result in record.dispatch:
        argument = (
            result.arguments.get("command")
            or result.arguments.get("path")
            or result.arguments.get("item")
        )
        shown.append(
            result.name + ("*" if result.forced else "") + (f"({argument})" if argument else "")
        )
    return " + ".join(shown) or "(says it is done)"


def counts(run) -> dict:
    """How many messages each monitor sent in a run, the silent ones left out."""
    return {tag: n for tag, n in run.counts.items() if n}


def cut(text, limit):
    """`text` cut at a word boundary with "…" when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


def said(run):
    """(turn, first line) of every monitor message, in the order the agent got them: the nudges
    whose source is one of the monitors."""
    return [
        (record.turn, cut(nudge.text.splitlines()[0], 100))
        for record in run.result.turns
        for nudge in record.nudges
        if nudge.source in MONITOR_SOURCES
    ]


# %% [markdown]
# ## 1. After a red full suite and a green `pytest -k split`, is the suite green?
#
# The scripted agent `fast_finisher` runs the whole suite (it fails: the bill split is wrong),
# fixes `bill.py`, runs `pytest -k split` (only the tests whose names mention the split), and says
# it is done. The verify-before-done gate is a before-finish hook: it is asked each time the agent
# claims a finish, and may refuse it with a message. Tiers are on (`advisory`).
#
# Predict first: when the agent claims its finish, what does the harness hold about the suite?

# %%
suite_guess = course.predict(
    "s15.suite_green",
    "A red full suite, the fix, then a green pytest -k split. At the finish, the suite is...",
    options=["green: the latest check passed", "fast tier only", "red: the full run failed"],
)

# %%
tiered, _ = story("fast_finisher", MonitorConfig(verification_tiers="advisory"))
course.print_table([(r.turn, calls_of(r)) for r in tiered.result.turns], ["turn", "calls"])
print()
for turn, text in said(tiered):
    print(f"turn {turn}: {text}")

# The gate's reading at the first claimed finish: the first three turns, folded.
at_claim = TierState()
for record in tiered.result.turns[:3]:
    at_claim = fold_tiers(at_claim, record.dispatch)
print(f"\nat the claim: fast_green={at_claim.fast_green}, slow_green={at_claim.slow_green}")

# %%
if at_claim.slow_green:
    course.show_outcome(suite_guess, "green: the latest check passed")
else:
    course.show_outcome(
        suite_guess, "fast tier only" if at_claim.fast_green else "red: the full run failed"
    )

# %% [markdown]
# The flags record green coverage, not invocation: the full suite *ran*, but it was never seen
# passing, so only the fast flag is set. The gate asks once for the full suite; the agent runs it
# (`run_tests` on turn 5), it passes, and the next claim ends the run `done`, with the run's
# `verification` recorded as `verified_green`.
#
# With tiers `off` the gate asks only "did anything run since your last edit?", and on this same
# evidence the answer is yes: the run would have ended on turn 4 with the suite never seen green.
# The cell below asks the gate that question on the same folded state, without a second run.

# %%
assert tiered.stop_reason == "done" and tiered.counts["[verify-before-done]"] == 1
assert tiered.verification == "verified_green"
assert at_claim.fast_green and not at_claim.slow_green
assert finish_message(at_claim, tiers_on=False) is None  # tiers off: nothing to say at turn 4
assert finish_message(at_claim, tiers_on=True)[0] == "suite"

# %%
course.reveal("s15.green_coverage")

# %% [markdown]
# ## 2. Your turn (1 of 2): the tier of a command
#
# `verification_tier` reads a command line. The rules, from the lesson: split on `&`, `|`, `;`
# and newlines, and drop leading `VAR=value` words. A piece verifies when it holds a marker as a
# whole word (leading dashes stripped), or its command word is a script whose name pieces hold
# one (`./run-tests.sh`), and it holds no non-verify word (`install`, `checkout`, `add`,
# `remove`, `uninstall`); a piece whose command word only looks or names (`cat`, `which`,
# `grep`, `git`, ...) never verifies. A launcher reads as what it starts (`python -m pytest` is
# pytest). Tiers: linters and type checkers (`go vet` too) are always fast; pytest is fast only
# when narrowed (`-k`, `-m`, `::`, a `.py` file); `cargo test` and `go test -run` are fast with a
# test name, and an option's value (`-p till`) is no name; `make` is always slow, whatever its
# target; a chain is as slow as its slowest verifying piece (a piece that verifies nothing has no
# tier); anything unknown is slow.
#
# Write `my_tier(command)`: `"fast"`, `"slow"`, or `None` when the command verifies nothing. The
# compare cell runs it over some forty real commands, most of which you have not seen, and names
# the rule behind each wrong row: read the command, do not list answers.
# The course's own `verification_tier` (or a wrapper round it) is refused: write your own.

# %%
course.print_table([(c,) for c in TIER_EXAMPLES], ["some of the commands it is checked on"])


def my_tier(command: str) -> str | None:
    raise NotImplementedError("your turn: 'fast', 'slow', or None when the command checks nothing")


# %%
tier_check = course.compare(my_tier, check=check_verification_tier, key="s15.tier")

# %%
from cafe.monitors.runners import verification_tier

course.reveal("s15.tier_source", source=verification_tier)

# %% [markdown]
# ## 3. When does the stall checkpoint fire for an agent that reads twenty files first?
#
# The progress monitor (`progress_stall_threshold: 4`) looks at every turn boundary for a new
# state: a todo closed, a file changed that no earlier turn had changed, a check turning green.
# Four boundaries in a row without one earn a `[stall]` checkpoint. The turn budget is 30, and
# the monitor also posts `[budget]` notices as it runs down.
#
# The scripted `explorer` adds a todo, then spends twenty turns reading: files, `ls`, `git log`,
# `grep`. Then it fixes `bill.py`, runs the suite, closes its todo and finishes.
#
# Predict first: on which turn does its first `[stall]` checkpoint arrive?

# %%
explorer_guess = course.predict(
    "s15.explorer_stall",
    "Twenty turns of reading, then a fix. On which turn does the first [stall] checkpoint arrive?",
    options=["turn 5", "turn 9", "turn 21", "never"],
)

# %%
explored, _ = story("explorer", ALL_ADVISORY)
print(f"explorer: {explored.stop_reason} after {len(explored.result.turns)} turns")
for turn, text in said(explored):
    print(f"turn {turn}: {text}")

# %%
stall_turns = [turn for turn, text in said(explored) if text.startswith("[stall]")]
course.show_outcome(explorer_guess, f"turn {stall_turns[0]}" if stall_turns else "never")

# %% [markdown]
# The stall count arms only at the first progress event. Twenty reads are exploration; the first
# change to `bill.py` is the first new state, and after it every boundary made progress until
# the finish. The `[budget]` notice came at turn 18, 60% of 30 (the comparison is in whole
# numbers: `18 * 100 >= 30 * 60`).
#
# Now a run that does arm it. The `thrasher` plans three todos, then reads and rewrites `bill.py`
# again and again without running anything. Every call succeeds; none is ever repeated exactly
# (so session 01's `repeat_guard` is quiet), and no check fails (so session 13's detector has no
# failure to key on). Turn budget 16.

# %%
thrashed, _ = story("thrasher", ALL_ADVISORY, max_turns=16)
print(f"thrasher: {thrashed.stop_reason} after {len(thrashed.result.turns)} turns")
for turn, text in said(thrashed):
    print(f"turn {turn}: {text}")
print()
print(thrashed.notice)

# %%
assert (
    explored.stop_reason == "done"
    and explored.counts["[stall]"] == 0
    and explored.counts["[budget]"] == 1
)
assert (
    thrashed.stop_reason == "max_turns"
    and thrashed.counts["[stall]"] == 2
    and thrashed.counts["[budget]"] == 2
    and thrashed.counts["[verify-before-done]"] == 2
)
assert (
    thrashed.notice.startswith(TRUNCATION_PREFIX)
    and "Objectives still outstanding (3)" in thrashed.notice
)

# %% [markdown]
# The first edit (turn 5) arms the count; the rewrites of the same file on turns 7 and 9 are not
# new states, so turn 9 is the fourth barren boundary. A second checkpoint needs a full four more
# (turn 13), and there is no third. The budget notices went out at 60% (turn 10) and 85% (turn 14)
# of 16. The tier gate sent its one mid-run reminder on turn 9, the third rewrite with nothing run
# since (it counts code edits, not distinct files), and refused the claimed finish on turn 16: no
# check had ever run. Then the turns ran out. The run hit `max_turns`, and its notice ends with
# what the todo board still had open.

# %%
course.reveal("s15.arming")

# %% [markdown]
# ## 4. A failure streak after green: what does `auto` do?
#
# The `streak_shell_edit` agent fixes `bill.py`, sees the suite pass (the green point), then
# spoils `bill.py` with a bad edit through `write_file`. It then runs a `sed -i` on
# `check_bill.py` through `run_command`, and from there every call fails, and none of them is a
# check: three shell commands that fail, a missing file, a timeout (which counts double). At a
# weighted streak of 6, twice the recovery checkpoint's 3, with the bad edit still unchecked,
# the safe-state abort is due.
#
# `safe_state_abort` is `auto`. The harness's `write_file` captured each file before writing it;
# `run_command` captured nothing.
#
# Predict first: what does `auto` do to the tree when the abort fires?

# %%
auto_guess = course.predict(
    "s15.back_to_green",
    "Green point, a bad write_file edit, a sed -i, six weighted failures. With auto, the tree is...",
    options=["restored: both files", "restored: bill.py only", "left alone: auto declines"],
)

# %%
AUTO = MonitorConfig(safe_state_abort="auto")
spoiled, spoiled_files = story("streak_shell_edit", AUTO)
course.print_table(
    [
        (r.turn, cut(calls_of(r), 70), "ok" if all(x.ok for x in r.dispatch) else "FAIL")
        for r in spoiled.result.turns
    ],
    ["turn", "calls", "result"],
)
print()
for turn, text in said(spoiled):
    print(f"turn {turn}: {text}")
print("abort:", spoiled.aborts[0])
print("files still changed at the end:", spoiled_files)
print(f"ended: {spoiled.stop_reason} ({spoiled.result.detail})")

# %%
record = spoiled.aborts[0]
if record.declined:
    course.show_outcome(auto_guess, "left alone: auto declines")
else:
    course.show_outcome(
        auto_guess,
        "restored: bill.py only" if record.restored == ("bill.py",) else "restored: both files",
    )

# %% [markdown]
# `check_bill.py` changed after the green point, and nothing the harness captured can put it back.
# Restoring `bill.py` alone would leave a tree that never existed: green code under a test file
# nobody has run. So `auto` declines and sends the advisory message instead; the abort's record
# names why (`reason`: `uncaptured_change`) and the file it is about (`path`: `check_bill.py`). The agent's last
# suite run is red, so its claimed finish gets the gate's one message and then ends the run
# `verify_failed`: a red run never ends `done`. The same story without the `sed`
# (`streak_after_green`) restores `bill.py`, and the suite passes again on the next turn.
#
# Both streaks are scripted. `auto` has not yet been seen firing from start to end under a live
# model (the lesson says why, after the notebook): on your own runs, start with `advisory`.

# %%
restored, restored_files = story("streak_after_green", AUTO)
print("abort:", restored.aborts[0])
print(
    "turn 10, the suite after the abort:",
    "passed" if restored.result.turns[9].dispatch[0].ok else "failed",
)

# %%
assert record.declined and record.restored == () and "check_bill.py" in spoiled_files
assert (record.reason, record.path) == ("uncaptured_change", "check_bill.py")
assert spoiled.stop_reason == "verify_failed" and spoiled.verification == "verified_red"
assert spoiled.stop_reason in VERIFY_STOP_REASONS and "passed" not in spoiled.result.detail
assert restored.aborts[0].restored == ("bill.py",) and restored.result.turns[9].dispatch[0].ok
assert spoiled.counts["[recovery]"] == 1 and spoiled.counts["[safe-state]"] == 1

# %%
course.reveal("s15.restore_gate")

# %% [markdown]
# ## 5. Your turn (2 of 2): the restore gate
#
# Write `my_can_restore(at_green, at_abort, captured)`. A fingerprint maps each path whose bytes
# differ from HEAD to their git blob hash (`"<absent>"` for a deleted file), or is `None` when
# the tree could not be sampled (not a git repository, say); a path missing from a fingerprint
# is as it is at HEAD. `captured` maps a path
# to what the harness could write back (a hash, `"<absent>"`, or `"<head>"` for HEAD's version).
# Say `True` only when every path changed, added or removed between the two fingerprints can be
# put back to exactly what it held at green. The course's `can_restore` is refused the same way.


# %%
def my_can_restore(at_green, at_abort, captured) -> bool:
    raise NotImplementedError(
        "your turn: True only if every path mutated since green can be put back"
    )


# %%
restore_check = course.compare(my_can_restore, check=check_can_restore, key="s15.can_restore")

# %% [markdown]
# **Stretch.** The cell below lets an agent work on a fresh till with every monitor on in
# `advisory`, then asks your gate (and the library's) one question: could the harness put the
# whole tree back to where the run *started*, from what its edit tool captured? Offline the agent
# is the scripted `explorer`. With `COURSE_MODE=live` it is your model (a *live* run: what
# it does is its choice, so the cell asserts nothing about it). Did your model use the shell to
# change files? Then neither gate can say yes.


# %%
def stretch(client):
    with open_workbench() as bench:
        monitors = RunMonitors(bench, ALL_ADVISORY)
        at_start, mark = fingerprint(bench.root), monitors.store.mark()
        run = run_with_monitors(client, TASK, bench, max_turns=30, monitors=monitors)
        captured = dict(monitors.store.restorable(bench.root, mark))
        return run, at_start, fingerprint(bench.root), captured


print("live: " + cafe.model_name() if LIVE else "offline: the scripted explorer")
rehearsal_note()
stretched = course.live_story(
    "s15.stretch",
    lambda: stretch(cafe.make_client() if LIVE else ScriptedClient(story_replies("explorer"))),
    model=cafe.model_name(),
)
gates = None
if not stretched.skipped("the restore question"):
    mine, at_start, at_end, captured = stretched.value
    print(
        f"{mine.stop_reason} after {len(mine.result.turns)} turns; "
        f"changed since the start: {sorted(at_end or {})}"
    )
    print("captured by write_file:", captured)
    gates = {"library": can_restore(at_start, at_end, captured)}
    print("library gate:", gates["library"])
    if restore_check.status == "passed":
        gates["yours"] = my_can_restore(at_start, at_end, captured)
        print("your gate:   ", gates["yours"])
    else:
        print(f"your gate:    not passed yet ({restore_check.status}); fix it above, then rerun.")

# %% [markdown]
# **Aside: what an agent's command can still read.** Every command the shell tool runs starts
# without the key (`without_secrets` in `cafe/world/processes.py`), and what it prints is masked.
# But it runs with your rights. The cell below starts a stand-in harness with a made-up key (set
# here, not yours), lets it run one command the way `run_command` does, and has that command look
# for the key in its own environment and in its parent's, through `/proc/<ppid>/environ` (Linux
# only). It prints yes or no, never a value.

# %%
import os
import subprocess
import sys
import tempfile

COMMAND = """
import os
own = "CAFE_API_KEY" in os.environ
try:
    with open(f"/proc/{os.getppid()}/environ", "rb") as environ:
        names = [item.split(b"=", 1)[0] for item in environ.read().split(b"\\0")]
    parent = "yes" if b"CAFE_API_KEY" in names else "no"
except OSError:
    parent = "cannot read it here (no /proc on this system)"
print("the command's own environment holds the key:", "yes" if own else "no")
print("its parent's /proc/<ppid>/environ holds the key:", parent)
"""
HARNESS = f"""
import os, sys
from cafe.world.processes import run_captured
done = run_captured([sys.executable, "-c", {COMMAND!r}], os.getcwd(), os.environ, 60)
print(done.stdout, end="")
"""
with tempfile.TemporaryDirectory() as folder:
    stand_in = subprocess.run(
        [sys.executable, "-c", HARNESS],
        cwd=folder,
        env={**os.environ, "CAFE_API_KEY": "sk-made-up-for-this-cell-0000000000"},
        capture_output=True,
        text=True,
        timeout=120,
    )
print(stand_in.stdout or stand_in.stderr)
assert "own environment holds the key: no" in stand_in.stdout

# %% [markdown]
# Taking the key out of a child's environment does not take it out of its parent's, nor out of
# the `.env` file on your disk. Only a boundary outside the process closes that: another user, a
# container, or a sandbox (the lesson's misconceptions, after the notebook).

# %% [markdown]
# ## 6. Your model with every monitor on (live mode only), and the checkpoint
#
# With `COURSE_MODE=live` this cell gives your model the till task with all four monitors on
# (`advisory`, threshold 4) and a budget of 12 turns. It is a *live* cell: it asserts only that
# the run ended on a named stop reason. Offline it is skipped.

# %%
model_story = None
if LIVE:
    model_story = course.live_story(
        "s15.your_model",
        lambda: story(None, ALL_ADVISORY, max_turns=12, client=cafe.make_client())[0],
        model=cafe.model_name(),
    )
    if not model_story.skipped("your model's monitored run"):
        live_run = model_story.value
        print(
            f"live: {cafe.model_name()}: {live_run.stop_reason} after "
            f"{len(live_run.result.turns)} turns"
        )
        rehearsal_note()
        for turn, text in said(live_run):
            print(f"turn {turn}: {text}")
        if live_run.notice:
            print(live_run.notice)
        assert live_run.stop_reason in RUN_STOP_REASONS | VERIFY_STOP_REASONS
        print(f"offline, the scripted thrasher: {counts(thrashed)}")
        print(f"your model:                     {counts(live_run)}")
        if not any(r.dispatch for r in live_run.result.turns):
            print(
                "Your model called no tool, so no monitor had anything to watch: the scripted "
                "stories above show each one at work."
            )
else:
    print("offline: skipped (set COURSE_MODE=live and the CAFE_* variables to run your model)")

# %% [markdown]
# ## Checkpoint
#
# Bank, per mode, how many messages each monitor sent. Offline that is the scripted stories: with
# the defaults (`off`), the thrasher; all in `advisory`, the explorer, the
# thrasher and the fast finisher; with `auto`, the two streaks. Live, bank your model's run: its
# counts and the objectives it left open on the todo board (if its run failed on the endpoint,
# what you banked before is kept).
#
# Then your own work, banked as yours once it has passed its check: how many of the commands the
# scripted agents ran your `my_tier` reads as the library does, and your gate's answer on the
# stretch beside the library's.


# %%
if LIVE:
    banked = {}
    if model_story.ok:
        banked = {
            "advisory": {"your_model": counts(live_run)},
            "open_objectives": list(live_run.open_objectives),
            "stop_reason": live_run.stop_reason,
        }
else:
    plain_thrash, _ = story("thrasher", MonitorConfig(), max_turns=16)
    banked = {
        "off": {"thrasher": counts(plain_thrash)},
        "advisory": {
            "explorer": counts(explored),
            "thrasher": counts(thrashed),
            "fast_finisher": counts(tiered),
        },
        "auto": {"streak_after_green": counts(restored), "streak_shell_edit": counts(spoiled)},
    }
    print(banked)
course.checkpoint(
    "s15", "monitor_messages", banked, model=cafe.model_name(), needs=[model_story] if LIVE else []
)


from cafe.monitors.tiers import is_verification_command


def commands_run(*runs):
    """Every distinct command the runs passed to run_command, in order."""
    seen = []
    for run in runs:
        for record in run.result.turns:
            for result in record.dispatch:
                command = result.arguments.get("command")
                if result.name == "run_command" and command and command not in seen:
                    seen.append(command)
    return seen


yours = {}
if tier_check.status == "passed":
    ran = commands_run(tiered, explored, thrashed, spoiled, restored)
    library = [verification_tier(c) if is_verification_command(c) else None for c in ran]
    agree = sum(my_tier(c) == want for c, want in zip(ran, library))
    yours["tier_agrees"] = f"{agree} of {len(ran)}"
if gates is not None and "yours" in gates:
    yours["restore_gate"] = gates
if yours:
    model = cafe.model_name() if LIVE and "restore_gate" in yours else None
    course.checkpoint("s15", "your_gates", yours, model=model, source="yours")
else:
    print("nothing of yours banked yet: your tier and gate bank here once they pass.")

# %% [markdown]
# That is the harness path's end: a loop (session 01), a detector that reads the failure (13),
# facts from the host and a pace governor (14), and monitors for the trouble nothing reports (15).
