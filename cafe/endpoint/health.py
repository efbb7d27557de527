"""`cafe doctor`: is the course set up, can it reach a model, and if not, how to fix it.

Most "the agent is broken" reports in a course like this one are really "the endpoint is not
what I think it is": a typo in the URL, a key the server refuses, a model name it does not offer,
a local server that cannot do JSON mode or tool calls. The doctor checks each of those in order,
prints a line per check as it goes, and says how to fix every failure:

    mode · Python · packages · base URL · API key (masked) · model
    endpoint reachable · model listed · JSON round trip · tool calls · latency

Offline (the default) it runs the same checks against the scripted model, so they pass, and says
how to go live. Live, it talks to `CAFE_BASE_URL` with no hidden retries and short limits on each
whole request: the model list, which runs no model, gets 5 s; each chat check 10 s (`--timeout`).
Once the endpoint is unreachable, refuses the key, answers with a web page, or has no model list
at the base URL (a 404: usually a missing /v1) the later network checks are skipped rather than
each repeating the same failure or waiting out its own limit. The words for each failure come from
the one table in `cafe.endpoint.problems`, which the client's errors use too. The closing summary
counts what passed, failed and was skipped, so the totals add up to the lines above it.

Two promises: it never raises for a set-up problem (a bad `COURSE_MODE` or a missing variable is
a failed check carrying the `ConfigError` message), and the API key never appears in what it
prints or returns (`cafe.endpoint.config.redact` runs over every line; the key itself shows as
`…` plus at most its last 4 characters).

The module is `cafe.endpoint.health` because `cafe.doctor` is the function. Session 00
(`sessions/s00-setup/lesson.md`) walks through a run of it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from types import MappingProxyType
from typing import Any, TextIO

from cafe.endpoint.checks import Check, DoctorReport, ReportWriter
from cafe.endpoint.client import endpoint_of, make_client
from cafe.endpoint.config import (
    LIVE_VARIABLES,
    MAX_TOKENS_VARIABLE,
    OFFLINE_MODEL,
    Mode,
    course_mode,
    live_settings,
    mask_key,
    max_tokens,
)
from cafe.endpoint.diagnosis import classify_error
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.probes import probe_formats, probe_json, probe_models, probe_tools
from cafe.endpoint.problems import EndpointProblem, describe
from cafe.endpoint.scripted import ScriptedClient

__all__ = [
    "Check",
    "DoctorReport",
    "doctor",
    "package_versions",
    "PACKAGES",
    "MIN_PYTHON",
    "DEFAULT_TIMEOUT_S",
    "REACH_TIMEOUT_S",
]

# The distributions whose versions the report shows: the course itself and what its sessions use.
PACKAGES = ("cafe", "openai", "pydantic", "ipywidgets", "jupyterlab", "jupytext")
# The oldest Python the course supports (pyproject.toml's requires-python).
MIN_PYTHON = (3, 10)
# Seconds each chat check (JSON round trip, tool calls) may take; `cafe doctor --timeout` changes it.
DEFAULT_TIMEOUT_S = 10.0
# Seconds the first check (the model list) may take. Listing models runs no model, so a healthy
# server answers at once; half the 10 s promise leaves room to start Python and print the report.
REACH_TIMEOUT_S = 5.0
# A reply slower than this still passes, but the report warns: a course run makes many calls.
SLOW_MS = 5_000
# The checks that talk to the model, in the order they run.
NETWORK_CHECKS = (
    "endpoint reachable",
    "model listed",
    "JSON round trip",
    "output format",
    "tool calls",
    "latency",
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
# The model list's own words for two problems. Listing models runs no model, so a slow list means
# a stuck server; and every OpenAI-compatible server lists its models, so a 404 there means the
# path is wrong (usually a missing /v1), not CAFE_MODEL, which has not even been asked about yet.
LISTING_WORDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "timeout": (
            "The endpoint {url} did not answer the model list within {seconds:g} s",
            "A working server lists its models at once, so it is busy or stuck. A local server "
            "(llama.cpp, LM Studio) answers one request at a time and keeps generating a reply "
            "its caller gave up on: wait for it to finish, or restart it; then run `cafe doctor` again.",
        ),
        "not_found": (
            "The endpoint {url}/models answered HTTP 404: {said}",
            "The path is wrong, not the model: CAFE_BASE_URL must be the API's base, which for "
            "most servers ends in /v1 (e.g. http://127.0.0.1:8000/v1).",
        ),
    }
)


class _Unusable(Exception):
    """An endpoint failure after which later network checks would only repeat it (or hang)."""


def package_versions() -> tuple[str, list[str]]:
    """("cafe 0.1.0, openai 1.2.3, ...", [names not installed]), read from package metadata only."""
    shown, missing = [], []
    for name in PACKAGES:
        try:
            shown.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            shown.append(f"{name} (not installed)")
            missing.append(name)
    return ", ".join(shown), missing


def _explain(
    exc: Exception, url: str, timeout: float, key: str | None, *, listing: bool = False
) -> tuple[str, str, str | None]:
    """(what happened, how to fix it, why later network checks are pointless or None) for an error.

    The words come from `cafe.endpoint.problems.PROBLEM_WORDS`, the table the client's errors use
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
    stop = STOPS.get(problem.kind)
    if problem.kind == "not_found":
        stop = WRONG_PATH if listing else None
    return what.rstrip(".") + ".", fix, stop


def _attempt(
    report: ReportWriter,
    ctx: tuple[Any, str, float],
    name: str,
    probe: Callable[[], Any],
    remaining: tuple[str, ...],
) -> Any:
    """`probe()`, or None after reporting its failure; raises `_Unusable` when the rest is moot."""
    client, url, timeout = ctx
    listing = name == "endpoint reachable"
    limit = min(timeout, REACH_TIMEOUT_S) if listing else timeout
    try:
        return probe()
    except Exception as exc:  # the doctor reports; it never crashes on the thing it examines
        detail, fix, stop = _explain(exc, url, limit, report.key, listing=listing)
        if stop == KEY_REFUSED and listing:
            report.add(name, True, f"{url} answered")  # it did answer: with a refusal
            name = "API key accepted"
        report.add(name, False, detail, fix)
        if stop is not None:
            report.skip(remaining, stop)
            raise _Unusable from None
        return None


def _listing_checks(report: ReportWriter, ctx: tuple[Any, str, float], model: str) -> None:
    """ "endpoint reachable" and "model listed": the model list, which runs no model."""
    client, url, timeout = ctx
    offered = _attempt(
        report,
        ctx,
        "endpoint reachable",
        lambda: probe_models(client, min(timeout, REACH_TIMEOUT_S)),
        NETWORK_CHECKS[1:],
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


def _chat_checks(report: ReportWriter, ctx: tuple[Any, str, float], model: str) -> None:
    """ "JSON round trip", "tool calls" and "latency": the checks that run the model."""
    client, _, timeout = ctx
    seen = _attempt(
        report,
        ctx,
        "JSON round trip",
        lambda: probe_json(client, model, timeout),
        NETWORK_CHECKS[3:],
    )
    if seen is not None:
        ok, detail, elapsed_ms = seen
        report.add(
            "JSON round trip",
            ok,
            detail,
            "This model did not follow JSON mode (response_format json_object); sessions 04 "
            "and 07 need it. Try another model.",
        )
    found = _attempt(
        report,
        ctx,
        "output format",
        lambda: probe_formats(client, model, timeout),
        NETWORK_CHECKS[4:],
    )
    if found is not None:
        kind, passed_over = found
        why = f" ({'; '.join(passed_over)})" if passed_over else ""
        report.add(
            "output format",
            kind != "plain",
            f"ticket drafts will ask for {kind}{why}",
            "No JSON output format worked; drafts will be plain text, parsed as best we can. "
            "Sessions 04 and 07 work better with a model or server that does JSON mode.",
        )
    tool = _attempt(
        report, ctx, "tool calls", lambda: probe_tools(client, model, timeout), NETWORK_CHECKS[5:]
    )
    if tool is not None:
        report.add(
            "tool calls",
            tool[0],
            tool[1],
            "This model or server does not do tool calls with tool_choice; session 01's loop "
            "needs them. Try another model, or enable tool calling on the server.",
        )
    if seen is None:
        report.add("latency", False, "skipped: no JSON round trip to time", skipped=True)
    else:
        slow = (
            f" (slow: over {SLOW_MS} ms; a course run makes many calls)"
            if elapsed_ms > SLOW_MS
            else ""
        )
        report.add("latency", True, f"{elapsed_ms:.0f} ms for the JSON round trip{slow}")


def _endpoint_checks(report: ReportWriter, client: Any, model: str, timeout: float) -> None:
    """The five checks that talk to the model, offline (scripted) or live (HTTP)."""
    ctx = (client, endpoint_of(client), timeout)
    try:
        _listing_checks(report, ctx, model)
        _chat_checks(report, ctx, model)
    except _Unusable:
        pass  # already reported, and the remaining checks marked skipped


def _summary(result: DoctorReport) -> str:
    """The closing line of a failed run: passed, failed and skipped, which add up to every line.

    How many checks run depends on how far the doctor got, so the line counts each kind.
    """
    failed = [check.name for check in result.failed if not check.skipped]
    skipped = len(result.failed) - len(failed)
    passed = len(result.checks) - len(result.failed)
    counts = f"{passed} passed, {len(failed)} failed ({', '.join(failed)})"
    if skipped:
        counts += f", {skipped} skipped because an earlier check failed"
    return f"cafe doctor: {counts}. Fix the first failure first; later ones often follow from it."


def _go_live_hint(report: ReportWriter) -> None:
    report.say(
        "\nScripted mode is active: every answer comes from the scripted model, nothing leaves "
        "this machine.\nTo go live, point the course at an OpenAI-compatible endpoint:"
    )
    exports = [f"export {name}={example}" for name, (_, example) in LIVE_VARIABLES.items()]
    width = max(len(line) for line in exports) + 1
    report.say("  export COURSE_MODE=live")
    for line, (meaning, _) in zip(exports, LIVE_VARIABLES.values()):
        report.say(f"  {line:<{width}}# {meaning}")
    report.say(
        "To rehearse without a key, run `cafe serve` in another terminal and use the lines it "
        "prints; then run `cafe doctor` again."
    )


def _setup_checks(report: ReportWriter, env: Mapping[str, str]) -> Mode | None:
    """ "mode", "Python" and "packages"; returns the mode, or None when COURSE_MODE is invalid."""
    try:
        mode: Mode | None = course_mode(env)
    except ConfigError as exc:
        mode = None
        report.add(
            "mode", False, str(exc), "Fix COURSE_MODE as the message says; run `cafe doctor` again."
        )
    else:
        report.add(
            "mode",
            True,
            "offline: answers come from the scripted model"
            if mode == "offline"
            else "live: answers come from the endpoint below",
        )
    python = sys.version_info
    report.add(
        "Python",
        python >= MIN_PYTHON,
        f"Python {python.major}.{python.minor}.{python.micro}",
        f"The course needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; install one and "
        "recreate the virtual environment.",
    )
    shown, missing = package_versions()
    report.add(
        "packages",
        not missing,
        shown,
        f"Install what is missing ({', '.join(missing)}): "
        "from the course checkout, run `pip install -e .`",
    )
    return mode


def _live_checks(report: ReportWriter, env: Mapping[str, str], timeout: float) -> None:
    """The live settings, then the endpoint checks against them."""
    try:
        settings = live_settings(env)
    except ConfigError as exc:
        report.add(
            "live settings",
            False,
            str(exc),
            "Set the variable as shown, then run `cafe doctor` again.",
        )
        report.skip(NETWORK_CHECKS, "live settings are incomplete")
        return
    report.add("base URL", True, settings.base_url)
    report.add("API key", True, f"{mask_key(settings.api_key)} (masked)")
    try:
        cap = max_tokens(env)
    except ConfigError as exc:
        report.add("model", False, str(exc), f"Fix or unset {MAX_TOKENS_VARIABLE}.")
        report.skip(NETWORK_CHECKS, f"{MAX_TOKENS_VARIABLE} is not valid")
        return
    report.add(
        "model", True, f"{settings.model} (replies capped at {cap} tokens; {MAX_TOKENS_VARIABLE})"
    )
    client = make_client(environ=env, timeout=timeout, max_retries=0)
    try:
        _endpoint_checks(report, client, settings.model, timeout)
    finally:
        client.close()


def doctor(
    *,
    environ: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    out: TextIO | None = None,
) -> DoctorReport:
    """Check the mode, the installation and the endpoint; print a report to `out` and return it.

    `environ` defaults to `os.environ`, `out` to `sys.stdout` (looked up at call time). `timeout`
    is the seconds each chat check may take in all; the model list gets at most `REACH_TIMEOUT_S`.
    Never raises for a set-up problem: those are failed checks that say how to fix them.
    """
    env = os.environ if environ is None else environ
    out = sys.stdout if out is None else out
    report = ReportWriter(out, (env.get("CAFE_API_KEY") or "").strip() or None)
    report.say("cafe doctor: checking the course set-up")
    mode = _setup_checks(report, env)
    if mode is None:
        report.skip(NETWORK_CHECKS, "COURSE_MODE is not valid")
    elif mode == "offline":
        client = ScriptedClient()
        report.add("base URL", True, f"{endpoint_of(client)} (no network offline)")
        report.add("API key", True, "not needed offline")
        report.add("model", True, OFFLINE_MODEL)
        _endpoint_checks(report, client, OFFLINE_MODEL, timeout)
    else:
        _live_checks(report, env, timeout)
    result = DoctorReport(mode=mode, checks=tuple(report.checks))
    if mode == "offline":
        _go_live_hint(report)
    if result.ok:
        report.say(f"\ncafe doctor: all {len(result.checks)} checks passed.")
    else:
        report.say("\n" + _summary(result))
    return result
