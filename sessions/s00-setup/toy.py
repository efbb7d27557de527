"""Session 00 toy: is the course installed, and does one chat make the round trip?

    python sessions/s00-setup/toy.py          # offline: the scripted model answers
    COURSE_MODE=live python sessions/s00-setup/toy.py   # the same request, to your endpoint

It checks that the course's packages import, then sends one café request (with one tool on
offer) through `cafe.make_client()` and prints what came back, in a few lines. Offline the reply
comes from `SCRIPT`, the toy's one-reply script, so the output is the same on every run; live,
`make_client` ignores the script and your model chooses the reply. Rehearsing against
`cafe serve`, the toy says which script answered (`cafe.endpoint.scripts.rehearsals.rehearsal_script`):
the server's default rule, or `cafe serve --session 00`'s waiter. A missing variable or an
endpoint that does not answer is explained in one message and the toy exits with status 1;
`cafe doctor` gives the full diagnosis.
"""

from __future__ import annotations

import sys
import textwrap

import cafe
from cafe.cli import run_command
from cafe.endpoint.client.chat import chat, endpoint_of
from cafe.endpoint.doctor.health import package_versions
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.endpoint.settings.config import OFFLINE_MODEL

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
REQUEST = "A latte, please."
# What the scripted model answers offline: the tool call a good waiter would make.
SCRIPT = [{"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}]
MESSAGES = [
    {"role": "system", "content": "You take orders at a small café. Use the tools."},
    {"role": "user", "content": REQUEST},
]


def describe(message) -> str:
    """One line for the model's reply: its tool calls, or its text."""
    if message.tool_calls:
        calls = ", ".join(f"{c.function.name} {c.function.arguments}" for c in message.tool_calls)
        return f"a tool call: {calls}"
    return f"plain text: {message.content!r}"


def who_answered(mode: str, rehearsal: str | None) -> str:
    """A note on where the reply came from: the toy's script, `cafe serve`, or your model."""
    if mode == "offline":
        return "(the toy's script wrote this reply; live, your model chooses it)"
    if rehearsal == "default":  # `cafe serve` with no script: a rehearsal, not a model
        return "(" + textwrap.fill(default_rehearsal_note("00"), width=88) + ")"
    if rehearsal is not None:
        return f"(cafe serve answered from its {rehearsal} script, not a real model)"
    return "(your model chose this reply)"


def main() -> int:
    try:
        mode = cafe.course_mode()
    except cafe.ConfigError as exc:
        print(f"toy s00: {exc}", file=sys.stderr)
        return 1
    print(
        f"Session 00 toy ({mode}): is the course installed, and does one chat make the round trip?"
    )
    found, missing = package_versions()  # the same list the doctor checks
    print(f"installed: Python {sys.version.split()[0]}; {found}")
    if missing:
        print(
            f'missing:   {", ".join(missing)}. From the course folder run: pip install -e ".[test]"'
        )
        return 1
    try:
        model = cafe.model_name()
        client = cafe.make_client(SCRIPT)
        response = chat(client, model=model, messages=MESSAGES, tools=[ADD_ITEM])
        # `cafe serve` offers the offline model's name unless a script file names others
        rehearsal = (
            rehearsal_script(client, model) if mode == "live" and model == OFFLINE_MODEL else None
        )
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"toy s00: {exc}", file=sys.stderr)
        return 1
    print(f"mode:      {mode} (model {model} at {endpoint_of(client)})")
    print(f"asked:     {REQUEST!r}, with one tool on offer: add_item")
    print(f"answer:    {describe(response.choices[0].message)}")
    for line in who_answered(mode, rehearsal).splitlines():
        print("           " + line)
    print("next:      `cafe doctor` for the full check, then open notebooks/s00-setup.ipynb")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
