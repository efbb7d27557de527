"""Session 08's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s08-tracing.ipynb`) asks for two functions:

1. `my_replay_client(trace)`: a client that answers each model call of a recorded run with the
   reply the recording got, and stops (raises) at the first call that differs from the
   recording. `check_replay_client` replays runs recorded from scripted replies nobody could
   guess, so only the trace can reproduce them, then a run whose code changed; the course's
   answer is `cafe.trace.replay.replay_client`.
2. `my_mask(text)`: the text with anything that looks like a credential masked, and ordinary
   café text left exactly as it was. `check_mask` tries both; the course's answer is
   `cafe.trace.spans.scrub`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.scripted import Script, ScriptedClient
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    OMELETTE_SPEC,
    RetryMode,
    make_model_generator,
)
from cafe.trace.record import Recorder, record_repair
from cafe.trace.replay import first_difference
from cafe.trace.spans import Trace, content_hash

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
    3, ("americano", "croissant"), request="An americano and a croissant, by the window."
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


def recorded_runs() -> list[tuple[OrderSpec, Trace]]:
    """Each of `REPLAY_RUNS` recorded through the scripted client, offline whatever the mode."""
    runs = []
    for spec, replies in REPLAY_RUNS:
        recorder = Recorder()
        generate = make_model_generator(
            recorder.client(ScriptedClient(Script(list(replies), cycle=True))), "cafe-scripted"
        )
        runs.append((spec, record_repair(spec, generate, recorder=recorder)[1]))
    return runs


def _replayed(
    fn: Callable[[Trace], Any], spec: OrderSpec, trace: Trace, mode: RetryMode
) -> tuple[Trace, str | None]:
    """Run `spec` against `fn(trace)`, recorded; the new trace and the error it stopped on, if any."""
    client = fn(trace)
    if not hasattr(getattr(getattr(client, "chat", None), "completions", None), "create"):
        raise TypeError(
            f"returned {type(client).__name__}; return a client, e.g. ScriptedClient(your_responder)"
        )
    recorder = Recorder()
    try:
        record_repair(
            spec,
            make_model_generator(recorder.client(client), "cafe-scripted"),
            recorder=recorder,
            mode=mode,
        )
    except NotImplementedError:
        raise
    except Exception as exc:  # a stop is what the diverging case wants; the others report it
        return recorder.trace(), f"{type(exc).__name__}: {exc}"
    return recorder.trace(), None


def _same_run(fn: Callable[[Trace], Any], spec: OrderSpec, trace: Trace) -> list[str]:
    label = f"table {spec.table}'s recorded run"
    try:
        replayed, error = _replayed(fn, spec, trace, "curated")
    except NotImplementedError:
        raise
    except Exception as exc:
        return [f"{label}: my_replay_client raised {type(exc).__name__}: {exc}"]
    if error is not None:
        return [
            f"{label}: the replay of an unchanged run stopped ({error}); the same code makes the same calls"
        ]
    if replayed.stop_reason != trace.stop_reason:
        return [
            f"{label}: the replay ended {replayed.stop_reason}, the recording {trace.stop_reason}"
        ]
    if content_hash(replayed) != content_hash(trace):
        span, difference = first_difference(trace, replayed)  # type: ignore[misc]
        return [
            f"{label}: same ending, different content hash; first difference at span {span.name!r}: {difference}"
        ]
    return []


def _stops_where_it_differs(fn: Callable[[Trace], Any], spec: OrderSpec, trace: Trace) -> list[str]:
    """Replayed with naive retries, the run asks call 2 with different messages: it must stop there."""
    label = f"table {spec.table}'s run replayed with naive retries"
    try:
        replayed, error = _replayed(fn, spec, trace, "naive")
    except NotImplementedError:
        raise
    except Exception as exc:
        return [f"{label}: my_replay_client raised {type(exc).__name__}: {exc}"]
    answered = [c for c in replayed.model_calls if c.get("gen_ai.output.messages")]
    if error is None:
        return [
            f"{label}: the replay answered every call, but call 2 is not the call the recording made "
            "(its retry message is gone); a replay must stop at the first call that differs"
        ]
    if len(answered) != 1:
        return [
            f"{label}: the replay answered {len(answered)} call(s) before stopping; call 1 matched the "
            "recording and call 2 did not, so it should answer exactly one"
        ]
    return []


def check_replay_client(fn: Callable[[Trace], Any]) -> list[str]:
    """Problems with a `my_replay_client(trace)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    problems: list[str] = []
    runs = recorded_runs()
    for spec, trace in runs:
        problems += _same_run(fn, spec, trace)
    problems += _stops_where_it_differs(fn, *runs[0])
    return problems


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
)
# Ordinary text a mask must leave exactly as it is.
MASK_PLAIN: tuple[str, ...] = (
    "Order for table 4.\nItems: oat latte, banana bread\nDeclared allergies: milk",
    "The key to good coffee is fresh beans; ask-me-anything about the skim-free menu.",
    '{"table": 12, "items": ["flat white"], "allergies": [], "notes": "extra hot"}',
    "A token of thanks for the barista: a tip of 2 euros.",
)


def check_mask(fn: Callable[[str], str]) -> list[str]:
    """Problems with a `my_mask(text)`; an empty list means it passes."""
    problems = []
    for text, secret, kept in MASK_SECRETS:
        masked = fn(text)
        if not isinstance(masked, str):
            return [f"my_mask returned {type(masked).__name__}; return the text, masked"]
        if secret in masked:
            problems.append(f"left {secret!r} in {masked!r}")
        elif kept not in masked:
            problems.append(
                f"masked more than the secret: {text!r} became {masked!r} ({kept!r} is gone)"
            )
    for text in MASK_PLAIN:
        masked = fn(text)
        if masked != text:
            problems.append(f"changed ordinary text: {text!r} became {masked!r}")
    return problems
