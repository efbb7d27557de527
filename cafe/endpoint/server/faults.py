"""Endpoint faults on purpose: what `cafe serve --fault ...` (and `Faults`) make the server do wrong.

A harness meets more than working endpoints: rate limits, server errors, a proxy that trickles,
a base URL that is a web page, a reply with no choices. `cafe.endpoint.server.serve` can act out each of
them, so a learner can watch `cafe doctor` and their own harness name the fault before a real
endpoint springs it on them, and the tests drive the same faults over real HTTP. This module
holds the record that describes the misbehaviour and the bytes each wrong answer sends; the
server applies them. Session 00 (`sessions/s00-setup/lesson.md`) shows `cafe serve --fault`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, get_args

__all__ = [
    "Faults",
    "ReplyFault",
    "REPLY_FAULTS",
    "JUNK_BYTES",
    "MALFORMED_BODY",
    "fault_error",
    "reply_body",
    "faults_from_flags",
]

# What a `Faults(malformed=True)` reply sends: announced as JSON, cut off in the middle.
MALFORMED_BODY = b'{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"mess'
# The page a `reply="html"` fault sends, like the front page of a chat web UI.
HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Chat</title></head>"
    b"<body><h1>Welcome</h1><p>Sign in to start chatting.</p></body></html>\n"
)
# The wrong answers a `Faults(reply=...)` sends with HTTP 200, each a fault real endpoints show:
#   empty          a 200 with no body at all        no_choices     a completion with "choices": []
#   null_content   a choice whose content is null   html           a web page (a wrong base URL)
#   junk           5 MB of text that is not JSON    bad_tool_args  a tool call whose arguments are not JSON
ReplyFault = Literal["empty", "no_choices", "null_content", "html", "junk", "bad_tool_args"]
REPLY_FAULTS: frozenset[str] = frozenset(get_args(ReplyFault))
# The size of the `junk` reply: big enough to show a client does not choke on a large bad body.
JUNK_BYTES = 5_000_000


@dataclass(frozen=True)
class Faults:
    """Misbehaviour to inject into chat completions, to rehearse the unhappy paths.

    - `status`: answer with this HTTP error (e.g. 429, 500, 503) instead of a completion;
    - `retry_after_s`: with status 429, the Retry-After header to send;
    - `delay_s`: wait this long before answering (pair it with a small client `timeout=`);
    - `trickle_s`: send the reply one byte every `trickle_s` seconds (a stuck proxy, a slow link);
    - `malformed`: answer 200 with a body that claims to be JSON and is cut off;
    - `reply`: answer 200 with one of the wrong answers in `REPLY_FAULTS`;
    - `times`: how many chat requests misbehave before the server recovers (None: all of them).

    Only `POST /v1/chat/completions` is affected, except `reply="html"`, which every route sends
    (it stands for a base URL that is a web site). `cafe serve --fault ...` sets these from the
    command line; `running_server(faults=...)` from a test or a notebook.
    """

    status: int | None = None
    retry_after_s: int | None = None
    delay_s: float = 0.0
    trickle_s: float = 0.0
    malformed: bool = False
    reply: ReplyFault | None = None
    times: int | None = None

    def __post_init__(self) -> None:
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(
                f"Faults(status={self.status}) must be an HTTP error status, 400 to 599."
            )
        if self.delay_s < 0 or self.trickle_s < 0:
            raise ValueError(
                f"Faults(delay_s={self.delay_s}, trickle_s={self.trickle_s}) must be zero or more seconds."
            )
        if self.reply is not None and self.reply not in REPLY_FAULTS:
            raise ValueError(
                f"Faults(reply={self.reply!r}) must be one of: {', '.join(sorted(REPLY_FAULTS))}."
            )
        if self.retry_after_s is not None and self.retry_after_s < 0:
            raise ValueError(
                f"Faults(retry_after_s={self.retry_after_s}) must be zero or more seconds."
            )
        if self.retry_after_s is not None and self.status != 429:
            raise ValueError(
                "Faults(retry_after_s=...) goes with status=429, the answer that carries it."
            )
        if self.times is not None and self.times < 1:
            raise ValueError(
                f"Faults(times={self.times}) must be at least 1, or None for every request."
            )


def fault_error(
    status: int, retry_after_s: int | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """(error body, extra headers) for an injected HTTP error, shaped like the real thing."""
    if status == 429:
        headers = {} if retry_after_s is None else {"Retry-After": str(retry_after_s)}
        return _error(
            "Rate limit reached (injected by cafe serve). Wait and try again.",
            "rate_limit_error",
            "rate_limit_exceeded",
        ), headers
    if status >= 500:
        return _error(
            f"The server had an error (HTTP {status}, injected by cafe serve).", "server_error"
        ), {}
    return _error(f"HTTP {status} injected by cafe serve.", "invalid_request_error"), {}


def _error(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _completion(model: str, message: dict[str, Any] | None) -> bytes:
    choices = [] if message is None else [{"index": 0, "message": message, "finish_reason": "stop"}]
    return json.dumps(
        {
            "id": "chatcmpl-fault",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": choices,
        }
    ).encode("utf-8")


def reply_body(reply: ReplyFault, model: str) -> tuple[str, bytes]:
    """(content type, body) of the HTTP 200 a `reply` fault sends."""
    if reply == "empty":
        return "application/json", b""
    if reply == "no_choices":
        return "application/json", _completion(model, None)
    if reply == "null_content":
        return "application/json", _completion(model, {"role": "assistant", "content": None})
    if reply == "html":
        return "text/html; charset=utf-8", HTML_PAGE
    if reply == "junk":
        return "application/json", b"x" * JUNK_BYTES
    if reply == "bad_tool_args":
        call = {
            "id": "call_fault",
            "type": "function",
            "function": {"name": "add_item", "arguments": "{'item': latte"},
        }
        return "application/json", _completion(
            model, {"role": "assistant", "content": None, "tool_calls": [call]}
        )
    raise ValueError(
        f"Unknown reply fault {reply!r}; use one of: {', '.join(sorted(REPLY_FAULTS))}."
    )


def faults_from_flags(flags: object) -> Faults | None:
    """The `Faults` that `cafe serve`'s --fault-* flags ask for (read off the parsed `flags`), or
    None when there are none."""
    chosen = {
        "status": getattr(flags, "fault_status", None),
        "retry_after_s": getattr(flags, "fault_retry_after", None),
        "delay_s": getattr(flags, "fault_delay", None),
        "trickle_s": getattr(flags, "fault_trickle", None),
        "malformed": getattr(flags, "fault_malformed", None),
        "reply": getattr(flags, "fault_reply", None),
        "times": getattr(flags, "fault_times", None),
    }
    # `is`, not `in`: a flag given as 0 (--fault-retry-after 0) is a choice, and 0 == False
    given = {
        name: value for name, value in chosen.items() if value is not None and value is not False
    }
    return Faults(**given) if given else None
