"""Session 08's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s08-tracing.ipynb`) asks for two functions:

1. `my_replay_client(trace)`: a client that answers each model call of a recorded run with the
   reply the recording got, and stops (raises) at the first call that differs from the
   recording. `check_replay_client` replays runs recorded from scripted replies nobody could
   guess, so only the trace can reproduce them; then runs whose code changed in ways a count of
   messages cannot see (naive retries, an 86'd croissant in the system prompt, another model
   asked) and a recording that runs out before the code stops asking. Each must stop, after
   answering exactly the calls that matched (another output format asked for too). The course's
   `replay_client` is refused; `reference_replay` is written apart from it.
2. `my_mask(text)`: the text with anything that looks like a credential masked, and ordinary
   café text left exactly as it was. `check_mask` tries secrets in sentences (no run of six of a
   secret's characters may stay, and the sentence's own word must) and ordinary text, model
   names and trace ids included, then generated ones (`cafe.exercises.reference_s08`). The
   course's `scrub` is refused: write your own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    shown,
    wrong_type,
)
from cafe.exercises.generated import first_broken, is_library
from cafe.exercises.reference_s08 import (
    MASK_IDEA,
    MASK_PLAIN,
    MASK_SECRETS,
    leaks,
    left_of,
    plain,
    secrets,
    ticket_json,
)
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    OMELETTE_SPEC,
    RetryMode,
    make_model_generator,
)
from cafe.schema.drafts import FORMATS
from cafe.trace import replay as _course
from cafe.trace import spans as _spans
from cafe.trace.record import Recorder, record_repair
from cafe.trace.replay import first_difference
from cafe.trace.spans import Trace, content_hash
from cafe.world.menu import Menu, load_menu

__all__ = [
    "REPLAY_RUNS",
    "MASK_SECRETS",
    "MASK_PLAIN",
    "reference_replay",
    "recorded_runs",
    "check_replay_client",
    "check_mask",
]


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
            ticket_json(None, ["americano", "croissant"], "window seat"),
            ticket_json(3, ["americano", "croissant"], "window seat"),
        ),
    ),
    (
        _OAT,
        (
            ticket_json(7, ["oat latte"], "", ("milk",)),
            ticket_json(5, ["oat latte"]),
            ticket_json(5, ["oat latte"], "", ("milk",)),
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
    format: str = FORMATS[0]


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
    generate.format = how.format
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
            f"table {window.table}'s run replayed asking for another output format",
            *(window, full, _Replay(format=FORMATS[-1])),
            0,
            "the output format asked for is part of the call: compare the whole request",
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


def reference_replay(trace: Trace) -> ScriptedClient:
    """The replay, written apart from `cafe.trace.replay.ReplayClient`, from the notebook's pieces:
    each request compared with the next recorded call, answered with its reply, or refused."""
    left = list(trace.model_calls)

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        if not left:
            raise LookupError("the recording has no call left for this request")
        span = left.pop(0)
        if _course.request_difference(span, request) is not None:
            raise LookupError(f"this call differs from the recording's: {span.name}")
        return _course.recorded_reply(span)

    return ScriptedClient(answer)


def check_replay_client(fn: Callable[[Trace], Any]) -> list[str]:
    """Problems with a `my_replay_client(trace)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    if is_library(fn, _course.replay_client, _course.ReplayClient):
        return [library_answer("replay_client")]
    runs = recorded_runs()
    client = _client_for(fn, f"table {runs[0][0].table}'s recorded run", runs[0][1])
    if isinstance(client, str):  # one line is enough: no case can run without a client
        return [client]
    found = [_same_run(fn, spec, trace) for spec, trace in runs]
    found += [_stops_where_it_differs(fn, *case) for case in _diverging_cases()]
    return [problem for problem in found if problem]


# --- masking credentials ----------------------------------------------------------------------


def _secret_problem(fn: Callable[[str], Any], text: str, secret: str, kept: str) -> str | None:
    masked = call(fn, text)
    case = f"the secret in {shown(text, 60)}"
    if isinstance(masked, Raised):
        return masked.problem(case)
    if not isinstance(masked, str):
        return wrong_type(case, masked, "the text, with the secret masked")
    left = left_of(secret, text, masked)
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


def _generated_mask(fn: Callable[[str], Any]) -> str | None:
    """The first generated secret your mask leaves, or ordinary text it changes, shrunk."""
    found = first_broken(lambda given: fn(given[0]), secrets(), leaks, examples=150)
    if found:
        (text, secret, _), masked = found
        want = Described(f"no part of {secret!r} left, the sentence kept")
        return counterexample(text, masked, want, MASK_IDEA)
    changed = first_broken(fn, plain(), lambda text, masked: masked != text, examples=150)
    if changed:
        return counterexample(changed[0], changed[1], changed[0], MASK_IDEA)
    return None


def check_mask(fn: Callable[[str], str]) -> list[str]:
    """Problems with a `my_mask(text)`; an empty list means it passes."""
    if is_library(fn, _spans.scrub, _spans.Scrubber):
        return [library_answer("scrub")]
    text = MASK_SECRETS[0][0]
    first = call(fn, text)
    if not isinstance(first, (str, Raised)):  # one line is enough: nothing else can be read
        return [wrong_type(f"the secret in {shown(text, 60)}", first, "the text, masked")]
    found = [_secret_problem(fn, *secret) for secret in MASK_SECRETS]
    found += [_plain_problem(fn, text) for text in MASK_PLAIN]
    problems = [problem for problem in found if problem]
    generated = None if problems else _generated_mask(fn)
    return [*problems, generated] if generated else problems
