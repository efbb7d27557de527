"""Session 08's references, written apart from the course's: a mask (`cafe.trace.spans.scrub`'s
twin), a replay (`ReplayClient`'s), and the inputs `cafe.exercises.s08` judges them on.

`my_mask` is open-ended (any mask word, any shapes of one's own), so `check_mask` judges it by the
lesson's two properties, on hand-picked and then generated texts (`reference_s08_texts`,
re-exported here): a credential in a sentence leaves no run of `LEFT_RUN` of its characters and
the sentence's own word stays; café text, model names and trace ids come back exactly
(`tests/test_exercise_references.py` holds `scrub` and `masked` to both). `my_replay_client` is
compared with `replay` on generated recordings (`replays`). This module imports nothing from
`cafe` but its own texts: the pieces are passed in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cafe.exercises.reference_s08_texts import plain, secrets, written

__all__ = [
    "MASK_SECRETS",
    "MASK_PLAIN",
    "LEFT_RUN",
    "MASK_IDEA",
    "MASK_WHOLE",
    "left_of",
    "leaks",
    "masked",
    "secrets",
    "plain",
    "written",
    "ticket_json",
    "ReplayPieces",
    "replay",
    "answers",
    "replays",
]

# Things that must never reach a trace, each inside an ordinary sentence: the secret must go, and
# a word of the sentence around it must stay (masking the whole text hides what happened).
MASK_SECRETS: tuple[tuple[str, str, str], ...] = (
    ("Use key sk-proj-7Hq2LxV9mN4pR8sT1wZ3 for the order", "sk-proj-7Hq2LxV9mN4pR8sT1wZ3", "order"),
    (
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc123",
        "eyJhbGciOiJIUzI1NiJ9.e30.abc123",
        "Authorization",
    ),
    ("the till's api_key=till-4f9a2c7e81 is in the drawer", "till-4f9a2c7e81", "drawer"),
    ("password: espresso-martini-99, do not share", "espresso-martini-99", "share"),
    ("AWS key AKIAIOSFODNN7EXAMPLE leaked", "AKIAIOSFODNN7EXAMPLE", "leaked"),
    ("PASSWORD=Latte-Art-2026 for the till", "Latte-Art-2026", "till"),
    ("my token=cafe-till-778899 expires today", "cafe-till-778899", "expires"),
    ("Secret: 7d1e55aa9c0b, keep it safe", "7d1e55aa9c0b", "safe"),
)
# Ordinary text a mask must leave exactly as it is: a model's name and a trace's ids are long,
# full of digits and never a credential.
MASK_PLAIN: tuple[str, ...] = (
    "Order for table 4.\nItems: oat latte, banana bread\nDeclared allergies: milk",
    "The key to good coffee is fresh beans; ask-me-anything about the skim-free menu.",
    '{"table": 12, "items": ["flat white"], "allergies": [], "notes": "extra hot"}',
    "A token of thanks for the barista: a tip of 2 euros.",
    "model gpt-4o-mini-2024-07-18 answered in 1.2 s",
    "trace 4bf92f3577b34da6a3ce929d0e0e4736, span 00f067aa0ba902b7",
    "The secret ingredient is cinnamon.",
)
# A masked text may keep no run of this many characters of a secret: "sk-proj-[redacted]" hides
# nothing, and neither does a mask that drops only the label.
LEFT_RUN = 6


def left_of(found: tuple[str, ...], text: str, masked_text: str) -> str | None:
    """The first run of LEFT_RUN characters of a secret of `found` (the secrets in `text`) still in
    `masked_text`; a run that is also in the text around the secrets does not count."""
    around = text
    for secret in found:
        around = around.replace(secret, " ")
    runs = (secret[i : i + LEFT_RUN] for secret in found for i in range(len(secret) - LEFT_RUN + 1))
    return next((run for run in runs if run in masked_text and run not in around), None)


MASK_WHOLE = "mask all of it, whatever its shape or its label's case"
MASK_IDEA = (
    "mask every credential of the shapes the lesson names, and any value after a label (an api "
    "key however it is written, token, secret, password), the label in any case and spacing, and "
    "leave ordinary text exactly as it was"
)


def leaks(given: tuple[str, tuple[str, ...], str], masked_text: Any) -> bool:
    """Whether a mask's answer on a generated (text, its secrets, a word that must stay) breaks
    the property: not a text, a run of a secret left, or the word gone."""
    text, found, kept = given
    if not isinstance(masked_text, str):
        return True
    return kept not in masked_text or left_of(found, text, masked_text) is not None


def ticket_json(
    table: int | None, items: list[str], notes: str = "", allergies: tuple[str, ...] = ()
) -> str:
    """A ticket as a model would write it, the table left out when None (session 08's replies)."""
    ticket: dict[str, Any] = {"items": items, "allergies": list(allergies), "notes": notes}
    return json.dumps(ticket if table is None else {"table": table, **ticket})


# --- a reference mask, for the bank and the properties' own test ----------------------------------

_LABEL = r"(?:api[ _-]?key|secret|token|password|passwd)"  # an api key however it is written
_SHAPES = (
    r"\bsk-[A-Za-z0-9_-]{8,}",  # OpenAI-style keys, project keys too
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids, long-lived and temporary
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",  # GitHub's fine-grained tokens
    r"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{8,}",  # a bearer token after its scheme, in any case
)


def masked(text: str) -> str:
    """`text` with credentials replaced by [masked]: known shapes, and a labelled value (a label
    in any case, then ':' or '=')."""
    for shape in _SHAPES:
        text = re.sub(shape, "[masked]", text)
    return re.sub(
        rf"(?i)(?<![A-Za-z])({_LABEL}\s*[:=]\s*)[^\s,;\"']+",
        lambda found: found.group(1) + "[masked]",
        text,
    )


# --- the replay client: a reference, and generated recordings ------------------------------------


@dataclass(frozen=True)
class ReplayPieces:
    """The notebook's pieces a replay is built from, passed in: `request_difference`,
    `recorded_reply`, and a client that asks a responder for every reply (`ScriptedClient`)."""

    request_difference: Callable[[Any, dict[str, Any]], Any]
    recorded_reply: Callable[[Any], Any]
    client: Callable[[Callable[[dict[str, Any]], Any]], Any]


def replay(calls: Sequence[Any], pieces: ReplayPieces) -> Any:
    """The replay written from the notebook's pieces, apart from the course's `ReplayClient`:
    each request compared with the next recorded call, answered with its reply, or refused."""
    left = list(calls)

    def answer(request: dict[str, Any]) -> Any:
        if not left:
            raise LookupError("the recording has no call left for this request")
        span = left.pop(0)
        if pieces.request_difference(span, request) is not None:
            raise LookupError(f"this call differs from the recording's: {span.name}")
        return pieces.recorded_reply(span)

    return pieces.client(answer)


def answers(build: Callable[[], Any], asked: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    """What the replay `build()` makes does with a run's requests: each answer (content, tool
    calls, finish reason, tokens in and out), up to the first call it refuses."""
    said: list[str] = []
    try:
        client = build()
        for request in asked:
            reply = client.chat.completions.create(**request)
            choice, usage = reply.choices[0], reply.usage
            tools = [tool.function.name for tool in choice.message.tool_calls or []]
            got = (choice.message.content, tools, choice.finish_reason)
            said.append(
                f"call {len(said) + 1}: {got}, tokens {usage.prompt_tokens}+{usage.completion_tokens}"
            )
    except Exception:  # a stop, however the replay words it (or an answer no completion is)
        return (*said, f"call {len(said) + 1} refused")
    return (*said, "no call refused")


def _replayed(made: list[Any], what: str, at: int, value: Any) -> Any:
    """A replay's requests: the recorded ones, with `what` done at call `at` (a field: `value`)."""
    asked, said = [request for request, _ in made], f"call {at + 1} with another {what}"
    if what == "skipped":
        del asked[at]
        said = f"call {at + 1} skipped"
    elif what == "asked again":
        asked.append(asked[at])  # the code asks once more, as it asked at call `at`
        said = f"call {at + 1} asked again at the end"
    elif what == "nothing":
        said = "unchanged"
    else:
        asked[at] = {**asked[at], what: value}
    return made, asked, f"{len(made)} call(s), {said}"


def replays() -> Any:
    """(calls a recording made, each (request, reply); the requests a replay makes; what
    changed): one to four calls with replies no model would write (odd token counts, a reply cut
    at its length, a tool call), replayed unchanged, with one field of one call's request
    changed (model, messages, output format, tools), a call skipped, or a call asked again."""
    from hypothesis import strategies as st

    words = st.sampled_from(("an americano", "a croissant", "oat milk", "table 4", "no nuts"))
    tool = st.sampled_from(("menu", "ticket"))
    fields = {
        "model": st.sampled_from(("cafe-scripted", "gpt-4o-mini")),
        "messages": st.lists(words, min_size=1, max_size=2).map(
            lambda said: (
                [{"role": "system", "content": "Take the order."}]
                + [{"role": "user", "content": w} for w in said]
            )
        ),
        "response_format": st.sampled_from(
            (None, {"type": "json_object"}, {"type": "json_schema", "json_schema": {"name": "t"}})
        ),
        "tools": st.lists(tool, max_size=2, unique=True).map(
            lambda names: [{"type": "function", "function": {"name": n}} for n in names]
        ),
    }
    reply = st.fixed_dictionaries(
        {
            "content": words,
            "tool_calls": st.lists(tool.map(lambda n: {"name": n, "arguments": "{}"}), max_size=1),
            "finish_reason": st.sampled_from(("stop", "length", "tool_calls")),
            "usage": st.fixed_dictionaries(
                {"prompt_tokens": st.integers(1, 999), "completion_tokens": st.integers(1, 99)}
            ),
        }
    )
    calls = st.lists(st.tuples(st.fixed_dictionaries(fields), reply), min_size=1, max_size=4)
    kinds = ("nothing", "skipped", "asked again", *fields)

    def changed(made: list[Any], what: str, at: int) -> Any:  # a field's value: really another
        recorded = made[at][0].get(what)
        values = fields[what].filter(lambda v: v != recorded) if what in fields else st.none()
        return values.map(lambda value: _replayed(made, what, at, value))

    return calls.flatmap(
        lambda made: st.tuples(st.sampled_from(kinds), st.integers(0, len(made) - 1)).flatmap(
            lambda change: changed(made, *change)
        )
    )
