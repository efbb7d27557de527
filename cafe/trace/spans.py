"""What a trace is made of: spans in a tree, their attribute names, and a hash of their content.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). Until
now a run lived and died inside one call: `cafe.repair.RepairResult` says how it ended, and
then it is gone. This module declares the record that outlives it:

- `Span`: one timed step of a run (the run itself, a turn or an attempt, a model call, a tool
  call, a check), with a parent, so a run's spans form a tree;
- `Trace`: one run's spans in tree order (each span, then its children), with the questions a
  reader asks of them (`stop_reason`, `model_calls`, `usage`, `children`);
- the attribute names, taken from the OpenTelemetry GenAI semantic conventions where one exists
  (`gen_ai.request.model`, `gen_ai.usage.input_tokens`, ...) and under `cafe.` where none does;
- `scrub`: every string an attribute holds, with anything that looks like a credential masked;
- `DeferredAttributes`: a span's attributes built on first read, so that recording a run keeps
  what a model call was sent and answered and converts (and masks) it only when someone looks;
- `content_hash`: a digest of what happened (kinds, names, tree shape, attributes), leaving out
  ids, clock times and where the run was served from, so two runs that did the same thing hash
  the same.

The file format is `cafe.trace.file`, recording is `cafe.trace`, replay is `cafe.trace.replay`, and
the OpenTelemetry exporter is `cafe.trace.otel`. What it leaves out: reading many runs as a
shift (session 09) and sorting failed runs into classes (session 10).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, get_args

__all__ = [
    "SpanKind",
    "SPAN_KINDS",
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
    "Span",
    "Trace",
    "canonical_spans",
    "content_hash",
]

# The kinds of step a run is made of, parents first: a run holds turns (the agent loop) or
# attempts (the re-ask); those hold model calls, tool calls and checks.
SpanKind = Literal["run", "turn", "attempt", "model_call", "tool_call", "check"]
SPAN_KINDS: tuple[str, ...] = get_args(SpanKind)

# Attribute names from the OpenTelemetry GenAI semantic conventions (the gen_ai registry of
# the open-telemetry/semantic-conventions repository, as of November 2026), so that any tool
# that reads GenAI spans reads these.
OPERATION = "gen_ai.operation.name"  # "invoke_agent" (a run), "chat", "execute_tool"
PROVIDER = "gen_ai.provider.name"  # who served the model: "openai" for a live endpoint
AGENT_NAME = "gen_ai.agent.name"  # which harness ran: "cafe.repair", "cafe.loop"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"  # [{"role": ..., "parts": [{"type": "text", ...}]}]
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
EVALUATION_NAME = "gen_ai.evaluation.name"  # a check is an evaluation: its name...
EVALUATION_LABEL = "gen_ai.evaluation.score.label"  # ...and "pass" or "fail"
ERROR_TYPE = "error.type"  # OpenTelemetry's general name for what went wrong
SERVER_ADDRESS = "server.address"
# The course's own names, for what the conventions do not cover.
STOP_REASON = "cafe.run.stop_reason"  # one of the harness's closed set of stop reasons
STOP_DETAIL = "cafe.run.stop_detail"
ATTEMPT_NUMBER = "cafe.attempt.number"
TURN_NUMBER = "cafe.turn.number"
CHECK_FAILURES = "cafe.check.failures"  # the failed checks' names, e.g. ["missing_field"]
CHECK_LINES = "cafe.check.lines"  # each failure as one readable line

# Left out of the content hash: ids and where the run was served from. The same run replayed
# from its trace has a new response id and a different server, and did the same thing.
NOT_HASHED: frozenset[str] = frozenset({RESPONSE_ID, TOOL_CALL_ID, PROVIDER, SERVER_ADDRESS})

# What a masked credential reads as.
REDACTED = "[redacted]"
# What a credential looks like, for the cases the course can name: OpenAI-style secret keys,
# bearer tokens, AWS access key ids, GitHub tokens, and "api_key=..." / "password: ..." pairs.
# A key that looks like none of these is masked by value: the recorder passes the client's key.
_CREDENTIAL = re.compile(
    r"\bsk-[A-Za-z0-9_-]{8,}"
    r"|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\b(?:api[_-]?key|secret|token|password)\b\s*[:=]\s*[\"']?[^\s\"',;]{4,}",
    re.IGNORECASE,
)
# Text holding none of these (in any case) cannot match `_CREDENTIAL`, so the slower pattern is
# not run on it: most of what a run sends (a menu, a ticket) holds none of them.
_CREDENTIAL_HINT = re.compile(
    r"sk-|bearer|akia|gh[pousr]_|key|secret|token|password"
)  # on lower-cased text


# --- small pure helpers -----------------------------------------------------------------------


class Scrubber:
    """Masks credentials in JSON values, remembering each string it has cleaned.

    A run sends the same long texts again and again (the system prompt, the brief), so a
    recorder keeps one `Scrubber` and each distinct string is searched once. `secrets` are
    masked by value wherever they appear; one shorter than eight characters is not searched
    for, since it would match ordinary words.
    """

    def __init__(self, secrets: tuple[str, ...] = ()):
        self.secrets = tuple(s for s in secrets if isinstance(s, str) and len(s) >= 8)
        self._clean: dict[str, str] = {}
        self.memo: dict[Any, Any] = {}  # for callers that convert the same value many times

    def text(self, value: str) -> str:
        clean = self._clean.get(value)
        if clean is None:
            clean = value
            for secret in self.secrets:
                clean = clean.replace(secret, REDACTED)
            if _CREDENTIAL_HINT.search(clean.lower()):
                clean = _CREDENTIAL.sub(REDACTED, clean)
            self._clean[value] = clean
        return clean

    def __call__(self, value: Any) -> Any:
        """`value` with every credential-looking string masked; numbers, booleans, None as they are."""
        if value is None:
            return None
        if type(value) is str:
            return self.text(value)
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(v) for v in value]
        if isinstance(value, Mapping):
            return {str(k): self(v) for k, v in value.items()}
        return self.text(value) if isinstance(value, str) else value


def scrub(value: Any, secrets: tuple[str, ...] = ()) -> Any:
    """`value` (a JSON value) with every credential-looking string, and each of `secrets`, masked."""
    return Scrubber(secrets)(value)


class DeferredAttributes(Mapping[str, Any]):
    """Read-only attributes that `build(*arguments)` makes on the first read, then keeps.

    Converting a model call to GenAI attributes and masking its strings is much of what
    recording costs, and many recorded runs are never read. So the recorder keeps the call (a
    copy of its message list, and what the completion said) as `arguments`, and a `build` that converts
    them through the recorder's `Scrubber`. Every way of reading (`[]`, `get`, iterating, `len`,
    `repr`, comparing) reads the built attributes, so masked text is all a reader can get.
    """

    __slots__ = ("_build", "_arguments", "_built")

    def __init__(self, build: Callable[..., Mapping[str, Any]], *arguments: Any):
        self._build: Callable[..., Mapping[str, Any]] | None = build
        self._arguments = arguments
        self._built: Mapping[str, Any] | None = None

    def built(self) -> Mapping[str, Any]:
        """The attributes, built now if nothing has read them yet."""
        if self._built is None:
            assert self._build is not None
            self._built = MappingProxyType(dict(self._build(*self._arguments)))
            self._build, self._arguments = None, ()  # what they were built from is let go
        return self._built

    def __getitem__(self, name: str) -> Any:
        return self.built()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.built())

    def __len__(self) -> int:
        return len(self.built())

    def get(self, name: str, default: Any = None) -> Any:
        return self.built().get(name, default)

    def items(self) -> Any:
        return self.built().items()

    def __repr__(self) -> str:
        return repr(self.built())

    def __reduce__(self) -> tuple[Any, ...]:
        """A copy or a pickle holds the built (masked) attributes, never what they are built from."""
        return (DeferredAttributes, (dict, tuple(self.built().items())))


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
            raise ValueError(f"Span kind {self.kind!r} is not one of {', '.join(SPAN_KINDS)}.")
        if self.end_s < self.start_s:
            raise ValueError(
                f"Span {self.name!r} ends ({self.end_s}) before it starts ({self.start_s})."
            )
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
    """

    trace_id: str
    started_at: str
    spans: tuple[Span, ...]

    def __post_init__(self) -> None:
        if not self.spans or self.spans[0].parent_id is not None or self.spans[0].kind != "run":
            raise ValueError("A trace starts with its run span: kind 'run', no parent.")
        seen: set[str] = set()
        for span in self.spans:
            if span.span_id in seen:
                raise ValueError(
                    f"Span id {span.span_id!r} appears twice; each span needs its own id."
                )
            if span is not self.spans[0] and span.parent_id not in seen:
                raise ValueError(
                    f"Span {span.name!r} names parent {span.parent_id!r}, which does not "
                    "come before it in the trace."
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

    def of_kind(self, kind: str) -> tuple[Span, ...]:
        if kind not in SPAN_KINDS:
            raise ValueError(f"Unknown span kind {kind!r}; use one of {', '.join(SPAN_KINDS)}.")
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
        """(input tokens, output tokens) over every model call that reported them, else None."""
        counted = [c for c in self.model_calls if c.get(INPUT_TOKENS) is not None]
        if not counted:
            return None
        return (
            sum(c.get(INPUT_TOKENS) for c in counted),
            sum(c.get(OUTPUT_TOKENS) or 0 for c in counted),
        )

    def walk(self) -> Iterator[tuple[int, Span]]:
        """Each span with its depth (the run is 0), in tree order: for printing an outline."""

        def visit(span: Span, depth: int) -> Iterator[tuple[int, Span]]:
            yield depth, span
            for child in self.children(span):
                yield from visit(child, depth + 1)

        yield from visit(self.root, 0)


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
    """`sha256:` and the hex digest of `canonical_spans(trace)` as sorted, compact JSON."""
    text = json.dumps(
        canonical_spans(trace), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
