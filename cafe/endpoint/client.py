"""One client factory for both modes, and one place that turns endpoint trouble into clear errors.

`make_client()` returns an object with the `openai.OpenAI` interface:

- offline: a `ScriptedClient` answering from the script you pass (or `default_responder`);
- live: `openai.OpenAI(base_url=CAFE_BASE_URL, api_key=CAFE_API_KEY)`, with a timeout.

Code built on it (every `make_model_generator` in the course) does not know which it got.
`chat(client, ...)` wraps `client.chat.completions.create(...)` so that a dead, slow or refusing
endpoint becomes an `EndpointError` naming the endpoint and pointing at `cafe doctor`, instead of
a stack trace from deep inside an HTTP library, or worse, a fake "the model failed" result.

Two things the SDK alone does not do. Its timeout limits each wait for the next bytes, so a server
that trickles a byte at a time never times out; here every request runs against a deadline for
the whole call (`within_deadline`), and a call still waiting after `WAIT_NOTICE_S` says so once
on stderr. And an answer that is not a chat completion (a web page, an empty list of choices)
is named rather than passed on.

`classify_error(exc)` sorts a failure into one of the `PROBLEM_KINDS` of `cafe.endpoint.problems`;
the words for each kind live in that module's one table, which the doctor reads too.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO, TypeVar

from cafe.endpoint import formats
from cafe.endpoint.config import course_mode, live_settings, max_tokens, redact
from cafe.endpoint.errors import EndpointError, RequestRejected
from cafe.endpoint.formats import FORMAT_FIELD
from cafe.endpoint.problems import PROBLEM_KINDS, EndpointProblem, ProblemKind, describe
from cafe.endpoint.scripted import Reply, Responder, Script, ScriptedClient

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "SAID_CHARS",
    "WAIT_NOTICE_S",
    "PROBLEM_KINDS",
    "ProblemKind",
    "EndpointProblem",
    "BadReply",
    "make_client",
    "chat",
    "chat_in_format",
    "complete",
    "list_models",
    "within_deadline",
    "endpoint_of",
    "endpoint_said",
    "clip",
    "classify_error",
    "translate_error",
]

# Seconds before a live request gives up, for the whole request. Long enough for a slow local
# model on a laptop, short enough that a dead endpoint is reported while the learner is looking.
DEFAULT_TIMEOUT_S = 60.0
# How much of what an endpoint said an error message quotes: room for a sentence or two of hint
# (cafe serve's 404 says which routes it does answer), not a whole HTML error page.
SAID_CHARS = 300
# After this many seconds without an answer a call says, once, that it is waiting: long enough
# that a healthy endpoint never triggers it, short enough that silence never looks like a hang.
WAIT_NOTICE_S = 2.0
# The closing hint of every client error.
DOCTOR_HINT = "Run `cafe doctor` to check the endpoint, key and model."

T = TypeVar("T")


class BadReply(ValueError):
    """An HTTP 200 answer that cannot be used: `kind` is "web_page", "no_choices" or "bad_body"."""

    def __init__(self, kind: ProblemKind, said: str = ""):
        super().__init__(said or kind)
        self.kind = kind
        self.said = said


def make_client(
    script: Script | Sequence[Reply] | Responder | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = 0,
) -> Any:
    """Return a scripted client offline, or an `openai.OpenAI` client live.

    `script` is only used offline. `timeout` is the seconds a whole request may take (`chat`
    enforces it). `max_retries` defaults to 0 so that the course's own loops, which count
    attempts on purpose, are not multiplied by hidden SDK retries.
    """
    if course_mode(environ) == "offline":
        return ScriptedClient(script)
    settings = live_settings(environ)
    import openai  # imported here so that `import cafe` stays light

    return openai.OpenAI(
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=timeout,
        max_retries=max_retries,
    )


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


def _looks_like_html(text: str) -> bool:
    return text.lstrip()[:200].lower().startswith(("<!doctype html", "<html", "<head", "<body"))


def _status_problem(exc: Any, key: str | None) -> EndpointProblem:
    status = exc.status_code
    full = redact(endpoint_said(exc), key)
    said = clip(full, SAID_CHARS)  # mask first: a cut can split the key
    param = getattr(exc, "param", None)
    param = param if isinstance(param, str) and param else None
    if param is None and status >= 500 and FORMAT_FIELD in full:
        # Some servers refuse an output format they cannot do with a 500 (llama-cpp-python's
        # validation error names `response_format`): a refusal of the request all the same.
        param = FORMAT_FIELD
    kind: ProblemKind = (
        "key_refused"
        if status in (401, 403)
        else "not_found"
        if status == 404
        else "rate_limited"
        if status == 429
        else "rejected"
        if status in (400, 422) or param == FORMAT_FIELD
        else "http_error"
    )
    if _looks_like_html(said):
        said = "a web page (HTML), not the API's JSON"
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    return EndpointProblem(
        kind, status, said, param, headers.get("retry-after") if status == 429 else None
    )


def classify_error(exc: BaseException, key: str | None = None) -> EndpointProblem:
    """Sort an exception from talking to an endpoint into an `EndpointProblem`.

    Every `openai` SDK error gets its kind; `TimeoutError` (a missed deadline) is `timeout`; a
    `BadReply` keeps its own; any other `ValueError` (a garbled body) is `bad_body`; anything else
    is `other`, so a caller that must not crash (the doctor) can still report it. What the
    endpoint said is masked with `key` before it is clipped.
    """
    import openai

    if isinstance(
        exc, (openai.APITimeoutError, TimeoutError)
    ):  # APITimeoutError is a connection error
        return EndpointProblem("timeout")
    if isinstance(exc, openai.APIConnectionError):
        cause = str(exc.__cause__) if exc.__cause__ is not None else ""
        return EndpointProblem("connection", said=clip(redact(cause, key), SAID_CHARS))
    if isinstance(exc, openai.APIStatusError):
        return _status_problem(exc, key)
    if isinstance(exc, BadReply):
        return EndpointProblem(exc.kind, said=clip(redact(exc.said, key), SAID_CHARS))
    if isinstance(exc, json.JSONDecodeError):
        return EndpointProblem(
            "bad_body", said=f"the body is not valid JSON ({exc.msg}, at character {exc.pos})"
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return EndpointProblem("bad_body", said="its fields do not match the API's")
    if isinstance(exc, ValueError):
        return EndpointProblem("bad_body", said=clip(redact(str(exc), key), SAID_CHARS))
    return EndpointProblem(
        "other", said=clip(redact(f"{type(exc).__name__}: {exc}", key), SAID_CHARS)
    )


def within_deadline(
    call: Callable[[], T], seconds: float, *, waiting_for: str, notice: TextIO | None = None
) -> T:
    """`call()`, given at most `seconds` in all; raise `TimeoutError` if it has not returned by then.

    The call runs in a worker thread so that the wait can be cut off whatever the socket is
    doing. After `WAIT_NOTICE_S` it prints, once, to `notice` (default stderr) that it is still
    waiting for `waiting_for` and for how long at most. A call cut off finishes (or fails) in the
    background; its answer is thrown away.
    """
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting thread, which raises it
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="cafe-endpoint-call", daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(min(seconds, WAIT_NOTICE_S))
    if worker.is_alive() and seconds > WAIT_NOTICE_S:
        print(
            f"cafe: waiting for {waiting_for} (giving up after {seconds:g} s)…",
            file=notice or sys.stderr,
            flush=True,
        )
        worker.join(max(0.0, seconds - (time.monotonic() - started)))
    if worker.is_alive():
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _seconds(client: Any, kwargs: Mapping[str, Any]) -> float:
    """The time limit of one request: its own `timeout=`, else the client's, else the default."""
    for value in (kwargs.get("timeout"), getattr(client, "timeout", None)):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return DEFAULT_TIMEOUT_S


def _usable(completion: Any) -> Any:
    """`completion` if it has a choice to read; otherwise raise `BadReply` naming what it is."""
    if isinstance(completion, str):  # the SDK hands back the text of a body that is not JSON
        if _looks_like_html(completion):
            raise BadReply("web_page", "a web page (HTML), not the API's JSON")
        raise BadReply("bad_body", f"text, not JSON: {clip(completion, 80)!r}")
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list):
        raise BadReply("bad_body", "JSON without a list of choices")
    if not choices:
        raise BadReply("no_choices", "an empty list of choices")
    return completion


def complete(client: Any, **kwargs: Any) -> Any:
    """`client.chat.completions.create(**kwargs)` within the request's time limit, checked usable.

    Raises what went wrong as it is (an `openai` error, `TimeoutError`, `BadReply`); `chat` turns
    it into an `EndpointError`, the doctor into a failed check.
    """
    if isinstance(client, ScriptedClient):
        return client.chat.completions.create(**kwargs)  # scripted errors are already clear
    seconds = _seconds(client, kwargs)
    create = client.chat.completions.create
    if "max_tokens" not in kwargs and "max_completion_tokens" not in kwargs:
        kwargs = {**kwargs, "max_tokens": max_tokens()}
    started = time.monotonic()
    try:
        return _usable(
            within_deadline(lambda: create(**kwargs), seconds, waiting_for=endpoint_of(client))
        )
    except Exception as exc:
        if "max_tokens" not in kwargs or not _wants_completion_tokens(exc):
            raise
    # Newer OpenAI models take the same limit under another name; ask once more with it, within
    # what is left of the time limit.
    renamed = {k: v for k, v in kwargs.items() if k != "max_tokens"}
    renamed["max_completion_tokens"] = kwargs["max_tokens"]
    left = max(0.1, seconds - (time.monotonic() - started))
    return _usable(
        within_deadline(lambda: create(**renamed), left, waiting_for=endpoint_of(client))
    )


def _wants_completion_tokens(exc: BaseException) -> bool:
    """Is this a refusal of `max_tokens` that asks for `max_completion_tokens` instead?"""
    status = getattr(exc, "status_code", None)
    return status in (400, 422) and (
        getattr(exc, "param", None) == "max_tokens" or "max_completion_tokens" in endpoint_said(exc)
    )


def list_models(client: Any, seconds: float) -> list[str]:
    """The model names the endpoint lists, within `seconds`; raises like `complete`."""
    if isinstance(client, ScriptedClient):
        return [model.id for model in client.models.list(timeout=seconds).data]

    def fetch() -> list[str]:
        raw = client.models.with_raw_response.list(timeout=seconds)
        kind = raw.headers.get("content-type", "")
        if "html" in kind or _looks_like_html(raw.text[:200]):
            raise BadReply("web_page", "a web page (HTML), not the API's JSON")
        if "json" not in kind:
            raise BadReply("bad_body", f"{kind or 'no content type'}, not JSON")
        return [model.id for model in raw.parse().data or []]

    return within_deadline(fetch, seconds, waiting_for=endpoint_of(client))


def _client_key(client: Any) -> str | None:
    key = getattr(client, "api_key", None)
    return key if isinstance(key, str) else os.environ.get("CAFE_API_KEY")


def translate_error(exc: Exception, client: Any, *, seconds: float | None = None) -> EndpointError:
    """Turn a failed request into an `EndpointError` that says what happened and what to do.

    Accepts what `complete` raises: `openai` SDK errors, `TimeoutError` and `ValueError` (a
    garbled body, or a `BadReply`). Anything else is a programming mistake and raises `TypeError`.
    `seconds` is the time limit the request had (default: the client's).
    """
    import openai

    if not isinstance(exc, (openai.OpenAIError, ValueError, TimeoutError)):
        raise TypeError(f"translate_error() only handles openai errors, not {type(exc).__name__}")
    url, key = endpoint_of(client), _client_key(client)
    problem = classify_error(exc, key)
    limit = seconds if seconds is not None else _seconds(client, {})
    what, fix = describe(problem, url=url, key=key, seconds=limit)
    if problem.kind == "rejected":
        return RequestRejected(f"{what}.", base_url=url, status=problem.status, param=problem.param)
    return EndpointError(
        f"{what}. {fix} {DOCTOR_HINT}", base_url=url, status=problem.status, kind=problem.kind
    )


def chat(client: Any, **kwargs: Any) -> Any:
    """`client.chat.completions.create(**kwargs)`, with endpoint failures raised as `EndpointError`.

    The whole request gets the client's timeout (or its own `timeout=`). The completion it
    returns always has at least one choice, so callers may read `choices[0]`.
    """
    if isinstance(client, ScriptedClient):
        return client.chat.completions.create(**kwargs)  # scripted errors are already clear
    import openai

    try:
        return complete(client, **kwargs)
    except (openai.OpenAIError, ValueError, TimeoutError) as exc:
        raise translate_error(exc, client, seconds=_seconds(client, kwargs)) from None


def chat_in_format(
    client: Any,
    kind: str,
    schema: dict[str, Any],
    name: str,
    *,
    rejections: list[str] | None = None,
    **kwargs: Any,
) -> tuple[Any, str]:
    """`chat` asking for JSON in output format `kind`, stepping down through `OUTPUT_FORMATS`
    while the endpoint refuses the format; returns the completion and the format it took.

    A refusal about anything else (the messages, the model), or of plain text itself, is raised as
    it is: a weaker format would only hide the cause. Each refusal stepped past is appended to
    `rejections` when one is given. `cafe.schema.StructuredDrafts` (session 04) and
    `cafe.judge.ModelJudge` (session 12) ask through here and remember the format for next time.
    """
    while True:
        fmt = formats.response_format(kind, schema, name)
        try:
            return chat(
                client, **kwargs, **({"response_format": fmt} if fmt is not None else {})
            ), kind
        except RequestRejected as exc:
            if kind == formats.OUTPUT_FORMATS[-1] or not formats.about_format(exc):
                raise
            if rejections is not None:
                rejections.append(f"{kind}: {exc}")
            kind = formats.OUTPUT_FORMATS[formats.OUTPUT_FORMATS.index(kind) + 1]
