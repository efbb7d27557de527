"""One client factory for both modes, and one place that turns endpoint trouble into clear errors.

`make_client()` returns an object with the `openai.OpenAI` interface:

- offline: a `ScriptedClient` answering from the script you pass (or `default_responder`);
- live: `openai.OpenAI(base_url=CAFE_BASE_URL, api_key=CAFE_API_KEY)`, with a timeout.

Code built on it (every `make_model_generator` in the course) does not know which it got.
`chat(client, ...)` wraps `client.chat.completions.create(...)` so that a dead, slow or refusing
endpoint becomes an `EndpointError` naming the endpoint and pointing at `cafe doctor`, instead of
a stack trace from deep inside an HTTP library, or worse, a fake "the model failed" result.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from cafe.config import course_mode, live_settings, mask_key, redact
from cafe.errors import EndpointError, RequestRejected
from cafe.scripted import Reply, Responder, Script, ScriptedClient

__all__ = ["DEFAULT_TIMEOUT_S", "make_client", "chat", "endpoint_of", "endpoint_said", "translate_error"]

# Seconds before a live request gives up. Long enough for a slow local model on a laptop,
# short enough that a dead endpoint is reported while the learner is still looking.
DEFAULT_TIMEOUT_S = 60.0


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


def _client_key(client: Any) -> str | None:
    key = getattr(client, "api_key", None)
    return key if isinstance(key, str) else os.environ.get("CAFE_API_KEY")


def translate_error(exc: Exception, client: Any) -> EndpointError:
    """Turn an `openai` SDK exception into an `EndpointError` that says what to do.

    Only SDK errors (and the `ValueError` a garbled body can raise) are accepted; anything else is
    a programming mistake and raises `TypeError`.
    """
    import openai

    url = endpoint_of(client)
    key = _client_key(client)
    doctor = "Run `cafe doctor` to check the endpoint, key and model."
    if isinstance(exc, openai.APITimeoutError):
        message = f"The endpoint {url} did not answer in time. Is the server overloaded or the model still loading? {doctor}"
        return EndpointError(message, base_url=url)
    if isinstance(exc, openai.APIConnectionError):
        why = f" ({redact(str(exc.__cause__), key)})" if exc.__cause__ is not None else ""
        message = (f"Could not connect to the endpoint {url}{why}. Is the server running, and is "
                   f"CAFE_BASE_URL right? {doctor}")
        return EndpointError(message, base_url=url)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        said = redact(endpoint_said(exc), key)[:300].rstrip(".")
        if status in (401, 403):
            message = (f"The endpoint {url} refused the API key (HTTP {status}, key {mask_key(key)}). "
                       f"Check CAFE_API_KEY. {doctor}")
        elif status == 404:
            message = (f"The endpoint {url} answered HTTP 404 ({said}): the model or the path is "
                       "unknown. Check CAFE_MODEL against the models `cafe doctor` lists, and that "
                       "CAFE_BASE_URL ends in /v1.")
        elif status == 429:
            message = f"The endpoint {url} is rate limiting us (HTTP 429: {said}). Wait and try again. {doctor}"
        elif status in (400, 422):
            return RequestRejected(f"The endpoint {url} rejected the request (HTTP {status}): {said}.",
                                   base_url=url, status=status)
        else:
            message = f"The endpoint {url} failed with HTTP {status} ({said}). {doctor}"
        return EndpointError(message, base_url=url, status=status)
    if isinstance(exc, openai.APIResponseValidationError) or isinstance(exc, ValueError):
        message = f"The endpoint {url} answered with something that is not a chat completion. {doctor}"
        return EndpointError(message, base_url=url)
    if isinstance(exc, openai.OpenAIError):
        return EndpointError(f"The endpoint {url} could not be used: {redact(str(exc), key)}. {doctor}",
                             base_url=url)
    raise TypeError(f"translate_error() only handles openai errors, not {type(exc).__name__}")


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
