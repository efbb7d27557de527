# %% [markdown]
# # Session 01 · The agent loop: ask, act, repeat, and stop on a name
#
# A model cannot write on the café's kitchen ticket. It can only *ask* for a tool, by name, with
# JSON arguments. The agent loop is the code in between: it sends the conversation, runs the
# tools the model asked for, appends their results, and goes round again until the model is done
# or a budget stops it. In this notebook you will:
#
# 1. **Take an order** through three tools and predict how many turns it costs.
# 2. **See where a tool's schema comes from**: the function's own signature.
# 3. **Watch a runaway model** hit the turn budget, and check that every run ends on a name.
# 4. **See mistakes become results** the model can read, instead of crashes.
# 5. **Meet the one-turn lag** of an observer, then **write your first observer**.
# 6. **Bank** the number of turns your model needs for an order.
#
# Offline (the default) the "model" is a script, so every run here is the same on every machine.

# %%
import cafe
from cafe import course
from cafe.exercises.s01 import check_repeat_guard
from cafe.loop import RUN_STOP_REASONS, Nudge, Stop, run_loop
from cafe.menu import load_menu
from cafe.orderpad import OrderPad
from cafe.tools import tool

# The café's trusted menu (prices, allergens, what is sold out today). Session 03 looks at it
# closely; here it is simply handed to the order pad.
MENU = load_menu()

ORDER = [
    {"role": "system", "content": "You take orders at a café. Look items up on the menu, add what the "
                                  "customer wants to the kitchen ticket, then say what you wrote."},
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
        asked = ", ".join(f"{c.name}{dict(c.arguments)}" for c in turn.calls) or "(answers in words)"
        print(f"turn {turn.turn}: asks {asked}")
        for r in turn.dispatch:
            print(f"    -> {'ok  ' if r.ok else 'FAIL'} {r.output}")
    print(f"stop_reason: {result.stop_reason} ({result.detail})")


# %% [markdown]
# ## 1. An order, through tools
#
# The scripted waiter below first looks up both items (two tool calls in one turn), then adds
# both to the ticket, then answers in words. A *turn* is one request to the model.
#
# Predict first: how many turns will the run take?

# %%
WAITER = [
    asks(call("look_up", item="latte"), call("look_up", item="croissant")),
    asks(call("add_to_ticket", item="latte", quantity=2), call("add_to_ticket", item="croissant", quantity=1)),
    "On the ticket: 2 x latte, 1 x croissant.",
]
turns_guess = course.predict("s01.order_turns", "How many turns (requests to the model) will the order take?",
                             options=["1", "2", "3", "4"])

# %%
pad = OrderPad(MENU)
result = run_loop(cafe.make_client(WAITER), ORDER, pad.tools, max_turns=6)
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
    print(f"{message['role']:>9}: {message.get('content') or ''}{' calls ' + ', '.join(calls) if calls else ''}")
assert len(ORDER) == 2, "the caller's messages were changed"

# %% [markdown]
# ## 2. Where a tool's schema comes from
#
# The model never sees Python. It sees a JSON schema per tool, and `tool(fn)` reads that schema
# off the function: type hints give the JSON types, parameters without defaults are required,
# the docstring gives the descriptions. The order pad's `add_to_ticket(item: str, quantity: int = 1)`
# is an ordinary method.
#
# Predict first: which of its parameters will the schema mark as required?

# %%
required_guess = course.predict("s01.required", "Which parameters of add_to_ticket are required in its schema?",
                                options=["item", "item and quantity", "neither"])

# %%
import json

schema = pad.tools[1].schema()
print(json.dumps(schema, indent=2, ensure_ascii=False))
required = schema["function"]["parameters"]["required"]
course.show_outcome(required_guess, {("item",): "item", ("item", "quantity"): "item and quantity"}.get(
    tuple(required), "neither"))

# %% [markdown]
# Try it on your own function: give `note_allergy` a docstring with an `Args:` block and type
# hints, and look at what `tool` makes of it.

# %%
def note_allergy(allergen: str, severe: bool = False) -> str:
    """Write an allergy on the ticket so the kitchen sees it.

    Args:
        allergen: what the customer must not eat, e.g. nuts
        severe: True when even traces are dangerous
    """
    return f"noted: {allergen}{' (severe)' if severe else ''}"


print(json.dumps(tool(note_allergy).parameters, indent=2))

# %%
course.reveal("s01.why_schema")

# %% [markdown]
# ## 3. A budget, and a named stop
#
# This scripted model never stops asking for the same lookup. The loop gives it `max_turns=4`.
# Predict first: which stop reason does the run end on?

# %%
RUNAWAY = [asks(call("look_up", item="latte"))] * 10
runaway_guess = course.predict("s01.runaway_stop", "Which stop_reason does the runaway run end on?",
                               options=sorted(RUN_STOP_REASONS))

# %%
runaway = run_loop(cafe.make_client(RUNAWAY), ORDER, OrderPad(MENU).tools, max_turns=4)
show_turns(runaway)
course.show_outcome(runaway_guess, runaway.stop_reason)

# %% [markdown]
# Whatever happens, a run ends on one of five names. Read these assertions before moving on:
# they hold for every run in this notebook, and later sessions rely on them.

# %%
print(sorted(RUN_STOP_REASONS))
for run in (result, runaway):
    assert run.stop_reason in RUN_STOP_REASONS
    assert len(run.turns) <= 6
assert runaway.stop_reason == "max_turns" and len(runaway.turns) == 4

# %%
course.reveal("s01.why_budget")

# %% [markdown]
# ## 4. Mistakes are results, not crashes
#
# This time the model asks for something the café does not sell, and then for the cheese
# omelette, which is 86'd (sold out) today, and finally for something the café does have.
#
# Predict first: what does the loop do with the request for a unicorn cake?

# %%
CONFUSED = [
    asks(call("add_to_ticket", item="unicorn cake")),
    asks(call("add_to_ticket", item="cheese omelette")),
    asks(call("add_to_ticket", item="tofu scramble")),
    "The omelette is sold out, so I put a tofu scramble on the ticket.",
]
mistake_guess = course.predict("s01.mistake", "The model asks to add a unicorn cake. What does the loop do?",
                               options=["raises an exception", "sends a failed result back to the model",
                                        "skips the call without a word"])

# %%
pad = OrderPad(MENU)
confused = run_loop(cafe.make_client(CONFUSED), ORDER, pad.tools)
show_turns(confused)
first = confused.turns[0].dispatch[0]
course.show_outcome(mistake_guess, f"ran it: {first.output}" if first.ok else "sends a failed result back to the model")
assert [r.ok for t in confused.turns for r in t.dispatch] == [False, False, True]

# %% [markdown]
# Neither mistake raised an exception: each came back as a failed result, with words the model
# can act on, and the model recovered. Only failures nobody in the conversation can fix (the
# endpoint is down, `run_loop` was called wrongly) are exceptions.

# %% [markdown]
# ## 5. Watching the loop: observers, and the one-turn lag
#
# Later sessions never edit the loop. They plug in. An *observer* is a function the loop calls at
# the start of every turn, after the model has answered and before its tools run. It sees the
# calls just proposed (`view.calls`) and the results of the *previous* turn (`view.prev_dispatch`).
#
# Predict first: on turn 2 of the order, whose results does the observer see?

# %%
lag_guess = course.predict("s01.lag", "On turn 2, the observer's prev_dispatch holds the results of...",
                           options=["turn 1's look-ups", "turn 2's additions", "nothing yet"])

# %%
seen_on = {}  # turn -> the results the watcher was shown at the start of that turn


def watcher(view):
    seen_on[view.turn] = view.prev_dispatch
    proposed = [c.name for c in view.calls] or ["(done)"]
    seen = [f"{r.name}:{'ok' if r.ok else 'fail'}" for r in view.prev_dispatch] or ["nothing"]
    print(f"turn {view.turn}: proposes {proposed}; has seen {seen}")
    return None


watched = run_loop(cafe.make_client(WAITER), ORDER, OrderPad(MENU).tools, observers=[watcher])
on_turn_2 = seen_on[2]  # compare it with what each turn's calls really returned
if not on_turn_2:
    lag_outcome = "nothing yet"
elif on_turn_2 == watched.turns[0].dispatch:
    lag_outcome = "turn 1's look-ups"
elif on_turn_2 == watched.turns[1].dispatch:
    lag_outcome = "turn 2's additions"
course.show_outcome(lag_guess, lag_outcome)

# %% [markdown]
# An observer can also answer. Returning `Nudge(text)` tells the model something (the loop
# appends it as a message after the turn); returning `Stop("stuck", why)` ends the run with a
# named reason before the proposed calls run. That split, "tell the model" as a value and "stop
# the run" as a named outcome, is the whole extension story of the course.

# %%
def allergy_reminder(view):
    if view.turn == 1:
        return Nudge("Remember to ask about allergies before you finish.")
    return None


reminded = run_loop(cafe.make_client(WAITER), ORDER, OrderPad(MENU).tools, observers=[allergy_reminder])
print([m["content"] for m in reminded.messages if m["role"] == "user"])

# %%
course.reveal("s01.why_lag")

# %% [markdown]
# ## 6. Your turn: a first stall detector
#
# Write `repeat_guard(view)`: return `Stop("stuck", <a short reason>)` when the model proposes
# exactly the calls it made last turn (same tool names, same arguments, in the same order) after
# already seeing their results; return `None` otherwise, including on the first turn and when
# the model proposes no calls. Compare `c.name` and `dict(c.arguments)` of `view.calls` with
# `r.name` and `dict(r.arguments)` of `view.prev_dispatch`.

# %%
def repeat_guard(view):
    raise NotImplementedError("your turn: return Stop('stuck', ...) or None")


# %%
course.compare(repeat_guard, check=check_repeat_guard, key="s01.repeat_guard")

# %% [markdown]
# When your guard passes, try it on the runaway model: it should stop on turn 2 instead of
# burning the whole budget. (Until you write it, this cell says so and moves on.)

# %%
try:
    guarded = run_loop(cafe.make_client(RUNAWAY), ORDER, OrderPad(MENU).tools, max_turns=4, observers=[repeat_guard])
    print(f"{guarded.stop_reason} after {len(guarded.turns)} turns: {guarded.detail}")
except NotImplementedError:
    print("repeat_guard is still the stub: write it above, then run this cell again.")

# %%
course.reveal("s01.repeat_guard", source=cafe.loop.repeat_guard)

# %% [markdown]
# ## 7. Checkpoint: turns to take an order
#
# Run the order once more, offline with the scripted waiter or live (`COURSE_MODE=live`) with your
# model, and bank how many turns it took and how it ended. A model that needs many more turns
# than the script is paying for every one of them, and session 11 puts a price on that.

# %%
pad = OrderPad(MENU)
live = cafe.course_mode() == "live"
final = run_loop(cafe.make_client(None if live else WAITER), ORDER, pad.tools, max_turns=8)
show_turns(final)
course.checkpoint("s01", "order_turns", {"turns": len(final.turns), "stop_reason": final.stop_reason},
                  model=cafe.model_name())
