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
# ## 3. Ask the doctor
#
# `cafe.doctor()` (or `cafe doctor` in a terminal) checks the mode, the versions, the endpoint,
# the key (masked), the model, a JSON round-trip and tool calls, and says how to fix whatever
# fails. Offline it checks the scripted stand-in, so it should pass on any machine.

# %%
report = cafe.doctor()

# %%
assert report.ok, "The doctor found a problem: fix what it says above, then run these two cells again."

# %% [markdown]
# ## 4. Predict first
#
# Every experiment in the course starts with a prediction, recorded *before* you run it. In
# Jupyter you get buttons; anywhere else you can assign it: `guess.value = "a tool call"`.
# Writing the guess down is the point: a surprise you never predicted teaches you nothing.
#
# The set-up: a customer says "A latte, please." The request offers the model one tool,
# `add_item`, which puts an item on the order. What comes back from the scripted model?

# %%
guess = course.predict(
    "s00.first_reply",
    "The request offers one tool, add_item. What does the scripted model send back?",
    options=["plain text", "a tool call", "an error"],
)

# %% [markdown]
# Now run it. `cafe.make_client()` gives you the scripted client offline and an `openai.OpenAI`
# client live; `cafe.endpoint.client.chat` sends the request and turns endpoint trouble into a clear error.

# %%
from cafe.endpoint.client import chat

ADD_ITEM = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Put one menu item on the customer's order.",
        "parameters": {
            "type": "object",
            "properties": {"item": {"type": "string"}},
            "required": ["item"],
        },
    },
}

ORDER = [
    {"role": "system", "content": "You take orders at a small café. Use the tools."},
    {"role": "user", "content": "A latte, please."},
]

client = cafe.make_client()  # offline and given no script, the default rule answers
response = chat(client, model=cafe.model_name(), messages=ORDER, tools=[ADD_ITEM])
message = response.choices[0].message
outcome = "a tool call" if message.tool_calls else "plain text"
print("finish_reason:", response.choices[0].finish_reason)
print("content:      ", message.content)
for call in message.tool_calls or []:
    print("tool call:    ", call.function.name, call.function.arguments)

# %%
course.show_outcome(guess, outcome)

# %% [markdown]
# ## 5. Reveal switches
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
# ## 6. A script of your own
#
# The default rule proves the plumbing and nothing more. Every later session writes the script
# its story needs: a list of replies, used in order (or a function of the request). Here is a
# one-reply script for a waiter who gets the order right. Pass it to `make_client` and send the
# same request.
#
# Live, `make_client` ignores the script and your own model answers, so the same cell shows you
# what a real model makes of "A latte, please."

# %%
WAITER = [{"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}]

waiter = cafe.make_client(WAITER)
reply = chat(waiter, model=cafe.model_name(), messages=ORDER, tools=[ADD_ITEM]).choices[0].message
for call in reply.tool_calls or []:
    print("tool call:", call.function.name, call.function.arguments)
if not reply.tool_calls:
    print("text:", reply.content)

# %% [markdown]
# ## 7. Your turn
#
# Each session has one small function for you to write. It starts as a stub that raises
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
def check_tool_arguments(fn) -> list[str]:
    """Problems with `fn`, tried on two scripted replies: one tool call, one plain text."""
    replies = [
        {"tool_calls": [{"name": "add_item", "arguments": {"item": "latte", "size": "large"}}]},
        "We are out of oat milk today.",
    ]
    scripted = cafe.make_client(replies, environ={})  # always the scripted client
    problems = []
    for reply, wanted in zip(replies, [{"item": "latte", "size": "large"}, {}]):
        sent = chat(scripted, model=cafe.OFFLINE_MODEL, messages=[{"role": "user", "content": "?"}],
                    tools=[ADD_ITEM])
        got = fn(sent.choices[0].message)
        if got != wanted:
            problems.append(f"for the reply {reply!r} it returned {got!r}, expected {wanted!r}")
    return problems


course.compare(tool_arguments, check=check_tool_arguments, key="s00.tool_arguments")

# %% [markdown]
# Stuck, or done and curious how the reference does it? Flip the switch.

# %%
course.reveal("s00.tool_arguments")

# %% [markdown]
# ## 8. Checkpoint
#
# Each session ends by banking a number in your progress file (`course.progress_path()` says
# where it is). For this session the number is simply whether your set-up works, with the mode
# and model you ran it on. Later sessions bank real measurements, such as how many attempts a
# ticket took to pass.

# %%
course.checkpoint("s00", "setup", {"mode": cafe.course_mode(), "doctor_ok": report.ok},
                  model=cafe.model_name())

# %% [markdown]
# That is the whole routine: predict, run, compare your guess with what happened, reveal,
# write your own version, bank the number. Next, session 01 builds the agent loop itself.
