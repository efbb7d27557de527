"""Session 08's generated texts, the inputs `check_mask` (`cafe.exercises.s08`) judges a mask on
after its hand-picked cases: secrets inside sentences (`secrets`), ordinary text a mask must leave
exactly as it was (`plain`), and how a text with secrets is written in feedback (`written`).

A secret is drawn from every shape the lesson names (`sessions/s08-tracing/lesson.md`, "What must
never reach a trace": an `sk-` key, a bearer token, an AWS key id, a GitHub token, `password: ...`,
`?api-key=...`; a GitHub token of either kind, `ghp_...` or fine-grained `github_pat_...`) and
after every label the notebook names for a value ("`token=`, `Secret:`, an api key or a password,
the label in any case"): an api key in each way it is written, each label in any case letter by
letter, then ':' or '=' and any spacing, or in a URL's query. `reference_s08` re-exports these;
this module imports nothing from `cafe`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["secrets", "plain", "written"]

_WORDS = ("order", "table", "drawer", "till", "today", "please", "kitchen", "barista")
_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
# Where a bearer token comes after its scheme: a header, or the scheme alone, in any case (HTTP
# reads the scheme's name in any case).
_BEARERS = ("Authorization: Bearer ", "authorization: bearer ", "Bearer ", "BEARER ")
# The labels the notebook names for a value ("`token=`, `Secret:`, an api key or a password"),
# an api key in each way it is written; the case is drawn letter by letter (`_any_case`).
_LABELS = ("api key", "api-key", "api_key", "apikey", "token", "secret", "password")
# How a label meets its value: ':' or '=' right after it, then any spacing (the notebook's
# `token=` and `Secret:`, the lesson's `password: ...`); the lessons put no space before either.
_SEPARATORS = ("=", ": ", ":", "= ", ":  ", ":\t")
# Where a label names a value in a URL's query (the lesson's `?api-key=...`): first or later.
_QUERIES = ("https://till.example/pay?", "https://till.example/pay?table=4&")


def _any_case(word: str) -> Any:
    """`word` with each letter in either case, lower case first (a shrunk example reads plain)."""
    from hypothesis import strategies as st

    ups = st.lists(st.booleans(), min_size=len(word), max_size=len(word))
    return ups.map(lambda up: "".join(c.upper() if u else c for c, u in zip(word, up)))


def _shaped() -> Any:
    """(secret, what comes before it): one credential of a shape the lesson names."""
    from hypothesis import strategies as st

    body = st.text(_ALNUM, min_size=8, max_size=24)
    # real sk- keys hold dashes and underscores after their first character
    key = st.text(_ALNUM + "-_", min_size=8, max_size=24).filter(lambda k: k[0] not in "-_")
    upper = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16)
    value = body.filter(lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
    label = st.sampled_from(_LABELS).flatmap(_any_case)
    labelled = st.tuples(label, st.sampled_from(_SEPARATORS), value)
    named = st.tuples(st.sampled_from(_QUERIES), label.filter(lambda n: " " not in n), value)
    # a fine-grained token: 22 characters, an underscore, then the rest (59 in a real one)
    fine = st.tuples(
        st.text(_ALNUM, min_size=22, max_size=22), st.text(_ALNUM, min_size=20, max_size=59)
    )
    return st.one_of(
        key.map(lambda b: ("sk-" + b, "")),
        key.map(lambda b: ("sk-proj-" + b, "")),
        st.tuples(st.sampled_from(("AKIA", "ASIA")), upper).map(lambda t: (t[0] + t[1], "")),
        st.tuples(st.sampled_from("pousr"), st.text(_ALNUM, min_size=20, max_size=40)).map(
            lambda t: (f"gh{t[0]}_{t[1]}", "")
        ),
        fine.map(lambda t: (f"github_pat_{t[0]}_{t[1]}", "")),
        st.tuples(st.sampled_from(_BEARERS), body).map(lambda t: (t[1] + "." + t[1][::-1], t[0])),
        labelled.map(lambda t: (t[2], t[0] + t[1])),
        named.map(lambda t: (t[2], f"{t[0]}{t[1]}=")),
    )


def secrets() -> Any:
    """(text, its secrets, a word of the sentence that must stay): one to three credentials of
    the shapes the lesson names (sk- keys, AWS ids, GitHub tokens fine-grained too, bearer tokens,
    a value after a label of any spelling, case and spacing, or in a URL's query), each after a
    word of a sentence."""
    from hypothesis import strategies as st

    def sentence(found: list[tuple[str, tuple[str, str]]], last: str) -> Any:
        text = " ".join(f"{word} {lead}{secret}" for word, (secret, lead) in found)
        return f"{text} {last}", tuple(secret for _, (secret, _) in found), last

    word = st.sampled_from(_WORDS)
    return st.builds(sentence, st.lists(st.tuples(word, _shaped()), min_size=1, max_size=3), word)


# Free text: letters (accented ones too), spaces and plain punctuation, no digits (a learner may
# mask card or phone numbers) and none of the characters a credential's shape needs (- _ : = / @).
_FREE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéèàçöñ ,.!?'()"
_SPACES = ("", " ", "  ", "\n", "\t", "\n\n", " \n")  # between, before and after pieces


def plain() -> Any:
    """Ordinary text: café sentences that say key, token or secret as words, model names with
    dates, trace and span ids, ticket JSON, prices and times, free text, joined and surrounded
    by any whitespace (a mask changes none of it, not even a space at either end)."""
    from hypothesis import strategies as st

    # ids with a letter: all digits would read as a card number, which a learner may mask
    hexed = st.text("0123456789abcdef", min_size=16, max_size=32).filter(
        lambda h: any(c.isalpha() for c in h)
    )
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
            "A risk-free, whisk-ed skim-milk foam.",
        )
    )
    ids = hexed.map(lambda h: f"trace {h}, span {h[:16]}")
    ticket = st.builds(
        lambda t, item: f'{{"table": {t}, "items": ["{item}"], "allergies": [], "notes": ""}}',
        st.integers(1, 40),
        st.sampled_from(("flat white", "oat latte", "banana bread")),
    )
    piece = st.one_of(said, model, ids, ticket, st.text(_FREE, min_size=1, max_size=30))
    pieces = st.lists(st.tuples(piece, st.sampled_from(_SPACES)), min_size=1, max_size=3)
    return st.builds(
        lambda before, parts: before + "".join(part + gap for part, gap in parts),
        st.sampled_from(_SPACES),
        pieces,
    )


def written(text: str, found: tuple[str, ...]) -> str:
    """`text` as a Python expression with each secret cut after its fourth character
    (`'order ' + 'sk-A' + '0000000'`): a cell's output masks anything shaped like a credential, and
    a cut one survives, so the learner sees the input and can paste it."""
    pieces, rest = [], text
    while True:
        at = [(rest.find(s), s) for s in found if s and s in rest]
        if not at:
            break
        start, secret = min(at)
        pieces += [rest[:start], secret[:4], secret[4:]]
        rest = rest[start + len(secret) :]
    return " + ".join(repr(piece) for piece in [*pieces, rest] if piece) or repr(text)
