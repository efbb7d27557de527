"""`cafe doctor`: is the course set up, can it reach a model, and if not, how to fix it.

Most "the agent is broken" reports in a course like this one are really "the endpoint is not
what I think it is": a typo in the URL, a key the server refuses, a model name it does not offer,
a local server that cannot do JSON mode or tool calls. The doctor checks each of those in order,
prints a line per check as it goes, and says how to fix every failure:

    mode · Python · packages · base URL · API key (masked) · model
    endpoint reachable · model listed · JSON round trip · tool calls · latency

Offline (the default) it runs the same checks against the scripted model, so they pass, and says
how to go live. Live, it talks to `CAFE_BASE_URL` with no hidden retries and short timeouts: the
model list, which runs no model, gets 5 s; each chat check gets 10 s (`--timeout`). Once the
endpoint is unreachable, refuses the key, or has no model list at the base URL (a 404: the path,
usually a missing /v1) the later network checks are skipped rather than each repeating the same
failure or waiting out its own timeout, so a dead endpoint is reported within 10 s, even one that
accepts the connection and then says nothing. The closing summary counts what passed, what
failed and what was skipped, so the totals add up to the number of lines above it.

Two promises: it never raises for a set-up problem (a bad `COURSE_MODE` or a missing variable is
a failed check carrying the `ConfigError` message), and the API key never appears in what it
prints or returns (`cafe.endpoint.config.redact` runs over every line; the key itself shows as `…` plus at
most its last 4 characters).

The module is `cafe.endpoint.health` because `cafe.doctor` is the function. Session 00
(`sessions/s00-setup/lesson.md`) walks through a run of it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any, TextIO

from cafe.endpoint.client import classify_error, clip, endpoint_of, make_client
from cafe.endpoint.config import LIVE_VARIABLES, OFFLINE_MODEL, Mode, course_mode, live_settings, mask_key, redact
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.scripted import ScriptedClient

__all__ = ["Check", "DoctorReport", "doctor", "package_versions", "PACKAGES", "MIN_PYTHON", "DEFAULT_TIMEOUT_S",
           "REACH_TIMEOUT_S"]

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
NETWORK_CHECKS = ("endpoint reachable", "model listed", "JSON round trip", "tool calls", "latency")
# Why later network checks are skipped after a failure that would only repeat (or hang) in them.
UNREACHABLE = "endpoint unreachable"
KEY_REFUSED = "the endpoint refused the key"
WRONG_PATH = "no API at this base URL (is /v1 missing?)"
# The fix for a 404 on the model list: every OpenAI-compatible server lists its models, so it is
# the path that is wrong, and CAFE_MODEL has not even been asked about yet.
WRONG_PATH_FIX = ("The path is wrong, not the model: CAFE_BASE_URL must be the API's base, which for "
                  "most servers ends in /v1 (e.g. http://127.0.0.1:8000/v1).")
# Replies longer than this are cut (at a word boundary) in failure details; enough to see what
# went wrong. What the endpoint itself said gets more room: `cafe.endpoint.client.SAID_CHARS`.
SHOWN_CHARS = 120

# The JSON probe: OpenAI's JSON mode wants the word "JSON" in the messages.
JSON_PROBE = [
    {"role": "system", "content": "You are a health check. Reply with a JSON object only."},
    {"role": "user", "content": 'Reply with exactly this JSON object: {"ok": true}'},
]
# The tool-call probe: one tool, and tool_choice forcing the model to call it.
TOOL_PROBE = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Add one item to the café order.",
        "parameters": {"type": "object", "properties": {"item": {"type": "string"}},
                       "required": ["item"]},
    },
}
TOOL_PROBE_MESSAGES = [{"role": "user", "content": "Add a latte to the order."}]
TOOL_PROBE_CHOICE = {"type": "function", "function": {"name": "add_item"}}


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, whether it passed, what was seen, how to fix it.

    `skipped` checks were not run because an earlier one failed; they count as not passed.
    """

    name: str
    ok: bool
    detail: str
    fix: str = ""
    skipped: bool = False


@dataclass(frozen=True)
class DoctorReport:
    """Every check the doctor ran, in order. `ok` is True when all of them passed."""

    mode: Mode | None  # None when COURSE_MODE itself is invalid
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.ok)

    def __repr__(self) -> str:  # the printed report is the readable form; keep the repr short
        return (f"DoctorReport(ok={self.ok}, mode={self.mode!r}, "
                f"checks={len(self.checks)}, failed={[c.name for c in self.failed]})")


class _Unusable(Exception):
    """An endpoint failure after which later network checks would only repeat it (or hang)."""


# --- small helpers --------------------------------------------------------------------------


def _short(text: Any) -> str:
    return clip(str(text), SHOWN_CHARS)


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


def _explain(exc: Exception, url: str, timeout: float, key: str | None, *,
             listing: bool = False) -> tuple[str, str, str | None]:
    """(what happened, how to fix it, why later network checks are pointless or None) for an error.

    `cafe.endpoint.client.classify_error` sorts the error; the words here are the doctor's own. `listing`
    is True for the model list, the first check: a timeout or a 404 there means something
    different from the same error on a chat request.
    """
    problem = classify_error(exc)
    status, said = problem.status, problem.said
    if problem.kind == "timeout" and listing:
        return (f"{url} did not answer the model list within {timeout:g} s.",
                "A working server lists its models at once. Is it stuck, or still starting? "
                "Check that it is up, then run `cafe doctor` again.", UNREACHABLE)
    if problem.kind == "timeout":
        return (f"{url} did not answer within {timeout:g} s.",
                "Is the server overloaded, or the model still loading? Try again, or allow longer "
                "with `cafe doctor --timeout 30`.", UNREACHABLE)
    if problem.kind == "connection":
        # The cause tells a stopped server ("Connection refused") from a mistyped host name.
        return (f"Could not connect to {url}: {_short(said) or 'nothing answered there'}.",
                "Start the endpoint (to rehearse locally, run `cafe serve` in another terminal), "
                "or correct CAFE_BASE_URL.", UNREACHABLE)
    if problem.kind == "key_refused":
        return (f"{url} refused the API key {mask_key(key)} (HTTP {status}).",
                "Check CAFE_API_KEY: it must be a key this endpoint accepts.", KEY_REFUSED)
    if problem.kind == "not_found" and listing:
        # Every OpenAI-compatible server lists its models; no list here means no API here, so
        # the chat checks would only fail the same way (and tempt you to blame CAFE_MODEL).
        return (f"{url}/models answered HTTP 404: {said}", WRONG_PATH_FIX, WRONG_PATH)
    if problem.kind == "not_found":
        return (f"{url} answered HTTP 404: {said}",
                "Check CAFE_MODEL against the models the endpoint lists, and that CAFE_BASE_URL "
                "ends in /v1.", None)
    if problem.kind == "rate_limited":
        return (f"{url} is rate limiting us (HTTP 429): {said}",
                "Wait a minute and run `cafe doctor` again; check your plan's rate limits.", None)
    if problem.kind == "rejected":
        return (f"{url} rejected the request (HTTP {status}): {said}",
                "This endpoint or model does not support this feature; the course needs it. "
                "Try another model, or a server that supports it.", None)
    if problem.kind == "http_error":
        return (f"{url} failed with HTTP {status}: {said}",
                "The endpoint is up but failing; check its logs, or try again later.", None)
    if problem.kind == "bad_body":
        return (f"{url} answered with something that is not an OpenAI-style JSON reply.",
                "Is CAFE_BASE_URL an OpenAI-compatible endpoint, ending in /v1?", None)
    if problem.kind == "other":  # unexpected; still report it rather than crash the doctor
        return (f"Unexpected {type(exc).__name__}: {_short(said)}",
                "This looks like a bug or an unusual endpoint; please report it with this output.", None)
    raise AssertionError(f"unhandled problem kind {problem.kind!r}")


# --- the probes: each returns what it saw, or raises -----------------------------------------


def _probe_models(client: Any, timeout: float) -> list[str]:
    return [model.id for model in client.models.list(timeout=timeout).data]


def _probe_json(client: Any, model: str) -> tuple[bool, str, float]:
    started = time.perf_counter()
    reply = client.chat.completions.create(model=model, messages=JSON_PROBE,
                                           response_format={"type": "json_object"})
    elapsed_ms = (time.perf_counter() - started) * 1000
    content = reply.choices[0].message.content or ""
    try:
        parsed = json.loads(content)
    except json.JSONDecodeError:
        return False, f"The reply is not JSON: {_short(content)!r}", elapsed_ms
    if not isinstance(parsed, dict):
        return False, f"The reply is JSON but not an object: {_short(content)!r}", elapsed_ms
    return True, f"asked for a JSON object and got one: {_short(content)}", elapsed_ms


def _probe_tools(client: Any, model: str) -> tuple[bool, str]:
    reply = client.chat.completions.create(model=model, messages=TOOL_PROBE_MESSAGES,
                                           tools=[TOOL_PROBE], tool_choice=TOOL_PROBE_CHOICE)
    calls = reply.choices[0].message.tool_calls or []
    if not calls:
        said = _short(reply.choices[0].message.content)
        return False, f"No tool call came back, though tool_choice forced one; the reply said: {said!r}"
    call = calls[0]
    try:
        arguments = json.loads(call.function.arguments)
    except json.JSONDecodeError:
        return False, f"The tool call's arguments are not JSON: {_short(call.function.arguments)!r}"
    if not isinstance(arguments, dict):
        return False, f"The tool call's arguments are not a JSON object: {_short(call.function.arguments)!r}"
    if call.function.name != "add_item":
        return False, f"The model called {call.function.name!r}, not the forced tool 'add_item'."
    return True, f"forced a call to add_item and got one, arguments {_short(call.function.arguments)}"


# --- the report -----------------------------------------------------------------------------


class _Report:
    """Collects checks and prints each as it is added, with the key redacted from every line."""

    def __init__(self, out: TextIO, key: str | None):
        self.out = out
        self.key = key
        self.checks: list[Check] = []

    def add(self, name: str, ok: bool, detail: str, fix: str = "", *, skipped: bool = False) -> None:
        check = Check(name, ok, redact(detail, self.key), redact(fix, self.key) if not ok else "", skipped)
        self.checks.append(check)
        label = "skip" if skipped else (" ok " if ok else "FAIL")
        print(f"  [{label}] {name:<18} {check.detail}", file=self.out, flush=True)
        if check.fix and not skipped:
            print(f"         {'':<18} fix: {check.fix}", file=self.out, flush=True)

    def skip(self, names: tuple[str, ...], why: str) -> None:
        for name in names:
            self.add(name, False, f"skipped: {why}", skipped=True)

    def say(self, text: str) -> None:
        print(redact(text, self.key), file=self.out, flush=True)


def _endpoint_checks(report: _Report, client: Any, model: str, timeout: float) -> None:
    """The five checks that talk to the model, offline (scripted) or live (HTTP)."""
    try:
        _run_endpoint_checks(report, client, model, timeout)
    except _Unusable:
        pass  # already reported, and the remaining checks marked skipped


def _run_endpoint_checks(report: _Report, client: Any, model: str, timeout: float) -> None:
    url = endpoint_of(client)
    reach_timeout = min(timeout, REACH_TIMEOUT_S)

    def attempt(name: str, probe: Callable[[], Any], remaining: tuple[str, ...]) -> Any:
        """`probe()`, or None after reporting its failure; raises `_Unusable` when the rest is moot."""
        listing = name == "endpoint reachable"
        try:
            return probe()
        except Exception as exc:  # the doctor reports; it never crashes on the thing it examines
            detail, fix, stop = _explain(exc, url, reach_timeout if listing else timeout, report.key,
                                         listing=listing)
            if stop == KEY_REFUSED and listing:
                report.add(name, True, f"{url} answered")  # it did answer: with a refusal
                name = "API key accepted"
            report.add(name, False, detail, fix)
            if stop is not None:
                report.skip(remaining, stop)
                raise _Unusable from None
            return None

    offered = attempt("endpoint reachable", lambda: _probe_models(client, reach_timeout),
                      NETWORK_CHECKS[1:])
    if offered is None:  # it answered, but not with a model list; chat may still work
        report.add("model listed", False, "skipped: the endpoint did not list its models", skipped=True)
    else:
        count = f"{len(offered)} model" + ("" if len(offered) == 1 else "s")
        report.add("endpoint reachable", True, f"{url} answered the model list ({count})")
        if model in offered:
            report.add("model listed", True, f"{model} is among the endpoint's models")
        else:
            report.add("model listed", False,
                       f"{model!r} is not among the endpoint's models. It offers: "
                       f"{', '.join(offered) or '(none)'}.",
                       f"Set CAFE_MODEL to one of the listed names, e.g. `export CAFE_MODEL={offered[0]}`."
                       if offered else "The endpoint lists no models; check its set-up.")

    seen = attempt("JSON round trip", lambda: _probe_json(client, model), NETWORK_CHECKS[3:])
    if seen is not None:
        ok, detail, elapsed_ms = seen
        report.add("JSON round trip", ok, detail,
                   "This model did not follow JSON mode (response_format json_object); sessions 04 "
                   "and 07 need it. Try another model.")
    tool = attempt("tool calls", lambda: _probe_tools(client, model), NETWORK_CHECKS[4:])
    if tool is not None:
        report.add("tool calls", tool[0], tool[1],
                   "This model or server does not do tool calls with tool_choice; session 01's loop "
                   "needs them. Try another model, or enable tool calling on the server.")
    if seen is None:
        report.add("latency", False, "skipped: no JSON round trip to time", skipped=True)
    else:
        slow = f" (slow: over {SLOW_MS} ms; a course run makes many calls)" if elapsed_ms > SLOW_MS else ""
        report.add("latency", True, f"{elapsed_ms:.0f} ms for the JSON round trip{slow}")


def _summary(result: DoctorReport) -> str:
    """The closing line of a failed run: passed, failed and skipped, which add up to every line.

    How many checks there are depends on how far the doctor got (a refused key adds "API key
    accepted"; missing settings replace three lines with one), so the line counts each kind
    rather than quoting a total that would change from run to run.
    """
    failed = [check.name for check in result.failed if not check.skipped]
    skipped = len(result.failed) - len(failed)
    passed = len(result.checks) - len(result.failed)
    counts = f"{passed} passed, {len(failed)} failed ({', '.join(failed)})"
    if skipped:
        counts += f", {skipped} skipped because an earlier check failed"
    return f"cafe doctor: {counts}. Fix the first failure first; later ones often follow from it."


def _go_live_hint(report: _Report) -> None:
    report.say("\nScripted mode is active: every answer comes from the scripted model, nothing leaves "
               "this machine.\nTo go live, point the course at an OpenAI-compatible endpoint:")
    exports = [f"export {name}={example}" for name, (_, example) in LIVE_VARIABLES.items()]
    width = max(len(line) for line in exports) + 1
    report.say("  export COURSE_MODE=live")
    for line, (meaning, _) in zip(exports, LIVE_VARIABLES.values()):
        report.say(f"  {line:<{width}}# {meaning}")
    report.say("To rehearse without a key, run `cafe serve` in another terminal and use the lines it "
               "prints; then run `cafe doctor` again.")


def doctor(*, environ: Mapping[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT_S,
           out: TextIO | None = None) -> DoctorReport:
    """Check the mode, the installation and the endpoint; print a report to `out` and return it.

    `environ` defaults to `os.environ`, `out` to `sys.stdout` (looked up at call time). `timeout`
    is the seconds each chat check may take; the model list gets at most `REACH_TIMEOUT_S`. Never raises for a set-up problem: those are
    failed checks that say how to fix them.
    """
    env = os.environ if environ is None else environ
    out = sys.stdout if out is None else out
    report = _Report(out, env.get("CAFE_API_KEY", "").strip() or None)
    report.say("cafe doctor: checking the course set-up")

    try:
        mode: Mode | None = course_mode(env)
    except ConfigError as exc:
        mode = None
        report.add("mode", False, str(exc), "Fix COURSE_MODE as the message says; run `cafe doctor` again.")
    else:
        report.add("mode", True, "offline: answers come from the scripted model" if mode == "offline"
                   else "live: answers come from the endpoint below")

    python = sys.version_info
    report.add("Python", python >= MIN_PYTHON, f"Python {python.major}.{python.minor}.{python.micro}",
               f"The course needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; install one and "
               "recreate the virtual environment.")
    shown, missing = package_versions()
    report.add("packages", not missing, shown,
               f"Install what is missing ({', '.join(missing)}): "
               "from the course checkout, run `pip install -e .`")

    if mode is None:
        report.skip(NETWORK_CHECKS, "COURSE_MODE is not valid")
    elif mode == "offline":
        client = ScriptedClient()
        report.add("base URL", True, f"{endpoint_of(client)} (no network offline)")
        report.add("API key", True, "not needed offline")
        report.add("model", True, OFFLINE_MODEL)
        _endpoint_checks(report, client, OFFLINE_MODEL, timeout)
    else:
        try:
            settings = live_settings(env)
        except ConfigError as exc:
            report.add("live settings", False, str(exc),
                       "Set the variable as shown, then run `cafe doctor` again.")
            report.skip(NETWORK_CHECKS, "live settings are incomplete")
        else:
            report.add("base URL", True, settings.base_url)
            report.add("API key", True, f"{mask_key(settings.api_key)} (masked)")
            report.add("model", True, settings.model)
            client = make_client(environ=env, timeout=timeout, max_retries=0)
            try:
                _endpoint_checks(report, client, settings.model, timeout)
            finally:
                client.close()

    result = DoctorReport(mode=mode, checks=tuple(report.checks))
    if mode == "offline":
        _go_live_hint(report)
    if result.ok:
        report.say(f"\ncafe doctor: all {len(result.checks)} checks passed.")
    else:
        report.say("\n" + _summary(result))
    return result
