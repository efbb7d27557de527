"""Session 08's your-turn checkers, for the notebook's compare cells (`notebooks/s08-tracing.ipynb`).

1. `my_replay_client(trace)`: `check_replay_client` replays runs recorded from replies no model
   would write, then runs whose code changed (naive retries, an 86'd croissant, another model or
   output format) and a recording that runs out, each of which must stop after the calls that
   matched; then generated recordings (`reference_s08.replays`) against `reference_replay`.
2. `my_mask(text)`: `check_mask` tries secrets in sentences (no run of six of a secret's
   characters may stay, the sentence's own word must) and ordinary text, then generated ones.
   The course's `replay_client` and `scrub` are refused; the references are `reference_s08`'s."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.exercises import generated
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    library_answer,
    mismatch,
    shown,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_broken
from cafe.exercises.library import is_library
from cafe.exercises.reference_s08 import (
    MASK_IDEA,
    MASK_PLAIN,
    MASK_SECRETS,
    MASK_WHOLE,
    ReplayPieces,
    answers,
    leaks,
    left_of,
    plain,
    replay,
    replays,
    secrets,
    ticket_json,
    written,
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
    "reference_replay",
    "recorded_runs",
    "check_replay_client",
    "check_mask",
]


# Generated recordings a replay is judged on after the cases: this many keep a compare quick.
REPLAY_EXAMPLES = 100
_BY_WINDOW = "An americano and a croissant, by the window."
_OAT_TRIES: tuple[tuple[int, tuple[str, ...]], ...] = ((7, ("milk",)), (5, ()), (5, ("milk",)))
# Runs recorded from fixed replies, odd enough (a note about the window seat, a ticket for the
# wrong table) that no model in the course writes them: only a replay of the trace can.
_WINDOW = OrderSpec(3, ("americano", "croissant"), notes="window seat", request=_BY_WINDOW)
_OAT = OrderSpec(5, ("oat latte",), ("milk",), request="An oat latte. No dairy for me.")
_NOTED = partial(ticket_json, items=["americano", "croissant"], notes="window seat")
REPLAY_RUNS: tuple[tuple[OrderSpec, tuple[str, ...]], ...] = (
    (_WINDOW, (_NOTED(None), _NOTED(3))),  # no table, then table 3
    # table 7 instead of 5, then the allergy left out, then right
    (_OAT, tuple(ticket_json(t, ["oat latte"], "", a) for t, a in _OAT_TRIES)),
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
    """How the code is run against a replay (at the default cap): retries, menu, model, format."""

    mode: RetryMode = "curated"
    menu: Menu | None = None
    model: str = "cafe-scripted"
    format: str = FORMATS[0]


@dataclass(frozen=True)
class _Replayed:
    """What a replay did: its trace, its error (None: it ran to its end), the calls it answered."""

    trace: Trace
    error: str | None
    answered: int


def _replayed(client: ChatClient, spec: OrderSpec, how: _Replay) -> _Replayed:
    """Run `spec` against `client`, recorded the way `how` says."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(client), how.model, menu=how.menu)
    generate.format = how.format
    error = None
    try:
        record_repair(spec, generate, mode=how.mode, menu=how.menu, recorder=recorder)
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
    if not hasattr(getattr(getattr(client, "chat", None), "completions", None), "create"):
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


def _stops_where_it_differs(fn: Callable[[Trace], Any], diverging: tuple[Any, ...]) -> str | None:
    case, spec, trace, how, matching, idea = diverging
    client = _client_for(fn, case, trace)
    if isinstance(client, str):
        return client
    got = _replayed(client, spec, how)
    if got.error is not None and got.answered == matching:
        return None
    ended = f"ended {got.trace.stop_reason}" if got.error is None else "stopped"
    said = f"the replay answered {got.answered} call(s) and {ended}"
    return _said(case, said, f"a stop after answering {matching} call(s)", idea)


def reference_replay(trace: Trace) -> Any:
    """`reference_s08.replay`, written apart from `ReplayClient`, given the notebook's pieces."""
    pieces = ReplayPieces(_course.request_difference, _course.recorded_reply, ScriptedClient)
    return replay(trace.model_calls, pieces)


def _recording(calls: list[tuple[dict[str, Any], dict[str, Any]]]) -> Trace:
    """Generated (request, reply) calls recorded as one run, through the course's recorder."""
    recorder = Recorder()
    client = recorder.client(ScriptedClient(Script([reply for _, reply in calls])))
    run = recorder.open("run", "a generated run")
    for request, _ in calls:
        client.chat.completions.create(**request)
    recorder.close(run)
    return recorder.trace()


_WHOLE = "answer each recorded call with its whole reply, in order; refuse the first that differs"


def _generated_replay(fn: Callable[[Trace], Any]) -> str | None:
    """The shrunk generated recording and run where `fn` and `reference_replay` part ways."""
    found = generated.first_difference(
        lambda given: answers(lambda: fn(_recording(given[0])), given[1]),
        lambda given: answers(lambda: reference_replay(_recording(given[0])), given[1]),
        built_once(replays),
        idea=_WHOLE,
        examples=REPLAY_EXAMPLES,
    )
    if found is None:
        return None
    got, want = found.returned, found.expected
    step = next((i for i, pair in enumerate(zip(got, want)) if pair[0] != pair[1]), 0)
    case = f"on a generated recording of {found.given[2]}"
    return _said(case, _cut(got[step]), _cut(want[step]), _WHOLE)


def check_replay_client(fn: Callable[[Trace], Any]) -> list[str]:
    """Problems with a `my_replay_client(trace)` (none: it passes). A stub's `NotImplementedError`
    passes through, so `course.compare` can say "not attempted yet"."""
    runs = recorded_runs()
    if is_library(fn, _course.replay_client, _course.ReplayClient, trial=(runs[0][1],)):
        return [library_answer("replay_client")]
    client = _client_for(fn, f"table {runs[0][0].table}'s recorded run", runs[0][1])
    if isinstance(client, str):  # one line is enough: no case can run without a client
        return [client]
    found = [_same_run(fn, spec, trace) for spec, trace in runs]
    found += [_stops_where_it_differs(fn, case) for case in _diverging_cases()]
    problems = [problem for problem in found if problem]
    generated_problem = None if problems else _generated_replay(fn)
    return [*problems, generated_problem] if generated_problem else problems


# --- masking credentials ----------------------------------------------------------------------


def _cut(text: str) -> str:
    return text if len(text) <= 100 else text[:99] + "…"


def _hidden_problem(
    case: str, given: tuple[str, tuple[str, ...], str], masked: Any, idea: str
) -> str | None:
    """What is wrong with a mask's answer on (text, its secrets, a word that must stay), or None.
    Secrets are shown cut in two (`written`): a cell masks what it prints, secrets included."""
    text, found, kept = given
    if isinstance(masked, Raised):
        return masked.problem(case)
    if not isinstance(masked, str):
        return wrong_type(case, masked, "the text, with its secrets masked")
    left = left_of(found, text, masked)
    if left is not None:
        said = f"returned {_cut(written(masked, found))}"
        wanted = " or ".join(written(secret, found) for secret in found)
        return _said(case, said, f"no part of {wanted} left", f"{left!r} is still there: {idea}")
    if kept not in masked:
        idea = "mask the secret only: a trace that hides the sentence hides what happened"
        return mismatch(case, masked, Described(f"text that still says {kept!r}"), idea)
    return None


def _plain_problem(case: str, text: str, masked: Any, idea: str) -> str | None:
    if isinstance(masked, Raised):
        return masked.problem(case)
    if not isinstance(masked, str):
        return wrong_type(case, masked, "the text, unchanged")
    return None if masked == text else mismatch(case, masked, text, idea)


_ONLY = "long, or full of digits, is not a credential: mask only what looks like one"


def _named_secret(fn: Callable[[str], Any], text: str, secret: str, kept: str) -> str | None:
    case, idea = f"the secret in {_cut(written(text, (secret,)))}", MASK_WHOLE
    return _hidden_problem(case, (text, (secret,), kept), call(fn, text), idea)


def _generated_mask(fn: Callable[[str], Any]) -> str | None:
    """The first generated secret your mask leaves, or ordinary text it changes, shrunk."""
    found = first_broken(lambda given: fn(given[0]), built_once(secrets), leaks, examples=150)
    if found:
        case = f"on {_cut(written(found[0][0], found[0][1]))}"
        return _hidden_problem(case, found[0], found[1], MASK_IDEA)
    changed = first_broken(fn, built_once(plain), lambda text, masked: masked != text, examples=150)
    return _plain_problem(f"on {shown(changed[0])}", *changed, MASK_IDEA) if changed else None


def check_mask(fn: Callable[[str], str]) -> list[str]:
    """Problems with a `my_mask(text)`; an empty list means it passes."""
    if is_library(fn, _spans.scrub, _spans.Scrubber, trial=(MASK_SECRETS[0][0],)):
        return [library_answer("scrub")]
    text = MASK_SECRETS[0][0]
    first = call(fn, text)
    if not isinstance(first, (str, Raised)):  # one line is enough: nothing else can be read
        return [wrong_type(f"the secret in {shown(text, 60)}", first, "the text, masked")]
    found = [_named_secret(fn, *secret) for secret in MASK_SECRETS]
    found += [
        _plain_problem(f"ordinary text {shown(text, 60)}", text, call(fn, text), _ONLY)
        for text in MASK_PLAIN
    ]
    problems = [problem for problem in found if problem]
    generated = None if problems else _generated_mask(fn)
    return [*problems, generated] if generated else problems
