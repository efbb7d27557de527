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
# your model when `COURSE_MODE=live` say so, and print its figures beside the scripted ones.

# %%
import cafe
import cafe.judge.calibration
import cafe.judge.trust
from cafe import course
from cafe.evals import wilson_interval
from cafe.exercises.s12 import check_calibrate, check_trust_rule
from cafe.judge import Grade, ModelJudge, grade_messages
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
# ## 2. A lenient judge: which mistake does it make, and how often?
#
# Back to the 40 tickets, 20 of them broken. This judge knows what the checks know, but it has a
# leniency of 0.3 (`leniency=0.3`), and it is told which tickets it will grade, so its dial is
# exact on them. Two rates describe a judge: the *catch rate* (of the broken tickets, the share it
# fails) and the *pass rate on good tickets* (of the right ones, the share it passes).

# %%
lenient_guess = course.predict(
    "s12.leniency",
    "Leniency 0.3 on these 40 tickets: its catch rate, and its pass rate on good tickets?",
    options=[
        "catch 70%, good tickets 100%",
        "catch 100%, good tickets 70%",
        "catch 70%, good tickets 70%",
        "catch 85%, good tickets 85%",
    ],
)

# %%
lenient = calibrate(scripted_judge(leniency=0.3, tickets=labelled), labelled)
print(
    f"catch rate {lenient.catch_rate:.0%}   pass rate on good {lenient.pass_rate_on_good:.0%}   "
    f"agreement {lenient.agreement:.0%}   kappa {lenient.kappa:.2f}"
)
course.show_outcome(
    lenient_guess,
    f"catch {lenient.catch_rate:.0%}, good tickets {lenient.pass_rate_on_good:.0%}",
)

# %% [markdown]
# ## 3. Long notes and short ones: what does the overall catch rate show?
#
# Roughly one ticket in two carries long notes the customer asked for and front of house
# approved (to stay, a window seat, cutlery, no rush): the same notes are on the order, so they
# do not change whether a ticket is right. Of the 20 broken tickets, 9 carry them. This judge has
# `leniency=0.1` and `verbosity=0.5`. Step 2's lenient judge caught 70% of the broken tickets.

# %%
verbose_guess = course.predict(
    "s12.verbosity",
    "Leniency 0.1 and verbosity 0.5: its overall catch rate, against step 2's judge (70%)?",
    options=["about the same", "clearly lower", "clearly higher"],
)

# %%
wordy = calibrate(scripted_judge(leniency=0.1, verbosity=0.5, tickets=labelled), labelled)
print(f"overall: catch rate {wordy.catch_rate:.0%}, kappa {wordy.kappa:.2f}")
gap = wordy.catch_rate - lenient.catch_rate
course.show_outcome(
    verbose_guess,
    "about the same" if abs(gap) < 0.1 else "clearly higher" if gap > 0 else "clearly lower",
)

# %% [markdown]
# The same overall figure as step 2's judge. Now split it by what should not matter, the notes:

# %%
by_notes = catch_rate_by_notes(wordy)
print(
    f"broken tickets with long notes: caught {by_notes['verbose']:.0%}   without: {by_notes['plain']:.0%}"
)

# %%
course.reveal("s12.why_verbose")

# %% [markdown]
# ## 4. Two tickets, asked both ways round
#
# Pairwise judging asks "which ticket is better?". Each broken ticket is put beside its right
# twin, and the judge is asked twice: right ticket first, then broken ticket first. This judge
# has a position bias of 0.6 (`position=0.6`), exact on these pairs.

# %%
pairs = sum(item.truth == "fail" for item in labelled)

# %%
position_guess = course.predict(
    "s12.position",
    f"Of the {pairs} pairs, how many does it get right both ways round?",
    options=["20", "12", "8", "3"],
)

# %%
report = position_probe(scripted_judge(position=0.6, tickets=labelled), labelled)
print(
    f"right both ways {report.right_both_ways}   first both times {report.first_both_times}   "
    f"second both times {report.second_both_times}   wrong both ways {report.wrong_both_ways}"
)
course.show_outcome(position_guess, str(report.right_both_ways))
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
#
# The compare cell runs your function with judges whose answers are known, then on generated days
# against a confusion table the checker counts on its own. Handing in the course's `calibrate` is
# refused: write your own.


# %%
def my_calibrate(judge, labelled):
    """The confusion cells of `judge` against the checks' labels, plus Cohen's kappa."""
    raise NotImplementedError("your turn: count the confusion table and work out kappa")


# %%
calibrate_check = course.compare(my_calibrate, check=check_calibrate, key="s12.calibrate")

# %% [markdown]
# Tried it? Flip the switch for the course's `calibrate` (its kappa is `cohen_kappa`, in the same module).

# %%
course.reveal("s12.calibrate", source=cafe.judge.calibration.calibrate)

# %% [markdown]
# ## 6. Your model as judge (live)
#
# Offline this cell grades the 40 tickets with the house judge, a scripted judge with small
# biases of each kind. **Live** (`COURSE_MODE=live`) it sends all 40 to your model through
# `ModelJudge`: 40 requests, and the tokens they cost are counted. A ticket whose request meets an
# endpoint problem (a timeout, a dropped connection) is counted as `failed` and left out of the
# figures; if the endpoint cannot be used at all, the cell says so in one line and the cells that
# need your model's calibration say they are skipped. A real model owes you no particular
# numbers, so the cell asserts only that every ticket was counted once.

# %%
house = calibrate(
    scripted_judge(leniency=0.15, verbosity=0.3, position=0.2, tickets=labelled),
    labelled,
    model=cafe.model_name() if not live else "the house judge",
)
graded = course.LiveStory("s12.your_judge", value=house)  # offline: the house judge, no request
if live:
    print(f"grading {len(labelled)} tickets with your model, {cafe.model_name()} …", flush=True)
    graded = course.live_story(
        "s12.your_judge",
        lambda: calibrate(ModelJudge(cafe.make_client()), labelled, model=cafe.model_name()),
        model=cafe.model_name(),
    )
yours = graded.value if graded.ok else house
figures = yours.as_dict()
if graded.ok:
    print(figures)
    if yours.failed:
        print(f"{yours.failed} of {len(labelled)} tickets hit an endpoint problem; not graded")
    if yours.usage is not None and yours.judged + yours.unparsed:
        asked = yours.judged + yours.unparsed
        print(f"{yours.usage.total_tokens / asked:.0f} tokens per ticket the judge answered")
    assert yours.judged + yours.unparsed + yours.failed == len(labelled)

# %% [markdown]
# **Live:** the cell below prints your model's figures beside the house judge's, the verbosity
# split included. The house judge's biases are dials; your model's are whatever it has, measured
# here on 40 tickets in one run: 20 broken, about 9 of them with long notes. That is a small
# sample, so the cell gives each of your model's rates a 95% interval (`wilson_interval`, session
# 02), and the difference between the short-notes and long-notes catch rates with its own
# interval and one of three verdicts (as `cafe experiment 12` gives them). A split that holds up
# across runs and more tickets is the verbosity bias of step 3 in a real model; failed right
# tickets (a low pass rate on good ones) mean a strict judge, not a lenient one; many `unparsed`
# replies mean the prompt or the model does not give verdicts reliably.


# %%
def judge_line(name, c):
    split = catch_rate_by_notes(c)
    rate = lambda value: "-" if value is None else f"{value:.0%}"  # noqa: E731
    kappa = "undefined" if c.kappa is None else f"{c.kappa:.2f}"
    return (
        f"  {name:<24} catch {rate(c.catch_rate):>4}   good passed {rate(c.pass_rate_on_good):>4}   "
        f"kappa {kappa:>9}   unparsed {c.unparsed:>2}   caught with long notes "
        f"{rate(split['verbose']):>4}, without {rate(split['plain']):>4}"
    )


print(judge_line("the house judge (scripted)", house))
if not live:
    print("  offline: live mode puts your model's line here")
    print("  (`cafe experiment 12 --orders 50` measures your model's verbosity split, live)")
elif not graded.skipped("your model's line"):
    print(judge_line(f"your model {cafe.model_name()}", yours))
    caught = {}
    for kind, verbose in (("long notes", True), ("short notes", False)):
        said = [
            v
            for item, v in yours.graded
            if item.truth == "fail" and item.verbose == verbose and v != "unparsed"
        ]
        if said:
            caught[kind] = (said.count("fail"), len(said))
            low, high = wilson_interval(*caught[kind])
            print(f"  catch rate, {kind}: {low:.0%} to {high:.0%} (95%, {len(said)} tickets)")
    if len(caught) == 2:
        # The verbosity claim as `cafe experiment 12` judges it: short notes caught more often
        # than long ones, the difference with its 95% interval (session 02's Newcombe interval).
        from cafe.evals.compare import judge as verdict_on
        from cafe.evals.experiment import EXPERIMENTS

        print(f"the claim, as `cafe experiment 12` puts it: {EXPERIMENTS['12'].claim}")
        versus = verdict_on(
            "long notes", *caught["long notes"], "short notes", *caught["short notes"]
        )
        print(f"  {versus.sentence()}")
        print("  for 50 broken tickets of each kind: `cafe experiment 12 --orders 50`")
    if yours.kappa is None or yours.kappa < 0.2:
        print(
            f"  On these {len(labelled)} tickets, in one run, your model's verdicts agree with the "
            "checks little better than luck would. Measure again (more tickets, another run) "
            "before you call it a property of the model; the house judge's line shows what the "
            "biases look like when there is a signal to bias."
        )

# %% [markdown]
# ## 7. Your turn, open-ended: when may you use it?
#
# Write `my_trust_rule(calibration, model)`: True when a judge with this calibration, now
# running `model`, may be used. Your thresholds are yours to choose: a rule may be stricter than
# the lesson's floor, never looser. The checker holds every rule to that floor (it must refuse the always-pass judge, a judge measured on another model, one seen on
# three broken tickets or on none, one that often gives no verdict, one that fails every ticket,
# and one that misses a third of the broken tickets; it must accept one that is nearly always
# right on plenty of both). Kappa and the rates are None when there was nothing to measure, so
# your rule must not compare None with a number.
# `calibration.kappa`, `.catch_rate`, `.pass_rate_on_good`, `.tp` … `.unparsed` and `.model` are
# there to use. After those cases the checker tries generated calibrations: any one your rule
# trusts, the lesson's rule must trust too. Handing in the course's `trust_reading` is refused.
# **Live stretch:** the cell after it applies your rule to your own model's calibration from
# step 6.


# %%
def my_trust_rule(calibration, model):
    """True when this judge may be used for `model`."""
    raise NotImplementedError("your turn: decide when a judge may be trusted")


# %%
rule_check = course.compare(my_trust_rule, check=check_trust_rule, key="s12.trust_rule")

# %%
reading = trust_reading(yours, cafe.model_name())
if not graded.skipped("the trust reading of your model"):
    print(f"the course's rule on {yours.model}: {'trusted' if reading.trusted else 'not trusted'}")
    for reason in reading.reasons:
        print(f"  - {reason}")
    if rule_check.passed:
        trusts = my_trust_rule(yours, cafe.model_name())
        print(f"your rule: {'trusted' if trusts else 'not trusted'}")
print(f"(the course's minimums: {dict(TRUST_MINIMUMS)})")

# %%
course.reveal("s12.trust_rule", source=cafe.judge.trust.trust_reading)

# %% [markdown]
# ## 8. Checkpoint: your judge's calibration
#
# Two entries. The first is step 6's figures with the model they came from: the house judge
# offline, your model live. The second is yours: your `my_calibrate` run over the very verdicts
# step 6's judge gave (replayed, no new requests), and what your trust rule says of that
# calibration. It holds only what your functions produced once they passed their checks. A
# calibration belongs to one model; when the model changes, these numbers are out of date. If
# step 6 met an endpoint problem, neither entry replaces what you banked before.


# %%
def replayed(calibration):
    """A judge that answers each ticket as `calibration`'s judge did, without asking again."""
    answers = {}
    for item, verdict in calibration.graded:
        answers.setdefault((item.spec, item.ticket), []).append(verdict)
    asked = {}

    def judge(spec, ticket):
        said = answers[(spec, ticket)]
        n = asked.get((spec, ticket), 0)
        asked[(spec, ticket)] = n + 1
        return Grade(said[n % len(said)])

    return judge


course.checkpoint(
    "s12",
    "calibration",
    {**figures, "trusted": reading.trusted},
    model=cafe.model_name(),
    needs=[graded],
)
your_judge_rules = {}
if calibrate_check.passed:
    mine = my_calibrate(replayed(yours), [item for item, _ in yours.graded])
    cells = mine.as_dict() if hasattr(mine, "as_dict") else dict(mine)
    your_judge_rules["calibration"] = {
        key: (round(value, 3) if isinstance(value, float) else value)
        for key, value in cells.items()
        if key in ("tp", "fn", "tn", "fp", "unparsed", "kappa")
    }
if rule_check.passed:
    your_judge_rules["your_rule_trusts_it"] = my_trust_rule(yours, cafe.model_name())
if your_judge_rules:
    course.checkpoint(
        "s12",
        "your_judge_rules",
        your_judge_rules,
        model=cafe.model_name(),
        source="yours",
        needs=[graded],
    )
else:
    print(
        "[checkpoint s12.your_judge_rules] nothing banked yet: my_calibrate and my_trust_rule "
        "have not passed"
    )

# %% [markdown]
# Session 13 leaves the café's single tickets for long-running agents, where the same habit
# applies: measure a signal before you let it steer.
