"""The hurried waiter: session 02's scripted stand-in for the model at the order pad.

Not harness code: it plays the model in session 02's stories (`cafe.evals.run` runs the loop over
the labelled orders; this decides what the model does in each). It reads menu names and the
quantity word just before each, literally, and nothing more, so it gets some orders wrong the way
a hurried human does; with `slip` it also forgets items at random, for the flaky-eval story. Live
mode replaces it with your model.

Lesson: sessions/s02-evals/lesson.md. Notebook: notebooks/s02-evals.ipynb.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from cafe.endpoint.client.scripted import Responder
from cafe.evals.checks import Line, merge_lines

__all__ = ["NUMBER_WORDS", "read_order", "make_waiter"]

# The quantity words the scripted waiter understands, and nothing more (on purpose).
NUMBER_WORDS: Mapping[str, int] = MappingProxyType(
    {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
)


def read_order(text: str, names: Iterable[str]) -> tuple[Line, ...]:
    """The menu items named in `text`, each with the number word or digit just before it.

    Deliberately literal: it reads names and numbers, and nothing else (no "no", no "instead").
    """
    lowered, found = text.lower(), []
    numbers = "|".join(NUMBER_WORDS)
    for name in sorted(names, key=len, reverse=True):  # "oat latte" before "latte"
        pattern = re.compile(rf"(?:\b(\d+|{numbers})\s+)?\b{re.escape(name)}(?:e?s)?\b")
        for match in pattern.finditer(lowered):
            word = match.group(1) or "a"
            found.append((match.start(), name, int(word) if word.isdigit() else NUMBER_WORDS[word]))
        lowered = pattern.sub(lambda m: " " * len(m.group(0)), lowered)  # each word is read once
    return merge_lines((name, quantity) for _, name, quantity in sorted(found))


def make_waiter(
    names: Iterable[str], *, slip: float = 0.0, rng: random.Random | None = None
) -> Responder:
    """A scripted model for the order pad: it adds every item `read_order` finds, then says done.

    With `slip` > 0 it forgets the last item of an order that often, drawing from `rng` (pass a
    seeded `random.Random`), which makes repeated eval runs disagree the way a sampled model does.
    """
    if not 0 <= slip <= 1:
        raise ValueError(f"slip is {slip!r}; give a probability from 0 to 1.")
    if slip and rng is None:
        raise ValueError(
            "A waiter that slips needs rng=random.Random(seed), so runs can be repeated."
        )
    known = tuple(names)

    def waiter(request: dict) -> Any:
        messages = request["messages"]
        if any(m.get("role") == "tool" for m in messages):
            return "The ticket is written."
        words = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
        lines = list(read_order(words, known))
        if slip and lines and rng is not None and rng.random() < slip:
            lines.pop()
        if not lines:
            return "Sorry, I could not find anything from today's menu in that."
        return {
            "content": None,
            "tool_calls": [
                {"name": "add_to_ticket", "arguments": {"item": n, "quantity": q}} for n, q in lines
            ],
        }

    return waiter
