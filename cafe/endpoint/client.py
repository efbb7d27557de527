"""One client factory for both modes, and one place that turns endpoint trouble into clear errors.

`make_client()` returns an object with the `openai.OpenAI` interface:

- offline: a `ScriptedClient` answering from the script you pass (or `default_responder`);
- live: `openai.OpenAI(base_url=CAFE_BASE_URL, api_key=CAFE_API_KEY)`, with a timeout.

Code built on it (every `make_model_generator` in the course) does not know which it got.
`chat(client, ...)` wraps `client.chat.completions.create(...)` so that a dead, slow or refusing
endpoint becomes an `EndpointError` naming the endpoint and pointing at `cafe doctor`, instead of
a stack trace from deep inside an HTTP library, or worse, a fake "the model failed" result.

`classify_error(exc)` sorts an `openai` exception into one of a few `PROBLEM_KINDS` (timeout,
connection, key refused, not found, ...), once. `translate_error` here and the doctor
(`cafe.endpoint.health`) both start from that record and word it for their own reader.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.endpoint.config import course_mode, live_settings, mask_key, redact
from cafe.endpoint.errors import EndpointError, RequestRejected
from cafe.endpoint.scripted import Reply, Responder, Script, ScriptedClient

__all__ = ["DEFAULT_TIMEOUT_S", "SAID_CHARS", "PROBLEM_KINDS", "ProblemKind", "EndpointProblem",
           "make_client", "chat", "endpoint_of", "endpoint_said", "clip", "classify_error",
           "translate_error"]

# Seconds before a live request gives up. Long enough for a slow local model on a laptop,
# short enough that a dead endpoint is reported while the learner is still looking.
DEFAULT_TIMEOUT_S = 60.0
# How much of what an endpoint said an error message quotes: room for a sentence or two of hint
# (cafe serve's 404 says which routes it does answer), not a whole HTML error page.
SAID_CHARS = 300

# What can go wrong talking to an endpoint, declared once. `classify_error` picks one;
# `translate_error` and the doctor each say, in their own words, what it means and what to do.
#   timeout       no answer within the timeout        connection    nothing answered at all
#   key_refused   HTTP 401 or 403                     not_found     HTTP 404: the model or the path
#   rate_limited  HTTP 429                            rejected      HTTP 400/422: it said no to the request
#   http_error    any other HTTP status               bad_body      an answer that is not a chat completion
#   other         any other exception
ProblemKind = Literal["timeout", "connection", "key_refused", "not_found", "rate_limited", "rejected",
                      "http_error", "bad_body", "other"]
PROBLEM_KINDS: frozenset[str] = frozenset(get_args(ProblemKind))


def make_client(
    script: Script | Sequence[Reply] | Responder | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = 0,
) -> Any:
    """Return a scripted client offline, or an `openai.OpenAI` client live.

    `script` is only used offline. `max_retries` defaults to 0 so that the course's own loops,
    which count attempts on purpose, are not multiplied by hidden SDK retries.
    """
    if course_mode(environ) == "offline":
        return ScriptedClient(script)
    settings = live_settings(environ)
    import openai  # imported here so that `import cafe` stays light

    return openai.OpenAI(base_url=settings.base_url, api_key=settings.api_key,
                         timeout=timeout, max_retries=max_retries)


def endpoint_of(client: Any) -> str:
    """The client's base URL as text (`scripted://offline` for the scripted client)."""
    return str(getattr(client, "base_url", "unknown endpoint")).rstrip("/")


def endpoint_said(exc: Any) -> str:
    """What the endpoint itself said in an HTTP error: its JSON body's message when it sent one.

    The SDK's own text ("Error code: 404 - {...}") wraps that message in its repr; a learner needs
    only the words.
    """
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"].strip():
        return body["message"].strip()
    text = str(getattr(exc, "message", exc))
    if text.startswith("Error code: "):
        text = text.split(" - ", 1)[1] if " - " in text else ""
    return text.strip() or "no message"


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters plus "…", at a word boundary when there is one."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:  # a long run with no space (a URL, a JSON blob) is cut where it stands
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


@dataclass(frozen=True)
class EndpointProblem:
    """What went wrong talking to an endpoint: its kind, the HTTP status, and what was said.

    `said` is the endpoint's own message for an HTTP error (clipped to `SAID_CHARS`), the
    underlying cause for a connection failure, or the exception's text for `other`. It is not
    redacted: whoever shows it runs `cafe.endpoint.config.redact` over it. `param` is the request field an
    HTTP 400/422 blamed, when the endpoint named one (OpenAI's error body carries it).
    """

    kind: ProblemKind
    status: int | None = None
    said: str = ""
    param: str | None = None


def classify_error(exc: BaseException) -> EndpointProblem:
    """Sort an exception from talking to an endpoint into an `EndpointProblem`.

    Every `openai` SDK error gets its kind; a `ValueError` (a garbled body) is `bad_body`; anything
    else is `other`, so a caller that must not crash (the doctor) can still report it.
    """
    import openai

    if isinstance(exc, openai.APITimeoutError):  # a subclass of APIConnectionError: test it first
        return EndpointProblem("timeout")
    if isinstance(exc, openai.APIConnectionError):
        return EndpointProblem("connection", said=str(exc.__cause__) if exc.__cause__ is not None else "")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        said = clip(endpoint_said(exc), SAID_CHARS)
        param = getattr(exc, "param", None)
        kind: ProblemKind = ("key_refused" if status in (401, 403) else "not_found" if status == 404
                             else "rate_limited" if status == 429 else "rejected" if status in (400, 422)
                             else "http_error")
        return EndpointProblem(kind, status, said, param if isinstance(param, str) and param else None)
    if isinstance(exc, (openai.APIResponseValidationError, ValueError)):
        return EndpointProblem("bad_body")
    return EndpointProblem("other", said=str(exc))


def _client_key(client: Any) -> str | None:
    key = getattr(client, "api_key", None)
    return key if isinstance(key, str) else os.environ.get("CAFE_API_KEY")


def translate_error(exc: Exception, client: Any) -> EndpointError:
    """Turn an `openai` SDK exception into an `EndpointError` that says what to do.

    Only SDK errors (and the `ValueError` a garbled body can raise) are accepted; anything else is
    a programming mistake and raises `TypeError`.
    """
    import openai

    if not isinstance(exc, (openai.OpenAIError, ValueError)):
        raise TypeError(f"translate_error() only handles openai errors, not {type(exc).__name__}")
    url = endpoint_of(client)
    key = _client_key(client)
    doctor = "Run `cafe doctor` to check the endpoint, key and model."
    problem = classify_error(exc)
    status, said = problem.status, redact(problem.said, key).rstrip(".")
    if problem.kind == "timeout":
        message = f"The endpoint {url} did not answer in time. Is the server overloaded or the model still loading? {doctor}"
    elif problem.kind == "connection":
        why = f" ({said})" if said else ""
        message = (f"Could not connect to the endpoint {url}{why}. Is the server running, and is "
                   f"CAFE_BASE_URL right? {doctor}")
    elif problem.kind == "key_refused":
        message = (f"The endpoint {url} refused the API key (HTTP {status}, key {mask_key(key)}). "
                   f"Check CAFE_API_KEY. {doctor}")
    elif problem.kind == "not_found":
        message = (f"The endpoint {url} answered HTTP 404 ({said}): the model or the path is "
                   "unknown. Check CAFE_MODEL against the models `cafe doctor` lists, and that "
                   "CAFE_BASE_URL ends in /v1.")
    elif problem.kind == "rate_limited":
        message = f"The endpoint {url} is rate limiting us (HTTP 429: {said}). Wait and try again. {doctor}"
    elif problem.kind == "rejected":
        about = f", about {problem.param}" if problem.param else ""
        return RequestRejected(f"The endpoint {url} rejected the request (HTTP {status}{about}): {said}.",
                               base_url=url, status=status, param=problem.param)
    elif problem.kind == "http_error":
        message = f"The endpoint {url} failed with HTTP {status} ({said}). {doctor}"
    elif problem.kind == "bad_body":
        message = f"The endpoint {url} answered with something that is not a chat completion. {doctor}"
    elif problem.kind == "other":
        message = f"The endpoint {url} could not be used: {redact(problem.said, key)}. {doctor}"
    else:
        raise AssertionError(f"unhandled problem kind {problem.kind!r}")
    return EndpointError(message, base_url=url, status=status)


def chat(client: Any, **kwargs: Any) -> Any:
    """`client.chat.completions.create(**kwargs)`, with endpoint failures raised as `EndpointError`.

    The completion it returns always has at least one choice, so callers may read `choices[0]`.
    """
    if isinstance(client, ScriptedClient):
        return client.chat.completions.create(**kwargs)  # scripted errors are already clear
    import openai

    try:
        completion = client.chat.completions.create(**kwargs)
    except (openai.OpenAIError, ValueError) as exc:
        raise translate_error(exc, client) from None
    if not getattr(completion, "choices", None):
        url = endpoint_of(client)
        raise EndpointError(f"The endpoint {url} answered with no choices, so there is no reply to read. "
                            "Run `cafe doctor` to check the endpoint and model.", base_url=url)
    return completion
