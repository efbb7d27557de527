"""Replay a recorded run: a client that answers each call with the reply the recording got.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A trace
(`cafe.trace`) holds every model call's request and reply. This module turns it back into a
model:

- `replay_client(trace)`: a scripted client (`ReplayClient`) that, asked for call k, checks the
  request is the one the recording made at call k, then answers with the recorded reply: the
  same text, tool calls (ids included), finish reason, token counts and model name. Run the same
  code against it and the run happens again, with no endpoint and no key.
- `ReplayDiverged`: raised at the first call that differs from the recording (the code, the
  prompt or the menu changed), naming the span and the first field that differs.
- `first_difference(recorded, replayed)`: where two traces part, span by span, for a replay that
  asked the same calls but did something else with the answers (a check that now fails).

A replay is proven identical when `cafe.spans.content_hash` of the replayed run's trace equals
the recording's. What it leaves out: choosing which runs to keep (session 09's report links the
interesting ones) and replaying a run whose model calls were not recorded through a client.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cafe.endpoint.scripted import ScriptedClient, completion_payload
from cafe.spans import (FINISH_REASONS, INPUT_TOKENS, OUTPUT_MESSAGES, OUTPUT_TOKENS, RESPONSE_MODEL, Span, Trace,
                        canonical_spans, scrub)
from cafe.trace_calls import REQUEST_KEYS, request_attributes

__all__ = ["SHOWN_CHARS", "Difference", "ReplayDiverged", "ReplayClient", "replay_client", "recorded_reply",
           "first_difference"]

# How much of a differing value a message quotes: enough to recognise a sentence, short enough
# that a whole system prompt does not fill the screen.
SHOWN_CHARS = 120


@dataclass(frozen=True)
class Difference:
    """Where two recorded things part: a path into them and the value on each side."""

    where: str      # e.g. "gen_ai.input.messages[1].parts[0].content"
    recorded: Any
    replayed: Any

    def __str__(self) -> str:
        return f"{self.where}: recorded {_shown(self.recorded)}, replayed {_shown(self.replayed)}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def _differ(recorded: Any, replayed: Any, where: str) -> Difference | None:
    """The first place `recorded` and `replayed` (JSON values) differ, depth first, or None."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed)):
            found = _differ(recorded.get(key), replayed.get(key), f"{where}.{key}" if where else key)
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
        where = f"model call {call} (span {span.name!r}, id {span.span_id})" if span else f"model call {call}"
        super().__init__(f"The replay diverged at {where}: {difference}. Everything before it matched; "
                         "the code, the prompt or the menu changed since the run was recorded.")
        self.call, self.span, self.difference = call, span, difference


def recorded_reply(span: Span) -> dict[str, Any]:
    """The reply a recorded model call got, as a scripted reply dict, plus its tool calls' ids."""
    outputs = span.get(OUTPUT_MESSAGES)
    if not outputs:
        raise ValueError(f"Span {span.name!r} (id {span.span_id}) recorded no reply (error: "
                         f"{span.get('error.type', 'none')}); a call that failed cannot be replayed.")
    parts = outputs[0]["parts"]
    texts = [p["content"] for p in parts if p.get("type") == "text"]
    calls = [p for p in parts if p.get("type") == "tool_call"]
    usage = None
    if span.get(INPUT_TOKENS) is not None:
        usage = {"prompt_tokens": span.get(INPUT_TOKENS), "completion_tokens": span.get(OUTPUT_TOKENS) or 0}
    return {"content": texts[0] if texts else None,
            "tool_calls": [{"name": c["name"], "arguments": c["arguments"] or "{}"} for c in calls],
            "finish_reason": (span.get(FINISH_REASONS) or [outputs[0].get("finish_reason") or "stop"])[0],
            "usage": usage, "ids": [c.get("id") for c in calls]}


class _ReplayCompletions:
    def __init__(self, client: "ReplayClient"):
        self._client = client

    def create(self, **kwargs: Any) -> Any:
        """Check the request against the next recorded call, then answer with its reply."""
        from openai.types.chat import ChatCompletion

        client = self._client
        number = len(client.calls) + 1
        if number > len(client.recorded):
            raise ReplayDiverged(number, None, Difference("calls (count)", len(client.recorded), number))
        span = client.recorded[number - 1]
        asked = scrub(request_attributes(kwargs), client.secrets)
        for key in REQUEST_KEYS:
            found = _differ(span.get(key), asked.get(key), key)
            if found is not None:
                raise ReplayDiverged(number, span, found)
        client.calls.append(dict(kwargs))
        reply = recorded_reply(span)
        ids = reply.pop("ids")
        payload = completion_payload(reply, model=span.get(RESPONSE_MODEL) or kwargs["model"],
                                     request=kwargs, number=number)
        for call, recorded_id in zip(payload["choices"][0]["message"].get("tool_calls", []), ids):
            call["id"] = recorded_id or call["id"]  # the loop sends these ids back: keep the recorded ones
        return ChatCompletion.model_validate(payload)


class _Chat:
    def __init__(self, client: "ReplayClient"):
        self.completions = _ReplayCompletions(client)


class ReplayClient(ScriptedClient):
    """A scripted client answering from a recording. `recorded` are its model calls, in order;
    `calls` the requests it has answered; `unused` how many recorded calls were never asked for."""

    provider = "cafe.replay"

    def __init__(self, model_calls: Sequence[Span], secrets: Sequence[str] = ()):
        super().__init__()
        self.recorded: tuple[Span, ...] = tuple(model_calls)
        self.secrets: tuple[str, ...] = tuple(secrets)
        self.chat = _Chat(self)  # type: ignore[assignment]

    @property
    def unused(self) -> int:
        return len(self.recorded) - len(self.calls)


def replay_client(trace: Trace, *, secrets: Sequence[str] = ()) -> ReplayClient:
    """A client that replays `trace`'s model calls. `secrets`: the keys the recording masked,
    so a request holding one compares equal to its masked recording."""
    if not isinstance(trace, Trace):
        raise TypeError(f"replay_client() takes a cafe.spans.Trace (read one with read_trace), not "
                        f"{type(trace).__name__}.")
    return ReplayClient(trace.model_calls, secrets)


def first_difference(recorded: Trace, replayed: Trace) -> tuple[Span, Difference] | None:
    """The first span where two traces differ in content (as `content_hash` sees it), or None.

    Returns the recorded span (the last one, when the replay has more spans) and the difference.
    """
    old, new = canonical_spans(recorded), canonical_spans(replayed)
    for i, (a, b) in enumerate(zip(old, new)):
        found = _differ(a, b, "")
        if found is not None:
            return recorded.spans[i], found
    if len(old) != len(new):
        return recorded.spans[min(len(old), len(new)) - 1], Difference("spans (count)", len(old), len(new))
    return None
