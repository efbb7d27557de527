"""What a trace is made of: spans in a tree, and a hash of their content.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). Until
now a run lived and died inside one call: `cafe.repair.RepairResult` says how it ended, and
then it is gone. This module declares the record that outlives it:

- `Span`: one timed step of a run (the run itself, a turn or an attempt, a model call, a tool
  call, a check), with a parent, so a run's spans form a tree;
- `Trace`: one run's spans in tree order (each span, then its children), with the questions a
  reader asks of them (`stop_reason`, `model_calls`, `usage`, `children`);
- `content_hash`: a digest of what happened (kinds, names, tree shape, attributes), leaving out
  ids, clock times and where the run was served from, so two runs that did the same thing hash
  the same.

What a span's attributes are called, how every value in them is scrubbed of secrets, and how
they are built late is `cafe.trace.attributes` (its names are importable from here too, as the
lessons write them). The file format is `cafe.trace.file`, recording is `cafe.trace.recorder`,
replay is `cafe.trace.replay`, and the OpenTelemetry exporter is `cafe.trace.otel`. What it
leaves out: reading many runs as a shift (session 09) and sorting failed runs into classes
(session 10).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, get_args

from cafe.endpoint.secrets.redaction import redact
from cafe.trace.attributes import (
    AGENT_NAME,
    ATTEMPT_NUMBER,
    CHECK_FAILURES,
    CHECK_LINES,
    ERROR_TYPE,
    EVALUATION_LABEL,
    EVALUATION_NAME,
    FINISH_REASONS,
    INPUT_MESSAGES,
    INPUT_TOKENS,
    NOT_HASHED,
    OPERATION,
    OUTPUT_MESSAGES,
    OUTPUT_TOKENS,
    PROVIDER,
    REDACTED,
    REQUEST_MAX_TOKENS,
    REQUEST_MODEL,
    RESPONSE_ID,
    RESPONSE_MODEL,
    SERVER_ADDRESS,
    SERVER_PORT,
    STOP_DETAIL,
    STOP_REASON,
    TOOL_ARGUMENTS,
    TOOL_CALL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    TURN_NUMBER,
    DeferredAttributes,
    Scrubber,
    scrub,
)
from cafe.trace.vocabulary import scrub_attributes, scrub_span_name

__all__ = [
    "SpanKind",
    "SPAN_KINDS",
    "Span",
    "Trace",
    "canonical_spans",
    "content_hash",
    "scrubbed",
    # the attribute names and the scrubber, importable from here as the lessons write them
    "OPERATION",
    "REQUEST_MODEL",
    "RESPONSE_MODEL",
    "RESPONSE_ID",
    "FINISH_REASONS",
    "INPUT_TOKENS",
    "OUTPUT_TOKENS",
    "INPUT_MESSAGES",
    "OUTPUT_MESSAGES",
    "PROVIDER",
    "AGENT_NAME",
    "TOOL_NAME",
    "TOOL_CALL_ID",
    "TOOL_ARGUMENTS",
    "TOOL_RESULT",
    "EVALUATION_NAME",
    "EVALUATION_LABEL",
    "ERROR_TYPE",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "REQUEST_MAX_TOKENS",
    "STOP_REASON",
    "STOP_DETAIL",
    "ATTEMPT_NUMBER",
    "TURN_NUMBER",
    "CHECK_FAILURES",
    "CHECK_LINES",
    "NOT_HASHED",
    "REDACTED",
    "Scrubber",
    "scrub",
    "DeferredAttributes",
]

# The kinds of step a run is made of, parents first: a run holds turns (the agent loop) or
# attempts (the re-ask); those hold model calls, tool calls and checks.
SpanKind = Literal["run", "turn", "attempt", "model_call", "tool_call", "check"]
SPAN_KINDS: tuple[SpanKind, ...] = get_args(SpanKind)


def _frozen(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(attributes, (MappingProxyType, DeferredAttributes)):
        return attributes
    return MappingProxyType(dict(attributes))


# --- records ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """One step of a run. Times are seconds since the run started, by the recorder's clock.

    `attributes` hold JSON values only (text, numbers, booleans, None, lists, objects), and are
    read-only (the file writes them sorted by name).
    """

    span_id: str
    parent_id: str | None
    kind: SpanKind
    name: str
    start_s: float
    end_s: float
    attributes: Mapping[str, Any]

    def __post_init__(self) -> None:
        if self.kind not in SPAN_KINDS:
            raise ValueError(
                redact(f"Span kind {self.kind!r} is not one of {', '.join(SPAN_KINDS)}.")
            )
        for when in (self.start_s, self.end_s):
            if isinstance(when, bool) or not isinstance(when, (int, float)):
                raise ValueError(redact(f"Span {self.name!r}: a time is a number of seconds."))
        if self.end_s < self.start_s:
            end, start = str(self.end_s)[:20], str(self.start_s)[:20]  # 10**400 is 401 digits
            raise ValueError(redact(f"Span {self.name!r} ends ({end}) before it starts ({start})."))
        object.__setattr__(self, "attributes", _frozen(self.attributes))

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    def get(self, name: str, default: Any = None) -> Any:
        """The attribute `name`, or `default` when the span does not have it."""
        return self.attributes.get(name, default)


@dataclass(frozen=True)
class Trace:
    """One run's spans in tree order: each span, then its children in the order they were opened.

    `trace_id` names the run; `started_at` is the wall-clock time it started (ISO 8601, UTC).
    The first span is the run's root (kind `run`); every other span's parent is in the trace.
    `recorded_hash` is what a trace file said its content hashes to (see `cafe.trace.file`).
    """

    trace_id: str
    started_at: str
    spans: tuple[Span, ...]
    # The content hash the trace file's header recorded when it was written, checked when the
    # file was read; None for a trace built in memory or read from a file of schema version 1.
    recorded_hash: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.spans or self.spans[0].parent_id is not None or self.spans[0].kind != "run":
            raise ValueError("A trace starts with its run span: kind 'run', no parent.")
        seen: set[str] = set()
        for span in self.spans:
            if span.span_id in seen:
                raise ValueError(
                    redact(f"Span id {span.span_id!r} appears twice; each span needs its own id.")
                )
            if span is not self.spans[0] and span.parent_id not in seen:
                raise ValueError(
                    redact(
                        f"Span {span.name!r} names parent {span.parent_id!r}, which does not "
                        "come before it in the trace."
                    )
                )
            seen.add(span.span_id)

    @property
    def root(self) -> Span:
        """The run span: its attributes say how the run ended (`STOP_REASON`)."""
        return self.spans[0]

    @property
    def stop_reason(self) -> str | None:
        return self.root.get(STOP_REASON)

    @property
    def duration_s(self) -> float:
        return self.root.duration_s

    def children(self, span: Span) -> tuple[Span, ...]:
        return tuple(s for s in self.spans if s.parent_id == span.span_id)

    def of_kind(self, kind: SpanKind) -> tuple[Span, ...]:
        if kind not in SPAN_KINDS:
            raise ValueError(
                redact(f"Unknown span kind {kind!r}; use one of {', '.join(SPAN_KINDS)}.")
            )
        return tuple(s for s in self.spans if s.kind == kind)

    @property
    def model_calls(self) -> tuple[Span, ...]:
        return self.of_kind("model_call")

    @property
    def model(self) -> str | None:
        """The model the first model call asked for (None when the run made no call)."""
        calls = self.model_calls
        return calls[0].get(REQUEST_MODEL) if calls else None

    @property
    def usage(self) -> tuple[int, int] | None:
        """(input tokens, output tokens) summed over the model calls, or None when it is unknown.

        Unknown means no call reported usage, or some call left out one count or both: a sum
        over the calls that did report would be a smaller number, not the run's usage, and a
        missing count is not 0. The one call without counts that leaves the total known is a
        call that failed (`error.type`, neither count): it got no reply to bill, so it adds none.
        """
        reported = []
        for call in self.model_calls:
            counts = (call.get(INPUT_TOKENS), call.get(OUTPUT_TOKENS))
            if None not in counts:
                reported.append(counts)
            elif counts != (None, None) or call.get(ERROR_TYPE) is None:
                return None  # a count is missing from a call that was billed: unknown, not 0
        if not reported:
            return None
        return sum(n for n, _ in reported), sum(n for _, n in reported)

    def walk(self) -> Iterator[tuple[int, Span]]:
        """Each span with its depth (the run is 0), in tree order: for printing an outline."""

        def visit(span: Span, depth: int) -> Iterator[tuple[int, Span]]:
            yield depth, span
            for child in self.children(span):
                yield from visit(child, depth + 1)

        yield from visit(self.root, 0)


def scrubbed(trace: Trace, clean: Scrubber | None = None) -> Trace:
    """`trace` with every string in it masked by `clean` (a new `Scrubber` when None): ids, start
    time, names and attributes. Whatever leaves the process (the trace file, an OpenTelemetry
    export) passes through it, so a trace built by hand, or holding a secret its recorder was not
    told of, leaves clean all the same. The format's own words (attribute names, roles, part
    types, ...: `cafe.trace.vocabulary`) are kept, so a key such as `user` leaves the run readable."""
    clean = clean or Scrubber()
    spans = tuple(
        Span(
            clean.text(s.span_id),
            None if s.parent_id is None else clean.text(s.parent_id),
            s.kind,
            scrub_span_name(s.name, clean),
            s.start_s,
            s.end_s,
            scrub_attributes(s.attributes, clean),
        )
        for s in trace.spans
    )
    return Trace(clean.text(trace.trace_id), clean.text(trace.started_at), spans)


# --- the content hash -------------------------------------------------------------------------


def canonical_spans(trace: Trace) -> list[dict[str, Any]]:
    """The spans as plain dicts holding only what the run did: no ids, no times.

    A parent is named by its position in the trace, so the tree's shape still counts.
    """
    position = {span.span_id: i for i, span in enumerate(trace.spans)}
    return [
        {
            "kind": s.kind,
            "name": s.name,
            "parent": None if s.parent_id is None else position[s.parent_id],
            "attributes": {k: v for k, v in s.attributes.items() if k not in NOT_HASHED},
        }
        for s in trace.spans
    ]


def content_hash(trace: Trace) -> str:
    """`sha256:` and the hex digest of `canonical_spans(trace)` as sorted, compact JSON (a lone
    surrogate, which UTF-8 proper cannot hold, hashed as its three bytes: `surrogatepass`)."""
    text = json.dumps(
        canonical_spans(trace), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
