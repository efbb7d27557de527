"""What can go wrong talking to an endpoint, declared once, with what it means and how to fix it.

`cafe.endpoint.client.diagnosis.classify_error` sorts a failure into one `ProblemKind` and records it as an
`EndpointProblem`; `describe` turns that record into two sentences, what happened and how to fix
it, from the one table `PROBLEM_WORDS`. The client's `EndpointError` messages and the doctor's
failed checks (`cafe.endpoint.doctor.health`) both read that table, so a fault is named the same way
wherever it shows up. Session 00 (`sessions/s00-setup/lesson.md`) walks through the doctor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import get_args

from cafe.endpoint.errors import ProblemKind
from cafe.endpoint.secrets.redaction import mask_key, redact
from cafe.endpoint.secrets.terminal import visible

__all__ = ["ProblemKind", "PROBLEM_KINDS", "PROBLEM_WORDS", "EndpointProblem", "describe"]

# The closed set of `ProblemKind` (declared in `cafe.endpoint.errors`, beside `EndpointError`).
PROBLEM_KINDS: frozenset[str] = frozenset(get_args(ProblemKind))

# {kind: (what happened, how to fix it)}. The fields in braces come from `EndpointProblem` and
# the caller: url, status, said (what the endpoint said), key (masked), seconds (the time limit),
# wait (a Retry-After the endpoint sent) and about (the request field a refusal blamed).
PROBLEM_WORDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "timeout": (
            "The endpoint {url} did not answer within {seconds:g} s",
            "Is the server running, or is it stuck, overloaded or still loading its model? Check "
            "it, then try again; if it is only slow, allow longer (CAFE_TIMEOUT_S, or `cafe "
            "doctor --timeout 30`).",
        ),
        "slow": (
            "The endpoint {url} is up, but the model did not finish its reply within {seconds:g} s",
            "It is slow, not dead: a small model on a CPU can need minutes for a long reply. Allow "
            "more time (CAFE_TIMEOUT_S; the doctor's own checks: `cafe doctor --timeout 60`) or ask "
            "for shorter replies (CAFE_MAX_TOKENS); `cafe doctor` measures the model's speed and "
            "says which values fit it.",
        ),
        "connection": (
            "Could not connect to the endpoint {url}: {said}",
            "Start the endpoint (to rehearse locally, run `cafe serve` in another terminal), "
            "or correct CAFE_BASE_URL.",
        ),
        "broken_reply": (
            "The endpoint {url} took the request, but its answer broke off or could not be "
            "read: {said}",
            "The server is there (it accepted the connection); its answer did not arrive whole. "
            "It may have crashed or restarted mid-reply (check its terminal or logs), or a proxy "
            "between cut the answer off or garbled its compression: try again. If it fails the "
            "same way at once every time, check that CAFE_BASE_URL is the API's own address "
            "(http or https, the right port).",
        ),
        "key_refused": (
            "The endpoint {url} refused the API key {key} (HTTP {status})",
            "Check CAFE_API_KEY: it must be a key this endpoint accepts.",
        ),
        "not_found": (
            "The endpoint {url} answered HTTP 404: {said}",
            "Check CAFE_MODEL against the models the endpoint lists, and that CAFE_BASE_URL "
            "ends in /v1.",
        ),
        "rate_limited": (
            "The endpoint {url} is rate limiting us (HTTP 429{wait}): {said}",
            "Wait, then try again; check your plan's rate limits.",
        ),
        "rejected": (
            "The endpoint {url} rejected the request (HTTP {status}{about}): {said}",
            "This endpoint or model does not support what was asked; the course needs it. "
            "Try another model, or a server that supports it.",
        ),
        "http_error": (
            "The endpoint {url} failed with HTTP {status}: {said}",
            "The endpoint is up but failing; check its logs, or try again later.",
        ),
        "bad_body": (
            "The endpoint {url} answered with something that is not a chat completion: {said}",
            "Is CAFE_BASE_URL an OpenAI-compatible endpoint, ending in /v1?",
        ),
        "web_page": (
            "The endpoint {url} answered with a web page, not the API",
            "Check that CAFE_BASE_URL ends in /v1 (a web page means the address is a site "
            "or a chat UI, not its API).",
        ),
        "no_choices": (
            "The endpoint {url} answered with no choices, so there is no reply to read",
            "The server is up but produced no reply; check its logs, and that CAFE_MODEL is "
            "a chat model.",
        ),
        "other": (
            "The endpoint {url} could not be used: {said}",
            "This looks like a bug or an unusual endpoint; please report it with this output.",
        ),
    }
)


@dataclass(frozen=True)
class EndpointProblem:
    """What went wrong talking to an endpoint: its kind, the HTTP status, and what was said.

    `said` is the endpoint's own message for an HTTP error, the underlying cause for a connection
    failure, or a short description of a bad answer; `classify_error` has already masked the key
    in it and clipped it. `param` is the request field an HTTP 400/422 blamed, when the endpoint
    named one; `retry_after` the wait an HTTP 429 asked for, as a phrase safe to show ("it asks
    us to wait 7 s", or a note that its Retry-After was not a number of seconds).
    """

    kind: ProblemKind
    status: int | None = None
    said: str = ""
    param: str | None = None
    retry_after: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in PROBLEM_KINDS:
            raise ValueError(
                f"EndpointProblem kind {self.kind!r} is not one of {sorted(PROBLEM_KINDS)}."
            )


def describe(
    problem: EndpointProblem, *, url: str, key: str | None, seconds: float
) -> tuple[str, str]:
    """(what happened, how to fix it) for `problem`, in the words of `PROBLEM_WORDS`. What the
    endpoint said is scrubbed of the key and shown with its control characters escaped
    (`cafe.endpoint.secrets.terminal.visible`): this is where its words leave for a person."""
    what, fix = PROBLEM_WORDS[problem.kind]
    fields = {
        "url": url,
        "status": problem.status,
        "said": visible(redact(problem.said, key).rstrip(".")) or "no message",
        "key": mask_key(key),
        "seconds": seconds,
        # Both come from the endpoint too (a header, a field of its error), so both are scrubbed.
        "wait": visible(redact(f"; {problem.retry_after}", key)) if problem.retry_after else "",
        "about": visible(redact(f", about {problem.param}", key)) if problem.param else "",
    }
    return what.format(**fields), fix
