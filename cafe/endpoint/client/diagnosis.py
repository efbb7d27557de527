"""What went wrong with a call: an exception sorted into one `ProblemKind`, its words made safe.

`classify_error(exc)` reads what talking to an endpoint raised (an `openai` SDK error, a missed
deadline, an answer that is not a chat completion) and returns an `EndpointProblem`: the kind, the
HTTP status, and what the endpoint said, scrubbed of every secret *before* it is clipped (a cut
made first can leave half a key that no longer matches). `BadReply` is the error for an HTTP 200
answer that cannot be used, and `error_in_body` reads the error some servers send with HTTP 200
in place of a reply. `accepts_connections` tells a slow endpoint from a dead one after a
call ran out of time. The words for each kind live in `cafe.endpoint.client.problems`; the client
(`cafe.endpoint.client.chat`) and the doctor (`cafe.endpoint.doctor.health`) both read them.
Session 00 (`sessions/s00-setup/lesson.md`) walks through the kinds.
"""

from __future__ import annotations

import json
import re
import socket
import sys
from typing import Any
from urllib.parse import urlsplit

from cafe.endpoint.client.formats import FORMAT_FIELD
from cafe.endpoint.client.problems import EndpointProblem, ProblemKind
from cafe.endpoint.secrets.redaction import redact

__all__ = [
    "SAID_CHARS",
    "BadReply",
    "error_in_body",
    "clip",
    "looks_like_html",
    "endpoint_said",
    "classify_error",
    "accepts_connections",
    "endpoint_errors",
]

# How much of what an endpoint said an error message quotes: room for a sentence or two of hint
# (cafe serve's 404 says which routes it does answer), not a whole HTML error page.
SAID_CHARS = 300
# Seconds to wait for a TCP connection when telling a slow endpoint from a dead one.
CONNECT_PROBE_S = 1.0
# The HTTP library's errors for an answer that broke after the connection was made: a body cut
# short, a response that is not HTTP or never came, a compressed body that does not decompress.
# The SDK raises them as a connection error (`APIConnectionError`, with one as its cause).
BROKEN_ANSWERS = ("RemoteProtocolError", "DecodingError")
# The libraries that may have raised them: httpx, or httpx2 in newer SDKs.
HTTP_LIBRARIES = ("httpx", "httpx2")


class BadReply(ValueError):
    """An HTTP 200 answer that cannot be used: `kind` is "web_page", "no_choices" or "bad_body",
    or "http_error" (with `status` 200) for an error the endpoint sent in place of a reply."""

    def __init__(self, kind: ProblemKind, said: str = "", *, status: int | None = None):
        super().__init__(said or kind)
        self.kind = kind
        self.said = said
        self.status = status


def endpoint_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean "the endpoint could not be used", which `chat` turns into an
    `EndpointError`: the SDK's errors, a missed deadline, an unusable answer, a body that is not
    JSON. Anything else (a scripted model's `ValueError` about the request, a `ConfigError`) is
    the caller's to see as it is. A function, because `openai` is imported only when needed."""
    import openai

    return (openai.OpenAIError, TimeoutError, BadReply, json.JSONDecodeError)


def clip(text: str, limit: int, *, key: str | None = None) -> str:
    """`text` scrubbed of every secret (`redact`), then cut to at most `limit` characters plus "…",
    at a word boundary when there is one. Scrubbing comes first, so no cut can split a key."""
    text = redact(text, key)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:  # a long run with no space (a URL, a JSON blob) is cut where it stands
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


def looks_like_html(text: str) -> bool:
    """Does `text` start like a web page?"""
    return text.lstrip()[:200].lower().startswith(("<!doctype html", "<html", "<head", "<body"))


def endpoint_said(exc: Any) -> str:
    """What the endpoint itself said in an HTTP error: its JSON body's message when it sent one.

    The SDK's own text ("Error code: 404 - {...}") wraps that message in its repr; a learner needs
    only the words.
    """
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"].strip():
        return str(body["message"]).strip()
    text = str(getattr(exc, "message", exc))
    if text.startswith("Error code: "):
        text = text.split(" - ", 1)[1] if " - " in text else ""
    return text.strip() or "no message"


def _broke_off(cause: BaseException | None) -> bool:
    """Is `cause` one of the `BROKEN_ANSWERS` errors of an HTTP library? (A library that is not
    loaded raised nothing, so only the loaded ones are looked at.)"""
    loaded = [sys.modules[name] for name in HTTP_LIBRARIES if name in sys.modules]
    broken = tuple(getattr(module, error) for module in loaded for error in BROKEN_ANSWERS)
    return isinstance(cause, broken)


def error_in_body(answer: Any) -> str | None:
    """What the endpoint said in the `error` field of an HTTP 200 body (llama.cpp, vLLM and some
    proxies report a failure so, `{"error": {"message": ...}}`, instead of a 4xx or 5xx): its
    message, or the whole field as JSON when it has none; None when there is no error field."""
    error = getattr(answer, "error", None)
    if error is None or error is False:
        return None
    message = error.get("message") if isinstance(error, dict) else error
    if isinstance(message, str) and message.strip():
        return message.strip()
    try:
        return json.dumps(error)
    except (TypeError, ValueError):
        return "an error with no message"


def _status_kind(status: int, param: str | None) -> ProblemKind:
    if status in (401, 403):
        return "key_refused"
    if status == 404:
        return "not_found"
    if status == 429:
        return "rate_limited"
    if status in (400, 422) or param == FORMAT_FIELD:
        return "rejected"
    return "http_error"


def _wait(header: Any, key: str | None) -> str | None:
    """A 429's Retry-After as a phrase safe to show: "it asks us to wait 7 s", or a note that it
    was not a number of seconds (a date, NaN, a negative number, any text); None if none came."""
    if not isinstance(header, str):
        return None
    text = header.strip()
    if re.fullmatch(r"[0-9]{1,12}(\.[0-9]{1,6})?", text):
        return redact(f"it asks us to wait {float(text):g} s", key)
    return "its Retry-After is not a number of seconds"


def _status_problem(exc: Any, key: str | None) -> EndpointProblem:
    status = exc.status_code
    full = redact(endpoint_said(exc), key)
    said = clip(full, SAID_CHARS, key=key)
    param = getattr(exc, "param", None)
    # The field a refusal blames is the endpoint's text too, so it is scrubbed like the rest.
    param = clip(param, SAID_CHARS, key=key) if isinstance(param, str) and param else None
    if param is None and status >= 500 and FORMAT_FIELD in full:
        # Some servers refuse an output format they cannot do with a 500 (llama-cpp-python's
        # validation error names `response_format`): a refusal of the request all the same.
        param = FORMAT_FIELD
    if looks_like_html(said):
        said = "a web page (HTML), not the API's JSON"
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    retry_after = _wait(headers.get("retry-after"), key) if status == 429 else None
    return EndpointProblem(_status_kind(status, param), status, said, param, retry_after)


def classify_error(exc: BaseException, key: str | None = None) -> EndpointProblem:
    """Sort an exception from talking to an endpoint into an `EndpointProblem`.

    Every `openai` SDK error gets its kind (a connection error whose cause is an answer that
    broke off, `BROKEN_ANSWERS`, is `broken_reply`); `TimeoutError` (a missed deadline) is `timeout`; a
    `BadReply` keeps its own; any other `ValueError` (a garbled body) is `bad_body`; anything else
    is `other`, so a caller that must not crash (the doctor) can still report it. What the
    endpoint said is scrubbed of `key` and every known secret before it is clipped.
    """
    import openai

    if isinstance(exc, (openai.APITimeoutError, TimeoutError)):  # before its parent class below
        return EndpointProblem("timeout")
    if isinstance(exc, openai.APIConnectionError):
        cause = str(exc.__cause__) if exc.__cause__ is not None else ""
        # Reached, then broken: not a failure to connect, whose fix (start the server) is wrong.
        kind: ProblemKind = "broken_reply" if _broke_off(exc.__cause__) else "connection"
        return EndpointProblem(kind, said=clip(cause, SAID_CHARS, key=key))
    if isinstance(exc, openai.APIStatusError):
        return _status_problem(exc, key)
    if isinstance(exc, BadReply):
        return EndpointProblem(exc.kind, exc.status, said=clip(exc.said, SAID_CHARS, key=key))
    if isinstance(exc, json.JSONDecodeError):
        return EndpointProblem(
            "bad_body", said=f"the body is not valid JSON ({exc.msg}, at character {exc.pos})"
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return EndpointProblem("bad_body", said="its fields do not match the API's")
    if isinstance(exc, ValueError):
        return EndpointProblem("bad_body", said=clip(str(exc), SAID_CHARS, key=key))
    return EndpointProblem("other", said=clip(f"{type(exc).__name__}: {exc}", SAID_CHARS, key=key))


def accepts_connections(url: str, seconds: float = CONNECT_PROBE_S) -> bool:
    """Does the host and port of `url` accept a TCP connection within `seconds`?

    After a call ran out of time this tells the two stories apart: a server that accepts
    connections is up and busy writing (slow), one that does not is down or unreachable.
    Only http(s) URLs are tried; anything else (the scripted client's) answers False.
    """
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    try:
        with socket.create_connection((parts.hostname, port), timeout=seconds):
            return True
    except OSError:
        return False
