"""One client factory for both modes, and one door every model call goes through.

`make_client()` returns a client with the `openai.OpenAI` interface (`cafe.endpoint.client.protocol.ChatClient`):

- offline: a `ScriptedClient` answering from the script you pass (or `default_responder`);
- live: a `LiveClient`, which is `openai.OpenAI(base_url=CAFE_BASE_URL, api_key=CAFE_API_KEY)`
  with no hidden retries, plus the course's limits.

Both carry the same two limits, read from the `environ` handed to `make_client` (or the course's
settings, `cafe.endpoint.settings.environment`): `reply_cap`, the longest reply a call asks for
(`CAFE_MAX_TOKENS`), and `timeout`, the seconds a whole call may take (`CAFE_TIMEOUT_S`).

`chat(client, ...)` is the door. Offline and live alike, it asks with the reply cap (unless the
call sets its own), runs the call against the deadline (`cafe.endpoint.client.deadline`), and checks
that the answer is a chat completion with a choice to read. A dead, slow or refusing endpoint
becomes an `EndpointError` that names the endpoint, says what happened (a slow model is named
slow, not dead) and points at `cafe doctor`, instead of a stack trace from deep inside an HTTP
library, or worse, a fake "the model failed" result. A request UTF-8 cannot encode is a
`ValueError` naming the field (`cafe.endpoint.client.sendable`). No module of the course calls the SDK's
`create` itself (a test checks it). How a failure is sorted and worded is `cafe.endpoint.client.diagnosis`
and `cafe.endpoint.client.problems`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from cafe.endpoint.client import formats
from cafe.endpoint.client.deadline import WAIT_NOTICE_S, within_deadline
from cafe.endpoint.client.diagnosis import (
    SAID_CHARS,
    BadReply,
    accepts_connections,
    classify_error,
    clip,
    endpoint_errors,
    endpoint_said,
    error_in_body,
    looks_like_html,
)
from cafe.endpoint.client.problems import PROBLEM_KINDS, EndpointProblem, ProblemKind, describe
from cafe.endpoint.client.protocol import ChatClient, EndpointClient
from cafe.endpoint.client.readable import readable
from cafe.endpoint.client.scripted import Reply, Responder, Script, ScriptedClient
from cafe.endpoint.client.sendable import sent
from cafe.endpoint.errors import EndpointError, RequestRejected
from cafe.endpoint.secrets.redaction import display_url, known_secrets
from cafe.endpoint.settings.config import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT_S,
    call_timeout,
    course_mode,
    live_settings,
    max_tokens,
)
from cafe.endpoint.settings.environment import course_environ

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "SAID_CHARS",
    "WAIT_NOTICE_S",
    "PROBLEM_KINDS",
    "ProblemKind",
    "EndpointProblem",
    "BadReply",
    "LiveClient",
    "make_client",
    "chat",
    "chat_in_format",
    "complete",
    "list_models",
    "model_entries",
    "within_deadline",
    "endpoint_of",
    "endpoint_said",
    "clip",
    "classify_error",
    "translate_error",
]

# The closing hint of every client error.
DOCTOR_HINT = "Run `cafe doctor` to check the endpoint, key and model."


class LiveClient:
    """A live client: the `openai.OpenAI` client `sdk`, with the course's two limits.

    `chat`, `models`, `base_url` and `api_key` are the SDK client's; `reply_cap` and `timeout` are
    what `chat()` applies to each call. `close()` closes the SDK client's connections.
    """

    def __init__(self, sdk: Any, *, reply_cap: int, timeout: float):
        self.sdk = sdk
        self.reply_cap = reply_cap
        self.timeout = timeout

    @property
    def chat(self) -> Any:
        return self.sdk.chat

    @property
    def models(self) -> Any:
        return self.sdk.models

    @property
    def base_url(self) -> str:
        return str(self.sdk.base_url)

    @property
    def api_key(self) -> str:
        return str(self.sdk.api_key)

    def close(self) -> None:
        self.sdk.close()

    def __repr__(self) -> str:
        return (
            f"LiveClient(base_url={endpoint_of(self)!r}, reply_cap={self.reply_cap}, "
            f"timeout={self.timeout:g})"
        )


def make_client(
    script: Script | Sequence[Reply] | Responder | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    timeout: float | None = None,
    max_retries: int = 0,
) -> ScriptedClient | LiveClient:
    """A scripted client offline, or a `LiveClient` live, each with the course's limits.

    `script` is only used offline. `timeout` is the seconds a whole call may take (default
    `CAFE_TIMEOUT_S`, else 60); the reply cap is `CAFE_MAX_TOKENS` (else 1,024). Every setting is
    validated here, so a malformed one is a `ConfigError` before any call. `max_retries` defaults
    to 0 so that the course's own loops, which count attempts on purpose, are not multiplied by
    hidden SDK retries.
    """
    env = course_environ(environ)
    mode = course_mode(env)
    cap = max_tokens(env)
    if timeout is not None and not (
        isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0
    ):
        raise ValueError(f"timeout is {timeout!r}; give the seconds a call may take, above 0.")
    seconds = float(timeout) if timeout is not None else call_timeout(env)
    if mode == "offline":
        return ScriptedClient(script, reply_cap=cap, timeout=seconds)
    settings = live_settings(env)
    import openai  # imported here so that `import cafe` stays light

    sdk = openai.OpenAI(
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=seconds,
        max_retries=max_retries,
    )
    return LiveClient(sdk, reply_cap=cap, timeout=seconds)


def endpoint_of(client: object) -> str:
    """The client's base URL as it may be shown (credentials masked; `scripted://offline` offline)."""
    return display_url(str(getattr(client, "base_url", "unknown endpoint")).rstrip("/"))


def _seconds(client: object, kwargs: Mapping[str, Any]) -> float:
    """The time limit of one call: its own `timeout=`, else the client's, else the default."""
    for value in (kwargs.get("timeout"), getattr(client, "timeout", None)):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return DEFAULT_TIMEOUT_S


def _reply_cap(client: object) -> int:
    """The reply cap of a client `make_client` made, else the default."""
    cap = getattr(client, "reply_cap", None)
    return (
        cap
        if isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1
        else DEFAULT_MAX_TOKENS
    )


def _usable(completion: Any) -> Any:
    """`completion` with a first choice to read, in the shape the course reads
    (`cafe.endpoint.client.readable`); otherwise raise `BadReply` naming what it is."""
    if isinstance(completion, str):  # the SDK hands back the text of a body that is not JSON
        if looks_like_html(completion):
            raise BadReply("web_page", "a web page (HTML), not the API's JSON")
        raise BadReply("bad_body", f"text, not JSON: {clip(completion, 80)!r}")
    choices = getattr(completion, "choices", None)
    said = error_in_body(completion) if not (isinstance(choices, list) and choices) else None
    if said is not None:  # an error in place of a reply: its own words, not "no choices"
        raise BadReply("http_error", said, status=200)
    if not isinstance(choices, list):
        raise BadReply("bad_body", "JSON without a list of choices")
    if not choices:
        raise BadReply("no_choices", "an empty list of choices")
    return readable(completion)


def _wants_completion_tokens(exc: BaseException) -> bool:
    """Is this a refusal of `max_tokens` that asks for `max_completion_tokens` instead?"""
    status = getattr(exc, "status_code", None)
    return status in (400, 422) and (
        getattr(exc, "param", None) == "max_tokens" or "max_completion_tokens" in endpoint_said(exc)
    )


def complete(client: ChatClient, **kwargs: Any) -> Any:
    """`client.chat.completions.create(**kwargs)` with the client's reply cap, within the call's
    time limit, checked usable: the same path for a scripted client and a live one.

    Raises what went wrong as it is (an `openai` error, `TimeoutError`, `BadReply`, or whatever a
    scripted model raised); `chat` turns the endpoint's troubles into an `EndpointError`, the
    doctor into a failed check.
    """
    seconds = _seconds(client, kwargs)
    create = client.chat.completions.create
    if "max_tokens" not in kwargs and "max_completion_tokens" not in kwargs:
        kwargs = {**kwargs, "max_tokens": _reply_cap(client)}
    started, url = time.monotonic(), endpoint_of(client)
    try:
        return _usable(within_deadline(lambda: sent(create, kwargs), seconds, waiting_for=url))
    except Exception as exc:
        if "max_tokens" not in kwargs or not _wants_completion_tokens(exc):
            raise
    # Newer OpenAI models take the same limit under another name; ask once more with it, within
    # what is left of the time limit.
    renamed = {k: v for k, v in kwargs.items() if k != "max_tokens"}
    renamed["max_completion_tokens"] = kwargs["max_tokens"]
    left = max(0.1, seconds - (time.monotonic() - started))
    return _usable(within_deadline(lambda: sent(create, renamed), left, waiting_for=url))


def model_entries(client: EndpointClient, seconds: float) -> list[tuple[str, str]]:
    """(name, owner) of each model the endpoint lists, within `seconds`; raises like `complete`.

    The owner (`owned_by`) is how `cafe serve` names the script it answers from.
    """

    def fetch() -> list[Any]:
        raw_client = getattr(client.models, "with_raw_response", None)
        if raw_client is None:  # a scripted client: no HTTP, just its list
            return list(client.models.list(timeout=seconds).data)
        raw = raw_client.list(timeout=seconds)
        kind = raw.headers.get("content-type", "")
        if "html" in kind or looks_like_html(raw.text[:200]):
            raise BadReply("web_page", "a web page (HTML), not the API's JSON")
        if "json" not in kind:
            raise BadReply("bad_body", f"{kind or 'no content type'}, not JSON")
        page = raw.parse()
        if not page.data and (said := error_in_body(page)) is not None:
            raise BadReply("http_error", said, status=200)
        return list(page.data or [])

    listed = within_deadline(fetch, seconds, waiting_for=endpoint_of(client))
    return [(str(m.id), str(getattr(m, "owned_by", "") or "")) for m in listed]


def list_models(client: EndpointClient, seconds: float) -> list[str]:
    """The model names the endpoint lists, within `seconds`; raises like `complete`."""
    return [name for name, _ in model_entries(client, seconds)]


def _client_key(client: object) -> str | None:
    key = getattr(client, "api_key", None)
    if isinstance(key, str):
        return key
    secrets = known_secrets()
    return secrets[0] if secrets else None


def translate_error(
    exc: BaseException, client: object, *, seconds: float | None = None
) -> EndpointError:
    """Turn a failed call into an `EndpointError` that says what happened and what to do.

    Accepts what `complete` raises about the endpoint (`endpoint_errors()`); anything else is a
    programming mistake and raises `TypeError`. `seconds` is the time limit the call had (default:
    the client's). A call that ran out of time against an endpoint that still takes connections
    is `slow`, not `timeout`: the model is writing, just not fast enough for the limit.
    """
    if not isinstance(exc, endpoint_errors()) and not isinstance(exc, ValueError):
        raise TypeError(f"translate_error() only handles endpoint errors, not {type(exc).__name__}")
    url, key = endpoint_of(client), _client_key(client)
    problem = classify_error(exc, key)
    if problem.kind == "timeout" and accepts_connections(str(getattr(client, "base_url", ""))):
        problem = EndpointProblem("slow")
    limit = seconds if seconds is not None else _seconds(client, {})
    what, fix = describe(problem, url=url, key=key, seconds=limit)
    if problem.kind == "rejected":
        return RequestRejected(f"{what}.", base_url=url, status=problem.status, param=problem.param)
    return EndpointError(
        f"{what}. {fix} {DOCTOR_HINT}", base_url=url, status=problem.status, kind=problem.kind
    )


def chat(client: ChatClient, **kwargs: Any) -> Any:
    """`client.chat.completions.create(**kwargs)` through the course's door (see `complete`), with
    the endpoint's failures raised as `EndpointError`. The completion it returns always has at
    least one choice, so callers may read `choices[0]`, and that choice reads as
    `cafe.endpoint.client.readable` describes.

    The error is raised outside the `except` block on purpose: raised inside, it would keep the
    SDK's exception as its `__context__`, and that one holds the endpoint's raw body and headers,
    key and all."""
    try:
        return complete(client, **kwargs)
    except endpoint_errors() as exc:
        error = translate_error(exc, client, seconds=_seconds(client, kwargs))
    raise error


def chat_in_format(
    client: ChatClient,
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
    `kind` is text because the callers keep it as text; anything outside the closed set is a
    `ValueError` naming the formats.
    """
    if kind not in formats.OUTPUT_FORMATS:
        raise ValueError(
            f"Unknown output format {kind!r}; use one of {', '.join(formats.OUTPUT_FORMATS)}."
        )
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
