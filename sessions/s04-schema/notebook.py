# %% [markdown]
# # Session 04 · The ticket contract
#
# The kitchen reads four fields: `table`, `items`, `allergies`, `notes`. This notebook asks for
# the same ten tickets three ways (strict structured output, JSON mode, plain text) and finds out
# what each way lets through, what a strict schema still cannot stop, and what your own model's
# parse rate is in each format. Read `sessions/s04-schema/lesson.md` alongside; the code is
# `cafe/schema/ticket.py` (the contract) and `cafe/schema/trials.py` (the trial).
#
# Every step is *predict first*: record your guess before you run the cell that answers it. In
# Jupyter, click an option; anywhere else, set `.value` on the handle the cell returns, in a new
# cell. Everything runs offline unless you set `COURSE_MODE=live`; the cells that reach your model
# then say so.

# %%
import json
from textwrap import shorten

import cafe
import cafe.schema
import cafe.schema.trials
from cafe import course
from cafe.endpoint.client.formats import admits
from cafe.endpoint.scripts.rehearsals import habits_responder
from cafe.evals import wilson_interval
from cafe.exercises import s04
from cafe.exercises.s04 import check_closed_table_schema, check_failures_from, validation_error
from cafe.schema import (
    MAX_TABLE,
    contract_text,
    response_format,
    strict_ticket_schema,
)
from cafe.schema.trials import (
    LESSON_FORMATS,
    SAME_PROMISE,
    ask_once,
    format_trial,
    practice_orders,
    unenforced_keywords,
    waiter_client,
)

live = cafe.course_mode() == "live"
orders = practice_orders()
waiter = waiter_client()  # scripted in both modes: the stories below show a mechanism
print(f"mode: {cafe.course_mode()}   model: {cafe.model_name()}")
print(contract_text())

# %% [markdown]
# ## 1. Three ways to ask for the same ticket
#
# Here is what each format adds to the request. `json_schema` sends the contract as a schema the
# server enforces while it generates; `json_object` asks for one JSON object of any shape; `plain`
# sends nothing, and the prompt and the parser do all the work.

# %%
for kind in LESSON_FORMATS:
    argument = response_format(kind)
    shown = json.dumps(argument)[:110] + (
        "…" if argument and len(json.dumps(argument)) > 110 else ""
    )
    print(f"{kind:<12} response_format={shown}")
print()
for order in orders:
    print(f"  {order.words}")

# %% [markdown]
# The waiter here is scripted, in both modes: it has habits (chatty prose, a table number written
# as text, an extra field of its own), and it answers each format as a server that enforces it
# would, so it can only send what the format lets out. First, plain text on the ten orders.

# %%
plain = format_trial(waiter, cafe.OFFLINE_MODEL, orders, ["plain"])["plain"]
for trial in plain.trials:
    print(f"{shorten(trial.order.words, 60, placeholder='…'):<62} {trial.outcome}")
    print(f"    it wrote: {shorten(trial.draft, 96, placeholder='…')}")
print(f"plain: {plain.parsed}/{len(plain.trials)} parsed; checks failed: {dict(plain.checks)}")

# %% [markdown]
# Now the same waiter, the same orders, in JSON mode: its habits stay, but it can only send one
# JSON object. Read what it wrote for each order above, then predict how many of its drafts
# `parse_draft` accepts.

# %%
object_guess = course.predict(
    "s04.json_mode_parses",
    "JSON mode on the same ten orders: how many drafts parse, against plain text's 2?",
    options=["fewer", "2 or 3", "4 to 6", "7 or more"],
)

# %%
loose = format_trial(waiter, cafe.OFFLINE_MODEL, orders, ["json_object"])
print(f"{'order':<62} {'plain':<14} json_object")
for plain_trial, obj in zip(plain.trials, loose["json_object"].trials):
    print(
        f"{shorten(plain_trial.order.words, 60, placeholder='…'):<62} {plain_trial.outcome:<14} {obj.outcome}"
    )
loose = {"plain": plain, **loose}
for kind, tally in loose.items():
    print(f"{kind}: {tally.parsed}/{len(tally.trials)} parsed; checks failed: {dict(tally.checks)}")
json_parsed = loose["json_object"].parsed
course.show_outcome(
    object_guess,
    "fewer"
    if json_parsed < plain.parsed
    else "2 or 3"
    if json_parsed <= 3
    else "4 to 6"
    if json_parsed <= 6
    else "7 or more",
)

# %% [markdown]
# JSON mode took one kind of failure away (which one?). Why did the parse rate not follow? Decide,
# then flip the switch.

# %%
course.reveal("s04.why_json_mode")

# %% [markdown]
# ## 2. The same ten orders under a strict schema
#
# Now the same ten orders with `json_schema`: the server may only emit text that fits the ticket's
# schema. Here is that schema as it is sent, field by field.

# %%
for name, node in strict_ticket_schema()["properties"].items():
    print(f"{name:<10} {json.dumps({k: v for k, v in node.items() if k != 'description'})}")

# %%
strict_guess = course.predict(
    "s04.strict_share",
    "With json_schema, how many of the ten drafts does parse_draft accept?",
    options=["all 10", "7 to 9", "4 to 6", "3 or fewer"],
)

# %%
strict = format_trial(waiter, cafe.OFFLINE_MODEL, orders, ["json_schema"])["json_schema"]
for trial in strict.trials:
    verdict = "ticket" if trial.parsed.ticket else trial.parsed.failures[0].line()
    print(
        f"{shorten(trial.order.words, 50, placeholder='…'):<52} admitted by the format: {trial.admitted!s:<5}  {verdict}"
    )
print(
    f"\njson_schema: {strict.parsed}/{len(strict.trials)} parsed; "
    f"{strict.caught} let through by the format and caught by parse_draft"
)
share = strict.parsed
course.show_outcome(
    strict_guess,
    "all 10"
    if share == 10
    else "7 to 9"
    if share >= 7
    else "4 to 6"
    if share >= 4
    else "3 or fewer",
)

# %% [markdown]
# Every draft fitted the schema, and some still failed. `Ticket` knows rules the schema that was
# sent does not carry. Here they are, computed by comparing the two schemas:

# %%
for rule in unenforced_keywords():
    print(
        f"{rule.field}: {rule.keyword} = {rule.value}   (in Ticket, not in strict_ticket_schema())"
    )
table_31 = next(t for t in strict.trials if t.order.table == 31)
print(f"\nthe draft for {table_31.order.words!r}:\n  {table_31.draft}")
print(
    f"  admits('json_schema', ...): {admits('json_schema', strict_ticket_schema(), table_31.draft)}"
)
print(f"  parse_draft: {table_31.parsed.failures[0].line()}")
assert table_31.admitted and table_31.parsed.ticket is None

# %%
course.reveal("s04.why_dropped")

# %% [markdown]
# ## 3. Your turn: pydantic's errors as the course's failures
#
# When `Ticket` refuses a draft, pydantic raises a `ValidationError`. Its `.errors()` is a list of
# dicts, each with `loc` (the field first, then a list index if any), `type` (`"missing"`,
# `"extra_forbidden"`, `"int_type"`, `"too_short"`, ...), `msg` and `input`. Here is one:

# %%
example = validation_error({"table": "4", "items": [1, 2], "notes": ""})
for detail in example.errors(include_url=False):
    print(detail)

# %% [markdown]
# Write `my_failures_from(error)`: return a list of `Failure(check, span, fix)` values, the shape
# every check in the course reports in and the one session 07's re-ask feeds back to the model.
# Use the course's check names (`missing_field`, `unknown_field`, `bad_value`); start each span
# with the field's name (and for a bad value, quote the value, e.g. `table = '4'`); make the fix
# name the field and say what it must hold (`cafe.schema.FIELD_HINTS` has the words); and report
# each field and check once, however many list elements were wrong.


# %%
from cafe.schema import FIELD_HINTS, Failure  # noqa: F401  (what your function returns, and the words)


def my_failures_from(error):
    """The course's Failure values for a Ticket's ValidationError."""
    raise NotImplementedError("your turn: turn pydantic's errors into Failure values")


# %%
failures_result = course.compare(
    my_failures_from, check=check_failures_from, key="s04.failures_from"
)

# %%
course.reveal("s04.failures_from", source=cafe.schema.failures_from)

# %% [markdown]
# ## 4. Your turn: can the schema close the gap itself?
#
# Open-ended. `minimum` and `maximum` are dropped because not every strict server enforces them,
# but every one enforces `type`, `enum`, `const` and `anyOf`. Write `my_closed_schema()`: a strict
# ticket schema (start from `strict_ticket_schema()`) in which no table outside 1 to 30 can be
# written at all, using only keywords strict servers enforce. How you do it is up to you; the
# compare cell plays the strict server with `admits`.


# %%
def my_closed_schema():
    """A strict ticket schema that admits only tables 1 to 30, with no keyword strict mode drops."""
    raise NotImplementedError(
        "your turn: close the table range with keywords strict servers enforce"
    )


# %%
closed_result = course.compare(
    my_closed_schema, check=check_closed_table_schema, key="s04.closed_schema"
)

# %% [markdown]
# Now send the order for table 31 (a table the café does not have) with a closed schema: yours if
# it passed, the reference otherwise, to the same scripted waiter. What ends up in front of the
# kitchen?

# %%
closed_guess = course.predict(
    "s04.closed_table_31",
    "With the table range closed in the schema, what comes back for table 31?",
    options=[
        "refused by the endpoint",
        "table 31, caught by parse_draft",
        "a table from 1 to 30, passed",
        "no ticket: not_json",
    ],
)

# %%
yours = closed_result.passed
closed_schema = my_closed_schema() if yours else cafe.schema.trials.closed_table_schema()
print(f"closed schema: {'yours' if yours else 'the reference (yours has not passed yet)'}")
bent = ask_once(waiter, cafe.OFFLINE_MODEL, table_31.order, "json_schema", closed_schema)
print(f"the customer said: {bent.order.words!r}\nthe draft: {bent.draft}")
print("parse_draft:", "ticket" if bent.parsed.ticket else bent.parsed.failures[0].line())
if bent.parsed.ticket is not None and 1 <= bent.parsed.ticket.table <= MAX_TABLE:
    closed_outcome = "a table from 1 to 30, passed"
elif bent.parsed.ticket is None and bent.outcome == "bad_value":
    closed_outcome = "table 31, caught by parse_draft"
else:
    closed_outcome = bent.outcome
course.show_outcome(closed_guess, closed_outcome)

# %%
course.reveal("s04.why_bent")

# %% [markdown]
# **Live stretch** (`COURSE_MODE=live`): the next cell sends the table-31 order to your model
# under the plain strict schema and under your closed one, and prints what it wrote beside what
# the scripted waiter did. Does your model write 31 and let validation catch it, or pick a table?
# If your server refuses `json_schema`, or does not answer, the cell says so and the notebook goes
# on. Then think about a schema that gives the model a way to say "no such table" honestly.


# %%
def table_31_live():
    client = cafe.make_client()
    found = {}
    for label, schema in [("strict", strict_ticket_schema()), ("closed", closed_schema)]:
        for kind in ("json_schema", SAME_PROMISE["json_schema"]):
            try:
                trial = ask_once(client, cafe.model_name(), table_31.order, kind, schema)
            except cafe.RequestRejected as refusal:
                print(f"{label}: your endpoint refused {kind}: {str(refusal)[:90]}…")
                continue
            found[label] = trial.outcome
            print(f"{label} ({kind}): {trial.draft[:120]!r}  ->  {trial.outcome}")
            break
    return found


if live:
    stretch = course.live_story("s04.table_31_live", table_31_live, model=cafe.model_name())
    if not stretch.skipped("comparing your model's table-31 draft with the stand-in's"):
        print(
            f"scripted waiter, closed schema: {closed_outcome}; {cafe.model_name()}: {stretch.value}"
        )
        print(
            "Any table from 1 to 30 is the same quiet wrong answer whoever writes it; a refusal, "
            "or 31 caught by validation, is the honest one."
        )
else:
    print("offline: set COURSE_MODE=live to send the table-31 order to your model")

# %% [markdown]
# ## 5. Your model's parse rate in each format (live when `COURSE_MODE=live`)
#
# Offline this cell runs the scripted waiter again. Live, the ten orders go to your model in each
# of the three formats (thirty requests); a format your endpoint refuses is counted as refused, and
# an order that meets an endpoint problem (a timeout) is counted apart while the rest go on. The
# cell asserts only what any endpoint guarantees: every order of every format was either drafted,
# set apart, or the format was refused. If yours refuses `json_schema`, the cell tries its cousin
# `json_object_schema` too: the same schema, spelled the way llama-cpp-python's server (and so
# `cafe local`) takes it.

# %%
client = cafe.make_client(script=habits_responder)
model = cafe.model_name()


def all_formats():
    print(f"asking {model}", end="", flush=True)
    try:
        return format_trial(
            client, model, orders, on_trial=lambda _: print(".", end="", flush=True)
        )
    finally:
        print()


trial_story = course.live_story("s04.parse_rates", all_formats, model=model)
tallies = {} if trial_story.skipped("the parse rate per format") else trial_story.value
spans = {}
for kind, tally in tallies.items():
    if tally.refused:
        print(f"{kind:<18} refused by the endpoint: {tally.refused[:100]}")
        continue
    assert len(tally.trials) + len(tally.failed) == len(orders)
    if not tally.trials:
        print(f"{kind:<18} every order hit an endpoint problem: no parse rate")
        continue
    kept = sum(trial.admitted for trial in tally.trials)
    unreached = f"   not drafted (endpoint): {len(tally.failed)}" if tally.failed else ""
    print(
        f"{kind:<18} parse rate {tally.parse_rate:.0%}   checks failed: {dict(tally.checks)}   "
        f"drafts that kept the format's promise: {kept}/{len(tally.trials)}{unreached}"
    )
    spans[kind] = wilson_interval(tally.parsed, len(tally.trials))
    print(
        f"{'':<18} 95% interval {spans[kind][0]:.0%} to {spans[kind][1]:.0%}, {len(tally.trials)} orders"
    )
if live and "plain" in spans and len(spans) > 1:
    # Each format against plain text, as `cafe experiment 04` judges it: the difference in parse
    # rate with its 95% interval (session 02's Newcombe interval), and one of three verdicts.
    from cafe.evals.compare import judge as verdict_on
    from cafe.evals.experiment import EXPERIMENTS

    print(f"the claim, as `cafe experiment 04` puts it: {EXPERIMENTS['04'].claim}")
    plain = tallies["plain"]
    for kind in spans:
        if kind != "plain":
            versus = verdict_on(
                "plain",
                plain.parsed,
                len(plain.trials),
                kind,
                tallies[kind].parsed,
                len(tallies[kind].trials),
            )
            print(f"  {versus.sentence()}")
    print(
        f"{len(orders)} orders in one run: for 50 per format, saved as it goes, with a plot: "
        "`cafe experiment 04 --orders 50`"
    )
elif not live:
    print(
        "offline: `cafe experiment 04 --orders 50` measures the three formats on your model, live"
    )

# %% [markdown]
# A strict server's drafts should all keep its promise; a draft that does not was probably cut
# short by the reply cap. A parse rate is not a quality score: three of the ten orders should not
# become tickets at all, so a rate above 70% here means something passed that should not have.
# Ten orders in one run is a small sample: each rate comes with its 95% interval (session 02's
# `wilson_interval`), and each format's difference from plain text with its own interval and a
# verdict; "not enough orders to tell" means this run cannot tell the formats apart on your model.

# %% [markdown]
# ## Checkpoint: the numbers you bank
#
# Two entries. `parse_rate`: the parse rate per format for the model that wrote the drafts (the
# scripted waiter offline, your model live), how many drafts each format let through that
# validation then caught, and how many orders never reached the model. `your_functions`, banked
# only for an exercise that passed: the failures your `my_failures_from` gives for the example
# above, and how many tables from 0 to 31 your closed schema lets through.

# %%
course.checkpoint(
    "s04",
    "parse_rate",
    {
        kind: {
            "parse_rate": tally.parse_rate,
            "caught_by_validation": tally.caught,
            "refused": bool(tally.refused),
            "not_drafted": len(tally.failed),
        }
        for kind, tally in tallies.items()
    },
    model=model if live else "scripted waiter",
    needs=[trial_story],
)

# %%
yours = s04.your_figures(
    my_failures_from if failures_result.passed else None,
    my_closed_schema if closed_result.passed else None,
    example,
)
if yours:
    course.checkpoint("s04", "your_functions", yours, model=None, source="yours")
else:
    print("[checkpoint s04.your_functions] nothing of yours banked: no exercise has passed yet.")

# %% [markdown]
# Session 05 asks the next question: a ticket that parses, at a real table, can still add things
# the customer never approved.
