"""Course configuration: which mode we are in, where the live model lives, and how long it may take.

Two modes, chosen with the variable `COURSE_MODE`:

- `offline` (the default): every model is a scripted stand-in that answers from a script.
  Nothing leaves the machine and every run is deterministic.
- `live`: the same code talks to an OpenAI-compatible endpoint described by three variables,
  `CAFE_BASE_URL`, `CAFE_API_KEY` and `CAFE_MODEL`.

Two more shape every call, in both modes: `CAFE_MAX_TOKENS`, the longest reply a call asks for,
and `CAFE_TIMEOUT_S`, the seconds a whole call may take (`cafe doctor` measures the endpoint's
speed and says which values fit it). Each variable is checked by its validator in
`cafe.endpoint.settings.variables` and read from `cafe.endpoint.settings.environment.course_environ`: the
environment, then a `.env` file. They are read when a function here is called, never at import,
so a notebook can set a variable and re-run a cell. `redact` masks every secret the course knows
of (`cafe.endpoint.secrets.redaction`). Session 00 (`sessions/s00-setup/lesson.md`) walks through both modes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from cafe.endpoint.errors import ConfigError
from cafe.endpoint.secrets.redaction import display_url, mask_key, redact
from cafe.endpoint.settings.banner import announce
from cafe.endpoint.settings.environment import course_environ
from cafe.endpoint.settings.variables import (
    MODES,
    VARIABLES,
    Mode,
    parse_api_key,
    parse_base_url,
    parse_max_tokens,
    parse_mode,
    parse_model,
    parse_timeout,
)

__all__ = [
    "MODES",
    "Mode",
    "OFFLINE_MODEL",
    "LIVE_VARIABLES",
    "LiveSettings",
    "course_mode",
    "live_settings",
    "model_name",
    "DEFAULT_MAX_TOKENS",
    "MAX_TOKENS_VARIABLE",
    "max_tokens",
    "DEFAULT_TIMEOUT_S",
    "TIMEOUT_VARIABLE",
    "call_timeout",
    "mask_key",
    "redact",
]

# The model name the scripted stand-in reports, offline and from `cafe serve` by default.
OFFLINE_MODEL = "cafe-scripted"

# What each live variable is for, and an example value shown when it is missing.
LIVE_VARIABLES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        name: (VARIABLES[name].meaning, VARIABLES[name].example)
        for name in ("CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL")
    }
)
# The longest reply a call asks for unless the caller says otherwise, in tokens, and the
# variable that changes it. A ticket is about 100 tokens and a tool call less; 1,024 leaves room
# for a wordy model while stopping one that would write until its context is full (a small local
# model in JSON mode can run for minutes, and a local server keeps generating after we give up).
DEFAULT_MAX_TOKENS = 1024
MAX_TOKENS_VARIABLE = "CAFE_MAX_TOKENS"
# Seconds a whole call may take unless `CAFE_TIMEOUT_S` (or the caller) says otherwise. Enough for
# a hosted model or a fast local one; a small model on a laptop CPU writing a full 1,024-token
# reply needs more, and `cafe doctor` measures how much (see `cafe.endpoint.doctor.speed`).
DEFAULT_TIMEOUT_S = 60.0
TIMEOUT_VARIABLE = "CAFE_TIMEOUT_S"


def course_mode(environ: Mapping[str, str] | None = None) -> Mode:
    """The course mode from `COURSE_MODE` (unset or empty means `offline`). Asked with no
    `environ` inside a notebook, it also prints one line saying what the notebook talks to and
    which settings file it read (`cafe.endpoint.settings.banner`)."""
    settings = course_environ(environ)
    mode = parse_mode(settings.get("COURSE_MODE", ""))
    if environ is None:
        announce(settings, os.environ)
    return mode


@dataclass(frozen=True)
class LiveSettings:
    """The three live variables, validated. Neither the key nor a password in the URL is ever in
    the `repr`, so printing the settings cannot leak them."""

    base_url: str
    api_key: str = field(repr=False)
    model: str

    def __repr__(self) -> str:
        return (
            f"LiveSettings(base_url={display_url(self.base_url)!r}, "
            f"api_key={mask_key(self.api_key)!r}, model={self.model!r})"
        )


def _missing(name: str, *, empty: bool) -> ConfigError:
    meaning, example = LIVE_VARIABLES[name]
    state = "is set but empty" if empty else "is not set"
    return ConfigError(
        f"{name} {state}. COURSE_MODE=live needs it: {meaning}. Set it in your shell with "
        f"`export {name}={example}`, or as the line {name}={example} in a .env file (in a "
        f"notebook: `os.environ[{name!r}] = ...`), then run `cafe doctor` to check the endpoint."
    )


def live_settings(environ: Mapping[str, str] | None = None) -> LiveSettings:
    """`CAFE_BASE_URL`, `CAFE_API_KEY` and `CAFE_MODEL`, each validated; a `ConfigError` names the
    first one missing or malformed."""
    env = course_environ(environ)
    for name in LIVE_VARIABLES:
        value = env.get(name)
        if value is None or not value.strip():
            raise _missing(name, empty=value is not None)
    return LiveSettings(
        base_url=parse_base_url(env["CAFE_BASE_URL"]),
        api_key=parse_api_key(env["CAFE_API_KEY"]),
        model=parse_model(env["CAFE_MODEL"]),
    )


def model_name(environ: Mapping[str, str] | None = None) -> str:
    """The model name runs should record: `CAFE_MODEL` live, `cafe-scripted` offline."""
    if course_mode(environ) == "live":
        return live_settings(environ).model
    return OFFLINE_MODEL


def max_tokens(environ: Mapping[str, str] | None = None) -> int:
    """The longest reply a call asks for: `CAFE_MAX_TOKENS`, else `DEFAULT_MAX_TOKENS`."""
    raw = course_environ(environ).get(MAX_TOKENS_VARIABLE, "")
    return parse_max_tokens(raw) if raw.strip() else DEFAULT_MAX_TOKENS


def call_timeout(environ: Mapping[str, str] | None = None) -> float:
    """The seconds a whole call may take: `CAFE_TIMEOUT_S`, else `DEFAULT_TIMEOUT_S`."""
    raw = course_environ(environ).get(TIMEOUT_VARIABLE, "")
    return parse_timeout(raw) if raw.strip() else DEFAULT_TIMEOUT_S
