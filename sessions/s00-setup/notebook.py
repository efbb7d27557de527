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
# path"), then predict: what will it send as `item`?

# %%
guess = course.predict(
    "s00.first_reply",
    "A scripted model with no script is asked for 'A latte, please.' with add_item on offer. What does it send as item?",
    options=['"latte"', "an empty string", "nothing: it answers in plain text"],
)

# %% [markdown]
# Now run it. `ScriptedClient` is the offline stand-in; `cafe.endpoint.client.chat` sends the
# request and turns endpoint trouble into a clear error.

# %%
import json

from cafe.endpoint.client import chat
from cafe.endpoint.scripted import ScriptedClient
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
course.reveal("s00.default_responder", source=cafe.endpoint.scripted.default_responder)

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
# one-reply script for a waiter who gets the order right, sent the same request.

# %%
WAITER = [{"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}]

reply = (
    chat(ScriptedClient(WAITER), model=cafe.OFFLINE_MODEL, messages=ORDER, tools=[ADD_ITEM])
    .choices[0]
    .message
)
for call in reply.tool_calls or []:
    print("tool call:", call.function.name, call.function.arguments)

# %% [markdown]
# **Live cell.** `cafe.make_client()` is the scripted model with no script offline, and your
# endpoint with `COURSE_MODE=live`: this is what a real model makes of "A latte, please." It
# asserts only what any model guarantees: a reply came back, as a tool call or as text.

# %%
from cafe.endpoint.rehearsals import default_rehearsal_note, rehearsal_script

client = cafe.make_client()
if cafe.course_mode() == "live" and rehearsal_script(client, cafe.model_name()) == "default":
    print(default_rehearsal_note("00"))
live_reply = (
    chat(client, model=cafe.model_name(), messages=ORDER, tools=[ADD_ITEM]).choices[0].message
)
for call in live_reply.tool_calls or []:
    print("tool call:", call.function.name, call.function.arguments)
if not live_reply.tool_calls:
    print("text:", live_reply.content)
assert live_reply.tool_calls or live_reply.content is not None

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
# `WAITER`'s reply. Write `responder(request)` so that it puts on the order the item the customer
# named in the last message ("A croissant, please." becomes `add_item` with `"croissant"`), and
# answers in words when the request offers no tools. How you pull the item out of the sentence is
# up to you.


# %%
def responder(request) -> dict | str:
    raise NotImplementedError(
        "your turn: read request['messages'][-1]['content'] and call add_item"
    )


# %%
course.compare(responder, check=check_responder, key="s00.responder")

# %% [markdown]
# **Live stretch.** Run the next cell offline to see your responder take two orders. Then run it
# with `COURSE_MODE=live`: your model answers instead. Which orders does it read better than your
# responder, and where does it do something your responder never would (ask a question, add a
# size)? The cell asserts only that every order got a reply.

# %%
for said in ["A croissant, please.", "Could I get an oat flat white?"]:
    order = [ORDER[0], {"role": "user", "content": said}]
    try:
        client = cafe.make_client(responder)
        answer = (
            chat(client, model=cafe.model_name(), messages=order, tools=[ADD_ITEM])
            .choices[0]
            .message
        )
    except NotImplementedError:
        print("responder is still the stub: write it above, then run this cell again.")
        break
    calls = [f"{c.function.name} {c.function.arguments}" for c in answer.tool_calls or []]
    print(f"{said!r:>34} -> {'; '.join(calls) or answer.content}")
    assert calls or answer.content is not None

# %% [markdown]
# ## 9. Checkpoint
#
# Each session ends by banking a number in your progress file (`course.progress_path()` says
# where it is). For this session the number is simply whether your set-up works, with the mode
# and model you ran it on. Later sessions bank real measurements, such as how many attempts a
# ticket took to pass.

# %%
course.checkpoint(
    "s00", "setup", {"mode": cafe.course_mode(), "doctor_ok": report.ok}, model=cafe.model_name()
)

# %% [markdown]
# That is the whole routine: predict, run, compare your guess with what happened, reveal,
# write your own version, bank the number. Next, session 01 builds the agent loop itself.
