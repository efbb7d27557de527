# %% [markdown]
# # Session 07 · A bounded re-ask with real feedback
#
# Your harness can already reject a bad ticket. This notebook decides what happens next: ask
# again, with a short and specific account of what failed, up to a cap, and finish every run on a
# named stop reason. Read `sessions/s07-repair-loop/lesson.md` alongside; `cafe/repair.py` is the code.
#
# **Coming from session 03?** Sessions 04 to 06 are not written yet. The lesson's primer
# ("Arriving from session 01?") covers what you need from them: `cafe.menu` (the trusted menu and
# its 86'd, sold-out, items), `cafe.schema` (the four-field `Ticket`, `parse_draft`, and `Failure`
# with its check, span and fix) and `cafe.detect` (`OrderSpec`, the approved order, and
# `check_ticket`, which scores a ticket against it).
#
# Five steps, each one *predict first*: write your guess down before you run the cell that
# answers it. Everything runs offline on scripted drafts unless you set `COURSE_MODE=live`.

# %%
import json

import cafe
import cafe.repair
from cafe import course
from cafe.detect import OrderSpec
from cafe.exercises.s07 import check_attempt_failure_view
from cafe.menu import load_menu
from cafe.repair import (
    ALTERNATING_CANDIDATES, CAP_DEFAULT, OMELETTE_SPEC, STOP_REASONS, UNSAFE_SPEC,
    attempts_to_pass, brief_for, make_model_generator, make_scripted_generator, repair_ticket,
    retry_messages,
)

menu = load_menu()
print(f"mode: {cafe.course_mode()}   cap: {CAP_DEFAULT}   stop reasons: {sorted(STOP_REASONS)}")
print(menu.prompt_text())

# %% [markdown]
# ## 1. A defect that keeps coming back, scripted
#
# Table 4 wants the cheese omelette. Look at the menu above: it is 86'd today. No model yet: a
# scripted generator answers with these two drafts in turn, starting over when it runs out.

# %%
print(OMELETTE_SPEC)
for number, draft in enumerate(ALTERNATING_CANDIDATES, start=1):
    print(f"draft {number}: {draft}")

# %% [markdown]
# Before running anything, predict. In Jupyter, click an option; anywhere else, set
# `guess.value = "..."` in a new cell.

# %%
checks_guess = course.predict(
    "s07.checks", "Which check rejects each attempt, in order?",
    options=["missing_field, sold_out, missing_field", "missing_field, sold_out, passed",
             "missing_field, missing_field, missing_field", "sold_out, sold_out, sold_out"],
)
reason_guess = course.predict("s07.stop_reason", "Which stop reason will the run end on?",
                              options=sorted(STOP_REASONS))
attempts_guess = course.predict("s07.attempts", "How many attempts will the log hold?",
                                options=["1", "2", "3", "more than 3"])
ticket_guess = course.predict("s07.ticket_survives", "Does a ticket survive?", options=["yes", "no"])

# %%
generate = make_scripted_generator(ALTERNATING_CANDIDATES)
result = repair_ticket(OMELETTE_SPEC, generate)

for attempt in result.attempts:
    print(f"attempt {attempt.number}: " + "; ".join(f"{f.check} {f.span!r}" for f in attempt.failures))
print(f"stop_reason: {result.stop_reason}   ticket: {result.ticket}")

# %%
first_checks = ", ".join((a.failures[0].check if a.failures else "passed") for a in result.attempts)
course.show_outcome(checks_guess, first_checks)
course.show_outcome(reason_guess, result.stop_reason)
course.show_outcome(attempts_guess, str(len(result.attempts)))
course.show_outcome(ticket_guess, "yes" if result.ticket is not None else "no")

# %% [markdown]
# Why did a loop that was told exactly what was wrong still fail three times? Think about what
# the scripted generator does with the feedback it is given, then flip the switch.

# %%
course.reveal("s07.why_exhausted")

# %% [markdown]
# ## 2. Every run ends with a name
#
# Three promises hold for *every* run, whatever the generator does. Read them before you read
# `repair_ticket`; they are what the rest of the course (and your production code) relies on.

# %%
def assert_named_end(run):
    assert run.stop_reason in STOP_REASONS, run.stop_reason
    assert (run.ticket is None) == (run.stop_reason != "passed"), "a ticket exists exactly when the run passed"
    assert len(run.attempts) <= CAP_DEFAULT, "the cap is a hard limit"


assert_named_end(result)

# %% [markdown]
# Now the second order: a latte for a customer who declared a milk allergy. Predict how many times
# the generator is called.

# %%
calls_guess = course.predict("s07.unsafe_calls", "How many drafts are generated for the unsafe latte?",
                             options=["0", "1", "3"])

# %%
counting = make_scripted_generator(ALTERNATING_CANDIDATES)
blocked = repair_ticket(UNSAFE_SPEC, counting)
print(f"stop_reason: {blocked.stop_reason}   blocked by: {[f.line() for f in blocked.blocked_by]}")
assert_named_end(blocked)
course.show_outcome(calls_guess, str(len(counting.calls)))

# %% [markdown]
# Why not try once and let the scorer reject the latte? Decide what a retry could change about
# this order, then flip the switch.

# %%
course.reveal("s07.why_blocked")

# %% [markdown]
# ## 3. Your turn: the failure view
#
# A curated retry carries the brief plus a *failure view*. Write the heart of it:
# `attempt_failure_view(failures, attempt)` returns text with one short line per failure. Each
# `failure` has three fields: `failure.check` (which check failed), `failure.span` (the
# offending text, to quote) and `failure.fix` (what a correct ticket holds). Say which attempt
# failed, too. Keep it to one line per failure plus at most one header line.

# %%
def attempt_failure_view(failures, attempt):
    """One short line per failure (check, quoted span, fix), under a line naming the attempt."""
    raise NotImplementedError("your turn: write the failure view")


# %% [markdown]
# The compare cell tries your function on three sets of failures. Until you replace the stub it
# says "not attempted yet".

# %%
course.compare(attempt_failure_view, check=check_attempt_failure_view, key="s07.failure_view")

# %% [markdown]
# Tried it? Flip the switch for the reference in `cafe.repair`.

# %%
course.reveal("s07.failure_view", source=cafe.repair.attempt_failure_view)

# %% [markdown]
# Here is what the scripted run's second attempt was actually sent, in each retry mode. The
# `curated` retry adds the failure view (opening with the change-nothing-else line); neither
# mode includes the failed draft.

# %%
brief = brief_for(OMELETTE_SPEC)
first_failures = result.attempts[0].failures
for mode in ("naive", "curated"):
    sent = retry_messages(brief, first_failures, 1, mode)
    print(f"--- {mode}: {len(sent)} message(s), last one:\n{sent[-1]['content']}\n")

# %% [markdown]
# ## 4. Against your model
#
# `make_model_generator` turns an endpoint into a generator. Its system prompt lists the four
# ticket fields and the trusted menu, and it asks for strict structured output, stepping down to
# JSON mode and then plain text if the endpoint refuses. Offline, an authored script plays the
# model: read its replies (`authored`, in the next cell) and predict from them. Live
# (`COURSE_MODE=live`), the script is ignored and your model answers, so predict from what you
# know of your model.

# %%
order = OrderSpec(table=9, items=["flat white", "banana bread"],
                  request="A flat white and a slice of banana bread, table 9 please.")
authored = [
    json.dumps({"items": ["flat white", "banana bread"], "allergies": [], "notes": ""}),
    json.dumps({"table": 9, "items": ["flat white", "banana bread"], "allergies": [], "notes": ""}),
]
client = cafe.make_client(script=authored)
model_generate = make_model_generator(client)

model_guess = course.predict("s07.model_run", "How will this order go?",
                             options=["passes on attempt 1", "passes on attempt 2", "passes on attempt 3",
                                      "exhausts the cap"])

# %%
model_result = repair_ticket(order, model_generate)
for attempt in model_result.attempts:
    print(f"attempt {attempt.number}: " + ("; ".join(f.line() for f in attempt.failures) or "passed"))
print(f"stop_reason: {model_result.stop_reason}   output format used: {model_generate.format}")
print(f"tokens over all attempts: {model_result.usage}")
assert_named_end(model_result)

outcome = ("exhausts the cap" if model_result.stop_reason != "passed"
           else f"passes on attempt {len(model_result.attempts)}")
course.show_outcome(model_guess, outcome)

# %% [markdown]
# ## 5. Checkpoint: the attempts-to-pass distribution
#
# Three orders, one loop each. Offline, the authored script answers: the first order passes at
# once, the second forgets a declared allergy once, and the third is the 86'd omelette again,
# which no draft can pass. Live, your model answers all three (and still cannot pass the third).
# Count how the attempts were spent, then bank it with the model's name.

# %%
orders = [
    OrderSpec(table=3, items=["espresso", "croissant"], request="Espresso and a croissant."),
    OrderSpec(table=12, items=["green tea", "fruit salad"], allergies=["nuts"],
              request="Green tea and the fruit salad. I have a nut allergy."),
    OMELETTE_SPEC,
]
checkpoint_script = [
    json.dumps({"table": 3, "items": ["espresso", "croissant"], "allergies": [], "notes": ""}),
    json.dumps({"table": 12, "items": ["green tea", "fruit salad"], "allergies": [], "notes": ""}),
    json.dumps({"table": 12, "items": ["green tea", "fruit salad"], "allergies": ["nuts"], "notes": ""}),
    *[json.dumps({"table": 4, "items": ["cheese omelette"], "allergies": [], "notes": ""})] * CAP_DEFAULT,
]
checkpoint_generate = make_model_generator(cafe.make_client(script=checkpoint_script))
runs = [repair_ticket(spec, checkpoint_generate) for spec in orders]
for spec, run in zip(orders, runs):
    assert_named_end(run)
    print(f"table {spec.table:>2}: {run.stop_reason:<18} attempts: {len(run.attempts)}")

distribution = attempts_to_pass(runs)
print(distribution)

# %%
course.checkpoint("s07", "attempts_to_pass", distribution, model=cafe.model_name())

# %% [markdown]
# If most of your orders needed three attempts, every ticket was paid for three times over;
# session 11 puts a price on that. Session 08 gives these runs a memory: traces you can replay.
