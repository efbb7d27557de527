"""Session 08's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s08-tracing.ipynb`) asks for two functions:

1. `my_replay_client(trace)`: a client that answers each model call of a recorded run with the
   reply the recording got, and stops (raises) at the first call that differs from the
   recording. `check_replay_client` replays runs recorded from scripted replies nobody could
   guess, so only the trace can reproduce them; then runs whose code changed in ways a count of
   messages cannot see (naive retries, an 86'd croissant in the system prompt, another model
   asked) and a recording that runs out before the code stops asking. Each must stop, after
   answering exactly the calls that matched. The course's answer is
   `cafe.trace.replay.replay_client`.
2. `my_mask(text)`: the text with anything that looks like a credential masked, and ordinary
   café text left exactly as it was. `check_mask` tries secrets in sentences (no run of six of a
   secret's characters may stay, and the sentence's own word must) and ordinary text, model
   names and trace ids included. The course's answer is `cafe.trace.spans.scrub`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.exercises.feedback import Described, Raised, call, mismatch, shown, wrong_type
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    OMELETTE_SPEC,
    RetryMode,
    make_model_generator,
)
from cafe.trace.record import Recorder, record_repair
from cafe.trace.replay import first_difference
from cafe.trace.spans import Trace, content_hash
from cafe.world.menu import Menu, load_menu

__all__ = [
    "REPLAY_RUNS",
    "MASK_SECRETS",
    "MASK_PLAIN",
    "recorded_runs",
    "check_replay_client",
    "check_mask",
]


def _ticket(
    table: int | None, items: list[str], notes: str = "", allergies: tuple[str, ...] = ()
) -> str:
    ticket: dict[str, Any] = {
        "table": table,
        "items": items,
        "allergies": list(allergies),
        "notes": notes,
    }
    if table is None:
        del ticket["table"]
    return json.dumps(ticket)


# Runs recorded from fixed replies, odd enough (a note about the window seat, a ticket for the
# wrong table) that no model in the course writes them: only a replay of the trace can.
_WINDOW = OrderSpec(
    3,
    ("americano", "croissant"),
    notes="window seat",
    request="An americano and a croissant, by the window.",
)
_OAT = OrderSpec(5, ("oat latte",), ("milk",), request="An oat latte. No dairy for me.")
REPLAY_RUNS: tuple[tuple[OrderSpec, tuple[str, ...]], ...] = (
    (
        _WINDOW,
        (
            _ticket(None, ["americano", "croissant"], "window seat"),
            _ticket(3, ["americano", "croissant"], "window seat"),
        ),
    ),
    (
        _OAT,
        (
            _ticket(7, ["oat latte"], "", ("milk",)),
            _ticket(5, ["oat latte"]),
            _ticket(5, ["oat latte"], "", ("milk",)),
        ),
    ),
    (OMELETTE_SPEC, ALTERNATING_CANDIDATES),
)


def _recorded(spec: OrderSpec, replies: tuple[str, ...], cap: int = 3) -> Trace:
    recorder = Recorder()
    generate = make_model_generator(
        recorder.client(ScriptedClient(Script(list(replies), cycle=True))), "cafe-scripted"
    )
    return record_repair(spec, generate, cap=cap, recorder=recorder)[1]


def recorded_runs() -> list[tuple[OrderSpec, Trace]]:
    """Each of `REPLAY_RUNS` recorded through the scripted client, offline whatever the mode."""
    return [(spec, _recorded(spec, replies)) for spec, replies in REPLAY_RUNS]


@dataclass(frozen=True)
class _Replay:
    """How the code was run against a replay: retries, cap, menu, the model it asks for."""

    mode: RetryMode = "curated"
    cap: int = 3
    menu: Menu | None = None
    model: str = "cafe-scripted"


@dataclass(frozen=True)
class _Replayed:
    """What a replay did: its trace, the error it stopped on (None: it ran to its end), and how
    many model calls it answered before that."""

    trace: Trace
    error: str | None
    answered: int


def _is_client(client: Any) -> bool:
    return hasattr(getattr(getattr(client, "chat", None), "completions", None), "create")


def _replayed(client: ChatClient, spec: OrderSpec, how: _Replay) -> _Replayed:
    """Run `spec` against `client`, recorded the way `how` says."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(client), how.model, menu=how.menu)
    error = None
    try:
        record_repair(spec, generate, cap=how.cap, mode=how.mode, menu=how.menu, recorder=recorder)
    except NotImplementedError:
        raise
    except Exception as exc:  # a stop is what a diverging case wants; the others report it
        error = f"{type(exc).__name__}: {exc}"
    trace = recorder.trace()
    answered = sum(1 for c in trace.model_calls if c.get("gen_ai.output.messages"))
    return _Replayed(trace, error, answered)


def _client_for(fn: Callable[[Trace], Any], case: str, trace: Trace) -> Any:
    """`fn(trace)`, or the problem (a string) when it raised or is no client."""
    client = call(fn, trace)
    if isinstance(client, Raised):
        return client.problem(case)
    if not _is_client(client):
        return wrong_type(case, client, "a client, e.g. ScriptedClient(your_responder)")
    return client


_SAME = "the same code makes the same calls: a replay answers each with its recorded reply"


def _said(case: str, happened: str, expected: str, idea: str) -> str:
    """A rejection worded as `feedback.mismatch` words one, for a run rather than a value."""
    return f"{case}: {happened}, expected {expected}\n  ({' '.join(idea.split())})"


def _same_run(fn: Callable[[Trace], Any], spec: OrderSpec, trace: Trace) -> str | None:
    case = f"table {spec.table}'s recorded run, replayed unchanged"
    client = _client_for(fn, case, trace)
    if isinstance(client, str):
        return client
    got = _replayed(client, spec, _Replay())
    wanted = f"it ends {trace.stop_reason} with the recording's content hash"
    if got.error is not None:
        return _said(case, f"the replay stopped ({shown(got.error, 80)})", wanted, _SAME)
    if got.trace.stop_reason != trace.stop_reason:
        return _said(case, f"the replay ended {got.trace.stop_reason}", wanted, _SAME)
    if content_hash(got.trace) != content_hash(trace):
        span, difference = first_difference(trace, got.trace)  # type: ignore[misc]
        said = f"another hash; first difference at span {span.name!r}: {shown(difference, 60)}"
        return _said(case, said, wanted, _SAME)
    return None


def _diverging_cases() -> list[tuple[str, OrderSpec, Trace, _Replay, int, str]]:
    """(case, spec, recording, how it is replayed, calls that match before it must stop, idea)."""
    (window, full), (oat, oat_trace) = recorded_runs()[:2]
    one_call = _recorded(window, REPLAY_RUNS[0][1], cap=1)
    gone = load_menu()
    gone = dataclasses.replace(gone, sold_out=gone.sold_out | {"croissant"})
    return [
        (
            f"table {window.table}'s run replayed with naive retries",
            *(window, full, _Replay(mode="naive")),
            1,
            "call 2 has lost its retry message: stop at the first call that differs",
        ),
        (
            f"table {oat.table}'s run replayed with the croissant 86'd",
            *(oat, oat_trace, _Replay(menu=gone)),
            0,
            "the menu is in the system prompt: compare every message, not how many there are",
        ),
        (
            f"table {window.table}'s run replayed asking for another model",
            *(window, full, _Replay(model="another-model")),
            0,
            "the model asked for is part of the call the recording made",
        ),
        (
            f"a one-call recording of table {window.table}, replayed with 3 attempts",
            *(window, one_call, _Replay()),
            1,
            "a recording that has run out has no reply for the next call: stop there",
        ),
    ]


def _stops_where_it_differs(
    fn: Callable[[Trace], Any],
    case: str,
    spec: OrderSpec,
    trace: Trace,
    how: _Replay,
    matching: int,
    idea: str,
) -> str | None:
    client = _client_for(fn, case, trace)
    if isinstance(client, str):
        return client
    got = _replayed(client, spec, how)
    if got.error is not None and got.answered == matching:
        return None
    ended = f"ended {got.trace.stop_reason}" if got.error is None else "stopped"
    said = f"the replay answered {got.answered} call(s) and {ended}"
    return _said(case, said, f"a stop after answering {matching} call(s)", idea)


def check_replay_client(fn: Callable[[Trace], Any]) -> list[str]:
    """Problems with a `my_replay_client(trace)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    runs = recorded_runs()
    client = _client_for(fn, f"table {runs[0][0].table}'s recorded run", runs[0][1])
    if isinstance(client, str):  # one line is enough: no case can run without a client
        return [client]
    found = [_same_run(fn, spec, trace) for spec, trace in runs]
    found += [_stops_where_it_differs(fn, *case) for case in _diverging_cases()]
    return [problem for problem in found if problem]


# --- masking credentials ----------------------------------------------------------------------

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


def _left_of(secret: str, text: str, masked: str) -> str | None:
    """The first run of LEFT_RUN characters of `secret` still in `masked` (a run that is also in
    the sentence around the secret does not count)."""
    around = text.replace(secret, " ")
    for start in range(len(secret) - LEFT_RUN + 1):
        run = secret[start : start + LEFT_RUN]
        if run in masked and run not in around:
            return run
    return None


def _secret_problem(fn: Callable[[str], Any], text: str, secret: str, kept: str) -> str | None:
    masked = call(fn, text)
    case = f"the secret in {shown(text, 60)}"
    if isinstance(masked, Raised):
        return masked.problem(case)
    if not isinstance(masked, str):
        return wrong_type(case, masked, "the text, with the secret masked")
    left = _left_of(secret, text, masked)
    if left is not None:
        idea = f"{left!r} is still there: mask all of it, whatever its shape or its label's case"
        return mismatch(case, masked, Described(f"no part of {secret!r} left"), idea)
    if kept not in masked:
        idea = "mask the secret only: a trace that hides the sentence hides what happened"
        return mismatch(case, masked, Described(f"text that still says {kept!r}"), idea)
    return None


def _plain_problem(fn: Callable[[str], Any], text: str) -> str | None:
    masked = call(fn, text)
    case = f"ordinary text {shown(text, 60)}"
    if isinstance(masked, Raised):
        return masked.problem(case)
    if not isinstance(masked, str):
        return wrong_type(case, masked, "the text, unchanged")
    if masked != text:
        idea = "long, or full of digits, is not a credential: mask only what looks like one"
        return mismatch(case, masked, text, idea)
    return None


def check_mask(fn: Callable[[str], str]) -> list[str]:
    """Problems with a `my_mask(text)`; an empty list means it passes."""
    text = MASK_SECRETS[0][0]
    first = call(fn, text)
    if not isinstance(first, (str, Raised)):  # one line is enough: nothing else can be read
        return [wrong_type(f"the secret in {shown(text, 60)}", first, "the text, masked")]
    found = [_secret_problem(fn, *secret) for secret in MASK_SECRETS]
    found += [_plain_problem(fn, text) for text in MASK_PLAIN]
    return [problem for problem in found if problem]
