"""Record a run as a trace: a tree of spans, taken from the seams the harness already has.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). Session
07's re-ask ends on a stop reason and forgets everything else. This module keeps the rest,
without touching the loop's body: it wraps what the loop is handed.

- `Recorder`: builds one run's spans. `recorder.client(client)` gives a client that records
  every model call (`chat.completions.create`) as a `model_call` span, with the OpenTelemetry
  GenAI attributes (`gen_ai.request.model`, `gen_ai.usage.input_tokens`, ...).
- `record_repair(spec, generate)`: runs `cafe.repair.repair_ticket` with the generator wrapped,
  so each attempt is a span holding its model call and its `check`; returns the result and the
  `Trace`. A generator with no recorded client behind it still gets a `model_call` per attempt.
- `record_loop(client, messages, tools)`: runs `cafe.loop.run_loop` on a recording client plus
  one after-turn hook; each turn is a span holding its model call and its tool calls.

Reading a trace (what sessions 09 and 10 use), all importable from here:

    trace = read_trace("run.jsonl")        # or read_traces(path) for a file of many runs
    trace.stop_reason                      # "passed", "retries_exhausted", "done", ...
    trace.model, trace.usage               # the model asked for; (input, output) tokens or None
    trace.of_kind("attempt")               # spans of one kind; trace.children(span); trace.walk()
    span.get("cafe.check.failures")        # e.g. ["missing_field"] on a failed `check` span
    content_hash(trace)                    # "sha256:..." over what happened, not ids or times

No API key reaches a trace: the recorder never reads request headers, and every string a
span's attributes hold is passed through a `cafe.trace.spans.Scrubber` holding the client's key. A
model call's and a check's attributes are built (and masked) when they are first read
(`cafe.trace.spans.DeferredAttributes`), so a run pays for that only if its trace is read: a file, an
export, a hash and a print all read them. What it leaves out: the file format
(`cafe.trace.file`), replay (`cafe.trace.replay`), OpenTelemetry export (`cafe.trace.otel`), and
reading a shift of runs (session 09).
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any

from cafe.consent import OrderSpec
from cafe.endpoint.protocol import ChatClient
from cafe.repair.reask import CAP_DEFAULT, Generator, RepairResult, repair_ticket
from cafe.schema.ticket import Failure
from cafe.trace.calls import (
    call_attributes,
    chat_attributes,
    error_attributes,
    generator_attributes,
    provider_of,
    reply_of,
)
from cafe.trace.file import TraceFileError, read_trace, read_traces, write_trace, write_traces
from cafe.trace.spans import (
    AGENT_NAME,
    ATTEMPT_NUMBER,
    CHECK_FAILURES,
    CHECK_LINES,
    ERROR_TYPE,
    EVALUATION_LABEL,
    EVALUATION_NAME,
    OPERATION,
    STOP_REASON,
    DeferredAttributes,
    Scrubber,
    Span,
    Trace,
    content_hash,
)
from cafe.world.menu import Menu

__all__ = [
    "Recorder",
    "OpenSpan",
    "RecordingClient",
    "record_repair",
    # the reading side, importable from here as the lessons write it
    "Span",
    "Trace",
    "content_hash",
    "read_trace",
    "read_traces",
    "write_trace",
    "write_traces",
    "TraceFileError",
]


@dataclass(slots=True)
class OpenSpan:
    """A span being built: mutable while the run goes on, frozen into a `Span` at the end."""

    span_id: str
    parent_id: str | None
    kind: str
    name: str
    start: float
    end: float | None = None
    attributes: dict[str, Any] | DeferredAttributes = field(
        default_factory=dict
    )  # deferred: added, never opened
    children: list[OpenSpan] = field(default_factory=list)


class Recorder:
    """Collects one run's spans as it happens; `trace()` freezes them into a `Trace`.

    `clock` gives seconds (default `time.perf_counter`): pass a fake one for fixed timings.
    `secrets` are masked wherever they appear; `client()` adds the wrapped client's key.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.perf_counter,
        trace_id: str | None = None,
        started_at: str | None = None,
        secrets: Sequence[str] = (),
    ):
        self.clock = clock
        self.trace_id = trace_id or uuid.uuid4().hex
        self.started_at = started_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.secrets: tuple[str, ...] = tuple(secrets)
        self.scrub = Scrubber(self.secrets)  # every attribute a span keeps goes through it
        self.before_model_call: Callable[[], None] | None = None  # record_loop opens a turn here
        self._t0 = clock()
        self._ids = itertools.count(1)
        self._root: OpenSpan | None = None
        self._stack: list[OpenSpan] = []

    def now(self) -> float:
        return round(self.clock() - self._t0, 6)  # microseconds: what the file keeps

    def open(self, kind: str, name: str, attributes: Mapping[str, Any] | None = None) -> OpenSpan:
        """Start a span under the innermost open one (the first becomes the run)."""
        parent = self._stack[-1] if self._stack else None
        if parent is None and self._root is not None:
            raise ValueError("This recorder's run has ended; use a new Recorder for the next run.")
        span = OpenSpan(
            f"{next(self._ids):016x}",
            parent.span_id if parent else None,
            kind,
            name,
            self.now(),
            attributes=dict(attributes or {}),
        )
        (parent.children if parent else []).append(span)
        self._root = self._root or span
        self._stack.append(span)
        return span

    def close(self, span: OpenSpan, attributes: Mapping[str, Any] | None = None) -> None:
        """End `span`, which must be the innermost open one, adding `attributes`."""
        if not self._stack or self._stack[-1] is not span:
            raise ValueError(
                f"Span {span.name!r} is not the innermost open span; close spans in reverse order."
            )
        span.end = self.now()
        span.attributes.update(attributes or {})
        self._stack.pop()

    def add(
        self,
        parent: OpenSpan,
        kind: str,
        name: str,
        start: float,
        end: float,
        attributes: Mapping[str, Any],
    ) -> OpenSpan:
        """Add a finished span under `parent`, with the times it had (`DeferredAttributes` kept as they are)."""
        kept = attributes if isinstance(attributes, DeferredAttributes) else dict(attributes)
        span = OpenSpan(f"{next(self._ids):016x}", parent.span_id, kind, name, start, end, kept)
        parent.children.append(span)
        return span

    def close_all(self, attributes: Mapping[str, Any]) -> None:
        """End every open span, innermost first, each with `attributes` (a run cut short by an error)."""
        while self._stack:
            self.close(self._stack[-1], attributes)

    @property
    def current(self) -> OpenSpan | None:
        return self._stack[-1] if self._stack else None

    def model_call(
        self,
        kwargs: Mapping[str, Any],
        completion: Any,
        start: float,
        error: str | None,
        provider: str,
        *,
        exc: BaseException | None = None,
    ) -> None:
        """Record one `chat.completions.create` call under the innermost open span: its request,
        and its completion or, for a call that failed, `error` and what `exc` says.

        A call that answered is converted when its attributes are first read (`DeferredAttributes`):
        until then the span keeps its own copy of the message list (the caller may go on
        appending to it) and the completion's values (`reply_of`), not the SDK's objects.
        """
        parent = self.current
        if parent is None:
            raise ValueError("A model call was recorded outside any run; open the run span first.")
        end, name = self.now(), f"chat {self.scrub(kwargs.get('model'))}"
        if exc is None and error is None:
            request = {**kwargs, "messages": list(kwargs.get("messages") or ())}
            self.add(
                parent,
                "model_call",
                name,
                start,
                end,
                DeferredAttributes(
                    call_attributes, request, reply_of(completion), provider, self.scrub
                ),
            )
            return
        attributes = chat_attributes(kwargs, completion, provider, self.scrub)
        if exc is not None:
            attributes.update(error_attributes(exc, self.scrub))
        if error is not None:
            attributes[ERROR_TYPE] = error
        self.add(parent, "model_call", name, start, end, attributes)

    def client(self, inner: ChatClient) -> RecordingClient:
        """A client that answers as `inner` does and records each model call in this run."""
        key = getattr(inner, "api_key", None)
        if isinstance(key, str) and key:
            self.secrets += (key,)
            self.scrub = Scrubber(self.secrets)
        return RecordingClient(inner, self)

    def trace(self) -> Trace:
        """The run's spans, frozen, in tree order (each span, then its children in the order opened)."""
        if self._root is None or self._stack:
            raise ValueError(
                "The run is still open (or never started): close every span before trace()."
            )
        spans: list[Span] = []

        def freeze(span: OpenSpan) -> None:
            end = span.end if span.end is not None else span.start
            attributes = span.attributes  # the recorder keeps no other reference to a plain dict
            spans.append(
                Span(
                    span.span_id,
                    span.parent_id,
                    span.kind,
                    span.name,
                    span.start,
                    end,
                    attributes
                    if isinstance(attributes, DeferredAttributes)
                    else MappingProxyType(attributes),
                )
            )
            for child in span.children:
                freeze(child)

        freeze(self._root)
        return Trace(self.trace_id, self.started_at, tuple(spans))


class _RecordingCompletions:
    def __init__(self, create: Callable[..., Any], recorder: Recorder, provider: str):
        self._create, self._recorder, self._provider = create, recorder, provider

    def create(self, **kwargs: Any) -> Any:
        """Call the wrapped client, then record the request and its answer (or its error)."""
        recorder = self._recorder
        if recorder.before_model_call is not None:
            recorder.before_model_call()
        start = recorder.now()
        try:
            completion = self._create(**kwargs)
        except Exception as exc:
            recorder.model_call(kwargs, None, start, None, self._provider, exc=exc)
            raise
        recorder.model_call(kwargs, completion, start, None, self._provider)
        return completion


class _Chat:
    def __init__(self, completions: _RecordingCompletions):
        self.completions = completions


class RecordingClient:
    """Wraps any client, scripted or live: `chat.completions.create` is recorded, everything else
    is the client's.

    Attributes it does not define (`base_url`, `timeout`, `reply_cap`, `models`, `calls`, ...)
    are the wrapped client's, so `cafe.endpoint.client.chat` asks it with the same limits as the
    client itself, and a test can still read a scripted client's `calls` through it.
    """

    def __init__(self, inner: ChatClient, recorder: Recorder):
        self._inner = inner
        self.chat = _Chat(
            _RecordingCompletions(inner.chat.completions.create, recorder, provider_of(inner))
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


# --- the re-ask, recorded ---------------------------------------------------------------------


class _AttemptRecorder:
    """Wraps a generator: each call opens an attempt span, left open while the draft is scored."""

    def __init__(self, generate: Generator, recorder: Recorder):
        self.generate, self.recorder = generate, recorder
        self.attempts: list[
            tuple[OpenSpan, float]
        ] = []  # each attempt and when its draft came back

    def __call__(self, messages: list[dict[str, str]]) -> Any:
        self.end_attempt()
        recorder, number = self.recorder, len(self.attempts) + 1
        span = recorder.open("attempt", f"attempt {number}", {ATTEMPT_NUMBER: number})
        answer = self.generate(messages)
        answered = recorder.now()  # the draft is back: its model call ends, its check starts
        if not span.children:  # no recording client behind the generator recorded its model call
            recorder.add(
                span,
                "model_call",
                f"chat {getattr(self.generate, 'model', 'scripted')}",
                span.start,
                answered,
                DeferredAttributes(
                    generator_attributes, self.generate, list(messages), answer, recorder.scrub
                ),
            )
        self.attempts.append((span, answered))
        return answer

    def end_attempt(self) -> None:
        if self.attempts and self.recorder.current is self.attempts[-1][0]:
            self.recorder.close(self.attempts[-1][0])


def _check_attributes(name: str, failures: Sequence[Failure], clean: Scrubber) -> dict[str, Any]:
    """A check as an evaluation: its name, pass or fail, the failed checks' names, a line each."""
    return {
        EVALUATION_NAME: name,
        EVALUATION_LABEL: "fail" if failures else "pass",
        CHECK_FAILURES: [f.check for f in failures],
        CHECK_LINES: [clean.text(f.line()) for f in failures],
    }


def _run_attributes(result: RepairResult) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        STOP_REASON: result.stop_reason,
        "cafe.run.attempts": len(result.attempts),
    }
    if result.usage is not None:
        attributes.update(
            {
                "gen_ai.usage.input_tokens": result.usage.prompt_tokens,
                "gen_ai.usage.output_tokens": result.usage.completion_tokens,
            }
        )
    return attributes


def record_repair(
    spec: OrderSpec,
    generate: Generator,
    *,
    cap: int = CAP_DEFAULT,
    mode: str = "curated",
    menu: Menu | None = None,
    recorder: Recorder | None = None,
) -> tuple[RepairResult, Trace]:
    """`repair_ticket(spec, generate, ...)`, recorded: the result and its trace.

    Pass the `recorder` whose `client()` the generator was built on to nest the real model calls
    under their attempts; without one, each attempt gets a model call made from the generator.
    When the generator raises (a dead endpoint, a diverged replay), every open span is closed with
    `error.type` and the error goes on to the caller; `recorder.trace()` still has the spans.
    """
    if not isinstance(spec, OrderSpec):
        raise TypeError(
            f"record_repair() takes a cafe.consent.OrderSpec, not {type(spec).__name__}."
        )
    recorder = recorder or Recorder()
    run = recorder.open(
        "run",
        "invoke_agent cafe.repair",
        {
            OPERATION: "invoke_agent",
            AGENT_NAME: "cafe.repair",
            "cafe.repair.cap": cap,
            "cafe.repair.mode": mode,
            "cafe.order.table": spec.table,
            "cafe.order.items": list(spec.items),
        },
    )
    attempts = _AttemptRecorder(generate, recorder)
    try:
        result = repair_ticket(spec, attempts, cap=cap, mode=mode, menu=menu)
    except Exception as exc:  # an endpoint that failed: the trace says so, the caller still sees it
        recorder.close_all({ERROR_TYPE: type(exc).__name__})
        raise
    attempts.end_attempt()
    for (span, scored_from), attempt in zip(attempts.attempts, result.attempts):
        recorder.add(
            span,
            "check",
            "check ticket",
            scored_from,
            span.end or scored_from,  # failures are a tuple
            DeferredAttributes(_check_attributes, "ticket", attempt.failures, recorder.scrub),
        )
    if result.blocked_by:
        now = recorder.now()
        recorder.add(
            run,
            "check",
            "check policy",
            now,
            now,
            _check_attributes("policy", result.blocked_by, recorder.scrub),
        )
    recorder.close(run, _run_attributes(result))
    return result, recorder.trace()
