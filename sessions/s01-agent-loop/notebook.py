# %% [markdown]
# # Session 01 · The agent loop: ask, act, repeat, and stop on a name
#
# A model cannot write on the café's kitchen ticket. It can only *ask* for a tool, by name, with
# JSON arguments. The agent loop is the code in between: it sends the conversation, runs the
# tools the model asked for, appends their results, and goes round again until the model is done
# or a budget stops it. In this notebook you will:
#
# 1. **Take an order** through three tools and predict how many turns it costs.
# 2. **Read a tool's schema** off a function's signature, and predict what it demands.
# 3. **Watch a runaway model** meet the turn budget, and check that every run ends on a name.
# 4. **Send the model an order the café cannot fill**, and predict how the run ends.
# 5. **Predict what an observer sees**, then **write your first observer** and **a tool of your own**.
# 6. **Bank** the number of turns your model needs for an order.
#
# Sections 1 to 5 tell stories that show a mechanism, so their "model" is always a script
# (`ScriptedClient`), in both modes: every run is the same on every machine. The cells marked
# **live** use `cafe.make_client()`, which is your model when `COURSE_MODE=live`.

# %%
import cafe
from cafe import course
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.exercises.s01 import check_own_tool, check_repeat_guard
from cafe.loop import (
    GUARD_STOP_REASONS,
    RUN_STOP_REASONS,
    Nudge,
    Stop,  # noqa: F401  (yours to return from repeat_guard)
    run_loop,
)
from cafe.loop.tools import ToolOutput, tool  # noqa: F401  (ToolOutput: for your tool)
from cafe.world.menu import load_menu
from cafe.world.orderpad import OrderPad

# The café's trusted menu (prices, allergens, what is sold out today). Session 03 looks at it
# closely; here it is simply handed to the order pad.
MENU = load_menu()

ORDER = [
    {
        "role": "system",
        "content": "You take orders at a café. Look items up on the menu, add what the "
        "customer wants to the kitchen ticket, then say what you wrote.",
    },
    {"role": "user", "content": "Two lattes and a croissant, please."},
]


def call(name, **arguments):
    """One scripted tool call."""
    return {"name": name, "arguments": arguments}


def asks(*calls):
    """One scripted turn in which the model asks for these tools and says nothing."""
    return {"content": None, "tool_calls": list(calls)}


def show_turns(result):
    for turn in result.turns:
        asked = (
            ", ".join(f"{c.name}{dict(c.arguments)}" for c in turn.calls) or "(answers in words)"
        )
        print(f"turn {turn.turn}: asks {asked}")
        for r in turn.dispatch:
            print(f"    -> {'ok  ' if r.ok else 'FAIL'} {r.output}")
    print(f"stop_reason: {result.stop_reason} ({result.detail})")


# %% [markdown]
# ## 1. An order, through tools
#
# The waiter here is scripted (in both modes). It asks for both look-ups at once, then both
# additions at once, and it is finished once both items are on the ticket. A *turn* is one
# request to the model.
#
# Predict first: how many turns will the run take?

# %%
turns_guess = course.predict(
    "s01.order_turns",
    "How many turns (requests to the model) will the order take?",
    options=["1", "2", "3", "4"],
)

# %%
WAITER = [
    asks(call("look_up", item="latte"), call("look_up", item="croissant")),
    asks(
        call("add_to_ticket", item="latte", quantity=2),
        call("add_to_ticket", item="croissant", quantity=1),
    ),
    "On the ticket: 2 x latte, 1 x croissant.",
]
pad = OrderPad(MENU)
result = run_loop(ScriptedClient(WAITER), ORDER, pad.tools, max_turns=6)
show_turns(result)
print("ticket:", pad.read_ticket().replace("\n", "; "))
course.show_outcome(turns_guess, str(len(result.turns)))

# %% [markdown]
# The last turn has no tool calls: that is how a model says it is done, and the loop stops with
# `done`. Every tool result went back to the model as a message with role `tool`, tied to the
# call by its id. Here is the whole transcript the loop built (a new list: the `ORDER` you passed
# in is untouched).

# %%
for message in result.messages:
    calls = [c["function"]["name"] for c in message.get("tool_calls", [])]
    print(
        f"{message['role']:>9}: {message.get('content') or ''}{' calls ' + ', '.join(calls) if calls else ''}"
    )
assert len(ORDER) == 2, "the caller's messages were changed"

# %% [markdown]
# ## 2. Which arguments must the model send?
#
# The model never sees Python. It sees a JSON schema per tool, and `tool(fn)` reads that schema
# off the function. Here is a tool the café might add for booking a table. Read its signature
# closely, with the lesson's section on tools in mind.
#
# Predict first: which parameters will the schema list as `required`?


# %%
def reserve(name: str, table: int | None, note: str | None = None, guests: int = 2) -> str:
    """Hold a table for a customer.

    Args:
        name: who the table is for
        table: the table number, or null for any free table
        note: anything the staff should know
        guests: how many people are coming
    """
    return f"table {table or 'any'} held for {name} ({guests})"


# %%
required_guess = course.predict(
    "s01.required",
    "Which parameters of reserve will its schema mark as required?",
    options=["name", "name and table", "name, table and note", "all four"],
)

# %%
import json

schema = tool(reserve).schema()
print(json.dumps(schema, indent=2, ensure_ascii=False))
required = schema["function"]["parameters"]["required"]
course.show_outcome(
    required_guess,
    {
        ("name",): "name",
        ("name", "table"): "name and table",
        ("name", "table", "note"): "name, table and note",
    }.get(tuple(required), "all four"),
)

# %% [markdown]
# What decides "required" is the default, not the type. `table: int | None` says the function
# *accepts* None, but without a default the call cannot leave it out, so the model must send it;
# its schema lists `null` beside `integer`, so "any free table" can be said. `note: str | None =
# None` may be left out, so its schema gives only the string. The type hints give the JSON
# types, and the docstring's `Args:` block gives the descriptions the model reads.
#
# Try it on your own function: give `note_allergy` a docstring with an `Args:` block and type
# hints, and look at what `tool` makes of it.

# %%
course.reveal("s01.why_schema")

# %% [markdown]
# ## 3. How far does a runaway model get?
#
# This scripted model never stops asking for the same lookup: its script has ten identical
# turns. The loop is given a budget of `max_turns=4`.
#
# Predict first: how many times will `look_up` actually run before the loop ends the run?

# %%
RUNAWAY = [asks(call("look_up", item="latte"))] * 10

# %%
runaway_guess = course.predict(
    "s01.runaway_calls",
    "With max_turns=4, how many times does look_up run?",
    options=["3", "4", "5", "10"],
)

# %%
runaway = run_loop(ScriptedClient(RUNAWAY), ORDER, OrderPad(MENU).tools, max_turns=4)
show_turns(runaway)
course.show_outcome(runaway_guess, str(sum(len(turn.dispatch) for turn in runaway.turns)))

# %% [markdown]
# Each of the four turns was a request to the model, and each turn's call ran before the budget
# was checked again. Look at the last line: the run did not end on `done`. Whatever happens, a
# run with no stopping plug-in ends on one of the loop's own two names, `RUN_STOP_REASONS`. Read
# these assertions before moving on: they hold for every such run in this notebook, and later
# sessions rely on them.

# %%
print(sorted(RUN_STOP_REASONS))
for run in (result, runaway):
    assert run.stop_reason in RUN_STOP_REASONS
    assert len(run.turns) <= 6
assert runaway.stop_reason == "max_turns" and len(runaway.turns) == 4

# %%
course.reveal("s01.why_budget")

# %% [markdown]
# ## 4. What happens to an order the café cannot fill?
#
# This time the scripted model asks to add something the café does not sell (a unicorn cake),
# then the cheese omelette, which is 86'd today (kitchen slang for sold out; the
# [glossary](../docs/glossary.md) has the café's other words), then a tofu scramble, and then it
# answers in words.
#
# Predict first: how does the run end?

# %%
ENDINGS = [
    "an exception on turn 1",
    "done, with a tofu scramble on the ticket",
    "done, with an empty ticket",
    "max_turns",
]
unfillable_guess = course.predict(
    "s01.unfillable_order",
    "The model asks for a unicorn cake first. How does the run end?",
    options=ENDINGS,
)

# %%
CONFUSED = [
    asks(call("add_to_ticket", item="unicorn cake")),
    asks(call("add_to_ticket", item="cheese omelette")),
    asks(call("add_to_ticket", item="tofu scramble")),
    "I have written what I could on the ticket.",
]
pad = OrderPad(MENU)
try:
    confused = run_loop(ScriptedClient(CONFUSED), ORDER, pad.tools)
except Exception as exc:  # what a loop without this session's rule would do
    print(f"{type(exc).__name__}: {exc}")
    ending = ENDINGS[0]
else:
    show_turns(confused)
    on_ticket = [line.item for line in pad.ticket]
    ending = (
        confused.stop_reason
        if confused.stop_reason != "done"
        else ENDINGS[1]
        if on_ticket == ["tofu scramble"]
        else ENDINGS[2]
        if not on_ticket
        else "done"
    )
    assert [r.ok for t in confused.turns for r in t.dispatch] == [False, False, True]
course.show_outcome(unfillable_guess, ending)

# %% [markdown]
# Neither mistake raised an exception: each came back as a failed result, with words the model
# can act on, and the model recovered. Only failures nobody in the conversation can fix (the
# endpoint is down, `run_loop` was called wrongly) are exceptions.

# %% [markdown]
# ## 5. What does an observer see on turn 2?
#
# Later sessions never edit the loop. They plug in. An *observer* is a function the loop calls on
# every turn, at the seam the lesson's loop marks. It is handed a `TurnView`: `view.calls` are
# the calls the model has just proposed, and `view.prev_dispatch` holds the most recent tool
# results the loop has.
#
# Predict first: on turn 2 of the scripted order, whose results are in `prev_dispatch`?

# %%
view_guess = course.predict(
    "s01.observer_view",
    "On turn 2, the observer's prev_dispatch holds the results of...",
    options=["turn 1's look-ups", "turn 2's additions", "nothing yet"],
)

# %%
seen_on = {}  # turn -> the results the watcher was shown at the start of that turn


def watcher(view):
    seen_on[view.turn] = view.prev_dispatch
    proposed = [c.name for c in view.calls] or ["(done)"]
    seen = [f"{r.name}:{'ok' if r.ok else 'fail'}" for r in view.prev_dispatch] or ["nothing"]
    print(f"turn {view.turn}: proposes {proposed}; has seen {seen}")
    return None


watched = run_loop(ScriptedClient(WAITER), ORDER, OrderPad(MENU).tools, observers=[watcher])
on_turn_2 = seen_on[2]  # compare it with what each turn's calls really returned
if not on_turn_2:
    view_outcome = "nothing yet"
elif on_turn_2 == watched.turns[0].dispatch:
    view_outcome = "turn 1's look-ups"
elif on_turn_2 == watched.turns[1].dispatch:
    view_outcome = "turn 2's additions"
course.show_outcome(view_guess, view_outcome)

# %% [markdown]
# An observer can also answer. Returning `Nudge(text)` tells the model something (the loop
# appends it as a message after the turn); returning `Stop("stuck", why)` ends the run with a
# named reason before the proposed calls run. That split, "tell the model" as a value and "stop
# the run" as a named outcome, is the whole extension story of the course. A reason like `stuck`
# is not the loop's own: the plug-in that uses it declares it (`GUARD_STOP_REASONS`), and you
# hand it to `run_loop(stop_reasons=...)` with the plug-in.


# %%
def allergy_reminder(view):
    if view.turn == 1:
        return Nudge("Remember to ask about allergies before you finish.")
    return None


reminded = run_loop(
    ScriptedClient(WAITER), ORDER, OrderPad(MENU).tools, observers=[allergy_reminder]
)
print([m["content"] for m in reminded.messages if m["role"] == "user"])

# %%
course.reveal("s01.why_lag")

# %% [markdown]
# ## 6. Your turn (1 of 2): a first stall detector
#
# Write `repeat_guard(view)`: return `Stop("stuck", <a short reason>)` when the model proposes
# exactly the calls it made last turn (same tool names, same arguments, in the same order) after
# already seeing their results; return `None` otherwise, including on the first turn and when
# the model proposes no calls. Compare `c.name` and `dict(c.arguments)` of `view.calls` with
# `r.name` and `dict(r.arguments)` of `view.prev_dispatch`.
#
# The compare cell tries hand-picked turns first, then generated ones (items that differ only by
# a stray space or a capital, keys in either order) against a guard the checker holds, written
# apart from the course's.


# %%
def repeat_guard(view):
    raise NotImplementedError("your turn: return Stop('stuck', ...) or None")


# %%
guard_check = course.compare(repeat_guard, check=check_repeat_guard, key="s01.repeat_guard")

# %% [markdown]
# When your guard passes, try it on the runaway model: it should stop on turn 2 instead of
# burning the whole budget. (Until your guard passes, this cell says so and moves on; the
# checkpoint banks these figures as yours only once it has.)

# %%
guarded = None
if guard_check.status != "passed":
    print(f"repeat_guard has not passed yet ({guard_check.status}): fix it above, then rerun.")
else:
    guarded = run_loop(
        ScriptedClient(RUNAWAY),
        ORDER,
        OrderPad(MENU).tools,
        max_turns=4,
        observers=[repeat_guard],
        stop_reasons=GUARD_STOP_REASONS,
    )
    print(f"{guarded.stop_reason} after {len(guarded.turns)} turns: {guarded.detail}")
    print(f"without your guard: {runaway.stop_reason} after {len(runaway.turns)} turns")

# %%
course.reveal("s01.repeat_guard", source=cafe.loop.repeat_guard)

# %% [markdown]
# ## 7. Your turn (2 of 2): a tool the waiter is missing
#
# Open-ended: write any tool the café's waiter lacks, as a plain function. Some ideas:
# `remove_from_ticket(item: str)`, `ask_allergies(allergen: str)`, `split_bill(ways: int)`.
# Rename `my_tool` if you like. The check looks at it the way the model and the loop will:
#
# - the model reads only the schema, so it needs a docstring and an `Args:` line per parameter;
# - one day a model sends the smallest arguments the schema allows (an empty string, a zero):
#   your tool must answer in words then, not raise. Return `ToolOutput(False, "...")` to say
#   what went wrong, so the model can read it and try again.


# %%
def my_tool(item: str) -> str:
    raise NotImplementedError("your turn: write a tool the waiter is missing")


# %%
course.compare(my_tool, check=check_own_tool, key="s01.own_tool")

# %% [markdown]
# **Live stretch.** This cell hands your tool to a model, next to the order pad's tools, with a
# customer line that needs it. Offline, a two-line script calls your tool once with the smallest
# arguments and then answers. With `COURSE_MODE=live` it is your model (**live**): does it choose
# your tool, and with which arguments? Change the customer's words and the docstring, run it
# again, and note what changed. A live run asserts only what any model guarantees: the run ends
# on one of the loop's two names. If the endpoint fails, the cell says so in one line and the
# notebook goes on.

# %%
yours = tool(my_tool)
customer = [ORDER[0], {"role": "user", "content": "I'd like to change my order, please."}]
live = cafe.course_mode() == "live"
stretch_script = [
    asks(call(yours.name, **cafe.endpoint.client.scripted.minimal_instance(yours.parameters))),
    "Done: I used your tool once.",
]


def run_stretch():
    client = cafe.make_client(None if live else stretch_script)
    return run_loop(client, customer, [yours, *OrderPad(MENU).tools], max_turns=4)


stretch = course.live_story("s01.stretch", run_stretch, model=cafe.model_name())
if not stretch.skipped("showing the stretch run"):
    show_turns(stretch.value)
    assert stretch.value.stop_reason in RUN_STOP_REASONS
    used = sum(c.name == yours.name for t in stretch.value.turns for c in t.calls)
    print(f"your tool was called {used} time(s) in {len(stretch.value.turns)} turn(s).")

# %% [markdown]
# ## 8. Checkpoint: turns to take an order
#
# This cell is **live** when `COURSE_MODE=live`: your model takes the order. Offline the scripted
# waiter does. Bank how many turns it took and how it ended, beside the scripted waiter's run from
# section 1. A model that needs many more turns than the script is paying for every one of them,
# and session 11 puts a price on that. Your repeat guard's figures on the runaway model are banked
# too, as yours, once it has passed.


# %%
def take_order():
    client = cafe.make_client(None if live else WAITER)
    if live and rehearsal_script(client, cafe.model_name()) == "default":
        print(default_rehearsal_note("01"))
    pad = OrderPad(MENU)
    return run_loop(client, ORDER, pad.tools, max_turns=8), pad


taken = course.live_story("s01.order", take_order, model=cafe.model_name())
if not taken.skipped("the order's turn count"):
    final, final_pad = taken.value
    show_turns(final)
    assert final.stop_reason in RUN_STOP_REASONS  # all a live model guarantees
    tool_calls = sum(len(t.calls) for t in final.turns)
    print(f"scripted waiter (section 1): {len(result.turns)} turns, {result.stop_reason}")
    print(
        f"{cafe.model_name()}: {len(final.turns)} turns, {final.stop_reason}, {tool_calls} tool calls"
    )
    if tool_calls == 0:
        print(
            "Your model answered without calling a tool, so nothing reached the ticket; the "
            "scripted waiter above shows the tool path."
        )
    figures = {"turns": len(final.turns), "stop_reason": final.stop_reason}
else:
    figures = {}
course.checkpoint(
    "s01",
    "order_turns",
    {**figures, "mode": cafe.course_mode()},
    model=cafe.model_name(),
    needs=[taken],
)
if guarded is not None:
    course.checkpoint(
        "s01",
        "your_guard",
        {
            "stop_reason": guarded.stop_reason,
            "turns": len(guarded.turns),
            "turns_without": len(runaway.turns),
        },
        model=None,
        source="yours",
    )
