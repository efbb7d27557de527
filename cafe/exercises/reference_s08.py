"""Session 08's mask: the cases, a reference written apart from `cafe.trace.spans.scrub`, and
generated texts to judge a mask on.

`my_mask` is open-ended (any mask word, any shapes of one's own), so `check_mask`
(`cafe.exercises.s08`) judges it by the lesson's two properties, on the hand-picked texts here and
then on generated ones: a credential in a sentence leaves no run of `LEFT_RUN` of its characters
and the sentence's own word stays; ordinary café text, model names and trace ids come back exactly
as they were. `tests/test_exercise_references.py` holds the course's `scrub` and `masked` here to
both properties on the same generated texts.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "MASK_SECRETS",
    "MASK_PLAIN",
    "LEFT_RUN",
    "MASK_IDEA",
    "left_of",
    "leaks",
    "masked",
    "secrets",
    "plain",
    "ticket_json",
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


def left_of(secret: str, text: str, masked_text: str) -> str | None:
    """The first run of LEFT_RUN characters of `secret` still in `masked_text` (a run that is
    also in the sentence around the secret does not count)."""
    around = text.replace(secret, " ")
    for start in range(len(secret) - LEFT_RUN + 1):
        run = secret[start : start + LEFT_RUN]
        if run in masked_text and run not in around:
            return run
    return None


MASK_IDEA = (
    "mask every credential of the shapes the lesson names, labels in any case, and leave "
    "ordinary text exactly as it was"
)


def leaks(given: tuple[str, str, str], masked_text: Any) -> bool:
    """Whether a mask's answer on a generated (text, secret, kept word) breaks the property."""
    text, secret, kept = given
    if not isinstance(masked_text, str):
        return True
    return left_of(secret, text, masked_text) is not None or kept not in masked_text


def ticket_json(
    table: int | None, items: list[str], notes: str = "", allergies: tuple[str, ...] = ()
) -> str:
    """A ticket as a model would write it, the table left out when None (session 08's replies)."""
    ticket: dict[str, Any] = {"items": items, "allergies": list(allergies), "notes": notes}
    return json.dumps(ticket if table is None else {"table": table, **ticket})


# --- a reference mask, for the bank and the properties' own test ----------------------------------

_LABEL = r"(?:api[_-]?key|secret|token|password|passwd)"
_SHAPES = (
    r"\bsk-[A-Za-z0-9_-]{8,}",  # OpenAI-style keys, project keys too
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ids
    r"(?<=Bearer )[A-Za-z0-9._~+/=-]{8,}",  # a bearer token after its scheme
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


# --- generated texts -----------------------------------------------------------------------------

_WORDS = ("order", "table", "drawer", "till", "today", "please", "kitchen", "barista")


def secrets() -> Any:
    """(text, secret, a word of the sentence that must stay): a credential of a shape the lesson
    names (sk- keys, AWS ids, bearer tokens, a value after a label in any case and spacing)."""
    from hypothesis import strategies as st

    body = st.text(
        "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789", min_size=8, max_size=24
    )
    upper = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16)
    label = st.sampled_from(
        (
            "api_key",
            "API_KEY",
            "Api-Key",
            "token",
            "TOKEN",
            "password",
            "Password",
            "secret",
            "SECRET",
        )
    )
    sep = st.sampled_from(("=", ": ", ":"))  # the separators the lesson's cases show
    value = body.filter(lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
    shaped = st.one_of(
        body.map(lambda b: ("sk-" + b, "")),
        body.map(lambda b: ("sk-proj-" + b, "")),
        upper.map(lambda b: ("AKIA" + b, "")),
        body.map(lambda b: (b + "." + b[::-1], "Authorization: Bearer ")),
        st.tuples(label, sep, value).map(lambda t: (t[2], t[0] + t[1])),
    )

    def sentence(found: tuple[str, str], before: str, after: str) -> tuple[str, str, str]:
        secret, lead = found
        return f"{before} {lead}{secret} {after}", secret, after

    return st.builds(sentence, shaped, st.sampled_from(_WORDS), st.sampled_from(_WORDS))


def plain() -> Any:
    """Ordinary text: café sentences that say key, token or secret as words, model names with
    dates, trace and span ids, ticket JSON, prices and times."""
    from hypothesis import strategies as st

    hexed = st.text("0123456789abcdef", min_size=16, max_size=32)
    model = st.builds(
        lambda name, y, m, d: f"model {name}-{y}-{m:02d}-{d:02d} answered",
        st.sampled_from(("gpt-4o-mini", "gpt-4.1", "claude-3-5-haiku", "llama-3.1-8b")),
        st.integers(2023, 2027),
        st.integers(1, 12),
        st.integers(1, 28),
    )
    said = st.sampled_from(
        (
            "The key to a good latte is the milk.",
            "A token of thanks: a tip of 2 euros.",
            "The secret ingredient is cinnamon.",
            "Keep the password for the wifi on the board.",
            "Table 7 paid 12.50 at 10:45.",
        )
    )
    ids = hexed.map(lambda h: f"trace {h}, span {h[:16]}")
    ticket = st.builds(
        lambda t, item: f'{{"table": {t}, "items": ["{item}"], "allergies": [], "notes": ""}}',
        st.integers(1, 40),
        st.sampled_from(("flat white", "oat latte", "banana bread")),
    )
    return st.one_of(said, model, ids, ticket)
