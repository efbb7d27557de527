"""The doctor's checks that talk to the model: is it there, does it list the model, does JSON mode,
an output format and a forced tool call work, and how fast does it write.

`endpoint_checks(report, probing)` runs them in order, through the same client door as every
call (`cafe.endpoint.client.chat`), with the probes of `cafe.endpoint.doctor.probes` and the speed probe of
`cafe.endpoint.doctor.speed`. The model list gets at most `REACH_TIMEOUT_S`; each chat check the
doctor's `--timeout`. Once the endpoint is unreachable, refuses the key, answers with a web page,
has no model list at the base URL (a 404: usually a missing /v1), or is too slow for the check's
limit, the later checks are reported skipped rather than each repeating the same failure or
waiting out its own limit. The words for each failure come from `cafe.endpoint.client.problems`; a chat
check that ran out of time after the model list answered names the model slow, not dead. The
speed check reports reply tokens per second and, when a reply at the cap would outlast the
deadline live calls get, the `CAFE_TIMEOUT_S` (and `CAFE_MAX_TOKENS`) that fit. Session 00
(`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from cafe.endpoint.client.diagnosis import classify_error
from cafe.endpoint.client.problems import EndpointProblem, describe
from cafe.endpoint.client.protocol import EndpointClient
from cafe.endpoint.doctor.checks import ReportWriter
from cafe.endpoint.doctor.probes import probe_formats, probe_json, probe_models, probe_tools
from cafe.endpoint.doctor.speed import advice, fastest_reading, measure_speed

__all__ = ["NETWORK_CHECKS", "REACH_TIMEOUT_S", "Probing", "endpoint_checks"]

# Seconds the first check (the model list) may take. Listing models runs no model, so a healthy
# server answers at once; half the doctor's default 10 s leaves room to start Python and print.
REACH_TIMEOUT_S = 5.0
# The checks that talk to the model, in the order they run.
NETWORK_CHECKS = (
    "endpoint reachable",
    "model listed",
    "JSON round trip",
    "output format",
    "tool calls",
    "speed",
)
# Why later network checks are skipped after a failure that would only repeat (or hang) in them.
UNREACHABLE = "endpoint unreachable"
NOT_ANSWERING = "the endpoint did not answer in time (busy, or stuck behind an earlier request)"
TOO_SLOW = "the model is too slow for this time limit (each check would wait it out; see --timeout)"
KEY_REFUSED = "the endpoint refused the key"
WRONG_PATH = "no API at this base URL (is /v1 missing?)"
NOT_THE_API = "the base URL answers with a web page, not the API"
# The problem kinds after which the later checks are skipped, and the reason given. (A 404 stops
# them only on the model list: see `_explain`.)
STOPS: Mapping[str, str] = MappingProxyType(
    {
        "timeout": NOT_ANSWERING,
        "slow": TOO_SLOW,
        "connection": UNREACHABLE,
        "key_refused": KEY_REFUSED,
        "web_page": NOT_THE_API,
    }
)
# The model list's own words for three problems. Listing models runs no model, so a slow list
# means a stuck server; a refused connection, most often a server that stopped (a `cafe local`
# whose server died says why in its own terminal); and every OpenAI-compatible server lists its
# models, so a 404 there means the path is wrong (usually a missing /v1), not CAFE_MODEL, which
# has not even been asked about yet.
LISTING_WORDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "timeout": (
            "The endpoint {url} did not answer the model list within {seconds:g} s",
            "A working server lists its models at once, so it is busy or stuck. A local server "
            "(llama.cpp, LM Studio) answers one request at a time and keeps generating a reply "
            "its caller gave up on: wait for it to finish, or restart it; then run `cafe doctor` again.",
        ),
        "connection": (
            "Could not connect to the endpoint {url}: {said}",
            "Nothing answers there. Start your endpoint; if it was `cafe local`, start it again "
            "(when its server dies, the last line `cafe local` printed says of what, and the "
            "fix). Or correct CAFE_BASE_URL; to rehearse with scripted answers, run `cafe serve` "
            "in another terminal and use the lines it prints.",
        ),
        "not_found": (
            "The endpoint {url}/models answered HTTP 404: {said}",
            "The path is wrong, not the model: CAFE_BASE_URL must be the API's base, which for "
            "most servers ends in /v1 (e.g. http://127.0.0.1:8000/v1).",
        ),
    }
)


@dataclass(frozen=True)
class Probing:
    """What the network checks work with: the client and its URL as shown, the model, each
    check's time limit (`timeout`), and the reply cap and deadline live calls get."""

    client: EndpointClient
    url: str
    model: str
    timeout: float
    cap: int
    call_timeout: float


class _Unusable(Exception):
    """An endpoint failure after which later network checks would only repeat it (or hang)."""


def _with_v1(url: str) -> str:
    """The command that adds /v1 to a base URL the model list was not found at, or "" when it
    ends in /v1 already or its credentials were masked out of `url` (the command would drop them)."""
    base = url.rstrip("/")
    if base.endswith("/v1") or "***" in base:
        return ""
    return f" Here: `export CAFE_BASE_URL={base}/v1` (or the line CAFE_BASE_URL={base}/v1 in .env)."


def _explain(
    exc: Exception, url: str, timeout: float, key: str | None, *, listing: bool = False
) -> tuple[str, str, str | None]:
    """(what happened, how to fix it, why later network checks are pointless or None) for an error.

    The words come from `cafe.endpoint.client.problems.PROBLEM_WORDS`, the table the client's errors use
    too; `listing` is True for the model list, the first check, where a timeout or a 404 means
    something different (`LISTING_WORDS`).
    """
    problem = classify_error(exc, key)
    if problem.kind == "timeout" and not listing:  # it listed its models: up, just not done yet
        problem = EndpointProblem("slow")
    what, fix = describe(problem, url=url, key=key, seconds=timeout)
    if listing and problem.kind in LISTING_WORDS:
        what, fix = (
            text.format(url=url, seconds=timeout, said=problem.said)
            for text in LISTING_WORDS[problem.kind]
        )
        if problem.kind == "not_found":
            fix += _with_v1(url)
    stop = STOPS.get(problem.kind)
    if problem.kind == "not_found":
        stop = WRONG_PATH if listing else None
    return what.rstrip(".") + ".", fix, stop


def _attempt(
    report: ReportWriter, ctx: Probing, name: str, probe: Callable[[], Any], remaining: int
) -> Any:
    """`probe()`, or None after reporting its failure; raises `_Unusable` when the rest is moot
    (the `remaining` checks after this one are then reported skipped)."""
    url, listing = ctx.url, name == "endpoint reachable"
    limit = min(ctx.timeout, REACH_TIMEOUT_S) if listing else ctx.timeout
    try:
        return probe()
    except Exception as exc:  # the doctor reports; it never crashes on the thing it examines
        detail, fix, stop = _explain(exc, url, limit, report.key, listing=listing)
        if stop == KEY_REFUSED and listing:
            report.add(name, True, f"{url} answered")  # it did answer: with a refusal
            name = "API key accepted"
        report.add(name, False, detail, fix)
        if stop is not None:
            report.skip(NETWORK_CHECKS[len(NETWORK_CHECKS) - remaining :], stop)
            raise _Unusable from None
        return None


def _listing_checks(report: ReportWriter, ctx: Probing) -> None:
    """ "endpoint reachable" and "model listed": the model list, which runs no model."""
    url, model = ctx.url, ctx.model
    offered = _attempt(
        report,
        ctx,
        "endpoint reachable",
        lambda: probe_models(ctx.client, min(ctx.timeout, REACH_TIMEOUT_S)),
        5,
    )
    if offered is None:  # it answered, but not with a model list; chat may still work
        report.add(
            "model listed", False, "skipped: the endpoint did not list its models", skipped=True
        )
        return
    count = f"{len(offered)} model" + ("" if len(offered) == 1 else "s")
    report.add("endpoint reachable", True, f"{url} answered the model list ({count})")
    if model in offered:
        report.add("model listed", True, f"{model} is among the endpoint's models")
        return
    report.add(
        "model listed",
        False,
        f"{model!r} is not among the endpoint's models. It offers: {', '.join(offered) or '(none)'}.",
        f"Set CAFE_MODEL to one of the listed names, e.g. `export CAFE_MODEL={offered[0]}`."
        if offered
        else "The endpoint lists no models; check its set-up.",
    )


def _json_check(report: ReportWriter, ctx: Probing) -> float | None:
    """ "JSON round trip": JSON mode, asked once; returns the milliseconds it took (None: failed)."""
    seen = _attempt(
        report, ctx, "JSON round trip", lambda: probe_json(ctx.client, ctx.model, ctx.timeout), 3
    )
    if seen is None:
        return None
    ok, detail, elapsed_ms = seen
    report.add(
        "JSON round trip",
        ok,
        detail,
        "This model did not follow JSON mode (response_format json_object); sessions 04 "
        "and 07 need it. Try another model.",
    )
    return float(elapsed_ms)


def _format_check(report: ReportWriter, ctx: Probing) -> None:
    """ "output format": the strictest JSON format the endpoint honours."""
    found = _attempt(
        report, ctx, "output format", lambda: probe_formats(ctx.client, ctx.model, ctx.timeout), 2
    )
    if found is None:
        return
    kind, passed_over = found
    why = f" ({'; '.join(passed_over)})" if passed_over else ""
    report.add(
        "output format",
        kind != "plain",
        f"ticket drafts will ask for {kind}{why}",
        "No JSON output format worked; drafts will be plain text, parsed as best we can. "
        "Sessions 04 and 07 work better with a model or server that does JSON mode.",
    )


def _tool_check(report: ReportWriter, ctx: Probing) -> None:
    """ "tool calls": a call forced with tool_choice comes back as one."""
    tool = _attempt(
        report, ctx, "tool calls", lambda: probe_tools(ctx.client, ctx.model, ctx.timeout), 1
    )
    if tool is not None:
        report.add(
            "tool calls",
            tool[0],
            tool[1],
            "This model or server does not do tool calls with tool_choice; session 01's loop "
            "needs them. Try another model, or enable tool calling on the server.",
        )


def _speed_check(report: ReportWriter, ctx: Probing, elapsed_ms: float | None) -> None:
    """ "speed": how fast the model writes, and whether the reply cap and deadline fit it."""
    if elapsed_ms is None:
        report.add("speed", False, "skipped: no JSON round trip to time", skipped=True)
        return
    speed = _attempt(
        report,
        ctx,
        "speed",
        lambda: fastest_reading(
            lambda: measure_speed(ctx.client, ctx.model, ctx.timeout),
            lambda reading: advice(reading, ctx.cap, ctx.call_timeout)[0],
        ),
        0,
    )
    round_trip = f"{elapsed_ms:.0f} ms for the JSON round trip"
    if speed is None:
        report.add("speed", True, f"{round_trip}; the reply was too short to time its writing")
        return
    fits, said, fix = advice(speed, ctx.cap, ctx.call_timeout)
    report.add("speed", fits, f"{round_trip}; {said}", fix)


def endpoint_checks(report: ReportWriter, ctx: Probing) -> None:
    """The checks that talk to the model, offline (scripted) or live (HTTP), in order; after a
    failure that would only repeat in the later ones, those are reported skipped."""
    try:
        _listing_checks(report, ctx)
        elapsed_ms = _json_check(report, ctx)
        _format_check(report, ctx)
        _tool_check(report, ctx)
        _speed_check(report, ctx, elapsed_ms)
    except _Unusable:
        pass  # already reported, and the remaining checks marked skipped
