"""Credentials inside a URL: the user and password before its host, and a query's `?api-key=...`.

A URL is the one place a credential has a place of its own, so it is read as a URL, not guessed
at: `display_url` shows a URL with its credentials as `***` wherever a URL is printed (the doctor,
an error about the endpoint), and `url_secrets` lists them, so that the redactor
(`cafe.endpoint.secrets.redaction`, which re-exports both) masks them by value wherever else they
turn up. Session 00 (`sessions/s00-setup/lesson.md`) says what the course promises about the key.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from cafe.endpoint.secrets.shapes import mask_shapes

__all__ = ["URL_SECRET_CHARS", "SECRET_QUERY_NAMES", "display_url", "url_secrets"]

# Credentials inside a URL (a password, a token as the user name, `?api-key=`) from this length.
URL_SECRET_CHARS = 4
# Query parameters whose value is a credential (compared lower-cased, `-` and `_` alike).
SECRET_QUERY_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "key",
        "token",
        "access_token",
        "auth",
        "sig",
        "signature",
        "password",
        "secret",
        "client_secret",
    }
)


def _secret_query(name: str) -> bool:
    return name.strip().lower().replace("-", "_") in SECRET_QUERY_NAMES


def display_url(url: str) -> str:
    """`url` as it may be shown: user and password become `***`, and so do the values of
    credential query parameters (`?api-key=***`). Text that is not a URL gets the shapes' masking."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a broken IPv6 literal, say: mask what looks like a credential
        return mask_shapes(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    fields = []
    for field in re.split(r"([&;])", parts.query) if parts.query else []:
        name, sep, value = field.partition("=")
        fields.append(f"{name}=***" if sep and value and _secret_query(name) else field)
    return urlunsplit((parts.scheme, netloc, parts.path, "".join(fields), parts.fragment))


def url_secrets(url: str) -> tuple[str, ...]:
    """The credentials written inside `url`: its user and password, and its credential query
    values, each at least `URL_SECRET_CHARS` long."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ()
    found = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        found += [userinfo, *userinfo.split(":", 1)]
    for field in re.split(r"[&;]", parts.query):
        name, sep, value = field.partition("=")
        if sep and _secret_query(name):
            found.append(value)
    return tuple(s for s in dict.fromkeys(found) if len(s) >= URL_SECRET_CHARS)
