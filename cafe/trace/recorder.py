"""Record a run as a trace: a tree of spans, and a client that records every model call.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A
`Recorder` builds one run's spans as the run goes: `open` and `close` a span around a step,
`add` a finished one with the times it had. `recorder.client(client)` wraps any client,
scripted or live, so each model call (`chat.completions.create`) becomes a `model_call` span
under whatever span is open, with the OpenTelemetry GenAI attributes (`gen_ai.request.model`,
`gen_ai.usage.input_tokens`, ...). `trace()` freezes the spans into a `cafe.trace.spans.Trace`.

The harness is never edited for this: `cafe.trace.record.record_repair` (session 07's re-ask)
and `cafe.trace.loop.record_loop` (session 01's loop) wrap what each is handed.

No secret reaches a trace. The recorder never reads request headers, and it scrubs at two
points with one `cafe.trace.attributes.Scrubber` (the wrapped client's key, and every secret the
course knows of): each model call's attributes as they are built, and, when `trace()` freezes
the run, every span's name and every attribute added by hand (a stop detail, a nudge, a tool's
name, an order's items). A model call's attributes are built when they are first read
(`DeferredAttributes`), so a run pays for converting and masking them only if its trace is read.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any

from cafe.endpoint.client.protocol import ChatClient
from cafe.trace.attributes import ERROR_TYPE, DeferredAttributes, Scrubber
from cafe.trace.calls import (
    call_attributes,
    chat_attributes,
    error_attributes,
    reply_of,
)
from cafe.trace.origin import Origin, origin_of
from cafe.trace.spans import SPAN_KINDS, Span, SpanKind, Trace
from cafe.trace.vocabulary import scrub_attributes, scrub_span_name

__all__ = ["OpenSpan", "Recorder", "RecordingClient"]


@dataclass(slots=True)
class OpenSpan:
    """A span being built: mutable while the run goes on, frozen into a `Span` at the end.

    `attributes` are the ones added as the run goes; `built`, when set, replaces them with
    attributes made on first read (a model call's, a check's: `DeferredAttributes`).
    """

    span_id: str
    parent_id: str | None
    kind: SpanKind
    name: str
    start: float
    end: float | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    built: DeferredAttributes | None = None
    children: list[OpenSpan] = field(default_factory=list)


class Recorder:
    """Collects one run's spans as it happens; `trace()` freezes them into a `Trace`.

    `clock` gives seconds (default `time.perf_counter`): pass a fake one for fixed timings.
    `secrets` are masked wherever they appear, with every secret the course knows of
    (`Scrubber`); `client()` adds the wrapped client's key.
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
        # The model call under way: (request, start, origin). A call the course's deadline gave
        # up on is still running in its worker thread; close_all records it as failed, and the
        # worker, finishing late, finds it taken and records nothing.
        self._in_flight: tuple[Mapping[str, Any], float, Origin | str] | None = None
        self._lock = threading.Lock()

    def now(self) -> float:
        return round(self.clock() - self._t0, 6)  # microseconds: what the file keeps

    def open(
        self, kind: SpanKind, name: str, attributes: Mapping[str, Any] | None = None
    ) -> OpenSpan:
        """Start a span under the innermost open one (the first becomes the run)."""
        if kind not in SPAN_KINDS:
            raise ValueError(f"Span kind {kind!r} is not one of {', '.join(SPAN_KINDS)}.")
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
        kind: SpanKind,
        name: str,
        start: float,
        end: float,
        attributes: Mapping[str, Any],
    ) -> OpenSpan:
        """Add a finished span under `parent`, with the times it had (`DeferredAttributes` kept as they are)."""
        span = OpenSpan(f"{next(self._ids):016x}", parent.span_id, kind, name, start, end)
        if isinstance(attributes, DeferredAttributes):
            span.built = attributes
        else:
            span.attributes = dict(attributes)
        parent.children.append(span)
        return span

    def close_all(self, attributes: Mapping[str, Any], exc: BaseException | None = None) -> None:
        """End every open span, innermost first, each with `attributes` (a run cut short by an
        error). A model call still under way (one the deadline gave up on) is recorded first, as
        failed with `exc`, so the trace keeps the request and its replay raises the same error."""
        pending = self.call_ended(self._in_flight)
        if pending is not None and exc is not None and self._stack:
            kwargs, start, origin = pending
            self.model_call(kwargs, None, start, None, origin, exc=exc)
        while self._stack:
            self.close(self._stack[-1], attributes)

    def call_started(self, kwargs: Mapping[str, Any], start: float, origin: Origin | str) -> Any:
        """Note a model call under way; the token `call_ended` takes back."""
        with self._lock:
            self._in_flight = (kwargs, start, origin)
            return self._in_flight

    def call_ended(self, token: Any) -> tuple[Mapping[str, Any], float, Origin | str] | None:
        """The call `token` names, when it is still the one under way (then no longer); None when
        it was taken already (recorded as failed by `close_all`)."""
        with self._lock:
            if token is None or self._in_flight is not token:
                return None
            self._in_flight = None
            return token

    @property
    def current(self) -> OpenSpan | None:
        return self._stack[-1] if self._stack else None

    def model_call(
        self,
        kwargs: Mapping[str, Any],
        completion: Any,
        start: float,
        error: str | None,
        origin: Origin | str,
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
                    call_attributes, request, reply_of(completion), origin, self.scrub
                ),
            )
            return
        attributes = chat_attributes(kwargs, completion, origin, self.scrub)
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

    def _frozen(self, span: OpenSpan) -> Span:
        """`span` as a `Span`: its name and hand-added attributes scrubbed, here, in one place
        (built attributes were scrubbed as they were made)."""
        attributes: Mapping[str, Any] = (
            span.built
            if span.built is not None
            else MappingProxyType(scrub_attributes(span.attributes, self.scrub))
        )
        end = span.end if span.end is not None else span.start
        name = scrub_span_name(span.name, self.scrub)
        return Span(span.span_id, span.parent_id, span.kind, name, span.start, end, attributes)

    def trace(self) -> Trace:
        """The run's spans, frozen, in tree order (each span, then its children in the order opened)."""
        if self._root is None or self._stack:
            raise ValueError(
                "The run is still open (or never started): close every span before trace()."
            )
        spans: list[Span] = []
        waiting = [self._root]  # depth first: a span, then its children in the order opened
        while waiting:
            span = waiting.pop()
            spans.append(self._frozen(span))
            waiting.extend(reversed(span.children))
        return Trace(self.trace_id, self.started_at, tuple(spans))


class _RecordingCompletions:
    def __init__(self, create: Callable[..., Any], recorder: Recorder, origin: Origin):
        self._create, self._recorder, self._origin = create, recorder, origin

    def create(self, **kwargs: Any) -> Any:
        """Call the wrapped client, then record the request and its answer (or its error)."""
        recorder = self._recorder
        if recorder.before_model_call is not None:
            recorder.before_model_call()
        start = recorder.now()
        token = recorder.call_started(kwargs, start, self._origin)
        try:
            completion = self._create(**kwargs)
        except Exception as exc:
            if recorder.call_ended(token) is not None:
                recorder.model_call(kwargs, None, start, None, self._origin, exc=exc)
            raise
        if recorder.call_ended(token) is not None:  # else: recorded as failed when abandoned
            recorder.model_call(kwargs, completion, start, None, self._origin)
        return completion


class _Chat:
    def __init__(self, completions: _RecordingCompletions):
        self.completions = completions


class RecordingClient:
    """Wraps any client, scripted or live: `chat.completions.create` is recorded, everything else
    is the client's.

    Attributes it does not define (`base_url`, `timeout`, `reply_cap`, `models`, `calls`, ...)
    are the wrapped client's, so `cafe.endpoint.client.chat.chat` asks it with the same limits as the
    client itself, and a test can still read a scripted client's `calls` through it.
    """

    def __init__(self, inner: ChatClient, recorder: Recorder):
        self._inner = inner
        self.chat = _Chat(
            _RecordingCompletions(inner.chat.completions.create, recorder, origin_of(inner))
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
