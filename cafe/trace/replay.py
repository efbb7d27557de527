"""Replay a recorded run: a client that answers each call with the reply the recording got.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A trace
(`cafe.trace`) holds every model call's request and reply. This module turns it back into a
model:

- `replay_client(trace)`: a client (`ReplayClient`) that, asked for call k, checks the
  request is the one the recording made at call k, then answers with the recorded reply: the
  same text, tool calls (ids included), finish reason, token counts and model name. Run the same
  code against it and the run happens again, with no endpoint and no key. A replay plays back
  what was recorded, including what is missing: a call that reported no usage (or no finish
  reason) is answered with none, never with an estimate the recording did not hold. Its core is
  `ReplayClient.reply_for`, built from `request_difference` (is this the recorded call?) and
  `recorded_reply` (what it got), the two pieces the notebook's exercise is built from too.
- `ReplayDiverged`: raised at the first call that differs from the recording (the code, the
  prompt or the menu changed), naming the span and the first field that differs.
- `first_difference(recorded, replayed)`: where two traces part, span by span, for a replay that
  asked the same calls but did something else with the answers (a check that now fails).
- `recorded_failure(span)`: a call the endpoint refused (or that failed otherwise) is raised
  again as it was live, so a generator that stepped down to a weaker format steps down alike.

A replay is proven identical when `cafe.trace.spans.content_hash` of the replayed run's trace equals
the recording's: for a trace read from a file, `Trace.recorded_hash`, the hash its header recorded
when it was written (checked again before the replay starts), not a hash of whatever was read.
Every malformed recording ends in a `TraceFileError`, whether it is found when the file is read
or when the replay starts; `ReplayDiverged` is kept for "the code changed". What it leaves out: choosing which runs to keep (session 09's report links the
interesting ones) and replaying a run whose model calls were not recorded through a client.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cafe.endpoint.client.completions import completion_payload
from cafe.endpoint.client.formats import FORMAT_FIELD
from cafe.endpoint.errors import EndpointError, RequestRejected
from cafe.endpoint.secrets.redaction import redact
from cafe.trace.attributes import (
    ERROR_TYPE,
    FINISH_REASONS,
    INPUT_TOKENS,
    OUTPUT_MESSAGES,
    OUTPUT_TOKENS,
    RESPONSE_MODEL,
    Scrubber,
)
from cafe.trace.calls import (
    ERROR_MESSAGE,
    ERROR_PARAM,
    REQUEST_KEYS,
    STATUS_CODE,
    request_attributes,
)
from cafe.trace.replayable import check_replayable
from cafe.trace.spans import Span, Trace, canonical_spans

__all__ = [
    "SHOWN_CHARS",
    "Difference",
    "ReplayDiverged",
    "ReplayClient",
    "replay_client",
    "recorded_reply",
    "recorded_failure",
    "request_difference",
    "first_difference",
]

# How much of a differing value a message quotes: enough to recognise a sentence, short enough
# that a whole system prompt does not fill the screen.
SHOWN_CHARS = 120


@dataclass(frozen=True)
class Difference:
    """Where two recorded things part: a path into them and the value on each side."""

    where: str  # e.g. "gen_ai.input.messages[1].parts[0].content"
    recorded: Any
    replayed: Any

    def __str__(self) -> str:
        start = _first_change(self.recorded, self.replayed)
        return f"{self.where}: recorded {_shown(self.recorded, start)}, replayed {_shown(self.replayed, start)}"


def _first_change(a: Any, b: Any) -> int:
    """Where two long texts start to differ (0 for anything else), so a message shows that part."""
    if not (isinstance(a, str) and isinstance(b, str)) or max(len(a), len(b)) <= SHOWN_CHARS:
        return 0
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return max(0, same - SHOWN_CHARS // 3)


def _shown(value: Any, start: int = 0) -> str:
    if isinstance(value, str) and start:
        value = "…" + value[start:]
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def _differ(recorded: Any, replayed: Any, where: str) -> Difference | None:
    """The first place `recorded` and `replayed` (JSON values) differ, depth first, or None."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed)):
            found = _differ(
                recorded.get(key), replayed.get(key), f"{where}.{key}" if where else key
            )
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            found = _differ(a, b, f"{where}[{i}]")
            if found is not None:
                return found
        if len(recorded) != len(replayed):
            return Difference(f"{where} (length)", len(recorded), len(replayed))
        return None
    return None if recorded == replayed else Difference(where, recorded, replayed)


class ReplayDiverged(RuntimeError):
    """The replayed run asked for something the recording did not. `call` is 1-based."""

    def __init__(self, call: int, span: Span | None, difference: Difference):
        where = (
            f"model call {call} (span {span.name!r}, id {span.span_id})"
            if span
            else f"model call {call}"
        )
        super().__init__(
            redact(
                f"The replay diverged at {where}: {difference}. Everything before it matched; "
                "the code, the prompt or the menu changed since the run was recorded."
            )
        )
        self.call, self.span, self.difference = call, span, difference


def recorded_reply(span: Span) -> dict[str, Any]:
    """The reply a recorded model call got, as a reply a `cafe.endpoint.client.scripted.Script` accepts:
    content, tool calls, finish reason and token usage."""
    outputs = span.get(OUTPUT_MESSAGES)
    if not outputs:
        raise ValueError(
            f"Span {span.name!r} (id {span.span_id}) recorded no reply (error: "
            f"{span.get('error.type', 'none')}); a call that failed cannot be replayed."
        )
    parts = outputs[0]["parts"]
    texts = [p["content"] for p in parts if p.get("type") == "text"]
    calls = [p for p in parts if p.get("type") == "tool_call"]
    counts = (span.get(INPUT_TOKENS), span.get(OUTPUT_TOKENS))
    # both counts, or no usage at all: a count the call did not record is unknown, not 0
    usage = None if None in counts else dict(zip(("prompt_tokens", "completion_tokens"), counts))
    reasons = span.get(FINISH_REASONS)  # any text, or None when none was reported
    return {
        "content": texts[0] if texts else None,
        "tool_calls": [{"name": c["name"], "arguments": c["arguments"] or "{}"} for c in calls],
        "finish_reason": reasons[0] if reasons else outputs[0].get("finish_reason"),
        "usage": usage,
    }


def recorded_failure(span: Span, base_url: str = "replay://") -> EndpointError:
    """The error a recorded call that failed ended in, raised again as the course's client raises it.

    A refusal (HTTP 400 or 422, or one that blames the output format) is a `RequestRejected`, so
    `StructuredDrafts` steps down to a weaker format exactly as it did live; anything else is an
    `EndpointError`. Message, status and blamed field are the recorded ones.
    """
    status, param = span.get(STATUS_CODE), span.get(ERROR_PARAM)
    message = span.get(ERROR_MESSAGE) or f"the recorded call failed ({span.get(ERROR_TYPE)})"
    refused = (
        status in (400, 422)
        or param == FORMAT_FIELD
        or (isinstance(status, int) and status >= 500 and FORMAT_FIELD in message)
    )
    if refused:
        return RequestRejected(message, base_url=base_url, status=status, param=param)
    return EndpointError(message, base_url=base_url, status=status)


def request_difference(
    span: Span, request: dict[str, Any], clean: Scrubber | None = None
) -> Difference | None:
    """Where `request` (the keyword arguments of `chat.completions.create`) differs from the request
    the recorded model call `span` made, or None when it is the same call.

    Compared as the recorder wrote it (`request_attributes`, with credentials masked by `clean`):
    the model, the output shape, the tools offered, then the messages.
    """
    asked = request_attributes(request, clean or Scrubber())
    for key in REQUEST_KEYS:
        found = _differ(span.get(key), asked.get(key), key)
        if found is not None:
            return found
    return None


def _tool_call_ids(span: Span) -> list[str | None]:
    return [
        p.get("id") for p in span.get(OUTPUT_MESSAGES)[0]["parts"] if p.get("type") == "tool_call"
    ]


class _ReplayCompletions:
    def __init__(self, client: ReplayClient):
        self._client = client

    def create(self, **kwargs: Any) -> Any:
        """Answer like `openai.OpenAI().chat.completions.create`, from the recording."""
        from openai.types.chat import ChatCompletion

        client = self._client
        span, reply = client.reply_for(kwargs)
        payload = completion_payload(
            {**reply, "finish_reason": "stop"},  # the recorded one is put back below
            model=span.get(RESPONSE_MODEL) or kwargs["model"],
            request={"messages": kwargs["messages"]},  # no reply cap: the recorded reply, whole
            number=len(client.calls),
        )
        if reply["usage"] is None:  # not recorded, so not reported: never an estimate
            payload["usage"] = None
        for call, recorded_id in zip(
            payload["choices"][0]["message"].get("tool_calls", []), _tool_call_ids(span)
        ):
            call["id"] = (
                recorded_id or call["id"]
            )  # the loop sends these ids back: keep the recorded ones
        completion = ChatCompletion.model_validate(payload)
        # any recorded reason, as the endpoint's own replies carry one the SDK does not list
        choice = completion.choices[0].model_copy(update={"finish_reason": reply["finish_reason"]})
        return completion.model_copy(update={"choices": [choice]})


class _Chat:
    def __init__(self, client: ReplayClient):
        self.completions = _ReplayCompletions(client)


class ReplayClient:
    """A client answering from a recording, asked through `cafe.endpoint.client.chat.chat` like any
    other. `recorded` are its model calls, in order; `calls` the requests it has answered;
    `unused` how many recorded calls were never asked for."""

    provider = "cafe.trace.replay"
    base_url = "replay://recording"

    def __init__(self, model_calls: Sequence[Span], secrets: Sequence[str] = ()):
        self.recorded: tuple[Span, ...] = tuple(model_calls)
        self.scrub = Scrubber(tuple(secrets))  # the recorder masked these; mask the request alike
        self.calls: list[dict[str, Any]] = []
        self.chat = _Chat(self)

    @property
    def unused(self) -> int:
        return len(self.recorded) - len(self.calls)

    def reply_for(self, request: dict[str, Any]) -> tuple[Span, dict[str, Any]]:
        """The next recorded call and its reply, once `request` is shown to be the call it made.

        Raises `ReplayDiverged` when the recording has no call left, or made a different one.
        """
        number = len(self.calls) + 1
        if number > len(self.recorded):
            raise ReplayDiverged(
                number, None, Difference("calls (count)", len(self.recorded), number)
            )
        span = self.recorded[number - 1]
        found = request_difference(span, request, self.scrub)
        if found is not None:
            raise ReplayDiverged(number, span, found)
        self.calls.append(dict(request))
        if not span.get(OUTPUT_MESSAGES) and span.get(ERROR_TYPE) is not None:
            raise recorded_failure(span, self.base_url)
        return span, recorded_reply(span)


def replay_client(trace: Trace, *, secrets: Sequence[str] = ()) -> ReplayClient:
    """A client that replays `trace`'s model calls, once the trace is checked
    (`cafe.trace.replayable.check_replayable`: a `TraceFileError` when it could not answer).
    `secrets`: the keys the recording masked, so a request holding one compares equal to its
    masked recording."""
    if not isinstance(trace, Trace):
        raise TypeError(
            f"replay_client() takes a cafe.trace.spans.Trace (read one with read_trace), not "
            f"{type(trace).__name__}."
        )
    check_replayable(trace)
    return ReplayClient(trace.model_calls, secrets)


def _finishing_order(trace: Trace) -> list[int]:
    """The spans' positions, children before their parent: the order in which they ended."""
    children: dict[str | None, list[int]] = {}
    for i, span in enumerate(trace.spans):
        children.setdefault(span.parent_id, []).append(i)
    order: list[int] = []

    def visit(i: int) -> None:
        for child in children.get(trace.spans[i].span_id, []):
            visit(child)
        order.append(i)

    visit(0)
    return order


def first_difference(recorded: Trace, replayed: Trace) -> tuple[Span, Difference] | None:
    """The first span to end differently in two traces (as `content_hash` compares them), or None.

    Spans are compared in the order they ended, so a model call or a check that changed is named
    before the attempt and the run that hold it (whose totals change with it); the k-th span of
    one trace is compared with the k-th of the other. Returns the recorded span and the
    difference; when every span both have matches but one has more, `spans (count)`.
    """
    old, new = canonical_spans(recorded), canonical_spans(replayed)
    for i in _finishing_order(recorded):
        found = _differ(old[i], new[i], "") if i < len(new) else None
        if found is not None:
            return recorded.spans[i], found
    if len(old) != len(
        new
    ):  # the replay went on after everything recorded matched, or stopped short
        return recorded.spans[min(len(old), len(new)) - 1], Difference(
            "spans (count)", len(old), len(new)
        )
    return None
