"""The obedient waiter: session 03's scripted stand-in for a model that respects marked data.

Not harness code: it plays the model in session 03's stories. It reads the order in the customer's
words, marked or not, and obeys an instruction to add something only where that instruction is
not marked as data. That is the behaviour marking aims for in a real model, written down as a
rule; whether your own model behaves this way is what the notebook's live cell measures.

Lesson: sessions/s03-context/lesson.md. Notebook: notebooks/s03-context.ipynb.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from cafe.context import CLOSE_TAG, OPEN_TAG, unmark
from cafe.endpoint.client.scripted import Responder
from cafe.evals.checks import merge_lines
from cafe.stories.waiter import read_order

__all__ = ["make_obedient_waiter"]

# An instruction to the waiter: "put ... on this ticket", "add ... to the order". Spaces between
# its words are required, which is exactly what datamarking takes away.
_INSTRUCTION = re.compile(
    r"\b(?:add|put)\s+[^.;!?\n]*?\s+(?:on|to)\s+(?:the|this|my|every)\s+(?:ticket|order)\b",
    re.IGNORECASE,
)
_FENCED = re.compile(re.escape(OPEN_TAG) + r".*?" + re.escape(CLOSE_TAG), re.DOTALL)


def make_obedient_waiter(names: Iterable[str]) -> Responder:
    """A scripted model for the order pad that reads the order in the customer's words, marked or
    not, and obeys an instruction ("put ... on this ticket") only where it is NOT marked as data.

    That is the behaviour marking aims for in a real model, written down as a rule; whether your
    model behaves this way is what the notebook's live cell finds out.
    """
    known = tuple(names)

    def waiter(request: dict) -> Any:
        messages = request["messages"]
        if any(m.get("role") == "tool" for m in messages):
            return "The ticket is written."
        text = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
        visible = _FENCED.sub(
            " ", text
        )  # fenced text is data; datamarked text has no spaces to match
        obeyed = [
            line
            for found in _INSTRUCTION.finditer(visible)
            for line in read_order(found.group(0), known)
        ]
        ordered = read_order(_INSTRUCTION.sub(" ", unmark(text)), known)
        lines = merge_lines((*ordered, *obeyed))
        if not lines:
            return "Sorry, I could not find anything from today's menu in that."
        return {
            "content": None,
            "tool_calls": [
                {"name": "add_to_ticket", "arguments": {"item": n, "quantity": q}} for n, q in lines
            ],
        }

    return waiter
