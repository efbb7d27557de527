"""Every setting the course reads, checked where it enters: one validator per variable.

A value set by hand is the learner's input, and input is checked at the edge. Each validator
takes the raw text of one variable and returns the value the course uses, or raises one
`ConfigError` whose message is a single line: the variable, its value (a key masked, a URL with
its credentials masked), what is wrong with it, and a valid example to copy. Nothing malformed
gets as far as a client, a socket or a file, where it would turn into a traceback, or an error
that blames the endpoint for the learner's typo.

    COURSE_MODE      offline | live                      CAFE_MAX_TOKENS  1 to MAX_TOKENS_CEILING
    CAFE_BASE_URL    http(s)://host[:port]/path           CAFE_TIMEOUT_S   seconds, up to an hour
    CAFE_API_KEY     visible ASCII, no spaces             CAFE_HOME        a folder you can write to
    CAFE_MODEL       no control characters               CAFE_HEADLESS    1/true/yes/on or 0/false/no/off

`VARIABLES` holds what each one means and an example, for messages and for the doctor; where the
values come from (the environment, then `.env`) is `cafe.endpoint.settings.environment`. Session 00
(`sessions/s00-setup/lesson.md`) and `docs/doctor.md` list them.
"""

from __future__ import annotations

import ipaddress
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal
from urllib.parse import urlsplit

from cafe.endpoint.errors import ConfigError, shortened
from cafe.endpoint.secrets.redaction import display_url, mask_key

__all__ = [
    "Mode",
    "MODES",
    "Variable",
    "VARIABLES",
    "MAX_TOKENS_CEILING",
    "TIMEOUT_CEILING_S",
    "invalid",
    "parse_mode",
    "parse_base_url",
    "parse_api_key",
    "parse_model",
    "parse_max_tokens",
    "parse_timeout",
    "parse_home",
    "parse_headless",
]

Mode = Literal["offline", "live"]
MODES: tuple[Mode, ...] = ("offline", "live")

# The largest reply cap accepted: 131,072 tokens (128 Ki) is the longest context window of the
# widely served open models as of late 2026; a reply cannot be longer than the model's context.
MAX_TOKENS_CEILING = 131_072
# The longest deadline accepted for one call: an hour. A call that needs longer needs a smaller cap.
TIMEOUT_CEILING_S = 3600.0
# The longest key and model name accepted: far beyond any real one, short of a pasted file.
KEY_CHARS = 4096
MODEL_CHARS = 256
# The longest base URL accepted: 2,048 characters, what browsers and most servers take; real ones
# are under 100. The HTTP client refuses a URL over 65,536 with a traceback, past the doctor.
URL_CHARS = 2048
# Spellings CAFE_HEADLESS accepts, compared lower-cased.
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


@dataclass(frozen=True)
class Variable:
    """One setting: its name, what it is for, and an example value that is valid."""

    name: str
    meaning: str
    example: str


def _variables(*rows: Variable) -> Mapping[str, Variable]:
    return MappingProxyType({row.name: row for row in rows})


VARIABLES: Mapping[str, Variable] = _variables(
    Variable("COURSE_MODE", "offline (scripted answers) or live (your endpoint)", "live"),
    Variable("CAFE_BASE_URL", "the endpoint's base URL, ending in /v1", "http://127.0.0.1:8000/v1"),
    Variable(
        "CAFE_API_KEY", "the key the endpoint expects (any text for a local server)", "sk-..."
    ),
    Variable("CAFE_MODEL", "the model name, as the endpoint's /v1/models lists it", "gpt-4o-mini"),
    Variable("CAFE_MAX_TOKENS", "the longest reply a live call asks for, in tokens", "1024"),
    Variable("CAFE_TIMEOUT_S", "the seconds a live call may take in all", "120"),
    Variable("CAFE_HOME", "the folder holding your progress file", "~/.cafe"),
    Variable("CAFE_HEADLESS", "1 for plain text instead of widgets in notebooks", "1"),
)


def invalid(name: str, shown: str, problem: str) -> ConfigError:
    """The one-line error for variable `name` whose value (as it may be shown) is `shown`."""
    example = VARIABLES[name].example
    return ConfigError(
        f"{name} is {shown!r}: {problem}; e.g. `export {name}={example}` "
        f"(or the line {name}={example} in a .env file)."
    )


def _control(text: str) -> int | None:
    """The position of the first control or layout character in `text` (None when there is none)."""
    return next(
        (i for i, c in enumerate(text) if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")),
        None,
    )


def parse_mode(raw: str) -> Mode:
    """COURSE_MODE: empty means offline."""
    value = raw.strip().lower()
    if value in ("", "offline"):
        return "offline"
    if value == "live":
        return "live"
    raise ConfigError(
        f"COURSE_MODE is {raw.strip()!r}, but it must be one of: offline, live; unset it (or "
        "`export COURSE_MODE=offline`) for scripted runs, or `export COURSE_MODE=live` to use "
        "your own endpoint (or the line COURSE_MODE=live in a .env file)."
    )


def _host_problem(host: str) -> str | None:
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host.strip("[]").split("%", 1)[0])
        except ValueError:
            return f"the address {host} is not an IPv6 address"
        return None
    if unicodedata.normalize("NFKC", host) != host:  # full-width or stylised letters
        return f"the host {host!r} is not plain text; type it as e.g. localhost or 127.0.0.1"
    try:
        ascii_host = host.encode("idna").decode(
            "ascii"
        )  # a name in another script, spelled for DNS
    except UnicodeError:
        return f"the host {host!r} is not a name DNS can look up; type it as e.g. localhost"
    if not re.fullmatch(r"[A-Za-z0-9.-]+", ascii_host) or ".." in ascii_host:
        return f"the host {host!r} holds characters a host name cannot"
    return None


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be an endpoint's base URL (None when it can)."""
    if len(url) > URL_CHARS:
        return f"it is over {URL_CHARS:,} characters long"
    at = _control(url)
    if at is not None or any(c.isspace() for c in url):
        return "it holds a space or an invisible character"
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # "Invalid IPv6 URL"
        return f"it is not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not url.lower().startswith(parts.scheme + "://"):
        return "it must start with http:// or https://"
    host = parts.netloc.rsplit("@", 1)[-1]
    host = host.rsplit(":", 1)[0] if not host.endswith("]") and ":" in host else host
    if not host:
        return "it names no host"
    problem = _host_problem(host)
    if problem:
        return problem
    try:
        port = parts.port
    except ValueError:
        return "its port is not a number from 1 to 65535"
    if port == 0:
        return "its port is not a number from 1 to 65535"
    return None


def parse_base_url(raw: str) -> str:
    """CAFE_BASE_URL: an http(s) URL with a plain host and a valid port; the trailing / dropped."""
    url = raw.strip().rstrip("/")
    problem = _url_problem(url)
    if problem:
        raise invalid("CAFE_BASE_URL", shortened(display_url(url)), problem)
    return url


def parse_api_key(raw: str) -> str:
    """CAFE_API_KEY: visible ASCII characters only (it travels in an HTTP header), not too long."""
    key = raw.strip()
    bad = next((i for i, c in enumerate(key) if not "\x21" <= c <= "\x7e"), None)
    if bad is not None:
        raise invalid(
            "CAFE_API_KEY",
            mask_key(key),
            f"character {bad + 1} is a space, an invisible or a non-ASCII character, which an "
            "HTTP header cannot carry (was it pasted with a quote or a line break?)",
        )
    if len(key) > KEY_CHARS:
        raise invalid("CAFE_API_KEY", mask_key(key), f"it is over {KEY_CHARS} characters long")
    return key


def parse_model(raw: str) -> str:
    """CAFE_MODEL: a name without control characters, at most `MODEL_CHARS` long."""
    model = raw.strip()
    at = _control(model)
    if at is not None:
        raise invalid("CAFE_MODEL", model, f"character {at + 1} is a control character")
    if len(model) > MODEL_CHARS:
        raise invalid("CAFE_MODEL", model[:40] + "…", f"it is over {MODEL_CHARS} characters long")
    return model


def parse_max_tokens(raw: str) -> int:
    """CAFE_MAX_TOKENS: a whole number in the digits 0-9, from 1 to `MAX_TOKENS_CEILING`."""
    text = raw.strip()
    if not re.fullmatch(r"[0-9]{1,7}", text) or not 1 <= int(text) <= MAX_TOKENS_CEILING:
        raise invalid(
            "CAFE_MAX_TOKENS",
            text,
            f"it must be a whole number of tokens, written with the digits 0-9, from 1 to "
            f"{MAX_TOKENS_CEILING}",
        )
    return int(text)


def parse_timeout(raw: str) -> float:
    """CAFE_TIMEOUT_S: seconds, a number above 0 and at most `TIMEOUT_CEILING_S`."""
    text = raw.strip()
    if not re.fullmatch(r"[0-9]{1,5}(\.[0-9]{1,3})?", text) or not (
        0 < float(text) <= TIMEOUT_CEILING_S
    ):
        raise invalid(
            "CAFE_TIMEOUT_S",
            text,
            f"it must be a number of seconds above 0 and at most {TIMEOUT_CEILING_S:g}, written "
            "with the digits 0-9",
        )
    return float(text)


def parse_home(raw: str) -> Path:
    """CAFE_HOME: an absolute folder (after `~`), which is a folder if it exists, and writable."""
    text = raw.strip()
    try:
        folder = Path(text).expanduser()
    except RuntimeError:  # "~someone" who does not exist
        raise invalid("CAFE_HOME", text, "its ~ names no user this machine knows") from None
    if not folder.is_absolute():
        raise invalid("CAFE_HOME", shortened(text), "it must be a full path, from / (or ~) down")
    try:
        if folder.exists() and not folder.is_dir():
            raise invalid("CAFE_HOME", shortened(text), "that is a file, not a folder")
        existing = next((p for p in (folder, *folder.parents) if p.exists()), folder)
    except OSError as exc:  # a name too long for the system, a loop of links
        problem = f"the system cannot use it as a folder ({exc.strerror or exc})"
        raise invalid("CAFE_HOME", shortened(text), problem) from None
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise invalid("CAFE_HOME", shortened(text), f"{existing} is not a folder you can write to")
    return folder


def parse_headless(raw: str) -> bool:
    """CAFE_HEADLESS: 1/true/yes/on, or 0/false/no/off (empty is off)."""
    value = raw.strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise invalid(
        "CAFE_HEADLESS",
        raw.strip(),
        f"it must be one of {', '.join(sorted(TRUE_WORDS))} (plain text) or "
        f"{', '.join(sorted(FALSE_WORDS - {''}))}",
    )
