"""The errors the course package raises, in one place.

Every error here is a *stop*: the harness cannot go on and a person has to act. Anything the
model can fix (a bad draft, a failed check) is never an exception; it is a value sent back to the
model, or a named stop reason. The hierarchy:

    CafeError                  base class: catch this to catch everything below
    ├── ConfigError            COURSE_MODE or a CAFE_* variable is missing or wrong
    ├── EndpointError          the model endpoint could not be used (down, slow, key refused,
    │   │                      model unknown, rate limited, answer cut off, answered garbage)
    │   └── RequestRejected    the endpoint understood the request and said no (HTTP 400/422),
    │                          e.g. it does not support `response_format` json_schema
    └── ScriptExhausted        a scripted (offline) model was asked for more replies than it has

Messages say what happened, the offending value, and what to do next. None of them ever
contains the API key, and neither does any attribute (`param`, `base_url`):
`cafe.endpoint.secrets.redaction.redact` runs over anything that came back from the endpoint,
whichever field or header carried it, and `cafe.endpoint.client.chat.chat` raises its error
without the SDK's exception (raw body and headers) attached as its context.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ProblemKind",
    "SETUP_PROBLEMS",
    "CafeError",
    "ConfigError",
    "EndpointError",
    "RequestRejected",
    "ScriptExhausted",
]

# Every way an endpoint can fail us, as the client and the doctor tell them apart; what each one
# means and how to fix it is `cafe.endpoint.client.problems.PROBLEM_WORDS`. Declared here, beside the
# error that carries it, because this module imports nothing.
ProblemKind = Literal[
    "timeout",
    "slow",
    "connection",
    "broken_reply",
    "key_refused",
    "not_found",
    "rate_limited",
    "rejected",
    "http_error",
    "bad_body",
    "web_page",
    "no_choices",
    "other",
]
# The problems that mean the settings are wrong, not that one call was unlucky: a refused key, a
# model or path the endpoint does not have, a web page where the API should be. Every later call
# would fail the same way, so a loop over orders stops at the first of them (sessions 02, 04, 09
# and 10 all read this one set).
SETUP_PROBLEMS: frozenset[str] = frozenset({"key_refused", "not_found", "web_page"})


class CafeError(Exception):
    """Base class for every error the `cafe` package raises on purpose."""


class ConfigError(CafeError, ValueError):
    """The course configuration (environment variables) is missing or invalid."""


class EndpointError(CafeError):
    """The model endpoint could not be used. The message names the endpoint and the fix.

    `kind` says which problem it was, one of `ProblemKind` ("timeout", "slow", "key_refused",
    "web_page", ...), so a caller can branch on it instead of on the words.
    """

    def __init__(
        self,
        message: str,
        *,
        base_url: str | None = None,
        status: int | None = None,
        kind: ProblemKind = "other",
    ):
        super().__init__(message)
        self.base_url = base_url
        self.status = status
        self.kind = kind


class RequestRejected(EndpointError):
    """The endpoint answered HTTP 400/422: it understood the request and refused it.

    `param` is the request field the endpoint blamed (e.g. "response_format"), when it named one.
    """

    def __init__(
        self,
        message: str,
        *,
        base_url: str | None = None,
        status: int | None = None,
        param: str | None = None,
    ):
        super().__init__(message, base_url=base_url, status=status, kind="rejected")
        self.param = param


class ScriptExhausted(CafeError):
    """A scripted model ran out of canned replies."""
