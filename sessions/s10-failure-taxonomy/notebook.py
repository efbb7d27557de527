# %% [markdown]
# # Session 10 · Error analysis: a failure taxonomy
#
# Session 07's loop ends every run on a named stop, and each run keeps its attempt log. This
# notebook reads those logs for a whole shift: first run by run, in your own words, then sorted
# into classes that never overlap, counted, and used to pick the one fix to make first. Read
# `sessions/s10-failure-taxonomy/lesson.md` alongside; `cafe/taxonomy/` is the code.
#
# The first half works on a *practice shift*: twenty orders drafted by a scripted stand-in
# whose failures were put there on purpose, so you can check the method against a known answer.
# It stays scripted in both modes. The second half runs the same twenty orders through your own
# model when `COURSE_MODE=live`, and the checkpoint banks what your shift looked like.

# %%
import cafe
import cafe.taxonomy
from cafe import course
from cafe.exercises.s10 import check_classify, check_first_fix
from cafe.repair import Attempt, RepairResult, make_model_generator, repair_ticket
from cafe.schema import Failure
from cafe.stories.practice_shift import (
    PRACTICE_SHIFT,
    SHIFT_HABITS,
    designed_counts,
    practice_generator,
    practice_orders,
)
from cafe.taxonomy import (
    FAILURE_CLASSES,
    Run,
    class_tests,
    classify,
    code,
    first_fix,
    run_shift,
    sort_runs,
)
from cafe.world.menu import load_menu

menu = load_menu()
live = cafe.course_mode() == "live"
print(f"mode: {cafe.course_mode()}   model: {cafe.model_name()}")
print(f"86'd today: {', '.join(menu.sold_out) or 'nothing'}")

# %% [markdown]
# ## 1. What went wrong, run by run?
#
# Here are the practice shift's twenty orders. The scripted drafter copies each order from its
# brief. When a retry's failure view names a problem with an item, it does exactly what that
# view says and nothing more, and it only ever sees the last view (session 07's curated retry).
# Some tables also bring a habit of their own (`SHIFT_HABITS`), printed beside the order:
#
# - `slips_once`: the first draft forgets the table; a retry that names it puts it back;
# - `allergy_in_notes`: the declared allergy goes into the notes instead of the allergies field,
#   whatever a retry says;
# - `scattered`: a different slip on every attempt;
# - `server_error`: the endpoint fails on this order.
#
# Look at table 14: the cheese omelette and an americano. Check the 86'd list above, then
# predict what its three attempts fail, in order.

# %%
for order in sorted(PRACTICE_SHIFT, key=lambda order: order.spec.table):
    spec = order.spec
    allergy = f"allergy: {', '.join(spec.allergies)}" if spec.allergies else ""
    habit = f"habit: {SHIFT_HABITS[spec.table]}" if spec.table in SHIFT_HABITS else ""
    print(f"table {spec.table:>2}: {', '.join(spec.items):<30} {allergy:<16} {habit}".rstrip())

# %%
omelette_guess = course.predict(
    "s10.omelette",
    "Table 14's three attempts fail which checks, in order?",
    options=[
        "sold_out, sold_out, sold_out",
        "sold_out, out_of_scope, sold_out",
        "sold_out, out_of_scope, out_of_scope",
        "refused before any draft",
    ],
)

# %% [markdown]
# Now the whole shift. Section 3 sorts every run that does not pass into one class and piles the
# runs by class and check (the lesson's `sort_runs` and `code`). Work out from the orders, the
# 86'd list and the habits above where each table's run will land, before any run is printed.

# %%
pile_options = [
    "alternating on sold_out",
    "systematic on unsafe",
    "drifting on missing_field",
    "transport on http_error",
]
pile_guess = course.predict(
    "s10.biggest_pile", "Which (class, check) pile will have the most runs?", options=pile_options
)

# %%
print("The practice shift, drafted by the scripted stand-in", end="", flush=True)
runs = run_shift(
    practice_orders(), practice_generator(), on_run=lambda run: print(".", end="", flush=True)
)
print()


def trace(run):
    """One line per attempt: what it failed. The raw material of error analysis."""
    if run.transport:
        return [f"    the endpoint failed ({run.transport}): {run.detail[:100]}"]
    if run.result.blocked_by:
        return [
            f"    refused before any draft: {f.check} {f.span!r}" for f in run.result.blocked_by
        ]
    return [
        f"    attempt {a.number}: "
        + ("; ".join(f"{f.check} {f.span!r}" for f in a.failures) or "passed")
        for a in run.result.attempts
    ]


for run in runs:
    if not run.passed:
        print(f"table {run.spec.table} ({', '.join(run.spec.items)}):")
        print("\n".join(trace(run)))

# %%
table_14 = next(run for run in runs if run.spec.table == 14)
course.show_outcome(
    omelette_guess,
    ", ".join(a.failures[0].check for a in table_14.result.attempts)
    if table_14.result.attempts
    else "refused before any draft",
)

# %% [markdown]
# The drafter did what it was told each time. Why did the run still go round in a circle? Decide,
# then flip the switch.

# %%
course.reveal("s10.why_circle")

# %% [markdown]
# **Open coding.** Before any class has a name, write what went wrong in a few runs above *in your
# own words*, one note per run: "keeps putting the allergy in the notes", "dropped the omelette,
# then put it back". Don't reach for categories yet; the notes are the data. Nothing checks this
# cell: it is the habit the rest of the session stands on.

# %%
my_notes = {
    14: "",  # table 14: what went wrong, in your words
    6: "",
    17: "",
}
print(f"{sum(bool(note.strip()) for note in my_notes.values())} of {len(my_notes)} notes written")

# %% [markdown]
# ## 2. When two tests hold, which class does a run get?
#
# **Axial coding** groups the notes into categories. Here the categories are the five classes
# in `FAILURE_CLASSES`, each with a test (`cafe.taxonomy.CLASS_TESTS`); the lesson gives each
# test in words. The tests are allowed to overlap, and `classify` returns the *first* class, in
# the order `FAILURE_CLASSES` lists them, whose test holds.
#
# Take a run that fails `missing_field 'table'` on all three attempts, and `sold_out 'cheese
# omelette'` on attempts 1 and 3 only. How many of the five tests hold for it?

# %%
tests_guess = course.predict(
    "s10.tests_held",
    "How many of the five class tests hold for this run?",
    options=["1", "2", "3", "4"],
)

# %%
no_table = Failure("missing_field", "table", "include table")
sold_out = Failure("sold_out", "cheese omelette", "cheese omelette is 86'd today")
mixed = Run(
    table_14.spec,
    result=RepairResult(
        "retries_exhausted",
        None,
        (
            Attempt(1, "{}", (no_table, sold_out), 0, None),
            Attempt(2, "{}", (no_table,), 0, None),
            Attempt(3, "{}", (no_table, sold_out), 0, None),
        ),
    ),
)
print(f"tests that hold: {class_tests(mixed)}")
print(f"classify: {classify(mixed)}   (the first of {FAILURE_CLASSES})")
course.show_outcome(tests_guess, str(len(class_tests(mixed))))

# %% [markdown]
# Why this order, and not the other way round? Decide what each class tells you to fix, then flip
# the switch.

# %%
course.reveal("s10.why_precedence")

# %% [markdown]
# ## 3. Does the taxonomy find the mix that was built in?
#
# The practice shift was built with a known answer: every order has the class its run was
# designed to land in (`PRACTICE_SHIFT`, `designed_counts`). `sort_runs` has not seen those
# answers. It classifies every run that did not pass, counts each class, checks that the counts
# add up, and piles the runs by class and check, biggest first. You predicted the biggest pile
# in section 1, before any run was printed; here is the sort.

# %%
taxonomy = sort_runs(runs)
designed = designed_counts()
designed_failed = sum(n for name, n in designed.items() if name != "passed")
print(f"{taxonomy.runs} runs: {taxonomy.passed} passed, {taxonomy.failed} did not\n")
print(f"{'class':<12} {'designed':>9} {'measured':>9} {'share':>7}")
for name in FAILURE_CLASSES:
    share = designed.get(name, 0) / designed_failed
    print(
        f"{name:<12} {designed.get(name, 0):>9} {taxonomy.counts[name]:>9} {taxonomy.shares()[name]:>7.0%}"
        f"   (designed {share:.0%})"
    )
print(f"{'(sum)':<12} {designed_failed:>9} {sum(taxonomy.counts.values()):>9}")
print("\npiles, biggest first:")
for kind, check, count in taxonomy.piles:
    print(f"  {count:>2}  {kind} on {check}")
# the counts add up: passed, sent back to the customer (none on this shift) and the classes
assert taxonomy.passed + taxonomy.sent_back + sum(taxonomy.counts.values()) == taxonomy.runs
assert {k: v for k, v in taxonomy.counts.items() if v} == {
    k: v for k, v in designed.items() if k != "passed"
}

# %%
kind, check, _ = taxonomy.piles[0]
course.show_outcome(pile_guess, f"{kind} on {check}")

print("\nexamples per class:")
for name in FAILURE_CLASSES:
    for run in taxonomy.examples[name][:2]:
        print(
            f"  {name:<12} table {run.spec.table}: "
            + " | ".join(line.strip() for line in trace(run))
        )

# %% [markdown]
# ## 4. Your turn: classify a run
#
# Write `my_classify(run)`: the class of a run that did not pass. A `Run` has `run.transport`
# (the endpoint problem's kind, or None) and `run.result`, a `RepairResult` with `stop_reason`
# and `attempts`; each attempt has `failures`, and each failure a `check` and a `span`. Two
# failures are the same failure when both their check and their span agree. Test the classes in
# the order of `FAILURE_CLASSES` and return the first that holds.


# %%
def my_classify(run):
    """One of FAILURE_CLASSES: the first whose test holds for this run."""
    raise NotImplementedError("your turn: write the classifier")


# %% [markdown]
# The compare cell runs your classifier over seventeen hand-built runs, of one to five attempts,
# including ones where several tests hold and one where the same check name hides three
# different failures. After those hand-built runs it compares yours with a classifier the
# checker holds, written apart from the course's, on generated runs (up to six attempts, failures
# repeated, listed in any order). Handing in the course's `classify` is refused: write your own.

# %%
classify_check = course.compare(my_classify, check=check_classify, key="s10.classify")

# %% [markdown]
# Tried it? Flip the switch for the course's `classify`.

# %%
course.reveal("s10.classify", source=cafe.taxonomy.classify)

# %% [markdown]
# ## 5. Your turn, open-ended: the one fix to make first
#
# `first_fix` names the biggest pile a change to the harness could shrink (refused runs are left
# out: there the policy did its job). Read that pile's examples above. What is the cause, and
# where does a fix for it belong: the prompt, the failure view, the checks, or before the loop?
#
# Write `my_fixed_runner(spec, generate)`: the shift's runner with your one fix, returning a
# `RepairResult`. It can call `repair_ticket(spec, generate)` for everything your fix does not
# touch. The compare cell runs the whole practice shift through it and holds it to what a fix
# must do: change how the biggest pile's orders end, keep every pass, loosen no check, and never
# call a run refused after drafts were spent on it. Then it runs the same orders again with another
# model, as your live stretch will: a runner answers from the `generate` it is handed each time.

# %%
print(f"first fix: {first_fix(taxonomy)}")


def my_fixed_runner(spec, generate):
    """repair_ticket, plus the one fix the taxonomy points at."""
    raise NotImplementedError("your turn: make the first fix")


# %%
fix_check = course.compare(my_fixed_runner, check=check_first_fix, key="s10.first_fix")

# %% [markdown]
# Before and after, on the same shift: the counts per class and the drafts spent.


# %%
def shift_counts(runner):
    generate = practice_generator()
    sorted_runs = sort_runs(run_shift(practice_orders(), generate, runner=runner))
    return sorted_runs, len(generate.client.calls)


if fix_check.status == "not_attempted":
    print("(my_fixed_runner is still the stub: the before/after table appears once it runs)")
else:
    (before, drafts_before), (after, drafts_after) = (
        shift_counts(repair_ticket),
        shift_counts(my_fixed_runner),
    )
    print(f"{'':<12} {'before':>7} {'after':>7}")
    for name in ("passed", *FAILURE_CLASSES):
        old = before.passed if name == "passed" else before.counts[name]
        new = after.passed if name == "passed" else after.counts[name]
        print(f"{name:<12} {old:>7} {new:>7}")
    print(f"{'drafts':<12} {drafts_before:>7} {drafts_after:>7}")

# %% [markdown]
# Flip the switch for the fix the course makes, and why it is the first.

# %%
course.reveal("s10.first_fix")

# %% [markdown]
# ## 6. Your own shift
#
# The same twenty orders, now drafted by the model `cafe.model_name()` names: offline that is the
# scripted stand-in again (so the numbers match section 3), live it is your model, through
# `make_model_generator(make_client())`. A request your endpoint fails is recorded as a transport
# run and the shift goes on.
#
# **Live** (`COURSE_MODE=live`): this cell sends up to sixty requests. It asserts only what holds
# for any model: every run that did not pass is in exactly one class, and the counts add up.
# Then read your piles and their examples the way you read the practice shift's.

# %%
your_generate = make_model_generator(cafe.make_client()) if live else practice_generator()
print(
    f"your shift ({'your model ' + cafe.model_name() if live else 'the scripted stand-in'})",
    end="",
    flush=True,
)
your_story = course.live_story(
    "s10.your_shift",
    lambda: run_shift(
        practice_orders(), your_generate, on_run=lambda run: print(".", end="", flush=True)
    ),
    model=cafe.model_name(),
)
print()
your_taxonomy = None
if not your_story.skipped("your shift's taxonomy"):
    yours = your_story.value
    your_taxonomy = sort_runs(yours)
    classified = sum(your_taxonomy.counts.values())
    assert (
        your_taxonomy.passed + your_taxonomy.sent_back + classified
        == your_taxonomy.runs
        == len(yours)
    )
    assert all(
        run.passed or run.sent_back is not None or classify(run) in FAILURE_CLASSES for run in yours
    )
    print(f"{your_taxonomy.passed} of {your_taxonomy.runs} passed")
    for name in FAILURE_CLASSES:
        print(f"  {name:<12} {your_taxonomy.counts[name]:>3}  ({your_taxonomy.shares()[name]:.0%})")
    for kind, check, count in your_taxonomy.piles[:5]:
        failed = (run for run in yours if not run.passed and run.sent_back is None)
        example = next(run for run in failed if classify(run) == kind and code(run) == check)
        shown = f"table {example.spec.table}: " + " | ".join(
            line.strip() for line in trace(example)
        )
        print(f"  pile: {count} {kind} on {check}\n        e.g. {shown[:120]}")
    print(f"first fix for your shift: {first_fix(your_taxonomy)}")
    if live:
        print(
            f"\nthe stand-in's shift (section 3): {taxonomy.passed} of {taxonomy.runs} passed, "
            f"biggest pile {taxonomy.piles[0][2]} {taxonomy.piles[0][0]} on {taxonomy.piles[0][1]}."
            "\nA different biggest pile is a finding about your model, not a fault: the taxonomy"
            " is measured, never assumed. Runs in transport are requests your endpoint failed;"
            "\nthey say nothing about the model, and a shift that is mostly transport says to fix"
            " the endpoint (cafe doctor) before reading the other piles."
        )

# %% [markdown]
# Recorded a shift with session 08? `classify` takes each trace as it is, so
# `[classify(trace) for trace in read_traces(path)]` (with `read_traces` from `cafe.trace`) sorts
# the runs in a trace file the same way; `run_from_trace` gives the `Run` for `sort_runs`.
#
# **Live stretch:** run your shift again through `my_fixed_runner` (change the cell above to pass
# `runner=my_fixed_runner` to `run_shift`). Did the pile you aimed at shrink on *your* model, and
# did anything else move? If your biggest pile is a different one, write the fix it calls for.

# %% [markdown]
# ## 7. Checkpoint: your class shares
#
# Bank your shift's taxonomy with the model that produced it: the scripted stand-in offline,
# your model's own numbers live. Beside it go two figures of your own work, labelled yours: how
# often your classifier agrees with `classify` on the practice shift, and the before/after counts
# of your first fix, each banked only once it has passed its compare cell.

# %%
if your_taxonomy is not None:
    course.checkpoint(
        "s10",
        "class_shares",
        {
            "runs": your_taxonomy.runs,
            "passed": your_taxonomy.passed,
            "counts": dict(your_taxonomy.counts),
            "shares": {name: round(share, 3) for name, share in your_taxonomy.shares().items()},
            "first_fix": list(first_fix(your_taxonomy) or []),
        },
        model=cafe.model_name(),
        needs=[your_story],
    )
else:
    course.checkpoint("s10", "class_shares", None, model=cafe.model_name(), needs=[your_story])
if classify_check.status == "passed":
    unpassed = [run for run in runs if not run.passed and run.sent_back is None]

    def agrees(run):
        """Your class for the run is classify's (a run your function raises on does not agree)."""
        try:
            return my_classify(run) == classify(run)
        except Exception:
            return False

    agree = sum(agrees(run) for run in unpassed)
    course.checkpoint(
        "s10",
        "your_classifier",
        {"agrees_with_classify": agree, "of": len(unpassed)},
        model=cafe.OFFLINE_MODEL,
        source="yours",
    )
else:
    print("your classifier has not passed its compare cell yet: nothing of it is banked as yours")
if fix_check.status == "passed":
    course.checkpoint(
        "s10",
        "your_first_fix",
        {
            "before": {"passed": before.passed, **dict(before.counts), "drafts": drafts_before},
            "after": {"passed": after.passed, **dict(after.counts), "drafts": drafts_after},
        },
        model=cafe.OFFLINE_MODEL,
        source="yours",
    )
else:
    print("your first fix has not passed its compare cell yet: nothing of it is banked as yours")

# %% [markdown]
# A pile is a count of runs; session 11 turns it into money, since every exhausted run paid for
# the whole cap. Session 12 asks when a model may do the reading you did by hand here.
