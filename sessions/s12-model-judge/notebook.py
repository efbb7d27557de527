# %% [markdown]
# # Session 12 · A model as judge, calibrated
#
# Some questions about a ticket have no deterministic check: is the note polite, did the
# agent explain the substitution well? The tempting answer is to ask a model. This notebook
# treats that model as what it is, a classifier, and measures it against the checks the course
# already trusts before believing it. Read `sessions/s12-model-judge/lesson.md` alongside;
# `cafe/judge/` is the code (`grading.py`, `biased.py`, `labelled.py`, `calibration.py`, `trust.py`).
#
# Each step is *predict first*: write your guess down before you run the cell that answers it.
# The stories run on a scripted judge whose biases you set, in both modes; the cells that reach
# your model when `COURSE_MODE=live` say so.

# %%
import cafe
import cafe.judge.calibration
import cafe.judge.trust
from cafe import course
from cafe.exercises.s12 import check_calibrate, check_trust_rule
from cafe.judge import ModelJudge, grade_messages
from cafe.judge.calibration import calibrate, catch_rate_by_notes, position_probe, scripted_judge
from cafe.judge.labelled import labelled_tickets
from cafe.judge.trust import TRUST_MINIMUMS, trust_reading

live = cafe.course_mode() == "live"
labelled = labelled_tickets(40, 0.5)
bad = sum(item.truth == "fail" for item in labelled)
print(f"mode: {cafe.course_mode()}   model: {cafe.model_name()}")
print(f"{len(labelled)} labelled tickets: {bad} the checks reject, {len(labelled) - bad} they pass")

# %% [markdown]
# ## 0. What the judge is asked
#
# Every ticket was labelled by `cafe.detect.check_ticket`, not by hand. The judge sees the
# approved order and the ticket, both fenced as data, and the menu in its system prompt. Here is
# the question for the first ticket, and the label the checks gave it:

# %%
first = labelled[0]
print(grade_messages(first.spec, first.ticket)[0]["content"])
print(f"\nthe checks say: {first.truth} {list(first.checks) or ''}")

# %% [markdown]
# ## 1. What does agreement tell you?
#
# A new batch: 100 tickets, of which only 5 are broken (a realistic day: most tickets are
# fine). The judge here is lazy in the simplest way: it answers `pass` to every ticket.
# Agreement is the share of tickets where the judge and the checks say the same thing.

# %%
agreement_guess = course.predict(
    "s12.agreement",
    "The always-pass judge on 100 tickets, 5 broken: its agreement?",
    options=["about 50%", "about 75%", "95%", "100%"],
)

# %%
rare = labelled_tickets(100, 0.05)
lazy = calibrate(scripted_judge(leniency=1.0, tickets=rare), rare)
print(f"agreement {lazy.agreement:.0%}   caught {lazy.tp} of {lazy.tp + lazy.fn} broken tickets")
course.show_outcome(agreement_guess, f"{lazy.agreement:.0%}")

# %% [markdown]
# Cohen's kappa asks a different question: how much better than chance is this agreement, where
# "chance" is two raters with the same pass/fail habits agreeing by luck? 1 is perfect, and 0 is
# no better than luck.

# %%
kappa_guess = course.predict(
    "s12.kappa", "The same judge's kappa?", options=["about 0.95", "about 0.5", "0", "below 0"]
)

# %%
print(f"kappa {lazy.kappa:.2f}")
kappas = {"about 0.95": 0.95, "about 0.5": 0.5, "0": 0.0, "below 0": -0.5}
course.show_outcome(kappa_guess, min(kappas, key=lambda option: abs(kappas[option] - lazy.kappa)))
assert lazy.tp + lazy.fn + lazy.tn + lazy.fp + lazy.unparsed == len(rare)

# %%
course.reveal("s12.why_kappa")

# %% [markdown]
# ## 2. A lenient judge: which mistake does it make?
#
# Back to the 40 tickets, half broken. This judge knows what the checks know, but of the broken
# tickets it is shown it lets 30% through anyway (`leniency=0.3`: told which tickets it will
# grade, the scripted judge picks exactly that share, so the dial is what you measure). Two rates describe it: the
# *catch rate* (of the broken tickets, the share it fails) and the *pass rate on good tickets*
# (of the right ones, the share it passes).

# %%
lenient_guess = course.predict(
    "s12.leniency",
    "What does leniency 0.3 do to the two rates?",
    options=[
        "it misses some broken tickets; good ones still pass",
        "it fails some good tickets; broken ones still fail",
        "both kinds of mistake",
        "nothing you can see in 40 tickets",
    ],
)

# %%
lenient = calibrate(scripted_judge(leniency=0.3, tickets=labelled), labelled)
print(
    f"catch rate {lenient.catch_rate:.0%}   pass rate on good {lenient.pass_rate_on_good:.0%}   "
    f"agreement {lenient.agreement:.0%}   kappa {lenient.kappa:.2f}"
)
moved = (lenient.catch_rate < 1, lenient.pass_rate_on_good < 1)
course.show_outcome(
    lenient_guess,
    {
        (True, False): "it misses some broken tickets; good ones still pass",
        (False, True): "it fails some good tickets; broken ones still fail",
        (True, True): "both kinds of mistake",
        (False, False): "nothing you can see in 40 tickets",
    }[moved],
)

# %% [markdown]
# ## 3. Does a friendly note buy a pass?
#
# Roughly one ticket in two carries a long, friendly note that asks the kitchen for nothing. It does
# not change whether a ticket is right. This judge has `leniency=0.1` and `verbosity=0.5`: it
# lets 10% of the broken tickets with no note through, and 10% + 50% = 60% of those with a long
# one.

# %%
verbose_guess = course.predict(
    "s12.verbosity",
    "Catch rate on broken tickets with long notes vs without?",
    options=["about the same", "lower with long notes", "lower without notes"],
)

# %%
wordy = calibrate(scripted_judge(leniency=0.1, verbosity=0.5, tickets=labelled), labelled)
by_notes = catch_rate_by_notes(wordy)
print(f"overall: catch rate {wordy.catch_rate:.0%}, kappa {wordy.kappa:.2f}")
print(
    f"broken tickets with long notes: caught {by_notes['verbose']:.0%}   without: {by_notes['plain']:.0%}"
)
gap = by_notes["plain"] - by_notes["verbose"]
course.show_outcome(
    verbose_guess,
    "about the same"
    if abs(gap) < 0.1
    else "lower with long notes"
    if gap > 0
    else "lower without notes",
)

# %%
course.reveal("s12.why_verbose")

# %% [markdown]
# ## 4. Two tickets, asked both ways round
#
# Pairwise judging asks "which ticket is better?". Each broken ticket is put beside its right
# twin, and the judge is asked twice: right ticket first, then broken ticket first. In 60% of
# the questions of each kind this judge names whichever ticket it was shown first
# (`position=0.6`); in the rest it answers correctly.

# %%
pairs = sum(item.truth == "fail" for item in labelled)
position_guess = course.predict(
    "s12.position",
    f"Of {pairs} pairs, how many does it get right both ways round?",
    options=["all of them", "about three quarters", "about half", "none"],
)

# %%
report = position_probe(scripted_judge(position=0.6, tickets=labelled), labelled)
print(
    f"right both ways {report.right_both_ways}   first both times {report.first_both_times}   "
    f"second both times {report.second_both_times}   wrong both ways {report.wrong_both_ways}"
)
share = report.right_both_ways / report.pairs
shares = {"all of them": 1.0, "about three quarters": 0.75, "about half": 0.5, "none": 0.0}
course.show_outcome(position_guess, min(shares, key=lambda option: abs(shares[option] - share)))
assert report.pairs == pairs

# %%
course.reveal("s12.why_position")

# %% [markdown]
# ## 5. Your turn: calibrate a judge
#
# Write `my_calibrate(judge, labelled)`. A judge is called as `judge(item.spec, item.ticket)`
# and answers a `Grade` (its `.verdict` is `"pass"`, `"fail"` or `"unparsed"`) or, for a plain
# function, the verdict word itself; `cafe.judge.calibration.grade_of` turns either into a `Grade`.
# Each `item` has `.truth` (`"pass"` or `"fail"`, from the checks). Count:
#
# - `tp`: broken ticket, judge said fail; `fn`: broken ticket, judge said pass;
# - `tn`: right ticket, judge said pass; `fp`: right ticket, judge said fail;
# - `unparsed`: no verdict (anything but pass or fail), whatever the truth.
#
# Return a dict with those five and `kappa` (or a `Calibration`). Kappa is
# (observed − chance) / (1 − chance), over the tickets with a verdict, where chance is
# p(judge fails) × p(truth fails) + p(judge passes) × p(truth passes); give None when chance is 1.


# %%
def my_calibrate(judge, labelled):
    """The confusion cells of `judge` against the checks' labels, plus Cohen's kappa."""
    raise NotImplementedError("your turn: count the confusion table and work out kappa")


# %%
course.compare(my_calibrate, check=check_calibrate, key="s12.calibrate")

# %% [markdown]
# Tried it? Flip the switch for the course's `calibrate` (its kappa is `cohen_kappa`, in the same module).

# %%
course.reveal("s12.calibrate", source=cafe.judge.calibration.calibrate)

# %% [markdown]
# ## 6. Your model as judge (live)
#
# Offline this cell grades the 40 tickets with the house judge, a scripted judge with small
# biases of each kind. **Live** (`COURSE_MODE=live`) it sends all 40 to your model through
# `ModelJudge`: 40 requests, and the tokens they cost are counted. A real model owes you no
# particular numbers, so the cell asserts only that every ticket was counted once.

# %%
if live:
    print(f"grading {len(labelled)} tickets with your model, {cafe.model_name()} …", flush=True)
    judge = ModelJudge(cafe.make_client())
else:
    judge = scripted_judge(leniency=0.15, verbosity=0.3, position=0.2, tickets=labelled)
yours = calibrate(judge, labelled, model=cafe.model_name())
figures = yours.as_dict()
print(figures)
if yours.usage is not None:
    print(f"{yours.usage.total_tokens / len(labelled):.0f} tokens per ticket judged")
assert yours.tp + yours.fn + yours.tn + yours.fp + yours.unparsed == len(labelled)

# %% [markdown]
# ## 7. Your turn, open-ended: when may you use it?
#
# Write `my_trust_rule(calibration, model)`: True when a judge with this calibration, now
# running `model`, may be used. Your thresholds are yours to choose; the checker holds every rule
# to a floor (it must refuse the always-pass judge, a judge measured on another model, one seen on
# three broken tickets, one that often gives no verdict, and one that misses a third of the
# broken tickets; it must accept one that is nearly always right on plenty of both).
# `calibration.kappa`, `.catch_rate`, `.pass_rate_on_good`, `.tp` … `.unparsed` and `.model` are
# there to use. **Live stretch:** the cell after it applies your rule to your own model's
# calibration from step 6.


# %%
def my_trust_rule(calibration, model):
    """True when this judge may be used for `model`."""
    raise NotImplementedError("your turn: decide when a judge may be trusted")


# %%
rule_check = course.compare(my_trust_rule, check=check_trust_rule, key="s12.trust_rule")

# %%
reading = trust_reading(yours, cafe.model_name())
print(f"the course's rule on {yours.model}: {'trusted' if reading.trusted else 'not trusted'}")
for reason in reading.reasons:
    print(f"  - {reason}")
if rule_check.status == "passed":
    print(f"your rule: {'trusted' if my_trust_rule(yours, cafe.model_name()) else 'not trusted'}")
print(f"(the course's minimums: {dict(TRUST_MINIMUMS)})")

# %%
course.reveal("s12.trust_rule", source=cafe.judge.trust.trust_reading)

# %% [markdown]
# ## 8. Checkpoint: your judge's calibration
#
# Bank step 6's figures with the model they came from: the house judge offline, your model live.
# A calibration belongs to one model; when the model changes, this number is out of date.

# %%
course.checkpoint(
    "s12", "calibration", {**figures, "trusted": reading.trusted}, model=cafe.model_name()
)

# %% [markdown]
# Session 13 leaves the café's single tickets for long-running agents, where the same habit
# applies: measure a signal before you let it steer.
