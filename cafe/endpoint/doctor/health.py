"""`cafe doctor`: is the course set up, can it reach a model, and if not, how to fix it.

Most "the agent is broken" reports in a course like this one are really "the endpoint is not
what I think it is": a typo in the URL, a key the server refuses, a model name it does not offer,
a local server that cannot do JSON mode or tool calls, a model too slow for the deadline. The
doctor checks each of those in order, prints a line per check as it goes, and says how to fix
every failure:

    mode · Python · packages · settings · pytest · git · shell      (this machine: setup_checks)
    base URL · API key (masked) · model                             (the live settings)
    endpoint reachable · model listed · JSON round trip · output format · tool calls · speed
                                                                    (the model: network_checks)

Offline (the default) it runs the same model checks against the scripted model, so they pass,
and says how to go live. Live, it talks to `CAFE_BASE_URL` with no hidden retries and short
limits on each whole request (`--timeout`; 10 s, or `CAFE_TIMEOUT_S` when you set it, as `cafe
local` tells you to: a slow model given the deadline your calls get is slow, not dead). The speed line says how many reply tokens a
second the model writes and, when a reply at the cap would outlast the deadline live calls get,
which `CAFE_TIMEOUT_S` (and `CAFE_MAX_TOKENS`) fit it. The closing summary counts what passed,
failed and was skipped, so the totals add up to the lines above it.

Two promises: it never raises for a set-up problem (a malformed variable is a failed check
carrying its one-line `ConfigError`), and no secret appears in what it prints or returns (every
line is scrubbed by `cafe.endpoint.secrets.redaction.redact`; the key itself shows as `…` plus at most its
last 4 characters; a URL shows no credentials).

The module is `cafe.endpoint.doctor.health` because `cafe.doctor` is the function. Session 00
(`sessions/s00-setup/lesson.md`) and `docs/doctor.md` walk through a run of it.
"""

from __future__ import annotations

import os
import sys
from collections import ChainMap
from collections.abc import Mapping
from typing import TextIO

from cafe.endpoint.client.chat import endpoint_of, make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.doctor.checks import Check, DoctorReport, ReportWriter
from cafe.endpoint.doctor.network_checks import (
    NETWORK_CHECKS,
    REACH_TIMEOUT_S,
    Probing,
    endpoint_checks,
)
from cafe.endpoint.doctor.setup_checks import (
    MIN_PYTHON,
    PACKAGES,
    Lookups,
    package_versions,
    setup_checks,
)
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.secrets.redaction import display_url, known_secrets, mask_key
from cafe.endpoint.settings.config import (
    LIVE_VARIABLES,
    MAX_TOKENS_VARIABLE,
    OFFLINE_MODEL,
    TIMEOUT_VARIABLE,
    call_timeout,
    live_settings,
    max_tokens,
)
from cafe.endpoint.settings.environment import SettingsFile, file_settings, find_env_file

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

# Seconds each chat check (JSON round trip, output format, tool calls, speed) may take, unless
# `CAFE_TIMEOUT_S` is set (then the checks get the deadline your calls get); `--timeout` wins.
DEFAULT_TIMEOUT_S = 10.0


def _check_timeout(env: Mapping[str, str], timeout: float | None, deadline: float) -> float:
    """`--timeout` when given; else the deadline you set in `CAFE_TIMEOUT_S`; else 10 s."""
    if timeout is not None:
        return timeout
    return deadline if (env.get(TIMEOUT_VARIABLE) or "").strip() else DEFAULT_TIMEOUT_S


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
        "this machine.\nTo go live, point the course at an OpenAI-compatible endpoint, with these "
        "lines in your shell (or, without `export`, in a .env file here):"
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


def _limits(env: Mapping[str, str]) -> tuple[int, float] | ConfigError:
    """(the reply cap, the deadline of a call) from the settings, or the error naming the bad one."""
    try:
        return max_tokens(env), call_timeout(env)
    except ConfigError as exc:
        return exc


def _offline_checks(report: ReportWriter, env: Mapping[str, str], timeout: float | None) -> None:
    limits = _limits(env)
    cap, deadline = limits if not isinstance(limits, ConfigError) else (1024, 60.0)
    timeout = _check_timeout(env, timeout, deadline)
    client = ScriptedClient(reply_cap=cap, timeout=timeout)
    report.add("base URL", True, f"{endpoint_of(client)} (no network offline)")
    report.add("API key", True, "not needed offline")
    report.add("model", True, OFFLINE_MODEL)
    endpoint_checks(
        report, Probing(client, endpoint_of(client), OFFLINE_MODEL, timeout, cap, deadline)
    )


def _live_checks(report: ReportWriter, env: Mapping[str, str], timeout: float | None) -> None:
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
    report.add("base URL", True, display_url(settings.base_url))
    report.add("API key", True, f"{mask_key(settings.api_key)} (masked)")
    limits = _limits(env)
    if isinstance(limits, ConfigError):
        report.add(
            "model", False, str(limits), f"Fix or unset {MAX_TOKENS_VARIABLE} / {TIMEOUT_VARIABLE}."
        )
        report.skip(NETWORK_CHECKS, "the reply cap or the deadline is not valid")
        return
    cap, deadline = limits
    timeout = _check_timeout(env, timeout, deadline)
    report.add(
        "model",
        True,
        f"{settings.model} (replies capped at {cap} tokens, {MAX_TOKENS_VARIABLE}; "
        f"calls give up after {deadline:g} s, {TIMEOUT_VARIABLE})",
    )
    client = make_client(environ=env, timeout=timeout, max_retries=0)
    try:
        probing = Probing(client, endpoint_of(client), settings.model, timeout, cap, deadline)
        endpoint_checks(report, probing)
    finally:
        client.close()


def _environment(
    environ: Mapping[str, str] | None,
) -> tuple[Mapping[str, str], SettingsFile | None, str | None]:
    """(the settings, the settings file they include and why that one, why a file could not be
    read). A file that cannot be read leaves the environment alone, and its one line."""
    if environ is not None:
        return environ, None, None
    try:
        source = find_env_file()
        extra = file_settings(source.path) if source.path is not None else {}
    except ConfigError as exc:
        return os.environ, None, str(exc)
    return (ChainMap(os.environ, extra) if extra else os.environ), source, None


def doctor(
    *,
    environ: Mapping[str, str] | None = None,
    timeout: float | None = None,
    out: TextIO | None = None,
    lookups: Lookups | None = None,
) -> DoctorReport:
    """Check the machine, the settings and the endpoint; print a report to `out` and return it.

    `environ` defaults to the course's settings (the environment, then `.env`), `out` to
    `sys.stdout` (looked up at call time). `timeout` is the seconds each chat check may take in
    all (None: `CAFE_TIMEOUT_S` when set, else `DEFAULT_TIMEOUT_S`); the model list gets at most `REACH_TIMEOUT_S`. `lookups` fakes the tool lookups in tests.
    Never raises for a set-up problem: those are failed checks that say how to fix them.
    """
    env, env_source, env_problem = _environment(environ)
    out = sys.stdout if out is None else out
    key = (env.get("CAFE_API_KEY") or "").strip() or None
    report = ReportWriter(out, key, secrets=known_secrets(env) if env_problem is None else ())
    report.say("cafe doctor: checking the course set-up")
    mode = setup_checks(
        report, env, env_source=env_source, env_problem=env_problem, lookups=lookups
    )
    if mode is None:
        report.skip(NETWORK_CHECKS, "COURSE_MODE is not valid")
    elif mode == "offline":
        _offline_checks(report, env, timeout)
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
