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

An `OSError` (a path too long, a file where a folder must go, a full disk) is not raised on
purpose, but a command meets one when a learner names a path; `os_error_line` words it as one line
of the same kind, which `cafe.cli.run_command` prints instead of a traceback.

Messages say what happened, the offending value, and what to do next. None of them ever
contains the API key, and neither does any attribute (`param`, `base_url`):
`cafe.endpoint.secrets.redaction.redact` runs over anything that came back from the endpoint,
whichever field or header carried it, and `cafe.endpoint.client.chat.chat` raises its error
without the SDK's exception (raw body and headers) attached as its context.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from typing import Literal

__all__ = [
    "ProblemKind",
    "SETUP_PROBLEMS",
    "CafeError",
    "ConfigError",
    "EndpointError",
    "RequestRejected",
    "ScriptExhausted",
    "os_error_line",
    "shortened",
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


# What to do about a path the operating system refused, by its error number (errno); any other
# number gets `CHECK_PATH`. Written for the paths a learner names: --out, --file, CAFE_HOME, ...
_READ_ONLY = "choose a folder you can write to, or change its permissions"
OS_ERROR_FIXES: Mapping[int, str] = {
    errno.ENAMETOOLONG: "use a shorter path (most systems allow 255 characters for one name)",
    errno.EEXIST: "something is already there: name another path, or move that first",
    errno.ENOTDIR: "part of the path is a file, not a folder: name another path",
    errno.EISDIR: "that is a folder: name a file instead",
    errno.ENOENT: "check the path: there is no such file or folder",
    errno.EACCES: _READ_ONLY,
    errno.EPERM: _READ_ONLY,
    errno.EROFS: _READ_ONLY,
    errno.ENOSPC: "the disk is full: free some space and run it again",
}
CHECK_PATH = "check the path and run the command again"
# How much of a long value (a path, a URL) a message shows: enough to recognise it, short of
# filling the screen.
SHOWN_CHARS = 80


def shortened(text: str) -> str:
    """`text` as a message shows it: whole, or its first `SHOWN_CHARS` and how long it is in all."""
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}… ({len(text):,} characters)"


def _shown_path(name: object) -> str:
    text = shortened(name.decode(errors="replace") if isinstance(name, bytes) else str(name))
    return text if text.isprintable() else repr(text)


def os_error_line(exc: OSError) -> str:
    """`exc` as one line: what happened, the path (cut short if long), and what to do, e.g.
    "File name too long: /tmp/aaa… (5,012 characters); use a shorter path (...)."."""
    what = exc.strerror or str(exc) or type(exc).__name__
    where = f": {_shown_path(exc.filename)}" if exc.filename is not None else ""
    fix = OS_ERROR_FIXES.get(exc.errno or 0, CHECK_PATH)
    return f"{what}{where}; {fix}."


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
