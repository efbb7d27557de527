"""Course configuration: which mode we are in, and where the live model lives.

Two modes, chosen with the environment variable `COURSE_MODE`:

- `offline` (the default): every model is a scripted stand-in that answers from a script.
  Nothing leaves the machine and every run is deterministic.
- `live`: the same code talks to an OpenAI-compatible endpoint described by three variables,
  `CAFE_BASE_URL`, `CAFE_API_KEY` and `CAFE_MODEL`.

The environment is read when a function here is called, never at import, so a notebook can set a
variable and re-run a cell. Session 00 (`sessions/s00-setup/lesson.md`) walks through both modes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from cafe.endpoint.errors import ConfigError

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
    "SEARCHED_KEY_CHARS",
    "mask_key",
    "redact",
]

Mode = Literal["offline", "live"]
MODES: tuple[Mode, ...] = ("offline", "live")

# The model name the scripted stand-in reports, offline and from `cafe serve` by default.
OFFLINE_MODEL = "cafe-scripted"

# What each live variable is for, and an example value shown when it is missing.
LIVE_VARIABLES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "CAFE_BASE_URL": ("the endpoint's base URL, ending in /v1", "http://127.0.0.1:8000/v1"),
        "CAFE_API_KEY": (
            "the key the endpoint expects (any non-empty text for a local server)",
            "sk-...",
        ),
        "CAFE_MODEL": ("the model name, as the endpoint's /v1/models lists it", "gpt-4o-mini"),
    }
)
# The longest reply a live request asks for unless the caller says otherwise, in tokens, and the
# variable that changes it. A ticket is about 100 tokens and a tool call less; 1,024 leaves room
# for a wordy model while stopping one that would write until its context is full (a small local
# model in JSON mode can run for minutes, and a local server keeps generating after we give up).
DEFAULT_MAX_TOKENS = 1024
MAX_TOKENS_VARIABLE = "CAFE_MAX_TOKENS"
# Keys shorter than this are never searched for inside other text: a local server accepts any
# key, and masking every "a" or "sk" in a report would garble it. (It is also the length below
# which `mask_key` shows none of the key.)
SEARCHED_KEY_CHARS = 8
# The shortest tail of a clipped message that is masked when it is the start of the key.
KEY_PREFIX_CHARS = 4


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def course_mode(environ: Mapping[str, str] | None = None) -> Mode:
    """Return the course mode from `COURSE_MODE` (unset or empty means `offline`)."""
    raw = _env(environ).get("COURSE_MODE", "").strip()
    if raw == "":
        return "offline"
    value = raw.lower()
    if value == "offline":
        return "offline"
    if value == "live":
        return "live"
    raise ConfigError(
        f"COURSE_MODE is {raw!r}, but it must be one of: offline, live. "
        "Unset it (or `export COURSE_MODE=offline`) for scripted runs, "
        "or `export COURSE_MODE=live` to use your own endpoint."
    )


def mask_key(key: str | None) -> str:
    """Show an API key as at most its last 4 characters: `sk-abc...wxyz` becomes `…wxyz`.

    Keys of 8 characters or fewer are fully hidden, since 4 of them would be half the secret.
    """
    if key is None:
        return "(not set)"
    if not key:
        return "(empty)"
    if len(key) <= SEARCHED_KEY_CHARS:
        return "****"
    return "…" + key[-4:]


def redact(text: str, key: str | None) -> str:
    """`text` with the key masked where it occurs, including a cut-off start of it at the end.

    Only keys of at least `SEARCHED_KEY_CHARS` characters are searched for: a short key (a local
    server takes anything, even `a`) would match inside ordinary words and garble the report,
    while eight or more characters matching the key are the key, wherever they stand. A message
    cut short (ending in "…" or not) can end in the first characters of the key; that tail is
    masked too.
    """
    if not key or len(key) < SEARCHED_KEY_CHARS:
        return text
    text = text.replace(key, mask_key(key))
    body = text.rstrip("…")
    for length in range(len(key) - 1, KEY_PREFIX_CHARS - 1, -1):
        if body.endswith(key[:length]):
            return body[:-length] + mask_key(key) + text[len(body) :]
    return text


@dataclass(frozen=True)
class LiveSettings:
    """The three live variables. The key is kept out of `repr` so it cannot leak by printing."""

    base_url: str
    api_key: str = field(repr=False)
    model: str

    def __repr__(self) -> str:  # the dataclass repr would be fine, but say the masking out loud
        return (
            f"LiveSettings(base_url={self.base_url!r}, api_key={mask_key(self.api_key)!r}, "
            f"model={self.model!r})"
        )


def _missing(name: str, *, empty: bool) -> ConfigError:
    meaning, example = LIVE_VARIABLES[name]
    state = "is set but empty" if empty else "is not set"
    return ConfigError(
        f"{name} {state}. COURSE_MODE=live needs it: {meaning}. "
        f"Set it in your shell with `export {name}={example}` (or in a notebook with "
        f"`os.environ[{name!r}] = ...`), then run `cafe doctor` to check the endpoint."
    )


def live_settings(environ: Mapping[str, str] | None = None) -> LiveSettings:
    """Read `CAFE_BASE_URL`, `CAFE_API_KEY` and `CAFE_MODEL`; raise `ConfigError` naming any missing one."""
    env = _env(environ)
    values = {}
    for name in LIVE_VARIABLES:
        value = env.get(name)
        if value is None or not value.strip():
            raise _missing(name, empty=value is not None)
        value = value.strip()
        values[name] = value
    base_url = values["CAFE_BASE_URL"].rstrip("/")
    if not base_url.startswith(("http://", "https://")):
        raise ConfigError(
            f"CAFE_BASE_URL is {base_url!r}, which is not an http(s) URL. "
            "It should look like `http://127.0.0.1:8000/v1` or `https://api.openai.com/v1`."
        )
    return LiveSettings(
        base_url=base_url, api_key=values["CAFE_API_KEY"], model=values["CAFE_MODEL"]
    )


def model_name(environ: Mapping[str, str] | None = None) -> str:
    """The model name runs should record: `CAFE_MODEL` live, `cafe-scripted` offline."""
    if course_mode(environ) == "live":
        return live_settings(environ).model
    return OFFLINE_MODEL


def max_tokens(environ: Mapping[str, str] | None = None) -> int:
    """The reply length live requests ask for: `CAFE_MAX_TOKENS`, else `DEFAULT_MAX_TOKENS`."""
    raw = _env(environ).get(MAX_TOKENS_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MAX_TOKENS
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(
            f"{MAX_TOKENS_VARIABLE} is {raw!r}; it must be a whole number of tokens of at "
            f"least 1, e.g. `export {MAX_TOKENS_VARIABLE}={DEFAULT_MAX_TOKENS}` (or unset it "
            f"for the default, {DEFAULT_MAX_TOKENS})."
        )
    return int(raw)
