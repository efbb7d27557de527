# %% [markdown]
# # Session 09 · The shift report
#
# One run ends on one named stop reason. A shift is many orders, and somebody has to read them all:
# the café's manager at closing time, or the engineer on call when the bill doubles. This notebook
# turns twenty runs into the report they read: how every run ended, how many attempts passing
# took, what each accepted ticket cost, which runs were slowest and costliest (with their
# traces), and which checks failed most. Read `sessions/s09-shift-report/lesson.md` alongside;
# the code is `cafe/report/summary.py` and its neighbours (`cafe/report/shift.py`, `cafe/report/traces.py`,
# `cafe/report/figures.py`, `cafe/report/banked.py`).
#
# Each step is *predict first*. The shift itself is scripted in both modes, so its story is the
# same for everyone; with `COURSE_MODE=live`, step 7 sends the same orders to your model.

# %%
import tempfile
from pathlib import Path

from IPython.display import SVG, display

import cafe
from cafe import course, report
from cafe.course.record import read_record
from cafe.course.record_view import render_record_text
from cafe.exercises.s09 import check_cost_by_ending, check_summarize
from cafe.repair import make_model_generator
from cafe.report.banked import banked_checkpoints, render_banked_text
from cafe.report.figures import figure_svg, shift_figures, write_html
from cafe.report.shift import PRACTICE_PRICES, SHIFT_ORDERS, run_shift, scripted_drafter, ticking
from cafe.report.traces import read_shift
from cafe.trace import write_trace
from cafe.trace.spans import AGENT_NAME, STOP_REASON, Span, Trace
from cafe.world.menu import load_menu

menu = load_menu()
live = cafe.course_mode() == "live"
workdir = Path(tempfile.mkdtemp(prefix="cafe-s09-"))
print(f"mode: {cafe.course_mode()}   model: {cafe.model_name()}   files go to: {workdir}")
print(menu.prompt_text())

# %% [markdown]
# ## 1. A lunchtime shift: how many runs will end without a ticket?
#
# Twenty orders come in. Read them against the menu: what is 86'd today, and which allergies each
# customer declared. Each passes front of house (`front_of_house`), then goes through session 07's
# re-ask (`repair_ticket`, cap 3, curated retries), drafted by `FeedbackModel`, the stand-in that
# fixes what a retry names. An order can end four ways (`report.ENDINGS`), and only one of them
# sends a ticket to the kitchen.

# %%
for spec in SHIFT_ORDERS:
    allergy = f"   allergy: {', '.join(spec.allergies)}" if spec.allergies else ""
    print(f"table {spec.table:>2}: {', '.join(spec.items):<32}{allergy}")

# %%
endings = {
    "passed": "a ticket passes",
    "retries_exhausted": "the cap ends the run",
    "policy_violation": "the loop refuses it before any draft",
    "sent_back": "front of house sends it back to the customer; the loop never runs",
}
assert tuple(endings) == report.ENDINGS
print("how an order can end:")
for ending, words in endings.items():
    print(f"  {ending:<18} {words}")

# %%
no_ticket_options = {"3 or fewer": 3, "4 to 8": 8, "9 to 14": 14, "15 or more": len(SHIFT_ORDERS)}
no_ticket_guess = course.predict(
    "s09.no_ticket",
    "How many of the twenty orders will end without a ticket?",
    options=list(no_ticket_options),
)

# %% [markdown]
# Now the shift runs. Each run of the loop is recorded to its own trace file (session 08's
# `record_repair`), and `run_shift` keeps one `RunRecord` per order. Offline, the clock is
# `ticking(0.5)`: the scripted model answers instantly, so each model call is timed as half a
# second.

# %%
runs = run_shift(
    SHIFT_ORDERS,
    scripted_drafter(),
    model=cafe.OFFLINE_MODEL,
    clock=ticking(0.5),
    trace_dir=workdir / "lunch",
)
counts = report.count_endings(runs)
for ending, count in counts.items():
    print(f"{ending:<18} {count:>3}")
print(f"{'(total)':<18} {sum(counts.values()):>3}   runs: {len(runs)}")

# %%
assert sum(counts.values()) == len(runs), "every run is counted under exactly one name"
assert set(counts) == set(endings), "one row for every named ending, zeros included"
no_ticket = len(runs) - counts["passed"]
print(
    f"without a ticket: {no_ticket} of {len(runs)}; the biggest single row: {max(counts, key=counts.get)}"
)
course.show_outcome(
    no_ticket_guess, next(option for option, most in no_ticket_options.items() if no_ticket <= most)
)

# %% [markdown]
# Before you flip the switch, match each row to its orders: which ran out of attempts, which were
# sent back to the customer, which were refused? And what would one row called "failed" have
# told the manager to do?

# %%
course.reveal("s09.why_no_ticket")

# %% [markdown]
# ## 2. Where did the cost go?
#
# A report needs prices to talk about money, and the course does not know yours. `PRACTICE_PRICES`
# is an invented table for practice (per million tokens, input and output); it is passed in, never
# assumed. Every token the shift spent is charged to the tickets it produced, since a run that
# ends without a ticket is paid for all the same.

# %%
print(PRACTICE_PRICES)
shares = {
    "passed": "the accepted tickets",
    "retries_exhausted": "the runs that ran out of attempts",
    "policy_violation": "the refused orders",
    "sent_back": "the orders sent back to the customer",
}

# %%
cost_guess = course.predict(
    "s09.cost_went",
    "Which runs took the biggest share of the shift's cost?",
    options=list(shares.values()),
)

# %% [markdown]
# Before the money, the attempts. Each attempt is one model call, and each call is billed whether
# or not its run ends with a ticket. A first attempt is sent the brief; a retry is sent the brief
# plus a failure view of a couple of hundred characters, so it costs a little more. Here is how
# many attempts each ending spent.

# %%
for ending in report.ENDINGS:
    spent = sum(run.attempts for run in runs if run.ending == ending)
    print(f"{ending:<18} {counts[ending]:>2} runs   {spent:>2} attempts")

# %%
times_options = ["about the same", "1.5 to 3 times", "3 to 6 times", "more than 6 times"]
ticket_guess = course.predict(
    "s09.per_ticket",
    "Cost per accepted ticket, against what the average passed run itself cost?",
    options=times_options,
)

# %%
summary = report.summarize(runs, PRACTICE_PRICES)
print(report.render_text(summary))

# %%
course.show_outcome(cost_guess, shares[max(summary.cost_by_ending, key=summary.cost_by_ending.get)])
own_cost = summary.cost_by_ending["passed"] / summary.accepted
ratio = summary.cost_per_accepted / own_cost
print(
    f"a passed run cost {own_cost:.5f} on average; each accepted ticket carries {summary.cost_per_accepted:.5f} "
    f"({ratio:.1f} times)"
)
times_bounds = (1.5, 3, 6, float("inf"))  # each option's upper bound, in order
course.show_outcome(
    ticket_guess, next(option for option, most in zip(times_options, times_bounds) if ratio < most)
)
assert abs(sum(summary.cost_by_ending.values()) - summary.cost) < 1e-12

# %%
course.reveal("s09.why_per_ticket")

# %% [markdown]
# ## 3. The report, drawn
#
# Four figures, each with a title and labelled axes: how the orders ended, attempts to pass, where
# the cost went, and which checks failed. They are plain matplotlib figures, drawn here as SVG.

# %%
figures = shift_figures(summary)
for _name, figure in figures.items():
    display(SVG(figure_svg(figure)))

# %% [markdown]
# The slowest and costliest runs point at their trace files. Open one: its spans say which checks
# failed on which attempt.

# %%
costliest_run = summary.costliest[0][0]
print(f"costliest: {costliest_run.run_id}, {costliest_run.ending}, trace {costliest_run.trace}")
print(Path(costliest_run.trace).read_text(encoding="utf-8").splitlines()[0][:160], "...")

# %% [markdown]
# ## 4. Your turn: count a shift so the counts add up
#
# Write `summarize(runs)`: a dict from each ending to how many runs ended that way. It must work
# on anything with an `ending` (a `RunRecord` has one), list every one of `report.ENDINGS` (with
# 0 when none ended so), and add up to the number of runs. And a run whose `ending` is not one of
# them? There is no "other" bucket: refuse it with a `ValueError` that names the ending, wherever
# in the shift it sits. The compare cell checks it both ways: hand-picked shifts first, then
# generated ones against a count the checker makes on its own. Handing in the course's
# `count_endings` is refused: write your own.


# %%
def summarize(runs):
    """Ending -> number of runs, every named ending present; an unnamed ending refused."""
    raise NotImplementedError("your turn: count the runs by ending")


# %%
count_check = course.compare(summarize, check=check_summarize, key="s09.summarize")

# %% [markdown]
# Tried it? Flip the switch for the course's version, `count_endings`.

# %%
course.reveal("s09.count_endings", source=report.count_endings)

# %% [markdown]
# ## 5. Bad input: what does the report count?
#
# Read the shift back from its trace files, plus two more: one cut off half way through a line (a
# crash while writing) and one from session 01's agent loop, whose stop reasons are a different
# set. How many runs will the report count?

# %%
broken = workdir / "broken"
broken.mkdir(exist_ok=True)
first = sorted((workdir / "lunch").glob("*.jsonl"))[0].read_text(encoding="utf-8")
(broken / "cut.jsonl").write_text(first[: len(first) // 2], encoding="utf-8")
loop_run = Trace(
    "loop-01",
    "2026-11-30T12:00:00+00:00",
    (
        Span(
            "s1",
            None,
            "run",
            "invoke_agent cafe.loop",
            0.0,
            0.1,
            {AGENT_NAME: "cafe.loop", STOP_REASON: "done"},
        ),
    ),
)
write_trace(loop_run, broken / "loop.jsonl")

# %%
counted_guess = course.predict(
    "s09.counted",
    "How many runs will the report count?",
    options=["17", "20", "22", "none: it stops with an error"],
)

# %%
lunch_files = sorted((workdir / "lunch").glob("*.jsonl"))
files = lunch_files + sorted(broken.glob("*.jsonl"))
read_back, problems = read_shift(files)
print(
    f"{len(runs)} orders, {len(lunch_files)} lunch traces + 2 more files: {len(read_back)} runs counted"
)
print(f"no trace for the {counts['sent_back']} orders sent back: the loop never ran on them")
for problem in problems:
    print(" -", problem)
course.show_outcome(counted_guess, str(len(read_back)))

# %% [markdown]
# Two more kinds of bad input: an empty shift, and a trace whose model calls reported no usage.
# Both are reported in words, not raised.

# %%
print(report.render_text(report.summarize([], PRACTICE_PRICES)), "\n")
quiet = [report.RunRecord("quiet-01", "passed", 2, cafe.OFFLINE_MODEL)]
print("\n".join(report.summarize(list(read_back[:3]) + quiet, PRACTICE_PRICES).notes))

# %% [markdown]
# ## 6. Your turn, open-ended: where the money went
#
# Write `cost_by_ending(runs, prices)`: the shift's cost split by how the orders ended. Each run
# has `input_tokens`, `output_tokens` (None when not reported) and `model`; `prices[model]` is a
# `report.Price` with `input_per_million` and `output_per_million`. A run whose cost is unknown
# adds nothing. List every ending, as in step 4. The compare cell tries hand-picked shifts, then
# generated ones; the course's `cost_by_ending` is refused if handed in.


# %%
def cost_by_ending(runs, prices):
    """Ending -> what the runs that ended that way cost; unknown costs add nothing."""
    raise NotImplementedError("your turn: split the cost by ending")


# %%
cost_check = course.compare(cost_by_ending, check=check_cost_by_ending, key="s09.cost_by_ending")

# %% [markdown]
# Then make it your own. Try a price table where output tokens cost twenty times what input
# does, or two models at different prices, and see which ending's share moves. Or split the
# cost by attempt number instead: how much did the third attempts cost, and what did they buy?
# (Until yours passes the compare cell, the course's `cost_by_ending` stands in for it.)
#
# **Live stretch:** run this notebook with `COURSE_MODE=live`, put your provider's prices for
# your model in `my_prices`, and split your own model's shift from step 7 the same way.

# %%
split = cost_by_ending if cost_check.status == "passed" else report.cost_by_ending
my_prices = {cafe.OFFLINE_MODEL: report.Price(input_per_million=1.0, output_per_million=20.0)}
for ending, cost in split(runs, my_prices).items():
    print(f"{ending:<18} {cost:.5f}")

# %% [markdown]
# ## 7. Your model's shift, and the report you can send
#
# **Live** (`COURSE_MODE=live`): this cell sends the twenty orders to your model, timed by a
# real clock, and asserts only what any model guarantees: every order is counted under one named
# ending, or set aside by name when the endpoint failed on it (a `!` in the progress dots). Offline it runs the scripted shift again. Prices: the practice table's figures stand in
# for your model's until you put your provider's own in `live_prices`.

# %%
failed = []  # orders an endpoint problem stopped: no ending, so no row of the report
story = None


def set_aside(order):
    """An order the endpoint failed on: a `!` for now, a note in the report later."""
    print("!", end="", flush=True)
    failed.append(order)


if live:
    model = cafe.model_name()
    print(f"live: your model {model} is drafting twenty orders", end="", flush=True)
    story = course.live_story(
        "s09.your_shift",
        lambda: run_shift(
            SHIFT_ORDERS,
            make_model_generator(cafe.make_client()),
            model=model,
            trace_dir=workdir / "yours",
            on_run=lambda run: print(".", end="", flush=True),
            on_failure=set_aside,
        ),
        model=model,
    )
    print()
    mine = story.value or ()
    if story.ok and not mine:
        story = course.LiveStory(
            "s09.your_shift", failed=failed[0].kind, reason="every order failed"
        )
    live_prices = {
        model: PRACTICE_PRICES[cafe.OFFLINE_MODEL]
    }  # replace with your provider's prices
else:
    model, mine, live_prices = cafe.OFFLINE_MODEL, runs, PRACTICE_PRICES
yours = None
if story is None or not story.skipped("your shift's report"):
    yours = report.summarize(mine, live_prices, notes=[order.note() for order in failed])
    assert yours.runs + len(failed) == len(SHIFT_ORDERS), "every order ended or hit the endpoint"
    assert sum(yours.endings.values()) == yours.runs, "every ended order under one named ending"
    print(report.render_text(yours))
    if live:
        print(
            f"\nwithout a ticket: your model {yours.runs - yours.accepted} of {yours.runs}, "
            f"the stand-in {no_ticket} of {len(runs)}. Ten orders here cannot become a ticket "
            "as written, whatever the model;\nmore than ten without one means your model missed "
            "orders the stand-in got through, fewer means an order was let through that should not be."
        )
    if failed:
        print(
            f"{len(failed)} of {len(SHIFT_ORDERS)} orders hit an endpoint problem: the report "
            "counts the other orders, and its notes name the ones left out."
        )

# %% [markdown]
# The same report as one HTML file, figures inside it, that you can open in a browser or send.
# It also lists your banked checkpoints: the next step.

# %%
if yours is not None:
    page = write_html(
        workdir / "shift-report.html", yours, banked_checkpoints(), title=f"Shift report ({model})"
    )
    print(f"wrote {page} ({page.stat().st_size:,} bytes); open it in a browser")
else:
    story.skipped("the HTML report")

# %% [markdown]
# ## 8. Everything you banked
#
# Every session's notebook banks a number with the model that produced it. The report reads your
# progress file and lists them all, so you can put scripted beside live, or one model beside
# another. Entries from sessions this course does not have are listed apart, in words.

# %%
print(render_banked_text(banked_checkpoints()))

# %% [markdown]
# The same file holds more than figures: every prediction you made and whether it matched, and
# every exercise you passed. `cafe progress` in a terminal prints that whole record (with
# `--session 09` for one session in detail); this cell prints it too.

# %%
print(render_record_text(read_record()))

# %% [markdown]
# ## 9. Checkpoint: your shift in numbers
#
# Bank the shift from step 7 with the model that produced it: offline the scripted stand-in,
# live your model. Beside it go your own results, labelled yours: how your `summarize` counted
# the lunch shift and how your `cost_by_ending` split its cost, banked only once each has passed
# its compare cell. Step 8 (and any later report) will show them beside the others.

# %%
if yours is not None:
    course.checkpoint(
        "s09",
        "shift",
        {
            "runs": yours.runs,
            "not_reached": len(failed),
            "endings": dict(yours.endings),
            "attempts_to_pass": dict(yours.attempts_to_pass),
            "tokens_per_accepted": None
            if yours.tokens_per_accepted is None
            else round(yours.tokens_per_accepted, 1),
            "cost_per_accepted": None
            if yours.cost_per_accepted is None
            else round(yours.cost_per_accepted, 6),
            "currency": yours.currency,
        },
        model=model,
        needs=[story] if story is not None else [],
    )
else:
    course.checkpoint("s09", "shift", None, model=model, needs=[story])
if count_check.status == "passed":
    course.checkpoint(
        "s09", "your_count", summarize(runs), model=cafe.OFFLINE_MODEL, source="yours"
    )
else:
    print("your summarize has not passed its compare cell yet: nothing of it is banked as yours")
if cost_check.status == "passed":
    course.checkpoint(
        "s09",
        "your_cost_split",
        {ending: round(cost, 6) for ending, cost in cost_by_ending(runs, PRACTICE_PRICES).items()},
        model=cafe.OFFLINE_MODEL,
        source="yours",
    )
else:
    print(
        "your cost_by_ending has not passed its compare cell yet: nothing of it is banked as yours"
    )
print(render_banked_text(banked_checkpoints()))

# %% [markdown]
# The report says which runs ran out of attempts; it does not say why. Session 10 reads those
# runs' failures and sorts them into a taxonomy you can act on.
