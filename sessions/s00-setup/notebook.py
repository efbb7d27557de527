# %% [markdown]
# # Session 00 · Setting up, and how these notebooks work
#
# This notebook checks your install, shows the two modes the course runs in, asks the doctor
# whether your model endpoint is usable, and walks you once through each notebook mechanic you
# will meet in every later session: **predict**, **reveal**, **your turn** and **checkpoint**.
#
# Run the cells from top to bottom. Nothing here needs an API key: the course starts offline.

# %% [markdown]
# ## 1. Is everything installed?
#
# The course is one Python package, `cafe`, plus a handful of well-known libraries. If a cell
# below fails with `ModuleNotFoundError`, install the course from its folder with
# `pip install -e ".[test]"` and restart the kernel.

# %%
import sys
from importlib.metadata import version

import cafe
from cafe import course

print(f"Python {sys.version.split()[0]}")
for package in ("cafe", "openai", "pydantic", "ipywidgets", "jupytext"):
    print(f"{package:<11} {version(package)}")

# %%
assert sys.version_info >= (3, 10), "The course needs Python 3.10 or newer."

# %% [markdown]
# ## 2. Offline or live?
#
# `COURSE_MODE` picks the mode. Unset (or `offline`), every "model" is a scripted stand-in: no
# network, no key, and the same answer every time, which is what lets the notebooks be checked
# automatically. `live` sends the very same calls to an OpenAI-compatible endpoint that you name
# with three variables: `CAFE_BASE_URL`, `CAFE_API_KEY` and `CAFE_MODEL`.
#
# The variables are read when a function needs them, never at import, so you can change them and
# re-run a cell without restarting.

# %%
print("mode: ", cafe.course_mode())
print("model:", cafe.model_name())

# %% [markdown]
# ## 3. Predict first: what does a model with no script say?
#
# Every experiment in the course starts with a prediction, recorded *before* you run it. In
# Jupyter you get buttons; anywhere else the cell prints the line to type (the handle here is
# `guess`). Writing the guess down is the point: a surprise you never predicted teaches you nothing.
#
# The set-up: a customer says "A latte, please." The request offers the model one tool,
# `add_item`, which puts an item on the order, with one required text argument, `item`. It goes
# to a scripted model that was given no script at all. This cell always uses the scripted model,
# in both modes, so the answer is the same on every machine.
#
# Think about what a scripted stand-in can and cannot do (the lesson's "Two modes, one code
# path"), then predict: what will it send back?

# %%
guess = course.predict(
    "s00.first_reply",
    "A scripted model with no script is asked for 'A latte, please.' with add_item on offer. What does it send back?",
    options=['"latte"', "an empty string", "nothing: it answers in plain text"],
)

# %% [markdown]
# Now run it. `ScriptedClient` is the offline stand-in; `cafe.endpoint.client.chat.chat` sends the
# request and turns endpoint trouble into a clear error.

# %%
import json

from cafe.endpoint.client.chat import chat
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.exercises.s00 import ADD_ITEM, check_responder, check_tool_arguments

ORDER = [
    {"role": "system", "content": "You take orders at a small café. Use the tools."},
    {"role": "user", "content": "A latte, please."},
]

response = chat(ScriptedClient(), model=cafe.OFFLINE_MODEL, messages=ORDER, tools=[ADD_ITEM])
message = response.choices[0].message
print("finish_reason:", response.choices[0].finish_reason)
print("content:      ", message.content)
for call in message.tool_calls or []:
    print("tool call:    ", call.function.name, call.function.arguments)

# %%
sent = (
    json.loads(message.tool_calls[0].function.arguments).get("item") if message.tool_calls else None
)
course.show_outcome(
    guess,
    {None: "nothing: it answers in plain text", "": "an empty string", "latte": '"latte"'}.get(
        sent, repr(sent)
    ),
)

# %% [markdown]
# ## 3b. Predict again: two tools on offer
#
# Same customer, same words, and again no script. This time the request offers two tools with
# the same one text argument, `item`, in this order: `remove_item` (take an item off the order)
# and `add_item`. A waiter who listened would add the latte. What about this one?

# %%
REMOVE_ITEM = {
    "type": "function",
    "function": {
        "name": "remove_item",
        "description": "Take one menu item off the customer's order.",
        "parameters": ADD_ITEM["function"]["parameters"],
    },
}

# %%
guess_tools = course.predict(
    "s00.two_tools",
    "The same request, with remove_item and add_item on offer, goes to the scripted model with no script. What does it send?",
    options=[
        'add_item with "latte"',
        "add_item with an empty item",
        "remove_item with an empty item",
        "no tool: it answers in plain text",
    ],
)

# %%
two = (
    chat(
        ScriptedClient(),
        model=cafe.OFFLINE_MODEL,
        messages=ORDER,
        tools=[REMOVE_ITEM, ADD_ITEM],
    )
    .choices[0]
    .message
)
for call in two.tool_calls or []:
    print("tool call:", call.function.name, call.function.arguments)
first_call = two.tool_calls[0] if two.tool_calls else None
picked = (
    "no tool: it answers in plain text"
    if first_call is None
    else f"{first_call.function.name} with "
    + (
        "an empty item"
        if json.loads(first_call.function.arguments).get("item") == ""
        else '"latte"'
    )
)
course.show_outcome(guess_tools, picked)

# %% [markdown]
# ## 4. Reveal switches
#
# Explanations and reference code sit behind switches. A switch loads its content only when you
# flip it on, so nothing in the notebook gives the answer away before you have tried. If your
# front end cannot draw widgets, the cell prints the line to run instead.
#
# Why did the scripted model answer the way it did? Think first, then flip.

# %%
course.reveal("s00.why_tool_call")

# %% [markdown]
# A switch can also show the source of a function in `cafe`: here, the rule the scripted model
# follows when no script is given.

# %%
course.reveal("s00.default_responder", source=cafe.endpoint.client.scripted.default_responder)

# %% [markdown]
# ## 5. Ask the doctor
#
# `cafe.doctor()` (or `cafe doctor` in a terminal) checks the mode, the versions, the endpoint,
# the key (masked), the model, a JSON round trip and tool calls, and says how to fix whatever
# fails. Offline it checks the scripted stand-in, so it should pass on any machine; live it
# checks your endpoint (`docs/doctor.md` describes each check).

# %%
report = cafe.doctor()

# %%
assert report.ok, (
    "The doctor found a problem: fix what it says above, then run these two cells again."
)

# %% [markdown]
# ## 6. A script of your own
#
# The default rule proves the plumbing and nothing more. Every later session writes the script
# its story needs: a list of replies, used in order, or a function of the request. Here is a
# two-reply script, and a first customer who asks for a latte.

# %%
WAITER = [
    {"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]},
    {"tool_calls": [{"name": "add_item", "arguments": {"item": "croissant"}}]},
]

waiter = ScriptedClient(WAITER)
reply = chat(waiter, model=cafe.OFFLINE_MODEL, messages=ORDER, tools=[ADD_ITEM]).choices[0].message
for call in reply.tool_calls or []:
    print("tool call:", call.function.name, call.function.arguments)

# %% [markdown]
# A second customer walks in and also says "A latte, please.", and the same `waiter` client is
# asked. Think about where a scripted model's replies come from, then predict what comes back.

# %%
guess_again = course.predict(
    "s00.second_customer",
    "The same waiter client is asked for 'A latte, please.' by a second customer. What comes back?",
    options=[
        'add_item with "latte"',
        'add_item with "croissant"',
        "add_item with an empty item",
        "an error that says so",
    ],
)

# %%
from cafe.endpoint.errors import CafeError


def what_came_back(client):
    """Which option the client's answer to ORDER matches, or the error it raised."""
    try:
        answer = chat(client, model=cafe.OFFLINE_MODEL, messages=ORDER, tools=[ADD_ITEM])
    except CafeError as exc:
        print(f"{type(exc).__name__}: {exc}")
        return "an error that says so"
    calls = answer.choices[0].message.tool_calls or []
    for call in calls:
        print("tool call:", call.function.name, call.function.arguments)
    if not calls:
        return "plain text"
    item = json.loads(calls[0].function.arguments).get("item")
    return f'add_item with "{item}"' if item else "add_item with an empty item"


second = what_came_back(waiter)
course.show_outcome(guess_again, second)

# %% [markdown]
# The script's second reply, whatever the customer said. A scripted model does not read the
# request: it sends the next reply its author wrote, which is why a notebook can state its
# outcome before you run it, and why a scripted run proves the plumbing and never the judgement.
#
# The waiter has now used both of its replies. Ask it once more and it does not make a third one
# up (repeat a reply, borrow the fallback rule, invent text): a reply nobody wrote would be a
# story nobody wrote. It says by name that its script has run out.

# %%
third = what_came_back(waiter)
assert third == "an error that says so"

# %% [markdown]
# **Live cell.** `cafe.make_client()` is the scripted model with no script offline, and your
# endpoint with `COURSE_MODE=live`: this is what a real model makes of "A latte, please." It
# prints what your model sent beside what the scripted model sent in section 3, and names what it
# did, whatever it sent: an item, an empty one, a call no tool can run (arguments that are not a
# JSON object), a tool nobody offered, words, or nothing at all, each with what it means for your
# set-up. If the endpoint fails (a timeout, a refused key), the cell says so in one line and the
# notebook goes on.
#
# A real model can send any of those, so the cell below reads the reply with `decode_calls`, the
# reader session 01's agent loop uses (you meet it properly there): it reads every call in
# whatever shape it came, and never raises.

# %%
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.loop.dispatch import decode_calls

# What a reply to the first order can do, each with what it means for your set-up.
MEANS = {
    "item": "Your model read the order and put an item on it, which the scripted model, reading "
    "nothing, cannot do. A real model that read it sends something like 'latte'.",
    "empty item": "The scripted model's empty item: your endpoint answers by a rule (cafe serve "
    "with no script, say), not by reading the order.",
    "no item": "A call to add_item without the item its schema requires: your model does not "
    "keep to the tool's schema here.",
    "item not text": "An item that is not text, though the schema asks for a string: your model "
    "does not keep to the tool's schema here.",
    "other tool": "A call to a tool nobody offered: your model made the name up.",
    "broken call": "A call no tool can run: its arguments are not a JSON object, or it names no "
    "tool. Every harness meets this sooner or later; session 01 decides what to do with it.",
    "text": "No tool call at all: your model does not call tools here (the doctor's tool check "
    "says so).",
    "nothing": "No tool call and no text: an empty reply. Run the doctor, which checks tool calls "
    "and a JSON round trip on your endpoint.",
}


def what_it_did(reply):
    """(one of MEANS, the detail): what a reply did with the order, whatever it sent."""
    calls, broken = decode_calls(reply, turn=1)
    if not calls:
        return ("text", "") if (reply.content or "").strip() else ("nothing", "")
    first = calls[0]
    if any(result.call_id == first.id for result in broken):
        return "broken call", first.raw_arguments[:80]
    if first.name != "add_item":
        return "other tool", first.name
    if "item" not in first.arguments:
        return "no item", first.raw_arguments[:80]
    item = first.arguments["item"]
    if not isinstance(item, str):
        return "item not text", json.dumps(item)[:80]
    return ("item", item) if item else ("empty item", "")


def first_reply_live():
    """Your model's reply to the first order, with add_item on offer."""
    client = cafe.make_client()
    if cafe.course_mode() == "live" and rehearsal_script(client, cafe.model_name()) == "default":
        print(default_rehearsal_note("00"))
    return (
        chat(client, model=cafe.model_name(), messages=ORDER, tools=[ADD_ITEM]).choices[0].message
    )


live_first = course.live_story("s00.live_reply", first_reply_live, model=cafe.model_name())
if not live_first.skipped("comparing your model's reply with the scripted one"):
    live_reply = live_first.value
    for call in live_reply.tool_calls or []:
        print("tool call:", call.function.name, call.function.arguments)
    if not live_reply.tool_calls:
        print("text:", live_reply.content)
    did, detail = what_it_did(live_reply)
    print(f"{cafe.model_name()}: {did}" + (f" ({detail!r})" if detail else ""))
    print(f"the scripted model in section 3 sent the item {sent!r}")
    if cafe.course_mode() == "live":
        print(MEANS[did])

# %% [markdown]
# ## 7. Your turn (1 of 2): read a tool call
#
# Each session has functions for you to write. Each starts as a stub that raises
# `NotImplementedError`, and the compare cell below it says "not attempted yet" until you replace
# the body. Then it says "passed", or lists what is still wrong.
#
# Write `tool_arguments(message)`: the arguments of the message's first tool call, as a dict
# (the SDK hands them over as a JSON string), or `{}` when the message calls no tool.


# %%
def tool_arguments(message) -> dict:
    """The first tool call's arguments as a dict; {} when the message has no tool call."""
    raise NotImplementedError("your turn: write this function")


# %%
course.compare(tool_arguments, check=check_tool_arguments, key="s00.tool_arguments")

# %% [markdown]
# Stuck, or done and curious how the reference does it? Flip the switch.

# %%
course.reveal("s00.tool_arguments")

# %% [markdown]
# ## 8. Your turn (2 of 2): a scripted waiter who reads the order
#
# A script can be a function instead of a list: the scripted model calls it with each request
# (a dict with `messages`, `tools`, ...) and sends back what it returns, text or a dict like
# one of `WAITER`'s replies. Write `responder(request)` so that it puts on the order the item the
# customer named in the last message ("A croissant, please." becomes `add_item` with `"croissant"`), and
# answers in words when the request offers no tools. How you pull the item out of the sentence is
# up to you.


# %%
def responder(request) -> dict | str:
    raise NotImplementedError(
        "your turn: read request['messages'][-1]['content'] and call add_item"
    )


# %%
responder_result = course.compare(responder, check=check_responder, key="s00.responder")

# %% [markdown]
# **Live stretch.** Run the next cell offline to see your responder take two orders. Then run it
# with `COURSE_MODE=live`: your model answers instead. Which orders does it read better than your
# responder, and where does it do something your responder never would (ask a question, add a
# size)? The cell names what each order got, as the live cell in section 6 does (an item, words, a
# call no tool can run, nothing at all); an order the endpoint failed on is named and left out.

# %%
STRETCH = ["A croissant, please.", "Could I get an oat flat white?"]


def answer_to(said):
    """The reply to one customer's words: your responder offline, your model live."""
    order = [ORDER[0], {"role": "user", "content": said}]
    client = cafe.make_client(responder)
    return (
        chat(client, model=cafe.model_name(), messages=order, tools=[ADD_ITEM]).choices[0].message
    )


try:
    stretch = course.each_live("s00.stretch", STRETCH, answer_to, model=cafe.model_name())
except NotImplementedError:
    print("responder is still the stub: write it above, then run this cell again.")
    stretch = None
for said, answer in stretch.done if stretch else []:
    calls = [f"{c.function.name} {c.function.arguments}" for c in answer.tool_calls or []]
    print(f"{said!r:>34} -> {'; '.join(calls) or answer.content} [{what_it_did(answer)[0]}]")
for said, kind in stretch.failed if stretch else []:
    print(f"{said!r:>34} -> not answered: endpoint {kind}")

# %% [markdown]
# ## 9. Checkpoint
#
# Each session ends by banking a number in your progress file (`course.progress_path()` says
# where it is). For this session the first entry is simply whether your set-up works, with the
# mode and model you ran it on. The second is yours: once your responder has passed, the item it
# puts on the order for each stretch order, read from your function and never from the course's
# (nothing is banked under your name while it has not passed). Later sessions bank real
# measurements, such as how many attempts a ticket took to pass.

# %%
course.checkpoint(
    "s00", "setup", {"mode": cafe.course_mode(), "doctor_ok": report.ok}, model=cafe.model_name()
)


def what_your_responder_sends(said):
    """What your responder does with `said`: the item it sends, or its words."""
    order = [ORDER[0], {"role": "user", "content": said}]
    try:
        client = ScriptedClient(responder)
        reply = chat(client, model=cafe.OFFLINE_MODEL, messages=order, tools=[ADD_ITEM])
    except Exception as exc:  # a responder that passed can still trip on words it never saw
        return f"raised {type(exc).__name__}"
    message = reply.choices[0].message
    if not message.tool_calls:
        return f"words: {message.content}"
    did, detail = what_it_did(message)
    return detail if did in ("item", "empty item") else f"{did}: {detail}"


NOT_BANKED = {"failed": "has not passed its check yet", "not_attempted": "is still the stub"}
if responder_result.status == "passed":
    course.checkpoint(
        "s00",
        "your_responder",
        {"passed": True, "sends": {said: what_your_responder_sends(said) for said in STRETCH}},
        model=None,
        source="yours",
    )
else:
    print(
        "[checkpoint s00.your_responder] not banked: your responder "
        f"{NOT_BANKED[responder_result.status]}."
    )

# %% [markdown]
# That is the whole routine: predict, run, compare your guess with what happened, reveal,
# write your own version, bank the number. Next, session 01 builds the agent loop itself.
